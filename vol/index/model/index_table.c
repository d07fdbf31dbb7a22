/* index_table.c — the index's hash tables (objects by token, links by name), their growth and
 * release, and the checks of the caches' encoded dataspaces. Pure C on the data model of
 * index_model.h, no HDF5: the sidecar decoder and its fuzz target use them as they are. */
#include "index_model.h"

#include <stdlib.h>
#include <string.h>

uint64_t tb_ix_data_nbytes;

/* What a 400,000-object file costs is mostly these two records, one per object and per link. */
_Static_assert(sizeof(tb_ix_obj_t) == 88, "object record grew");
_Static_assert(sizeof(tb_ix_link_t) == 40, "link record grew");

uint32_t
tb_ix_hash_name(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

uint32_t
tb_ix_obj_find(const tb_ix_data_t *d, const uint8_t *token)
{
    if (!d->oht)
        return TB_IX_NONE;
    uint32_t h = tb_hash_token(token);
    for (uint32_t i = h & d->oht_mask;; i = (i + 1) & d->oht_mask) {
        uint32_t v = d->oht[i].v;
        if (!v)
            return TB_IX_NONE;
        if (d->oht[i].h == h && memcmp(d->objs[v - 1].token, token, TB_IX_TOKEN_NBYTES) == 0)
            return v - 1;
    }
}

tb_status_t
tb_ix_rehash_objs(tb_ix_data_t *d)
{
    uint32_t cap = 16;
    while ((uint64_t)cap * 3 <= (uint64_t)d->nobj * 4 + 4)
        cap *= 2;
    /* (Built from the records: the decoder's. Growth rebuilds from the slots: grow_oht. The table
     * is never in a spill: its probes land anywhere in it; the slots keep the hashes, so that a
     * probe reads a record only when it is most likely the one sought.) */
    tb_ix_oslot_t *ht = calloc(cap, sizeof(*ht));
    if (!ht)
        return TB_ERR_NOMEM;
    for (uint32_t k = 0; k < d->nobj; k++) {
        uint32_t h = tb_hash_token(d->objs[k].token), i = h & (cap - 1);
        for (; ht[i].v; i = (i + 1) & (cap - 1))
            if (ht[i].h == h && memcmp(d->objs[ht[i].v - 1].token, d->objs[k].token, TB_IX_TOKEN_NBYTES) == 0) {
                free(ht);
                return TB_ERR_CORRUPT; /* (two records of one object: look-ups would be ambiguous) */
            }
        ht[i] = (tb_ix_oslot_t){k + 1, h};
    }
    free(d->oht);
    d->oht      = ht;
    d->oht_mask = cap - 1;
    return TB_OK;
}

tb_status_t
tb_ix_reserve(void *arr, uint32_t *cap, uint64_t need, size_t elem_nbytes, uint32_t first_cap, void **arr_out)
{
    return tb_ix_spill_reserve(NULL, 0, arr, cap, need, elem_nbytes, first_cap, arr_out);
}

/* The token lookup at twice its size (16 slots when there is none), rebuilt from its own slots:
 * no record is read (in a spill, a walk of them all would bring their pages back). */
static tb_status_t
grow_oht(tb_ix_data_t *d)
{
    uint32_t       cap = d->oht ? (d->oht_mask + 1) * 2 : 16;
    tb_ix_oslot_t *ht  = cap ? calloc(cap, sizeof(*ht)) : NULL;
    if (!ht)
        return TB_ERR_NOMEM;
    for (uint32_t j = 0; d->oht && j <= d->oht_mask; j++)
        if (d->oht[j].v) {
            uint32_t i = d->oht[j].h & (cap - 1);
            while (ht[i].v)
                i = (i + 1) & (cap - 1);
            ht[i] = d->oht[j];
        }
    free(d->oht);
    d->oht      = ht;
    d->oht_mask = cap - 1;
    return TB_OK;
}

tb_status_t
tb_ix_obj_insert(tb_ix_data_t *d, const uint8_t *token, uint32_t *k_out)
{
    void       *objs;
    tb_status_t st = tb_ix_spill_reserve(d->spill, TB_IX_LANE_OBJS, d->objs, &d->objcap, (uint64_t)d->nobj + 1, sizeof(*d->objs), 64, &objs);
    if (st != TB_OK)
        return st;
    d->objs = objs;
    uint32_t k = d->nobj++;
    memset(&d->objs[k], 0, sizeof(d->objs[k]));
    memcpy(d->objs[k].token, token, TB_IX_TOKEN_NBYTES);
    d->objs[k].group = TB_IX_NONE;
    d->objs[k].dset  = TB_IX_NONE;
    d->objs[k].ninfo = TB_IX_NONE;
    /* Keep the table at most three quarters full. */
    if ((!d->oht || (uint64_t)d->nobj * 4 > ((uint64_t)d->oht_mask + 1) * 3) && (st = grow_oht(d)) != TB_OK) {
        d->nobj--;
        return st;
    }
    uint32_t h = tb_hash_token(token), i = h & d->oht_mask;
    while (d->oht[i].v)
        i = (i + 1) & d->oht_mask;
    d->oht[i] = (tb_ix_oslot_t){k + 1, h};
    *k_out    = k;
    return TB_OK;
}

/* Groups this small are searched linearly: a table would cost more than it saves. */
#define TB_IX_SMALL_GROUP 8

uint32_t
tb_ix_link_find(const tb_ix_group_t *g, const char *name, size_t len)
{
    if (!g->ht) {
        for (uint32_t k = 0; k < g->nlinks; k++)
            if (g->links[k].name_len == len && memcmp(g->links[k].name, name, len) == 0)
                return k;
        return TB_IX_NONE;
    }
    for (uint32_t i = tb_ix_hash_name(name, len) & g->ht_mask;; i = (i + 1) & g->ht_mask) {
        uint32_t v = g->ht[i];
        if (!v)
            return TB_IX_NONE;
        const tb_ix_link_t *l = &g->links[v - 1];
        if (l->name_len == len && memcmp(l->name, name, len) == 0)
            return v - 1;
    }
}

tb_status_t
tb_ix_group_finish(tb_ix_group_t *g)
{
    if (g->nlinks <= TB_IX_SMALL_GROUP)
        return TB_OK;
    uint32_t cap = 16;
    while (cap < (uint64_t)g->nlinks * 2)
        cap *= 2;
    if (!(g->ht = calloc(cap, sizeof(*g->ht))))
        return TB_ERR_NOMEM;
    g->ht_mask = cap - 1;
    for (uint32_t k = 0; k < g->nlinks; k++) {
        uint32_t i = tb_ix_hash_name(g->links[k].name, g->links[k].name_len) & g->ht_mask;
        while (g->ht[i])
            i = (i + 1) & g->ht_mask;
        g->ht[i] = k + 1;
    }
    return TB_OK;
}

/* String bytes of link l in a group's blob: its name and NUL, and a soft or user-defined link's
 * value. */
static size_t
link_blob_nbytes(const tb_ix_link_t *l)
{
    return (size_t)l->name_len + 1u + (l->type != 0 /* (H5L_TYPE_HARD) */ ? l->val_size : 0u);
}

/* Copies l's name (and value) into blob at *at, pointing l at the copies. */
static void
link_blob_put(tb_ix_link_t *l, char *blob, uint32_t *at)
{
    char *p = blob + *at;
    memcpy(p, l->name, l->name_len);
    p[l->name_len] = '\0';
    l->name        = p;
    if (l->type != 0 /* (H5L_TYPE_HARD) */) {
        if (l->val_size)
            memcpy(p + l->name_len + 1, l->val, l->val_size);
        l->val = p + l->name_len + 1;
    }
    *at += (uint32_t)link_blob_nbytes(l);
}

tb_status_t
tb_ix_group_add(tb_ix_group_t *g, const tb_ix_link_t *l, uint32_t *k_out)
{
    uint64_t need = link_blob_nbytes(l);
    if (!g->owned || g->nlinks == g->link_cap || g->blob_len + need > g->blob_cap) {
        /* Records and strings moved into blocks of twice what they need (from a sidecar's, the
         * first time). */
        uint64_t len = need;
        for (uint32_t k = 0; k < g->nlinks; k++)
            len += link_blob_nbytes(&g->links[k]);
        uint64_t ncap = 2 * ((uint64_t)g->nlinks + 1), bcap = 2 * len < 64 ? 64 : 2 * len;
        if (ncap >= TB_IX_NONE || bcap >= UINT32_MAX)
            return TB_ERR_NOMEM;
        tb_ix_link_t *links = malloc((size_t)ncap * sizeof(*links));
        char         *blob  = malloc((size_t)bcap);
        if (!links || !blob) {
            free(links);
            free(blob);
            return TB_ERR_NOMEM;
        }
        uint32_t at = 0;
        for (uint32_t k = 0; k < g->nlinks; k++) {
            links[k] = g->links[k];
            link_blob_put(&links[k], blob, &at);
        }
        if (g->owned) {
            free(g->links);
            free(g->blob);
        }
        g->links    = links;
        g->blob     = blob;
        g->owned    = 1;
        g->link_cap = (uint32_t)ncap;
        g->blob_len = at;
        g->blob_cap = (uint32_t)bcap;
    }
    uint32_t k  = g->nlinks;
    g->links[k] = *l;
    link_blob_put(&g->links[k], g->blob, &g->blob_len);
    /* Its lookup table: one more slot taken, or rebuilt at twice the links (no permutation is ever
     * built for a partial list; dropped all the same). */
    free(g->by_name);
    free(g->by_corder);
    g->by_name = g->by_corder = NULL;
    g->nlinks                 = k + 1;
    if (g->ht && (uint64_t)g->nlinks * 2 <= (uint64_t)g->ht_mask + 1) {
        uint32_t i = tb_ix_hash_name(g->links[k].name, g->links[k].name_len) & g->ht_mask;
        while (g->ht[i])
            i = (i + 1) & g->ht_mask;
        g->ht[i] = k + 1;
    }
    else if (g->nlinks > TB_IX_SMALL_GROUP) {
        uint32_t *old = g->ht;
        g->ht         = NULL;
        if (tb_ix_group_finish(g) != TB_OK) {
            g->ht     = old; /* (still right for the links before this one) */
            g->nlinks = k;
            return TB_ERR_NOMEM;
        }
        free(old);
    }
    *k_out = k;
    return TB_OK;
}

void
tb_ix_group_free(tb_ix_spill_t *s, tb_ix_group_t *g)
{
    free(g->ht);
    free(g->by_name);
    free(g->by_corder);
    if (g->owned) {
        tb_ix_spill_part_free(s, g->links);
        tb_ix_spill_part_free(s, g->blob);
    }
}

void
tb_ix_dset_parts_free(tb_ix_spill_t *s, tb_ix_dset_t *x)
{
    if (x->owned & TB_IX_DS_TYPE)
        tb_ix_spill_part_free(s, (void *)x->type_enc);
    if (x->owned & TB_IX_DS_SPACE)
        tb_ix_spill_part_free(s, (void *)x->space_enc);
    if (x->owned & TB_IX_DS_DCPL)
        tb_ix_spill_part_free(s, (void *)x->dcpl_enc);
    if (x->owned & TB_IX_DS_VALUE)
        tb_ix_spill_part_free(s, (void *)x->value);
    x->owned = 0;
}

void
tb_ix_data_clear(tb_ix_data_t *d)
{
    tb_ix_spill_t *s = d->spill;
    for (uint32_t k = 0; k < d->ngroup; k++) {
        tb_ix_spill_walked(s, sizeof(d->groups[k]));
        tb_ix_group_free(s, &d->groups[k]);
    }
    for (uint32_t k = 0; k < d->nattr; k++)
        if (d->attrs[k].owned)
            tb_ix_spill_part_free(s, (void *)d->attrs[k].name);
    tb_ix_spill_table_free(s, TB_IX_LANE_ATTRS, d->attrs);
    for (uint32_t k = 0; k < d->ndset; k++) {
        tb_ix_spill_walked(s, sizeof(d->dsets[k]));
        tb_ix_dset_parts_free(s, &d->dsets[k]);
    }
    tb_ix_spill_table_free(s, TB_IX_LANE_DSETS, d->dsets);
    tb_ix_spill_table_free(s, TB_IX_LANE_NINFOS, d->ninfos);
    __atomic_fetch_sub(&tb_ix_data_nbytes, d->dset_nbytes, __ATOMIC_RELAXED);
    tb_ix_spill_table_free(s, TB_IX_LANE_GROUPS, d->groups);
    tb_ix_spill_table_free(s, TB_IX_LANE_OBJS, d->objs);
    free(d->oht);
    tb_ix_spill_reset(s);
    free(d->sc_links);
    free(d->sc_buf);
    d->groups   = NULL;
    d->objs     = NULL;
    d->oht      = NULL;
    d->sc_links = NULL;
    d->sc_buf   = NULL;
    d->sc_strs     = NULL;
    d->sc_strbytes = 0;
    d->attrs    = NULL;
    d->dsets    = NULL;
    d->ninfos   = NULL;
    d->nninfo = d->ninfocap = 0;
    d->nattr = d->attrcap = 0;
    d->ndset = d->dsetcap = 0;
    d->dset_nbytes = 0;
    d->rc_valid    = 0;
    d->root1       = 0;
    memset(d->defer, 0, sizeof(d->defer));
    d->ngroup = d->groupcap = d->nobj = d->objcap = 0;
    d->oht_mask                                   = 0;
}


/* ------------------------------------------------------------------ cached spaces and types */
tb_status_t
tb_ix_space_check(const void *enc, size_t n, uint64_t *npoints_out)
{
    const uint8_t *b = enc;
    if (n < 8 || b[0] > 2 || b[1] > TB_IX_SPACE_MAXRANK || n != TB_IX_SPACE_NBYTES(b[1]) ||
        (b[0] == 2) != (b[1] > 0) || (b[2] != 0 && (b[2] != 2 || b[0] == 0)))
        return TB_ERR_CORRUPT;
    for (int i = 3; i < 8; i++)
        if (b[i])
            return TB_ERR_CORRUPT;
    uint64_t npoints = b[0] == 0 ? 0 : 1;
    for (unsigned i = 0; i < b[1]; i++) {
        uint64_t cur, max;
        memcpy(&cur, b + 8 + 8 * i, 8);
        memcpy(&max, b + 8 + 8 * ((size_t)b[1] + i), 8);
        if (cur > max || (cur && npoints > (UINT64_C(1) << 62) / cur))
            return TB_ERR_CORRUPT;
        npoints *= cur;
    }
    *npoints_out = npoints;
    return TB_OK;
}

uint32_t
tb_ix_type_nbytes(const void *enc, size_t n)
{
    const uint8_t *b = enc; /* little-endian, whatever the host */
    if (n < 10)
        return 0;
    return (uint32_t)b[6] | (uint32_t)b[7] << 8 | (uint32_t)b[8] << 16 | (uint32_t)b[9] << 24;
}

bool
tb_ix_type_is_vstr(const void *enc, size_t n)
{
    /* H5Tencode's form: 2 bytes of its own, then the datatype message: class (low 4 bits of the
     * first byte; 9 = H5T_VLEN) and its bit field, whose low 4 bits say sequence (0) or string (1). */
    const uint8_t *b = enc;
    return n >= 10 && (b[2] & 0x0f) == 9 && (b[3] & 0x0f) == 1;
}

bool
tb_ix_vstr_check(const void *value, uint64_t nbytes, uint64_t npoints)
{
    const uint8_t *p = value, *end = p + nbytes;
    for (uint64_t k = 0; k < npoints; k++) {
        uint64_t len;
        if ((uint64_t)(end - p) < 8)
            return false;
        memcpy(&len, p, 8); /* (host order: a sidecar is read by the byte order that wrote it) */
        p += 8;
        if (len == TB_IX_VSTR_NULL)
            continue;
        if (len > (uint64_t)(end - p) || memchr(p, 0, len) != NULL)
            return false;
        p += len;
    }
    return p == end;
}

bool
tb_ix_type_is_vref(const void *enc, size_t n)
{
    /* H5Tencode's form of H5Tvlen_create(H5T_STD_REF_OBJ): a sequence (class 9, bit field 0) of
     * 16 bytes in the file, whose base type (the message after its 8 bytes) is an object reference
     * (class 7, bit field 0: H5R_OBJECT) of 8 bytes, version 1. */
    static const uint8_t vref[] = {0x03, 0x00, 0x19, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00,
                                   0x00, 0x17, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00};
    return n == sizeof(vref) && memcmp(enc, vref, n) == 0;
}

bool
tb_ix_type_is_seq_value(const void *enc, size_t n)
{
    return tb_ix_type_is_vstr(enc, n) || tb_ix_type_is_vref(enc, n);
}

bool
tb_ix_vref_check(const void *value, uint64_t nbytes, uint64_t npoints)
{
    const uint8_t *p = value, *end = p + nbytes;
    for (uint64_t k = 0; k < npoints; k++) {
        uint64_t count;
        if ((uint64_t)(end - p) < 8)
            return false;
        memcpy(&count, p, 8); /* (host order, as the strings') */
        p += 8;
        if (count > (uint64_t)(end - p) / 8)
            return false;
        p += count * 8;
    }
    return p == end;
}

bool
tb_ix_value_consistent(const void *type_enc, size_t type_nbytes, const void *space_enc, size_t space_nbytes,
                        const void *value, uint64_t value_nbytes)
{
    uint64_t npoints;
    return tb_ix_space_check(space_enc, space_nbytes, &npoints) == TB_OK &&
           tb_ix_value_fits(type_enc, type_nbytes, npoints, value, value_nbytes);
}

bool
tb_ix_value_fits(const void *type_enc, size_t type_nbytes, uint64_t npoints, const void *value,
                 uint64_t value_nbytes)
{
    uint32_t tsize = tb_ix_type_nbytes(type_enc, type_nbytes);
    if (!tsize)
        return false;
    if (tb_ix_type_is_vstr(type_enc, type_nbytes))
        return tb_ix_vstr_check(value, value_nbytes, npoints);
    if (tb_ix_type_is_vref(type_enc, type_nbytes))
        return tb_ix_vref_check(value, value_nbytes, npoints);
    return npoints <= UINT64_MAX / tsize && npoints * tsize == value_nbytes;
}
