/* sidecar_sample.h — builds a small but complete index in memory (every link kind, groups with
 * and without creation order, objects with and without info, cached (raw and string) and listed
 * attributes, datasets with cached content, records of named datatypes and groups, native infos)
 * for the sidecar tests, the fuzz corpus generator and the fuzz target. */
#ifndef TB_SIDECAR_SAMPLE_H
#define TB_SIDECAR_SAMPLE_H

#include "index_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
tb_sample_token(uint8_t *t, uint32_t v)
{
    memset(t, 0, TB_IX_TOKEN_NBYTES);
    memcpy(t, &v, sizeof(v));
}

/* A new zeroed dataset record of d for object record r. */
static tb_ix_dset_t *
tb_sample_dset(tb_ix_data_t *d, tb_ix_obj_t *r)
{
    if (d->ndset == d->dsetcap) {
        d->dsetcap = d->dsetcap ? 2 * d->dsetcap : 8;
        d->dsets   = realloc(d->dsets, d->dsetcap * sizeof(*d->dsets));
        if (!d->dsets)
            abort();
    }
    tb_ix_dset_t *x = &d->dsets[d->ndset];
    memset(x, 0, sizeof(*x));
    r->dset = d->ndset++;
    return x;
}

/* `ngroups` groups, each with `nper` links: hard links to the next groups and to datasets, a soft
 * link and an external link. Strings live in static storage. */
static void
tb_sample_build(tb_ix_data_t *d, uint32_t ngroups, uint32_t nper)
{
    static char names[64][16];
    static const char ext[] = "ext.h5\0/target"; /* flags byte omitted: the bytes are opaque here */
    for (int i = 0; i < 64; i++)
        snprintf(names[i], sizeof(names[i]), "n%02d", i);
    memset(d, 0, sizeof(*d));
    for (uint32_t g = 0; g < ngroups; g++) {
        uint8_t t[TB_IX_TOKEN_NBYTES];
        tb_sample_token(t, 0x1000 + g * 0x100);
        uint32_t oi = TB_IX_NONE;
        if (tb_ix_obj_insert(d, t, &oi) != TB_OK)
            abort();
        d->objs[oi].has_info  = 1;
        d->objs[oi].type      = 0; /* group */
        d->objs[oi].rc        = 1 + (g % 3);
        d->objs[oi].num_attrs = g % 4;
        d->objs[oi].mtime     = 1700000000 + g;
    }
    d->groups   = calloc(ngroups ? ngroups : 1, sizeof(*d->groups));
    d->groupcap = ngroups;
    for (uint32_t g = 0; g < ngroups; g++) {
        tb_ix_group_t *x = &d->groups[g];
        x->obj            = g;
        x->owned          = 1;
        /* (every fourth from the fourth a partial list: no group info) */
        x->partial        = g % 4 == 3;
        x->storage_type   = x->partial ? 0 : (uint8_t)(g % 3);
        x->max_corder     = (g % 2) && !x->partial ? (int64_t)nper : 0;
        x->links          = calloc(nper ? nper : 1, sizeof(*x->links));
        x->nlinks         = nper;
        for (uint32_t k = 0; k < nper; k++) {
            tb_ix_link_t *l = &x->links[k];
            l->name          = names[(k * 7 + g) % 64];
            l->name_len      = (uint32_t)strlen(l->name);
            l->corder_valid  = g % 2;
            l->corder        = (g % 2) ? (int64_t)k : 0;
            if (k % 5 == 2 && x->partial) {
                l->absent = 1; /* (a name the group lacks) */
                l->obj    = TB_IX_NONE;
            }
            else if (k % 5 == 3) {
                l->type     = 1; /* soft */
                l->val      = "/n00/n01";
                l->val_size = 9;
            }
            else if (k % 5 == 4) {
                l->type     = 64; /* external */
                l->val      = ext;
                l->val_size = sizeof(ext);
            }
            else if (k % 2 == 0 && g + 1 < ngroups)
                l->obj = g + 1; /* the next group (object records 0..ngroups-1) */
            else {
                uint8_t t[TB_IX_TOKEN_NBYTES];
                tb_sample_token(t, 0x90000 + g * 64 + k);
                uint32_t oi = tb_ix_obj_find(d, t);
                if (oi == TB_IX_NONE && tb_ix_obj_insert(d, t, &oi) != TB_OK)
                    oi = TB_IX_NONE;
                l->obj = oi;
                if (oi != TB_IX_NONE && (k % 3)) {
                    d->objs[oi].has_info = 1;
                    d->objs[oi].type     = k % 7 == 1 ? 2 : 1; /* named datatype or dataset */
                    d->objs[oi].rc       = 1;
                }
            }
        }
        /* Names must be unique in a group: the sample's 7k+g pattern guarantees it for nper <= 64. */
        tb_ix_group_finish(x);
        d->objs[g].group = g;
        d->ngroup        = g + 1;
    }
    /* Attributes: every other group has some, cached (a datatype "encoding" that declares its size
     * at byte 6, scalar or null spaces in the caches' form) or listed only; odd groups have theirs
     * loaded and none. Every fifth even group's list is partial (only some of its attributes, and
     * after them a name it lacks), every sixth from the third is whole but not in native order. */
    static const uint8_t type_enc[]   = {3, 1, 0x13, 0, 0, 0, 7, 0, 0, 0, 0};
    static const uint8_t space_enc[]  = {1, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t space_v2[]   = {1, 0, 2, 0, 0, 0, 0, 0}; /* (dataspace message version 2) */
    static const uint8_t null_space[] = {0, 0, 0, 0, 0, 0, 0, 0};
    static const char    value[]     = "NXentry";
    static const char   *anames[]    = {"NX_class", "units", "long_name", "big"};
    /* (a variable-length string type, and one string: its 8-byte length and bytes) */
    static const uint8_t vstr_enc[] = {3, 1, 0x19, 0x01, 0, 0, 8, 0, 0, 0, 3, 0x10, 0, 0, 1, 0, 0, 0, 0, 8, 0};
    static uint8_t       vstr_value[9];
    const uint64_t       vstr_len = 1;
    memcpy(vstr_value, &vstr_len, 8);
    vstr_value[8] = 'K';
    uint32_t             na          = 0;
    for (uint32_t g = 0; g < ngroups; g++)
        na += (g % 2) ? 0 : 1 + g % 4 + (g % 5 == 0);
    d->attrs   = calloc(na ? na : 1, sizeof(*d->attrs));
    d->attrcap = na ? na : 1;
    for (uint32_t g = 0; g < ngroups; g++) {
        tb_ix_obj_t *r = &d->objs[g];
        r->attrs_partial   = g % 2 == 0 && g % 5 == 0;
        r->attrs_loaded    = !r->attrs_partial;
        r->attrs_unordered = g % 6 == 2 && r->attrs_loaded;
        r->attr_storage    = g % 3; /* (unknown, in the header, dense: all three round-trip) */
        r->attr_first      = d->nattr;
        r->nattr           = (g % 2) ? 0 : 1 + g % 4 + r->attrs_partial;
        for (uint32_t k = 0; k < r->nattr; k++) {
            tb_ix_attr_t *a = &d->attrs[d->nattr++];
            a->name          = anames[k];
            a->name_len      = (uint32_t)strlen(anames[k]);
            a->corder_valid  = (uint8_t)(k % 2);
            a->corder        = k;
            a->data_size     = 4000 + g; /* (listed only: known anyway; a cached one's is its value's) */
            if (r->attrs_partial && k == r->nattr - 1) { /* (a name the object lacks: nothing else) */
                a->absent       = 1;
                a->corder_valid = 0;
                a->corder       = 0;
                a->data_size    = TB_IX_NONE;
            }
            else if (k != 3) {
                a->cached       = 1;
                a->type_enc     = type_enc;
                a->type_nbytes  = sizeof(type_enc);
                a->space_enc    = k == 2 ? null_space : k == 1 ? space_v2 : space_enc;
                a->space_nbytes = sizeof(space_enc);
                a->value        = value;
                a->value_nbytes = k == 2 ? 0 : 7;
                a->data_size    = a->value_nbytes;
                if (k == 1 && g % 4 == 2) { /* a variable-length string: its data is not its value */
                    a->type_enc     = vstr_enc;
                    a->type_nbytes  = sizeof(vstr_enc);
                    a->value        = vstr_value;
                    a->value_nbytes = sizeof(vstr_value);
                    a->data_size    = 16;
                }
            }
        }
    }
    /* Datasets: every third one with info has its content cached (a 1-D space of 1..4 doubles,
     * odd ones of dataspace message version 2), the one after is known not to be cacheable. */
    static const uint8_t f64_enc[] = {3, 1, 0x11, 0x20, 0x3f, 0, 8, 0, 0, 0, 0, 0, 0, 0, 64, 0, 11, 52, 11, 0};
    static uint8_t       spaces[4][24];
    static double        values[4];
    for (int i = 0; i < 4; i++) {
        uint64_t dim = (uint64_t)i + 1, max = i == 3 ? UINT64_MAX : dim;
        memset(spaces[i], 0, 8);
        spaces[i][0] = 2;
        spaces[i][1] = 1;
        spaces[i][2] = (uint8_t)(i % 2 ? 2 : 0);
        memcpy(spaces[i] + 8, &dim, 8);
        memcpy(spaces[i] + 16, &max, 8);
        values[i] = 0.5 * i;
    }
    /* (opaque to the codec: any bytes stand for an encoded creation property list) */
    static const uint8_t dcpl_enc[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    uint32_t             seen       = 0;
    for (uint32_t k = 0; k < d->nobj; k++) {
        tb_ix_obj_t *r = &d->objs[k];
        if (!r->has_info || r->type != 1)
            continue;
        if (seen % 3 == 1)
            r->dcache = TB_IX_DC_NO;
        r->opened = seen % 2; /* (opened natively in the run that wrote it, or not) */
        /* Every other dataset has a record: metadata only (0), or content with it (2). */
        if (seen % 3 != 1) {
            tb_ix_dset_t *x = tb_sample_dset(d, r);
            x->type_enc     = f64_enc;
            x->type_nbytes  = sizeof(f64_enc);
            x->space_enc    = spaces[seen % 4];
            x->space_nbytes = sizeof(spaces[0]);
            x->have         = TB_IX_DS_TYPE | TB_IX_DS_SPACE;
            if (seen % 3 == 2) {
                x->value        = values;
                x->value_nbytes = 8 * (seen % 4 + 1);
                x->layout       = (uint8_t)(seen % 2); /* compact or contiguous */
                x->storage_size = x->value_nbytes;
                x->space_status = 2;
                x->have |= TB_IX_DS_VALUE | TB_IX_DS_STORAGE | TB_IX_DS_STATUS;
                r->dcache = TB_IX_DC_CACHED;
            }
            else {
                x->dcpl_enc    = dcpl_enc;
                x->dcpl_nbytes = sizeof(dcpl_enc);
                x->layout      = 2; /* chunked */
                x->have |= TB_IX_DS_DCPL;
            }
        }
        seen++;
    }
    /* Groups: every third one with info has a record holding its creation property list (only that). */
    for (uint32_t k = 0; k < d->nobj; k++) {
        tb_ix_obj_t *r = &d->objs[k];
        if (!r->has_info || r->type != 0 || k % 3)
            continue;
        tb_ix_dset_t *x = tb_sample_dset(d, r);
        x->dcpl_enc     = dcpl_enc;
        x->dcpl_nbytes  = sizeof(dcpl_enc);
        x->have         = TB_IX_DS_DCPL;
    }
    /* Named datatypes: every other one has a record holding its binary form (only that). */
    for (uint32_t k = 0; k < d->nobj; k++) {
        tb_ix_obj_t *r = &d->objs[k];
        if (!r->has_info || r->type != 2 || k % 2)
            continue;
        tb_ix_dset_t *x = tb_sample_dset(d, r);
        x->type_enc     = f64_enc;
        x->type_nbytes  = sizeof(f64_enc);
        x->have         = TB_IX_DS_TYPE;
    }
    /* Native infos: every object with info whose record number is not a multiple of 4, with the
     * header half, the metadata-size half or both; one with no info as well. */
    for (uint32_t k = 0; k < d->nobj; k++) {
        tb_ix_obj_t *r = &d->objs[k];
        if ((!r->has_info && k != 1) || k % 4 == 0)
            continue;
        if (d->nninfo == d->ninfocap) {
            d->ninfocap = d->ninfocap ? 2 * d->ninfocap : 8;
            d->ninfos   = realloc(d->ninfos, d->ninfocap * sizeof(*d->ninfos));
        }
        tb_ix_ninfo_t *x = &d->ninfos[d->nninfo];
        memset(x, 0, sizeof(*x));
        x->have = (uint8_t)(1 + k % 3);
        if (x->have & TB_IX_NI_HDR) {
            x->version      = 2;
            x->nmesgs       = 3 + k;
            x->nchunks      = 1;
            x->flags        = 0x20;
            x->space_total  = 200 + k;
            x->space_meta   = 30;
            x->space_mesg   = 150 + k;
            x->space_free   = 20;
            x->mesg_present = 0x1234u + k;
            x->mesg_shared  = k % 2;
        }
        if (x->have & TB_IX_NI_META) {
            x->obj_index_size  = 500 + k;
            x->obj_heap_size   = 900;
            x->attr_index_size = k;
            x->attr_heap_size  = 2 * k;
        }
        r->ninfo = d->nninfo++;
    }
}

#endif
