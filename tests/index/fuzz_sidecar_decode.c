/* fuzz_sidecar_decode.c — libFuzzer target for the sidecar decoder (untrusted bytes from disk).
 * Each input is decoded as is, then again with its checksum recomputed so that the fuzzer reaches
 * the structural checks; whatever decodes is walked (every lookup) to catch bad pointers, its partial
 * link lists grown by a link, and walked again. The
 * same function is replayed over tests/index/corpus by fuzz_replay.c in every build. */
#include "index_model.h"
#include "sidecar_format.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Where walk() leaves its sum, so that the reads are not optimised away. */
volatile size_t tb_fuzz_sink;

static void
walk(const tb_ix_data_t *d)
{
    size_t sum = 0;
    for (uint32_t g = 0; g < d->ngroup; g++) {
        const tb_ix_group_t *x = &d->groups[g];
        for (uint32_t k = 0; k < x->nlinks; k++) {
            const tb_ix_link_t *l = &x->links[k];
            sum += strlen(l->name) + tb_ix_link_find(x, l->name, l->name_len);
            if (l->type != 0 && l->val_size)
                sum += ((const uint8_t *)l->val)[l->val_size - 1];
        }
        sum += tb_ix_obj_find(d, d->objs[x->obj].token);
    }
    for (uint32_t k = 0; k < d->nobj; k++) {
        const tb_ix_obj_t *r = &d->objs[k];
        for (uint32_t j = 0; j < r->nattr; j++) {
            const tb_ix_attr_t *a = &d->attrs[r->attr_first + j];
            sum += strlen(a->name);
            if (a->cached) {
                sum += ((const uint8_t *)a->type_enc)[a->type_nbytes - 1] +
                       ((const uint8_t *)a->space_enc)[a->space_nbytes - 1];
                if (a->value_nbytes)
                    sum += ((const uint8_t *)a->value)[a->value_nbytes - 1];
            }
        }
    }
    for (uint32_t k = 0; k < d->nobj; k++) {
        const tb_ix_obj_t *r = &d->objs[k];
        if (r->dcache != TB_IX_DC_CACHED)
            continue;
        const tb_ix_dset_t *x = &d->dsets[r->dset];
        uint64_t             npoints = 0;
        sum += ((const uint8_t *)x->type_enc)[x->type_nbytes - 1] + ((const uint8_t *)x->value)[x->value_nbytes - 1];
        sum += (size_t)(tb_ix_space_check(x->space_enc, x->space_nbytes, &npoints) == 0) + (size_t)npoints;
    }
    tb_fuzz_sink = sum;
}

/* A link added to each partial list, as a run adds what native finds (its records and strings
 * then move out of the decoded bytes), and found again. */
static void
grow_partial(tb_ix_data_t *d)
{
    size_t sum = 0;
    for (uint32_t g = 0; g < d->ngroup; g++) {
        tb_ix_group_t *x = &d->groups[g];
        if (!x->partial)
            continue;
        tb_ix_link_t l = {.name = "fuzz_added", .name_len = 10, .type = 1, .val = "target", .val_size = 7,
                          .obj = TB_IX_NONE};
        uint32_t      k;
        if (tb_ix_group_add(x, &l, &k) == TB_OK)
            sum += tb_ix_link_find(x, "fuzz_added", 10) + k;
    }
    tb_fuzz_sink += sum;
}

static void
one(const uint8_t *buf, size_t n)
{
    tb_ix_data_t     d;
    tb_ix_identity_t id;
    memset(&d, 0, sizeof(d));
    if (tb_sidecar_decode(buf, n, &id, &d) == TB_OK) {
        walk(&d);
        grow_partial(&d);
        walk(&d);
    }
    tb_ix_data_clear(&d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > ((size_t)8 << 20))
        return 0;
    one(data, size);
    if (size >= 136) {
        uint8_t *c = malloc(size);
        if (!c)
            return 0;
        memcpy(c, data, size);
        uint64_t v = (uint64_t)size;
        SC_PUT(c, HDR, TOTAL, v); /* the size field too, or nearly every mutation stops there */
        uint64_t sum = tb_sidecar_checksum(c, size - SC_TRAILER);
        memcpy(c + size - SC_TRAILER, &sum, 8);
        one(c, size);
        free(c);
    }
    return 0;
}
