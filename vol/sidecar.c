/* sidecar.c — the persistent form of a file's index: a flat, checksummed byte layout (encoder and
 * a decoder that treats its input as hostile), and the POSIX side — where the sidecar lives,
 * reading it in one go, and publishing it under an advisory lock by write-temp + fsync + rename.
 * No HDF5 calls: a sidecar is never written through HDF5. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "index_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Layout (version 3, host byte order, marked by a byte-order word):
 *   header  128 bytes  magic, version, byte order, total size, identity, counts
 *   objects  80 bytes each  (their attributes are a contiguous run of the attribute array; a
 *                            dataset with cached content names its record of the dataset array)
 *   groups   32 bytes each  (their links are a contiguous run of the link array)
 *   links    56 bytes each
 *   attrs    64 bytes each
 *   dsets    40 bytes each
 *   strings  link names (NUL-terminated), link values, attribute names (NUL-terminated),
 *            encoded datatypes and dataspaces, attribute values, dataset contents
 *   trailer   8 bytes  checksum of everything before it
 * Version 2 added the attributes, version 3 the datasets (older files are rejected and
 * rewritten). */
#define SC_MAGIC      "H5TIDX\r\n"
#define SC_VERSION    3u
#define SC_BYTEORDER  0x01020304u
#define SC_HDR        128u
#define SC_OBJ        80u
#define SC_GRP        32u
#define SC_LNK        56u
#define SC_ATR        64u
#define SC_DST        40u
#define SC_TRAILER    8u
#define SC_SUFFIX     ".h5turbo-index"

/* H5O_type_t, H5G_storage_type_t and H5L_type_t values, spelled out so this file needs no HDF5. */
#define SC_MAX_OBJ_TYPE     2 /* group, dataset, named datatype */
#define SC_OBJ_DATASET      1
#define SC_MAX_STORAGE_TYPE 2 /* symbol table, compact, dense */
#define SC_LINK_HARD        0
#define SC_LINK_SOFT        1
#define SC_LINK_UD_MIN      64

static uint64_t
rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static uint32_t
rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static void
wr64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}
static void
wr32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

uint64_t
h5t_sidecar_checksum(const void *buf, size_t n)
{
    const uint8_t *p = buf;
    uint64_t       h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
    size_t         i = 0;
    for (; i + 8 <= n; i += 8) {
        h ^= rd64(p + i);
        h *= 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
    }
    uint64_t tail = 0;
    memcpy(&tail, p + i, n - i);
    h ^= tail;
    h *= 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 29;
    return h;
}

/* A NUL-terminated, non-empty name of name_len bytes at name_off in the strings. */
static int
name_ok(const uint8_t *strs, uint64_t strbytes, uint64_t name_off, uint64_t name_len)
{
    return name_off <= strbytes && name_len < strbytes - name_off && strs[name_off + name_len] == 0 &&
           memchr(strs + name_off, 0, name_len) == NULL && name_len > 0;
}

/* A run of len bytes at off inside the strings. */
static int
range_ok(uint64_t strbytes, uint64_t off, uint64_t len)
{
    return off <= strbytes && len <= strbytes - off;
}

/* ------------------------------------------------------------------ decode */
h5t_status_t
h5t_sidecar_decode(const void *buf, size_t n, h5t_ix_identity_t *id_out, h5t_ix_data_t *d)
{
    const uint8_t *b = buf;
    if (!buf || n < SC_HDR + SC_TRAILER || memcmp(b, SC_MAGIC, 8) != 0 || rd32(b + 8) != SC_VERSION ||
        rd32(b + 12) != SC_BYTEORDER || rd64(b + 16) != (uint64_t)n)
        return H5T_ERR_CORRUPT;
    if (h5t_sidecar_checksum(b, n - SC_TRAILER) != rd64(b + n - SC_TRAILER))
        return H5T_ERR_CHECKSUM;
    uint64_t nobj = rd32(b + 80), ngroup = rd32(b + 84), nlink = rd32(b + 88), nattr = rd32(b + 92);
    uint64_t strbytes = rd64(b + 96), ndset = rd32(b + 104);
    /* Each term is bounded by n (at most 2^64 / 80 objects could overflow otherwise). */
    if (strbytes > n || nobj > n / SC_OBJ || ngroup > n / SC_GRP || nlink > n / SC_LNK || nattr > n / SC_ATR ||
        ndset > n / SC_DST)
        return H5T_ERR_CORRUPT;
    if (SC_HDR + nobj * SC_OBJ + ngroup * SC_GRP + nlink * SC_LNK + nattr * SC_ATR + ndset * SC_DST + strbytes +
            SC_TRAILER !=
        (uint64_t)n)
        return H5T_ERR_CORRUPT;
    if (nobj >= H5T_IX_NONE || ngroup >= H5T_IX_NONE || nlink >= H5T_IX_NONE || nattr >= H5T_IX_NONE ||
        ndset >= H5T_IX_NONE)
        return H5T_ERR_CORRUPT;
    const uint8_t *objs = b + SC_HDR, *grps = objs + nobj * SC_OBJ, *lnks = grps + ngroup * SC_GRP;
    const uint8_t *atrs = lnks + nlink * SC_LNK, *dsts = atrs + nattr * SC_ATR, *strs = dsts + ndset * SC_DST;

    /* Objects, groups and links, checked against each other. */
    for (uint64_t k = 0; k < nobj; k++) {
        const uint8_t *o = objs + k * SC_OBJ;
        uint32_t       g = rd32(o + 24);
        uint64_t       afirst = rd32(o + 72), acount = rd32(o + 76);
        if (o[16] > 1 || (o[16] && o[17] > SC_MAX_OBJ_TYPE) || o[18] > 1 || rd64(o + 32) > UINT32_MAX)
            return H5T_ERR_CORRUPT;
        /* Content state only for datasets; a cached one names a dataset record. */
        if (o[19] > H5T_IX_DC_CACHED || (o[19] && !(o[16] && o[17] == SC_OBJ_DATASET)) ||
            (o[19] == H5T_IX_DC_CACHED) != (rd32(o + 28) != H5T_IX_NONE) ||
            (o[19] == H5T_IX_DC_CACHED && rd32(o + 28) >= ndset))
            return H5T_ERR_CORRUPT;
        if (afirst + acount > nattr || (!o[18] && acount != 0))
            return H5T_ERR_CORRUPT;
        if (g != H5T_IX_NONE && (g >= ngroup || rd32(grps + (uint64_t)g * SC_GRP) != k))
            return H5T_ERR_CORRUPT;
    }
    for (uint64_t k = 0; k < ngroup; k++) {
        const uint8_t *g   = grps + k * SC_GRP;
        uint64_t       obj = rd32(g), first = rd32(g + 4), cnt = rd32(g + 8);
        if (obj >= nobj || rd32(objs + obj * SC_OBJ + 24) != k || first + cnt > nlink || g[12] > SC_MAX_STORAGE_TYPE ||
            g[13] > 1 || g[14] > 2)
            return H5T_ERR_CORRUPT;
    }
    for (uint64_t k = 0; k < nlink; k++) {
        const uint8_t *l        = lnks + k * SC_LNK;
        uint64_t       name_off = rd64(l), name_len = rd32(l + 8), val_size = rd32(l + 12), val_off = rd64(l + 16);
        uint8_t        type = l[24];
        if (!name_ok(strs, strbytes, name_off, name_len))
            return H5T_ERR_CORRUPT;
        if (l[25] > 1 || l[26] > 1)
            return H5T_ERR_CORRUPT;
        if (type == SC_LINK_HARD)
            continue;
        if (type != SC_LINK_SOFT && type < SC_LINK_UD_MIN)
            return H5T_ERR_CORRUPT;
        if (val_off > strbytes || val_size > strbytes - val_off)
            return H5T_ERR_CORRUPT;
        if (type == SC_LINK_SOFT && (val_size == 0 || memchr(strs + val_off, 0, val_size) == NULL))
            return H5T_ERR_CORRUPT;
    }
    for (uint64_t k = 0; k < nattr; k++) {
        const uint8_t *a = atrs + k * SC_ATR;
        uint64_t       type_len = rd32(a + 32), space_len = rd32(a + 36), value_len = rd32(a + 56);
        if (!name_ok(strs, strbytes, rd64(a), rd32(a + 8)) || a[12] > 1 || a[13] > 1 || a[14] > 1)
            return H5T_ERR_CORRUPT;
        if (!a[14] && (type_len || space_len || value_len))
            return H5T_ERR_CORRUPT; /* listed only: nothing else may be claimed */
        if (a[14] && (type_len == 0 || space_len == 0 || value_len > H5T_IX_ATTR_MAX_VALUE ||
                      !range_ok(strbytes, rd64(a + 24), type_len) || !range_ok(strbytes, rd64(a + 40), space_len) ||
                      !range_ok(strbytes, rd64(a + 48), value_len) ||
                      !h5t_ix_value_consistent(strs + rd64(a + 24), type_len, strs + rd64(a + 40), space_len,
                                               value_len)))
            return H5T_ERR_CORRUPT;
    }
    for (uint64_t k = 0; k < ndset; k++) {
        const uint8_t *x = dsts + k * SC_DST;
        uint64_t       type_len = rd32(x + 8), space_len = rd32(x + 12), value_len = rd32(x + 32);
        if (type_len == 0 || space_len == 0 || value_len == 0 || value_len > H5T_IX_DSET_MAX_VALUE || x[36] > 1 ||
            !range_ok(strbytes, rd64(x), type_len) || !range_ok(strbytes, rd64(x + 16), space_len) ||
            !range_ok(strbytes, rd64(x + 24), value_len) ||
            !h5t_ix_value_consistent(strs + rd64(x), type_len, strs + rd64(x + 16), space_len, value_len))
            return H5T_ERR_CORRUPT;
    }
    if (id_out) {
        id_out->dev      = rd64(b + 24);
        id_out->ino      = rd64(b + 32);
        id_out->size     = rd64(b + 40);
        id_out->mtime_ns = (int64_t)rd64(b + 48);
        id_out->eoa      = rd64(b + 56);
        memcpy(id_out->root_token, b + 64, H5T_IX_TOKEN_NBYTES);
    }
    if (!d)
        return H5T_OK;

    /* Materialise: one array each, strings pointing into buf. */
    h5t_status_t st = H5T_ERR_NOMEM;
    d->objs         = malloc((size_t)(nobj ? nobj : 1) * sizeof(*d->objs));
    d->groups       = malloc((size_t)(ngroup ? ngroup : 1) * sizeof(*d->groups));
    d->sc_links     = malloc((size_t)(nlink ? nlink : 1) * sizeof(*d->sc_links));
    d->attrs        = malloc((size_t)(nattr ? nattr : 1) * sizeof(*d->attrs));
    d->dsets        = malloc((size_t)(ndset ? ndset : 1) * sizeof(*d->dsets));
    if (!d->objs || !d->groups || !d->sc_links || !d->attrs || !d->dsets)
        goto fail;
    d->dsetcap = (uint32_t)(ndset ? ndset : 1);
    for (uint64_t k = 0; k < ndset; k++) {
        const uint8_t *x = dsts + k * SC_DST;
        h5t_ix_dset_t *r = &d->dsets[k];
        memset(r, 0, sizeof(*r));
        r->type_enc     = strs + rd64(x);
        r->type_nbytes  = rd32(x + 8);
        r->space_nbytes = rd32(x + 12);
        r->space_enc    = strs + rd64(x + 16);
        r->value        = strs + rd64(x + 24);
        r->value_nbytes = rd32(x + 32);
        r->compact      = x[36];
        d->dset_nbytes += sizeof(*r) + r->type_nbytes + r->space_nbytes + r->value_nbytes;
        d->ndset = (uint32_t)k + 1;
    }
    h5t_ix_data_nbytes += d->dset_nbytes;
    d->attrcap = (uint32_t)(nattr ? nattr : 1);
    for (uint64_t k = 0; k < nattr; k++) {
        const uint8_t *a = atrs + k * SC_ATR;
        h5t_ix_attr_t *x = &d->attrs[k];
        memset(x, 0, sizeof(*x));
        x->name         = (const char *)strs + rd64(a);
        x->name_len     = rd32(a + 8);
        x->cset         = a[12];
        x->corder_valid = a[13];
        x->cached       = a[14];
        x->corder       = (int64_t)rd64(a + 16);
        if (x->cached) {
            x->type_enc     = strs + rd64(a + 24);
            x->type_nbytes  = rd32(a + 32);
            x->space_enc    = strs + rd64(a + 40);
            x->space_nbytes = rd32(a + 36);
            x->value        = strs + rd64(a + 48);
            x->value_nbytes = rd32(a + 56);
        }
        d->nattr = (uint32_t)k + 1;
    }
    d->objcap   = (uint32_t)(nobj ? nobj : 1);
    d->groupcap = (uint32_t)(ngroup ? ngroup : 1);
    for (uint64_t k = 0; k < nobj; k++) {
        const uint8_t *o = objs + k * SC_OBJ;
        h5t_ix_obj_t  *r = &d->objs[k];
        memset(r, 0, sizeof(*r));
        memcpy(r->token, o, H5T_IX_TOKEN_NBYTES);
        r->has_info  = o[16];
        r->type      = o[17];
        r->rc        = rd32(o + 20);
        r->group     = rd32(o + 24);
        r->num_attrs = (uint32_t)rd64(o + 32);
        r->atime     = (int64_t)rd64(o + 40);
        r->mtime     = (int64_t)rd64(o + 48);
        r->ctime     = (int64_t)rd64(o + 56);
        r->btime     = (int64_t)rd64(o + 64);
        r->attrs_loaded = o[18];
        r->attr_first   = rd32(o + 72);
        r->nattr        = rd32(o + 76);
        r->dcache       = o[19];
        r->dset         = rd32(o + 28);
    }
    d->nobj = (uint32_t)nobj;
    if (h5t_ix_rehash_objs(d) < 0)
        goto fail;
    /* Duplicate tokens would make lookups ambiguous: reject. */
    for (uint32_t k = 0; k < d->nobj; k++)
        if (h5t_ix_obj_find(d, d->objs[k].token) != k) {
            st = H5T_ERR_CORRUPT;
            goto fail;
        }
    for (uint64_t k = 0; k < nlink; k++) {
        const uint8_t *l = lnks + k * SC_LNK;
        h5t_ix_link_t *x = &d->sc_links[k];
        memset(x, 0, sizeof(*x));
        x->name         = (const char *)strs + rd64(l);
        x->name_len     = rd32(l + 8);
        x->type         = l[24];
        x->cset         = l[25];
        x->corder_valid = l[26];
        x->corder       = (int64_t)rd64(l + 32);
        if (x->type == SC_LINK_HARD && (x->obj = h5t_ix_obj_get(d, l + 40)) == H5T_IX_NONE)
            goto fail; /* (out of memory: the target gets a record, as when the group is loaded) */
        if (x->type != SC_LINK_HARD) {
            x->val      = strs + rd64(l + 16);
            x->val_size = rd32(l + 12);
        }
    }
    for (uint64_t k = 0; k < ngroup; k++) {
        const uint8_t  *g = grps + k * SC_GRP;
        h5t_ix_group_t *x = &d->groups[k];
        memset(x, 0, sizeof(*x));
        x->obj          = rd32(g);
        x->links        = d->sc_links + rd32(g + 4);
        x->nlinks       = rd32(g + 8);
        x->storage_type = g[12];
        x->mounted      = g[13];
        x->corder_state = g[14];
        x->max_corder   = (int64_t)rd64(g + 16);
        d->ngroup       = (uint32_t)k + 1;
        if (h5t_ix_group_finish(x) < 0)
            goto fail;
    }
    d->sc_strs     = strs;
    d->sc_strbytes = strbytes;
    d->dirty       = 0;
    return H5T_OK;
fail:
    h5t_ix_data_clear(d);
    return st;
}

/* Moves pointer p (into the strings section at old) to the same offset from new. */
#define SC_REBASE(p, old, new) ((p) = (void *)((new) + ((const uint8_t *)(p) - (old))))

void *
h5t_sidecar_compact(h5t_ix_data_t *d, void *buf)
{
    const uint8_t *old = d->sc_strs;
    size_t         n   = (size_t)d->sc_strbytes;
    if (!old || (const uint8_t *)buf == old)
        return buf;
    /* A new block for the strings: the records, already decoded, go with the old one. */
    uint8_t *nb = malloc(n ? n : 1);
    if (!nb) {
        d->sc_nbytes = (size_t)(old - (const uint8_t *)buf) + n; /* kept whole */
        return buf;
    }
    memcpy(nb, old, n);
    for (uint32_t g = 0; g < d->ngroup; g++) {
        if (d->groups[g].owned)
            continue;
        for (uint32_t k = 0; k < d->groups[g].nlinks; k++) {
            h5t_ix_link_t *l = &d->groups[g].links[k];
            SC_REBASE(l->name, old, nb);
            if (l->type != SC_LINK_HARD)
                SC_REBASE(l->val, old, nb);
        }
    }
    for (uint32_t k = 0; k < d->nattr; k++) {
        h5t_ix_attr_t *a = &d->attrs[k];
        if (a->owned)
            continue;
        SC_REBASE(a->name, old, nb);
        if (a->cached) {
            SC_REBASE(a->type_enc, old, nb);
            SC_REBASE(a->space_enc, old, nb);
            SC_REBASE(a->value, old, nb);
        }
    }
    for (uint32_t k = 0; k < d->ndset; k++) {
        h5t_ix_dset_t *x = &d->dsets[k];
        if (x->owned)
            continue;
        SC_REBASE(x->type_enc, old, nb);
        SC_REBASE(x->space_enc, old, nb);
        SC_REBASE(x->value, old, nb);
    }
    free(buf);
    d->sc_strs   = nb;
    d->sc_nbytes = n;
    return nb;
}

/* ------------------------------------------------------------------ encode */

/* A dataset whose content goes into the sidecar. */
static int
dset_kept(const h5t_ix_obj_t *r)
{
    return r->dcache == H5T_IX_DC_CACHED && r->has_info && r->type == SC_OBJ_DATASET;
}

/* Appends len bytes of src to the strings at *so, recording offset and length in record rec. */
static void
put_bytes(uint8_t *rec, unsigned off_at, unsigned len_at, uint8_t *strs, uint64_t *so, const void *src, uint32_t len)
{
    wr64(rec + off_at, *so);
    wr32(rec + len_at, len);
    if (len)
        memcpy(strs + *so, src, len);
    *so += len;
}
h5t_status_t
h5t_sidecar_encode(const h5t_ix_data_t *d, const h5t_ix_identity_t *id, void **buf_out, size_t *n_out)
{
    /* Objects worth keeping: those with info or with loaded links. */
    uint32_t *remap = malloc((size_t)(d->nobj ? d->nobj : 1) * sizeof(*remap));
    if (!remap)
        return H5T_ERR_NOMEM;
    uint64_t nobj = 0, nlink = 0, nattr = 0, ndset = 0, strbytes = 0;
    for (uint32_t k = 0; k < d->nobj; k++) {
        const h5t_ix_obj_t *r = &d->objs[k];
        remap[k] = (r->has_info || r->group != H5T_IX_NONE || r->attrs_loaded || r->dcache) ? (uint32_t)nobj++
                                                                                            : H5T_IX_NONE;
        if (dset_kept(r)) {
            const h5t_ix_dset_t *x = &d->dsets[r->dset];
            ndset++;
            strbytes += (uint64_t)x->type_nbytes + x->space_nbytes + x->value_nbytes;
        }
        if (!r->attrs_loaded)
            continue;
        nattr += r->nattr;
        for (uint32_t j = 0; j < r->nattr; j++) {
            const h5t_ix_attr_t *a = &d->attrs[r->attr_first + j];
            strbytes += (uint64_t)a->name_len + 1 +
                        (a->cached ? (uint64_t)a->type_nbytes + a->space_nbytes + a->value_nbytes : 0);
        }
    }
    for (uint32_t g = 0; g < d->ngroup; g++) {
        nlink += d->groups[g].nlinks;
        for (uint32_t k = 0; k < d->groups[g].nlinks; k++) {
            const h5t_ix_link_t *l = &d->groups[g].links[k];
            strbytes += (uint64_t)l->name_len + 1 + (l->type != SC_LINK_HARD ? l->val_size : 0);
        }
    }
    if (nlink >= H5T_IX_NONE || nattr >= H5T_IX_NONE || ndset >= H5T_IX_NONE) {
        free(remap);
        return H5T_ERR_ARG;
    }
    uint64_t n = SC_HDR + nobj * SC_OBJ + (uint64_t)d->ngroup * SC_GRP + nlink * SC_LNK + nattr * SC_ATR +
                 ndset * SC_DST + strbytes + SC_TRAILER;
    uint8_t *b = calloc(1, (size_t)n);
    if (!b) {
        free(remap);
        return H5T_ERR_NOMEM;
    }
    memcpy(b, SC_MAGIC, 8);
    wr32(b + 8, SC_VERSION);
    wr32(b + 12, SC_BYTEORDER);
    wr64(b + 16, n);
    wr64(b + 24, id->dev);
    wr64(b + 32, id->ino);
    wr64(b + 40, id->size);
    wr64(b + 48, (uint64_t)id->mtime_ns);
    wr64(b + 56, id->eoa);
    memcpy(b + 64, id->root_token, H5T_IX_TOKEN_NBYTES);
    wr32(b + 80, (uint32_t)nobj);
    wr32(b + 84, d->ngroup);
    wr32(b + 88, (uint32_t)nlink);
    wr32(b + 92, (uint32_t)nattr);
    wr64(b + 96, strbytes);
    wr32(b + 104, (uint32_t)ndset);
    uint8_t *objs = b + SC_HDR, *grps = objs + nobj * SC_OBJ, *lnks = grps + (uint64_t)d->ngroup * SC_GRP;
    uint8_t *atrs = lnks + nlink * SC_LNK, *dsts = atrs + nattr * SC_ATR, *strs = dsts + ndset * SC_DST;
    uint64_t ai = 0, di = 0, so = 0;
    for (uint32_t k = 0; k < d->nobj; k++) {
        if (remap[k] == H5T_IX_NONE)
            continue;
        const h5t_ix_obj_t *r = &d->objs[k];
        uint8_t            *o = objs + (uint64_t)remap[k] * SC_OBJ;
        memcpy(o, r->token, H5T_IX_TOKEN_NBYTES);
        o[16] = r->has_info;
        o[17] = r->has_info ? r->type : 0;
        wr32(o + 20, r->rc);
        wr32(o + 24, r->group);
        wr64(o + 32, r->num_attrs);
        wr64(o + 40, (uint64_t)r->atime);
        wr64(o + 48, (uint64_t)r->mtime);
        wr64(o + 56, (uint64_t)r->ctime);
        wr64(o + 64, (uint64_t)r->btime);
        o[19] = r->has_info && r->type == SC_OBJ_DATASET ? r->dcache : 0;
        wr32(o + 28, H5T_IX_NONE);
        if (dset_kept(r)) {
            const h5t_ix_dset_t *x = &d->dsets[r->dset];
            uint8_t             *p = dsts + di * SC_DST;
            wr32(o + 28, (uint32_t)di++);
            put_bytes(p, 0, 8, strs, &so, x->type_enc, x->type_nbytes);
            put_bytes(p, 16, 12, strs, &so, x->space_enc, x->space_nbytes);
            put_bytes(p, 24, 32, strs, &so, x->value, x->value_nbytes);
            p[36] = x->compact;
        }
        else if (o[19] == H5T_IX_DC_CACHED)
            o[19] = H5T_IX_DC_UNKNOWN;
        if (!r->attrs_loaded)
            continue;
        o[18] = 1;
        wr32(o + 72, (uint32_t)ai);
        wr32(o + 76, r->nattr);
        for (uint32_t j = 0; j < r->nattr; j++, ai++) {
            const h5t_ix_attr_t *a = &d->attrs[r->attr_first + j];
            uint8_t             *p = atrs + ai * SC_ATR;
            wr64(p, so);
            wr32(p + 8, a->name_len);
            memcpy(strs + so, a->name, (size_t)a->name_len + 1);
            so += (uint64_t)a->name_len + 1;
            p[12] = a->cset;
            p[13] = a->corder_valid;
            p[14] = a->cached;
            wr64(p + 16, (uint64_t)a->corder);
            if (!a->cached)
                continue;
            put_bytes(p, 24, 32, strs, &so, a->type_enc, a->type_nbytes);
            put_bytes(p, 40, 36, strs, &so, a->space_enc, a->space_nbytes);
            put_bytes(p, 48, 56, strs, &so, a->value, a->value_nbytes);
        }
    }
    uint64_t li = 0;
    for (uint32_t g = 0; g < d->ngroup; g++) {
        const h5t_ix_group_t *x = &d->groups[g];
        uint8_t              *o = grps + (uint64_t)g * SC_GRP;
        wr32(o, remap[x->obj]);
        wr32(o + 4, (uint32_t)li);
        wr32(o + 8, x->nlinks);
        o[12] = x->storage_type;
        o[13] = x->mounted;
        o[14] = x->corder_state;
        wr64(o + 16, (uint64_t)x->max_corder);
        for (uint32_t k = 0; k < x->nlinks; k++, li++) {
            const h5t_ix_link_t *l = &x->links[k];
            uint8_t             *p = lnks + li * SC_LNK;
            wr64(p, so);
            wr32(p + 8, l->name_len);
            memcpy(strs + so, l->name, (size_t)l->name_len + 1);
            so += (uint64_t)l->name_len + 1;
            if (l->type != SC_LINK_HARD) {
                wr32(p + 12, l->val_size);
                wr64(p + 16, so);
                memcpy(strs + so, l->val, l->val_size);
                so += l->val_size;
            }
            p[24] = l->type;
            p[25] = l->cset;
            p[26] = l->corder_valid;
            wr64(p + 32, (uint64_t)l->corder);
            if (l->type == SC_LINK_HARD)
                memcpy(p + 40, d->objs[l->obj].token, H5T_IX_TOKEN_NBYTES);
        }
    }
    wr64(b + n - SC_TRAILER, h5t_sidecar_checksum(b, (size_t)n - SC_TRAILER));
    free(remap);
    *buf_out = b;
    *n_out   = (size_t)n;
    return H5T_OK;
}

/* ------------------------------------------------------------------ POSIX side */
static uint64_t
hash_path(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

/* The per-user cache directory ($XDG_CACHE_HOME/h5turbo or ~/.cache/h5turbo), created if needed. */
static char *
cache_dir(int create)
{
    const char *xdg  = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    char        base[PATH_MAX];
    int         r;
    if (xdg && *xdg == '/')
        r = snprintf(base, sizeof(base), "%s", xdg);
    else if (home && *home)
        r = snprintf(base, sizeof(base), "%s/.cache", home);
    else
        return NULL;
    if (r < 0 || r >= PATH_MAX - 16)
        return NULL;
    char *dir = malloc(PATH_MAX);
    if (!dir)
        return NULL;
    if (snprintf(dir, PATH_MAX, "%s/h5turbo", base) >= PATH_MAX) {
        free(dir);
        return NULL;
    }
    if (create) {
        mkdir(base, 0700);
        mkdir(dir, 0700);
    }
    return dir;
}

/* which = 0: beside the file (".<name>.h5turbo-index"); 1: in the cache directory. */
static char *
sidecar_path_at(const char *file_path, int which, int create)
{
    const char *slash = strrchr(file_path, '/');
    const char *base  = slash ? slash + 1 : file_path;
    char       *out   = malloc(PATH_MAX);
    if (!out)
        return NULL;
    if (which == 0) {
        int dlen = slash ? (int)(slash - file_path) : 0;
        if (snprintf(out, PATH_MAX, "%.*s%s.%s%s", dlen, file_path, slash ? "/" : "", base, SC_SUFFIX) >= PATH_MAX)
            goto fail;
        return out;
    }
    char *dir = cache_dir(create);
    if (!dir)
        goto fail;
    int r = snprintf(out, PATH_MAX, "%s/%016llx-%s%s", dir, (unsigned long long)hash_path(file_path), base, SC_SUFFIX);
    free(dir);
    if (r >= PATH_MAX)
        goto fail;
    return out;
fail:
    free(out);
    return NULL;
}

char *
h5t_sidecar_cache_path(const char *file_path)
{
    return sidecar_path_at(file_path, 1, 0);
}

char *
h5t_sidecar_path(const char *file_path, int for_write)
{
    if (!for_write)
        return sidecar_path_at(file_path, 0, 0);
    /* Beside the file when its directory is writable, else the per-user cache. */
    const char *slash = strrchr(file_path, '/');
    char        dir[PATH_MAX];
    if (snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - file_path) : 1, slash ? file_path : ".") >=
        PATH_MAX)
        return NULL;
    if (!dir[0])
        snprintf(dir, sizeof(dir), "/");
    return sidecar_path_at(file_path, access(dir, W_OK) == 0 ? 0 : 1, 1);
}

static h5t_status_t
read_whole(const char *path, void **buf_out, size_t *n_out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return H5T_ERR_IO;
    struct stat st;
    void       *buf = NULL;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 || (uint64_t)st.st_size > SIZE_MAX / 2)
        goto fail;
    size_t n = (size_t)st.st_size, got = 0;
    if (!(buf = malloc(n)))
        goto fail;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            goto fail;
        got += (size_t)r;
    }
    close(fd);
    *buf_out = buf;
    *n_out   = n;
    return H5T_OK;
fail:
    free(buf);
    close(fd);
    return H5T_ERR_IO;
}

h5t_status_t
h5t_sidecar_read_file(const char *file_path, void **buf_out, size_t *n_out)
{
    /* Beside the file first; the cache copy only when there is none there. */
    for (int which = 0; which < 2; which++) {
        char *p = sidecar_path_at(file_path, which, 0);
        if (!p)
            continue;
        h5t_status_t st = read_whole(p, buf_out, n_out);
        free(p);
        if (st == H5T_OK)
            return st;
    }
    return H5T_ERR_IO;
}

static void
debug_errno(int debug, const char *what, const char *path)
{
    if (debug)
        fprintf(stderr, "h5turbo index: %s %s: %s (index kept in memory only)\n", what, path, strerror(errno));
}

static int
write_all(int fd, const void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, (const char *)buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        done += (size_t)w;
    }
    return 0;
}

/* Whether an existing sidecar already says at least as much about the same file. */
static int
existing_covers(const char *path, const h5t_ix_identity_t *id, uint32_t ngroup, uint32_t nobj, uint32_t nattr,
                uint32_t ndset)
{
    void             *buf = NULL;
    size_t            n   = 0;
    h5t_ix_identity_t got;
    int               covers = 0;
    if (read_whole(path, &buf, &n) == H5T_OK && h5t_sidecar_decode(buf, n, &got, NULL) == H5T_OK &&
        memcmp(&got, id, sizeof(got)) == 0) {
        const uint8_t *b = buf;
        covers           = rd32(b + 84) >= ngroup && rd32(b + 80) >= nobj && rd32(b + 92) >= nattr &&
                 rd32(b + 104) >= ndset;
    }
    free(buf);
    return covers;
}

h5t_status_t
h5t_sidecar_publish(const char *file_path, const h5t_ix_data_t *d, const h5t_ix_identity_t *id, int debug)
{
    h5t_status_t st   = H5T_ERR_IO;
    char        *path = h5t_sidecar_path(file_path, 1);
    char        *lock = NULL, *tmp = NULL;
    void        *buf  = NULL;
    size_t       n    = 0;
    int          lfd = -1, tfd = -1;
    if (!path || !(lock = malloc(strlen(path) + 32)) || !(tmp = malloc(strlen(path) + 32)))
        goto done;
    sprintf(lock, "%s.lock", path);
    sprintf(tmp, "%s.tmp.%ld", path, (long)getpid());
    /* The lock file is never deleted: deleting it would let two writers hold "the" lock on two
     * different inodes. */
    if ((lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
        debug_errno(debug, "cannot create lock file", lock);
        goto done;
    }
    while (flock(lfd, LOCK_EX) < 0) {
        if (errno == EINTR)
            continue;
        debug_errno(debug, "cannot lock", lock); /* ENOLCK, ENOSYS, ... */
        goto done;
    }
    /* Another process may have published while we waited: rebuild at most once. */
    uint32_t nobj = 0, nattr = 0, ndset = 0;
    for (uint32_t k = 0; k < d->nobj; k++) {
        nobj += d->objs[k].has_info || d->objs[k].group != H5T_IX_NONE || d->objs[k].attrs_loaded ||
                d->objs[k].dcache;
        nattr += d->objs[k].attrs_loaded ? d->objs[k].nattr : 0;
        ndset += dset_kept(&d->objs[k]);
    }
    if (existing_covers(path, id, d->ngroup, nobj, nattr, ndset)) {
        st = H5T_OK;
        goto done;
    }
    if (h5t_sidecar_encode(d, id, &buf, &n) < 0)
        goto done;
    if ((tfd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
        debug_errno(debug, "cannot create", tmp);
        goto done;
    }
    if (write_all(tfd, buf, n) < 0 || fsync(tfd) < 0) {
        debug_errno(debug, "cannot write", tmp);
        unlink(tmp);
        goto done;
    }
    close(tfd);
    tfd = -1;
    if (rename(tmp, path) < 0) {
        debug_errno(debug, "cannot publish", path);
        unlink(tmp);
        goto done;
    }
    st = H5T_OK;
done:
    if (tfd >= 0)
        close(tfd);
    if (lfd >= 0)
        close(lfd); /* releases the lock */
    free(buf);
    free(path);
    free(lock);
    free(tmp);
    return st;
}
