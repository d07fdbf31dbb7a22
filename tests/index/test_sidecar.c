/* test_sidecar.c — the sidecar's byte form: what is encoded decodes to the same index; every
 * single-byte corruption and every truncation is rejected; structurally bad content with a valid
 * checksum is rejected without undefined behaviour. `--write-corpus DIR` writes the fuzz seeds. */
#include "tb_test.h"
#include "sidecar_sample.h"
#include "sidecar_format.h"

#define SAMPLE_PATH "/data/experiment/sample.h5"

static tb_ix_identity_t
sample_id(void)
{
    tb_ix_identity_t id;
    memset(&id, 0, sizeof(id));
    id.dev      = 2049;
    id.ino      = 1234567;
    id.size     = 987654;
    id.mtime_ns = 1700000000123456789LL;
    id.ctime_ns = 1700000001987654321LL;
    id.eoa      = 987000;
    tb_sample_token(id.root_token, 0x1000);
    return id;
}

static void
encode_sample(uint32_t ngroups, uint32_t nper, void **buf, size_t *n)
{
    tb_ix_data_t     d;
    tb_ix_identity_t id = sample_id();
    tb_sample_build(&d, ngroups, nper);
    ASSERT(tb_sidecar_encode(&d, &id, SAMPLE_PATH, UINT64_MAX, buf, n) == TB_OK);
    tb_ix_data_clear(&d);
}

/* Round trip: every group, link and object info comes back. */
/* Links added to the partial lists of a decoded index (their records and strings in the decoded
 * bytes at first) and to a new one (no blocks): every link, old and new, is found by its name and
 * keeps its value, past the sizes where the blocks and the name table are rebuilt. */
static void
test_partial_growth(tb_ix_data_t *e)
{
    uint32_t grown = 0;
    tb_ix_group_t fresh = {.partial = 1, .owned = 1, .obj = 0};
    for (uint32_t g = 0; g <= e->ngroup; g++) {
        tb_ix_group_t *x = g < e->ngroup ? &e->groups[g] : &fresh;
        if (!x->partial)
            continue;
        uint32_t before = x->nlinks;
        char     names[300][12];
        for (uint32_t j = 0; j < 300; j++) {
            snprintf(names[j], sizeof(names[j]), "added%03u", j);
            tb_ix_link_t l = {.name = names[j], .name_len = 8, .type = (uint8_t)(j % 2), .obj = 0};
            if (j % 2) {
                l.val      = "/some/target";
                l.val_size = 13;
            }
            uint32_t k;
            ASSERT(tb_ix_group_add(x, &l, &k) == TB_OK && k == before + j);
            names[j][0] = 'A'; /* (the group keeps its own copy of the name) */
        }
        ASSERT_EQ(x->nlinks, before + 300);
        for (uint32_t k = 0; k < x->nlinks; k++) {
            const tb_ix_link_t *l = &x->links[k];
            ASSERT_EQ(tb_ix_link_find(x, l->name, l->name_len), k);
            if (k >= before) {
                ASSERT(memcmp(l->name, "added", 5) == 0 && l->name[8] == '\0');
                ASSERT(l->type == 0 || (l->val_size == 13 && strcmp(l->val, "/some/target") == 0));
            }
        }
        ASSERT_EQ(tb_ix_link_find(x, "added300", 8), TB_IX_NONE);
        grown++;
    }
    ASSERT(grown > 2);
    tb_ix_group_free(NULL, &fresh);
}

static void
test_roundtrip(void)
{
    tb_ix_data_t     d, e;
    tb_ix_identity_t id = sample_id(), got;
    void             *buf;
    size_t            n;
    tb_sample_build(&d, 12, 40);
    ASSERT(tb_sidecar_encode(&d, &id, SAMPLE_PATH, UINT64_MAX, &buf, &n) == TB_OK);
    memset(&e, 0, sizeof(e));
    ASSERT(tb_sidecar_decode(buf, n, &got, &e) == TB_OK);
    ASSERT(memcmp(&got, &id, sizeof(id)) == 0);
    /* The header alone says who the file is, where it was, and how much the sidecar holds. */
    tb_ix_identity_t pid;
    tb_sc_counts_t   have, want;
    uint64_t          total;
    const char       *path = NULL;
    ASSERT(tb_sidecar_peek(buf, SC_HDR, &pid, &have, &total, &path) == TB_OK && path == NULL);
    ASSERT(tb_sidecar_peek(buf, n, &pid, &have, &total, &path) == TB_OK);
    ASSERT(memcmp(&pid, &id, sizeof(id)) == 0 && total == n && path && strcmp(path, SAMPLE_PATH) == 0);
    tb_sidecar_counts(&d, &want);
    ASSERT(tb_sidecar_covers(&have, &want) && have.ngroup == d.ngroup && have.nlink == want.nlink);
    want.nattr++;
    ASSERT(!tb_sidecar_covers(&have, &want));
    ASSERT_EQ(e.ngroup, d.ngroup);
    uint32_t absent = 0;
    for (uint32_t g = 0; g < d.ngroup; g++) {
        const tb_ix_group_t *a = &d.groups[g];
        uint32_t              eo = tb_ix_obj_find(&e, d.objs[a->obj].token);
        ASSERT(eo != TB_IX_NONE);
        const tb_ix_group_t *b = &e.groups[e.objs[eo].group];
        ASSERT_EQ(a->nlinks, b->nlinks);
        ASSERT_EQ(a->partial, b->partial);
        ASSERT_EQ(a->storage_type, b->storage_type);
        ASSERT_EQ(a->max_corder, b->max_corder);
        for (uint32_t k = 0; k < a->nlinks; k++) {
            const tb_ix_link_t *x = &a->links[k], *y = &b->links[k];
            ASSERT(strcmp(x->name, y->name) == 0);
            ASSERT_EQ(x->type, y->type);
            ASSERT_EQ(x->absent, y->absent);
            absent += x->absent;
            ASSERT_EQ(x->corder, y->corder);
            ASSERT_EQ(x->corder_valid, y->corder_valid);
            if (x->absent)
                ASSERT_EQ(y->obj, TB_IX_NONE);
            else if (x->type == 0)
                ASSERT(memcmp(d.objs[x->obj].token, e.objs[y->obj].token, TB_IX_TOKEN_NBYTES) == 0);
            else {
                ASSERT_EQ(x->val_size, y->val_size);
                ASSERT(memcmp(x->val, y->val, x->val_size) == 0);
            }
            ASSERT_EQ(tb_ix_link_find(b, x->name, x->name_len), k);
        }
    }
    ASSERT(absent > 2);
    uint32_t with_info = 0;
    for (uint32_t k = 0; k < d.nobj; k++) {
        if (!d.objs[k].has_info)
            continue;
        with_info++;
        uint32_t eo = tb_ix_obj_find(&e, d.objs[k].token);
        ASSERT(eo != TB_IX_NONE);
        ASSERT_EQ(e.objs[eo].rc, d.objs[k].rc);
        ASSERT_EQ(e.objs[eo].type, d.objs[k].type);
        ASSERT_EQ(e.objs[eo].num_attrs, d.objs[k].num_attrs);
        ASSERT_EQ(e.objs[eo].mtime, d.objs[k].mtime);
    }
    ASSERT(with_info > 12);
    /* Native infos: each object's, field by field. */
    uint32_t with_ninfo = 0;
    for (uint32_t k = 0; k < d.nobj; k++) {
        uint32_t eo = tb_ix_obj_find(&e, d.objs[k].token);
        if (d.objs[k].ninfo == TB_IX_NONE) {
            ASSERT(eo == TB_IX_NONE || e.objs[eo].ninfo == TB_IX_NONE);
            continue;
        }
        with_ninfo++;
        ASSERT(eo != TB_IX_NONE && e.objs[eo].ninfo != TB_IX_NONE);
        ASSERT(memcmp(&e.ninfos[e.objs[eo].ninfo], &d.ninfos[d.objs[k].ninfo], offsetof(tb_ix_ninfo_t, have) + 1) == 0);
    }
    ASSERT(with_ninfo > 8 && e.nninfo == with_ninfo && have.nninfo == with_ninfo);
    ASSERT_EQ(e.nattr, d.nattr);
    uint32_t opened = 0;
    for (uint32_t k = 0; k < d.nobj; k++) {
        uint32_t eo = tb_ix_obj_find(&e, d.objs[k].token);
        if (eo != TB_IX_NONE)
            ASSERT_EQ(e.objs[eo].opened, d.objs[k].opened);
        opened += d.objs[k].opened;
    }
    ASSERT(opened > 2);
    uint32_t partial = 0, unordered = 0, absent_attrs = 0;
    for (uint32_t k = 0; k < d.nobj; k++) {
        if (!d.objs[k].attrs_loaded && !d.objs[k].attrs_partial)
            continue;
        uint32_t eo = tb_ix_obj_find(&e, d.objs[k].token);
        ASSERT(eo != TB_IX_NONE);
        ASSERT_EQ(e.objs[eo].attrs_loaded, d.objs[k].attrs_loaded);
        ASSERT_EQ(e.objs[eo].attrs_partial, d.objs[k].attrs_partial);
        ASSERT_EQ(e.objs[eo].attrs_unordered, d.objs[k].attrs_unordered);
        partial += d.objs[k].attrs_partial;
        unordered += d.objs[k].attrs_unordered;
        ASSERT_EQ(e.objs[eo].nattr, d.objs[k].nattr);
        ASSERT_EQ(e.objs[eo].attr_storage, d.objs[k].attr_storage);
        for (uint32_t j = 0; j < d.objs[k].nattr; j++) {
            const tb_ix_attr_t *x = &d.attrs[d.objs[k].attr_first + j], *y = &e.attrs[e.objs[eo].attr_first + j];
            ASSERT(strcmp(x->name, y->name) == 0);
            ASSERT_EQ(x->cached, y->cached);
            ASSERT_EQ(x->absent, y->absent);
            absent_attrs += x->absent;
            ASSERT_EQ(x->corder, y->corder);
            ASSERT_EQ(x->corder_valid, y->corder_valid);
            ASSERT_EQ(x->data_size, y->data_size);
            ASSERT_EQ(x->type_nbytes, y->type_nbytes);
            ASSERT_EQ(x->space_nbytes, y->space_nbytes);
            ASSERT_EQ(x->value_nbytes, y->value_nbytes);
            if (x->cached) {
                ASSERT(memcmp(x->type_enc, y->type_enc, x->type_nbytes) == 0);
                ASSERT(memcmp(x->space_enc, y->space_enc, x->space_nbytes) == 0);
                ASSERT(memcmp(x->value, y->value, x->value_nbytes) == 0);
            }
        }
    }
    ASSERT(partial > 0 && unordered > 0 && absent_attrs > 0);
    uint32_t cached = 0, records = 0;
    uint64_t cbytes = 0;
    for (uint32_t k = 0; k < d.nobj; k++) {
        if (!d.objs[k].dcache && d.objs[k].dset == TB_IX_NONE)
            continue;
        uint32_t eo = tb_ix_obj_find(&e, d.objs[k].token);
        ASSERT(eo != TB_IX_NONE);
        ASSERT_EQ(e.objs[eo].dcache, d.objs[k].dcache);
        ASSERT_EQ(e.objs[eo].dset == TB_IX_NONE, d.objs[k].dset == TB_IX_NONE);
        if (d.objs[k].dset == TB_IX_NONE)
            continue;
        records++;
        cached += d.objs[k].dcache == TB_IX_DC_CACHED;
        const tb_ix_dset_t *x = &d.dsets[d.objs[k].dset], *y = &e.dsets[e.objs[eo].dset];
        cbytes += sizeof(*x) + x->type_nbytes + x->space_nbytes + x->dcpl_nbytes + x->value_nbytes;
        ASSERT_EQ(x->have, y->have);
        ASSERT_EQ(x->layout, y->layout);
        ASSERT_EQ(x->storage_size, y->storage_size);
        ASSERT_EQ(x->space_status, y->space_status);
        ASSERT_EQ(x->type_nbytes, y->type_nbytes);
        ASSERT_EQ(x->space_nbytes, y->space_nbytes);
        ASSERT_EQ(x->dcpl_nbytes, y->dcpl_nbytes);
        ASSERT_EQ(x->value_nbytes, y->value_nbytes);
        ASSERT(!x->type_nbytes || memcmp(x->type_enc, y->type_enc, x->type_nbytes) == 0);
        ASSERT(!x->space_nbytes || memcmp(x->space_enc, y->space_enc, x->space_nbytes) == 0);
        ASSERT(!x->dcpl_nbytes || memcmp(x->dcpl_enc, y->dcpl_enc, x->dcpl_nbytes) == 0);
        ASSERT(!x->value_nbytes || memcmp(x->value, y->value, x->value_nbytes) == 0);
    }
    ASSERT(cached > 3 && records > cached);
    ASSERT_EQ(e.ndset, records);
    ASSERT_EQ(e.dset_nbytes, cbytes); /* what the decoder counts against the budget */
    test_partial_growth(&e);
    tb_ix_data_clear(&e);
    tb_ix_data_clear(&d);
    free(buf);
}

/* The caches' dataspace form: what is accepted, with how many elements. */
static void
test_space_form(void)
{
    uint8_t  b[8 + 16 * 3];
    uint64_t np = 99, dims[3] = {2, 3, 4}, max[3] = {2, UINT64_MAX, 5};
    memset(b, 0, sizeof(b));
    ASSERT(tb_ix_space_check(b, 8, &np) == 0 && np == 0); /* null */
    b[0] = 1;
    ASSERT(tb_ix_space_check(b, 8, &np) == 0 && np == 1); /* scalar */
    ASSERT(tb_ix_space_check(b, 7, &np) < 0);
    b[0] = 2;
    b[1] = 3;
    memcpy(b + 8, dims, sizeof(dims));
    memcpy(b + 32, max, sizeof(max));
    ASSERT(tb_ix_space_check(b, sizeof(b), &np) == 0 && np == 24);
    ASSERT(tb_ix_space_check(b, sizeof(b) - 1, &np) < 0);
    b[5] = 1; /* reserved bytes must be zero */
    ASSERT(tb_ix_space_check(b, sizeof(b), &np) < 0);
    b[5] = 0;
    max[2] = 3; /* current above maximum */
    memcpy(b + 32, max, sizeof(max));
    ASSERT(tb_ix_space_check(b, sizeof(b), &np) < 0);
    b[1] = 0; /* simple with rank 0 */
    ASSERT(tb_ix_space_check(b, 8, &np) < 0);
    b[0] = 3;
    ASSERT(tb_ix_space_check(b, 8, &np) < 0);
    /* Elements times the declared type size must make the value's size. */
    static const uint8_t t4[] = {3, 1, 0x10, 0, 0, 0, 4, 0, 0, 0};
    uint8_t              sc[8] = {1};
    ASSERT(tb_ix_type_nbytes(t4, sizeof(t4)) == 4 && tb_ix_type_nbytes(t4, 9) == 0);
    uint8_t              v8[8] = {0};
    ASSERT(tb_ix_value_consistent(t4, sizeof(t4), sc, 8, v8, 4));
    ASSERT(!tb_ix_value_consistent(t4, sizeof(t4), sc, 8, v8, 8));
    ASSERT(!tb_ix_value_consistent(t4, 9, sc, 8, v8, 4));
    /* A variable-length string's value: per element its length (8 bytes) and bytes without a NUL,
     * or the null marker; exactly the elements of the space. */
    static const uint8_t vs[] = {3, 1, 0x19, 0x01, 0, 0, 8, 0, 0, 0};
    ASSERT(tb_ix_type_is_vstr(vs, sizeof(vs)) && !tb_ix_type_is_vstr(t4, sizeof(t4)));
    uint8_t  str[11];
    uint64_t len = 3;
    memcpy(str, &len, 8);
    memcpy(str + 8, "abc", 3);
    ASSERT(tb_ix_value_consistent(vs, sizeof(vs), sc, 8, str, 11));
    ASSERT(!tb_ix_value_consistent(vs, sizeof(vs), sc, 8, str, 10)); /* cut short */
    ASSERT(!tb_ix_vstr_check(str, 11, 2));                            /* one element missing */
    str[9] = 0;
    ASSERT(!tb_ix_value_consistent(vs, sizeof(vs), sc, 8, str, 11)); /* a NUL inside */
    len = TB_IX_VSTR_NULL;
    memcpy(str, &len, 8);
    ASSERT(tb_ix_value_consistent(vs, sizeof(vs), sc, 8, str, 8));
    ASSERT(!tb_ix_value_consistent(vs, sizeof(vs), sc, 8, str, 11)); /* bytes left over */
    /* A sequence of object references' value (DIMENSION_LIST): per element its count (8 bytes)
     * and that many 8-byte addresses; exactly the elements of the space. Its type is
     * H5Tvlen_create(H5T_STD_REF_OBJ)'s form, no other sequence's. */
    static const uint8_t vr[] = {3, 0, 0x19, 0, 0, 0, 0x10, 0, 0, 0, 0x17, 0, 0, 0, 8, 0, 0, 0};
    uint8_t              vr2[sizeof(vr)];
    memcpy(vr2, vr, sizeof(vr));
    vr2[11] = 1; /* (a sequence of region references) */
    ASSERT(tb_ix_type_is_vref(vr, sizeof(vr)) && !tb_ix_type_is_vref(vr2, sizeof(vr2)) &&
           !tb_ix_type_is_vref(vs, sizeof(vs)) && !tb_ix_type_is_vstr(vr, sizeof(vr)));
    ASSERT(tb_ix_type_is_seq_value(vr, sizeof(vr)) && tb_ix_type_is_seq_value(vs, sizeof(vs)) &&
           !tb_ix_type_is_seq_value(t4, sizeof(t4)));
    uint8_t  refs[8 + 16 + 8];
    uint64_t count = 2, addr = 0x1234, none = 0;
    memcpy(refs, &count, 8);
    memcpy(refs + 8, &addr, 8);
    memcpy(refs + 16, &addr, 8);
    memcpy(refs + 24, &none, 8); /* (a second, empty sequence) */
    uint8_t s2[8 + 16] = {2, 1};
    uint64_t two = 2;
    memcpy(s2 + 8, &two, 8);
    memcpy(s2 + 16, &two, 8);
    ASSERT(tb_ix_value_consistent(vr, sizeof(vr), s2, sizeof(s2), refs, 32));
    ASSERT(tb_ix_value_consistent(vr, sizeof(vr), sc, 8, refs, 24));   /* one element */
    ASSERT(!tb_ix_value_consistent(vr, sizeof(vr), s2, sizeof(s2), refs, 24)); /* one element missing */
    ASSERT(!tb_ix_value_consistent(vr, sizeof(vr), sc, 8, refs, 23));  /* cut short */
    ASSERT(!tb_ix_value_consistent(vr, sizeof(vr), sc, 8, refs, 32));  /* bytes left over */
    count = UINT64_MAX / 4; /* (a count whose bytes would wrap) */
    memcpy(refs, &count, 8);
    ASSERT(!tb_ix_vref_check(refs, 32, 1));
}

/* Any flipped byte fails the checksum (or the header checks); any truncation is rejected. */
static void
test_corruption(void)
{
    void  *buf;
    size_t n;
    encode_sample(3, 7, &buf, &n);
    uint8_t *b = buf;
    for (size_t i = 0; i < n; i++) {
        for (int bit = 0; bit < 8; bit += 3) {
            b[i] ^= (uint8_t)(1u << bit);
            tb_ix_data_t e;
            memset(&e, 0, sizeof(e));
            ASSERT(tb_sidecar_decode(b, n, NULL, &e) < 0);
            b[i] ^= (uint8_t)(1u << bit);
        }
    }
    for (size_t len = 0; len < n; len++)
        ASSERT(tb_sidecar_decode(b, len, NULL, NULL) < 0);
    ASSERT(tb_sidecar_decode(b, n, NULL, NULL) == TB_OK);
    ASSERT(tb_sidecar_decode(NULL, 0, NULL, NULL) < 0);
    free(buf);
}

/* A sidecar x of n bytes (malloc'd, freed here), changed by the caller and resealed here, must
 * not decode. */
static void
assert_rejected(uint8_t *x, size_t n)
{
    uint64_t sum = tb_sidecar_checksum(x, n - SC_TRAILER);
    memcpy(x + n - SC_TRAILER, &sum, 8);
    tb_ix_data_t e;
    memset(&e, 0, sizeof(e));
    ASSERT(tb_sidecar_decode(x, n, NULL, &e) < 0);
    tb_ix_data_clear(&e);
    free(x);
}

/* Checksummed but inconsistent content: every field of the header and of the first record of
 * each kind set to values that point outside, overflow or contradict; the decoder rejects most
 * and never misbehaves (the sanitizer build runs this too). */
static void
test_bad_structure(void)
{
    void  *buf;
    size_t n;
    encode_sample(4, 9, &buf, &n);
    uint8_t        *b = buf;
    tb_sc_counts_t c;
    ASSERT(tb_sidecar_peek(b, n, NULL, &c, NULL, NULL) == TB_OK);
    /* Where the first record of each kind starts, from the header's counts. */
    uint64_t start[SC_NRECORDS], at = SC_HDR + sc_path_section(SC_GET(b, HDR, PATH_NBYTES));
    uint64_t count[SC_NRECORDS] = {1, c.nobj, c.ngroup, c.nlink, c.nattr, c.ndset, c.nninfo};
    start[SC_REC_HDR]           = 0;
    for (int k = SC_REC_OBJ; k < SC_NRECORDS; k++) {
        start[k] = at;
        at += count[k] * sc_records[k].nbytes;
    }
    static const uint64_t vals[] = {0, 1, 2, 0xFFFFFFFFu, 0x7FFFFFFFu, 3, 200, UINT64_MAX};
    int                   reject = 0, tried = 0;
    for (int k = 0; k < SC_NRECORDS; k++) {
        if (!count[k])
            continue;
        for (uint32_t fi = 0; fi < sc_records[k].nfields; fi++) {
            const sc_field_t *f = &sc_records[k].fields[fi];
            if (f->size > 8 || (k == SC_REC_HDR && (fi == HDR_TOTAL || fi == HDR_MAGIC)))
                continue; /* opaque bytes, and the fields the header checks before the checksum */
            for (size_t v = 0; v < sizeof(vals) / sizeof(vals[0]); v++) {
                uint8_t *x = malloc(n);
                memcpy(x, b, n);
                sc_put(x + start[k], f, vals[v]);
                uint64_t sum = tb_sidecar_checksum(x, n - SC_TRAILER);
                memcpy(x + n - SC_TRAILER, &sum, 8);
                tb_ix_data_t e;
                memset(&e, 0, sizeof(e));
                if (tb_sidecar_decode(x, n, NULL, &e) < 0)
                    reject++;
                tried++;
                tb_ix_data_clear(&e);
                free(x);
            }
        }
    }
    ASSERT(reject > tried / 3);
    /* An object's attribute list both whole and partial, or out of native order without being
     * whole: contradictions the decoder rejects (the sample's first object has a partial list). */
    static const uint64_t bad_attrs[] = {1u | SC_ATTRS_PARTIAL, SC_ATTRS_UNORDERED, SC_ATTRS_PARTIAL | SC_ATTRS_UNORDERED};
    ASSERT(sc_get(b + start[SC_REC_OBJ], &sc_obj_fields[OBJ_ATTRS_LOADED]) == SC_ATTRS_PARTIAL);
    /* Nor may anything but a dataset with its info be marked as opened natively (the sample's
     * first object is a group). */
    ASSERT(sc_get(b + start[SC_REC_OBJ], &sc_obj_fields[OBJ_TYPE]) == 0);
    for (size_t v = 0; v < sizeof(bad_attrs) / sizeof(bad_attrs[0]) + 2; v++) {
        uint8_t *x = malloc(n);
        memcpy(x, b, n);
        if (v < sizeof(bad_attrs) / sizeof(bad_attrs[0]))
            sc_put(x + start[SC_REC_OBJ], &sc_obj_fields[OBJ_ATTRS_LOADED], bad_attrs[v]);
        else
            sc_put(x + start[SC_REC_OBJ], &sc_obj_fields[OBJ_HAS_INFO], v % 2 ? 1u | SC_OBJ_OPENED : SC_OBJ_OPENED);
        assert_rejected(x, n);
    }
    /* A name kept as absent in a whole group's list (the sample's first group) or with a target
     * (the fourth group's third link: its list is partial), and two groups' runs of links
     * overlapping: rejected. */
    const uint8_t *g3 = b + start[SC_REC_GRP] + 3 * SC_GRP;
    ASSERT(sc_get(g3, &sc_grp_fields[GRP_PARTIAL]) == 1);
    uint8_t *absent3 = b + start[SC_REC_LNK] + (sc_get(g3, &sc_grp_fields[GRP_LINK_FIRST]) + 2) * SC_LNK;
    ASSERT(sc_get(absent3, &sc_lnk_fields[LNK_ABSENT]) == 1);
    for (int v = 0; v < 3; v++) {
        uint8_t *x = malloc(n);
        memcpy(x, b, n);
        if (v == 0)
            sc_put(x + start[SC_REC_LNK], &sc_lnk_fields[LNK_ABSENT], 1);
        else if (v == 1)
            x[(absent3 - b) + sc_lnk_fields[LNK_TOKEN].off] = 1;
        else
            sc_put(x + start[SC_REC_GRP] + SC_GRP, &sc_grp_fields[GRP_LINK_FIRST], 0);
        assert_rejected(x, n);
    }
    /* An attribute name kept as absent with anything else claimed, or in a whole list (the first
     * record of the first whole list made to look like an absent one), and two objects' runs of
     * attribute records out of the order they are written in: rejected. */
    const uint8_t *atrs = b + start[SC_REC_ATR], *objs = b + start[SC_REC_OBJ];
    uint64_t       nattr = sc_get(b, &sc_hdr_fields[HDR_NATTR]), nobj = sc_get(b, &sc_hdr_fields[HDR_NOBJ]);
    uint64_t       absent_at = nattr, whole_obj = nobj, second_obj = nobj;
    for (uint64_t k = 0; k < nattr && absent_at == nattr; k++)
        if (sc_get(atrs + k * SC_ATR, &sc_atr_fields[ATR_ABSENT]))
            absent_at = k;
    for (uint64_t k = 0, runs = 0; k < nobj; k++) {
        if (sc_get(objs + k * SC_OBJ, &sc_obj_fields[OBJ_NATTR]) == 0)
            continue;
        if (whole_obj == nobj && (sc_get(objs + k * SC_OBJ, &sc_obj_fields[OBJ_ATTRS_LOADED]) & 1u))
            whole_obj = k;
        if (++runs == 2)
            second_obj = k;
    }
    ASSERT(absent_at < nattr && whole_obj < nobj && second_obj < nobj);
    for (int v = 0; v < 4; v++) {
        uint8_t *x = malloc(n);
        memcpy(x, b, n);
        if (v < 2) /* (data_size known, or a creation order) */
            sc_put(x + start[SC_REC_ATR] + absent_at * SC_ATR, &sc_atr_fields[v ? ATR_CORDER_VALID : ATR_DATA_SIZE], v ? 1 : 7);
        else if (v == 2) {
            uint8_t *a = x + start[SC_REC_ATR] + sc_get(objs + whole_obj * SC_OBJ, &sc_obj_fields[OBJ_ATTR_FIRST]) * SC_ATR;
            for (int f = ATR_CSET; f < ATR_NFIELDS; f++)
                sc_put(a, &sc_atr_fields[f], f == ATR_DATA_SIZE ? TB_IX_NONE : f == ATR_ABSENT);
        }
        else
            sc_put(x + start[SC_REC_OBJ] + second_obj * SC_OBJ, &sc_obj_fields[OBJ_ATTR_FIRST], 0);
        assert_rejected(x, n);
    }
    free(buf);
}

/* The field tables describe the records exactly: in order, inside the record, no overlaps. */
static void
test_layout_tables(void)
{
    static const uint32_t sizes[SC_NRECORDS] = {SC_HDR, SC_OBJ, SC_GRP, SC_LNK, SC_ATR, SC_DST, SC_NIN};
    for (int k = 0; k < SC_NRECORDS; k++) {
        const sc_record_t *r = &sc_records[k];
        ASSERT_EQ(r->nbytes, sizes[k]);
        uint32_t end = 0;
        for (uint32_t i = 0; i < r->nfields; i++) {
            const sc_field_t *f = &r->fields[i];
            ASSERT(f->name && f->meaning && f->size > 0);
            ASSERT(f->off >= end && (uint32_t)f->off + f->size <= r->nbytes);
            ASSERT(f->size > 8 || f->off % f->size == 0);
            end = (uint32_t)f->off + f->size;
        }
    }
    ASSERT_EQ(sc_hdr_fields[HDR_RESERVED].off + sc_hdr_fields[HDR_RESERVED].size, SC_HDR);
}

/* `--layout`: the tables as Markdown (the README's sidecar section is made from this). */
static void
print_layout(void)
{
    for (int k = 0; k < SC_NRECORDS; k++) {
        const sc_record_t *r = &sc_records[k];
        printf("%s%s record, %u bytes (%s):\n\n| offset | size | field | meaning |\n|---|---|---|---|\n", k ? "\n" : "",
               r->name, r->nbytes, r->meaning);
        for (uint32_t i = 0; i < r->nfields; i++)
            printf("| %u | %u | `%s` | %s |\n", r->fields[i].off, r->fields[i].size, r->fields[i].name,
                   r->fields[i].meaning);
    }
}

static void
write_corpus(const char *dir)
{
    static const uint32_t shapes[][2] = {{0, 0}, {1, 1}, {2, 5}, {3, 7}, {6, 12}};
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        void  *buf;
        size_t n;
        char   path[4096];
        encode_sample(shapes[i][0], shapes[i][1], &buf, &n);
        snprintf(path, sizeof(path), "%s/sample_%zu.sidecar", dir, i);
        FILE *fp = fopen(path, "wb");
        ASSERT(fp && fwrite(buf, 1, n, fp) == n);
        fclose(fp);
        free(buf);
    }
}

int
main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--layout") == 0) {
        print_layout();
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--write-corpus") == 0) {
        write_corpus(argv[2]);
        return 0;
    }
    test_roundtrip();
    test_corruption();
    test_bad_structure();
    test_layout_tables();
    test_space_form();
    printf("ok: sidecar round trip, corruption, structure and dataspace-form checks\n");
    return 0;
}
