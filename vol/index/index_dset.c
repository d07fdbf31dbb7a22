/* index_dset.c — the index's small-dataset cache, for read-only files: the datatype, dataspace and
 * whole content of small contiguous or compact datasets (no filters possible there), captured from
 * the application's first whole read and persisted in the sidecar. H5Dopen of a cached dataset then
 * hands out a "lazy" dataset (a wrapper with nothing open below) that answers H5Dget_space/type/
 * storage_size/space_status and whole reads itself; anything else opens the real one by token
 * first (tb_index_materialise). */
#include "index_ctx.h"

#include <stdlib.h>
#include <string.h>

#define DXPL H5P_DATASET_XFER_DEFAULT

/* A lazy dataset: what it answers from, and its token to open the real one by. One allocation;
 * the bytes follow the struct. */
struct tb_ix_lazyd {
    tb_ix_lazy_node_t     node; /* (first) in its open's list */
    const void            *type_enc, *space_enc, *value;
    size_t                 type_nbytes, value_nbytes;
    hid_t                  space;   /* space_enc built, when a file space needs comparing with it */
    hssize_t               npoints; /* of the space */
};

/* ------------------------------------------------------------------ capture */

/* Whether the selection of space `sid` (H5S_ALL included) covers every element in order, for a
 * dataset of `npoints` elements. */
static bool
whole_selection(hid_t sid, hssize_t npoints)
{
    if (sid == H5S_ALL)
        return true;
    return H5Sget_select_type(sid) == H5S_SEL_ALL && H5Sget_simple_extent_npoints(sid) == npoints;
}

/* The layout of a dataset whose content may be cached, in *compact_out: compact (true) or
 * contiguous (false: allocated, not external): TB_OK. TB_ERR_UNSUPPORTED for anything else
 * (chunked, virtual, external, unallocated; filters need chunks), TB_ERR_HDF5. */
static tb_status_t
cacheable_layout(void *dset, hid_t vol, bool *compact_out)
{
    if (tb_dset_contig_addr(dset, vol, DXPL) != HADDR_UNDEF) {
        *compact_out = false;
        return TB_OK;
    }
    H5VL_dataset_get_args_t ga = {.op_type = H5VL_DATASET_GET_DCPL};
    ga.args.get_dcpl.dcpl_id   = H5I_INVALID_HID;
    if (H5VLdataset_get(dset, vol, &ga, DXPL, NULL) < 0)
        return TB_ERR_HDF5;
    *compact_out = H5Pget_layout(ga.args.get_dcpl.dcpl_id) == H5D_COMPACT;
    H5Pclose(ga.args.get_dcpl.dcpl_id);
    return *compact_out ? TB_OK : TB_ERR_UNSUPPORTED;
}

/* Reads what the cache records of dataset record oi from the open dataset below; `mem_type` and
 * `buf` are what the application's whole read just returned (used when mem_type is the file
 * type). The record becomes TB_IX_DC_CACHED or TB_IX_DC_NO; it stays unknown when only this
 * moment stands in the way (memory, budget). */
static void
capture(tb_obj_t *o, tb_ix_data_t *d, uint32_t oi, hid_t mem_type, const void *buf)
{
    hid_t                   t = H5I_INVALID_HID, s = H5I_INVALID_HID, vol = o->under_vol_id;
    uint8_t                *blk  = NULL;
    int                     kind = TB_IX_DC_NO;
    H5VL_dataset_get_args_t gt   = {.op_type = H5VL_DATASET_GET_TYPE};
    H5VL_dataset_get_args_t gs   = {.op_type = H5VL_DATASET_GET_SPACE};
    gt.args.get_type.type_id     = H5I_INVALID_HID;
    gs.args.get_space.space_id   = H5I_INVALID_HID;
    if (H5VLdataset_get(o->under, vol, &gt, DXPL, NULL) < 0 || (t = gt.args.get_type.type_id) < 0 ||
        !tb_ix_type_cacheable(t) || H5VLdataset_get(o->under, vol, &gs, DXPL, NULL) < 0 ||
        (s = gs.args.get_space.space_id) < 0)
        goto done;
    hssize_t npoints = H5Sget_simple_extent_npoints(s);
    size_t   tsize   = H5Tget_size(t), tn = 0, sn = 0;
    if (npoints <= 0 || tsize == 0 || (uint64_t)npoints > TB_IX_DSET_MAX_VALUE / tsize)
        goto done;
    size_t nbytes = (size_t)npoints * tsize;
    bool   compact;
    if (cacheable_layout(o->under, vol, &compact) != TB_OK)
        goto done;
    kind = TB_IX_DC_UNKNOWN; /* cacheable: from here on, failing leaves it to a later read */
    if (tb_ix_data_nbytes + nbytes + sizeof(tb_ix_dset_t) + TB_IX_SPACE_NBYTES(TB_IX_SPACE_MAXRANK) + 64 >
        o->ctx->cfg.index_data_nbytes)
        goto done; /* (record and encodings counted too, at most what they can take) */
    const void *tenc;
    uint8_t     senc[TB_IX_SPACE_NBYTES(TB_IX_SPACE_MAXRANK)];
    if (tb_ix_type_encode(t, &tenc, &tn) != TB_OK || tb_ix_space_encode(s, senc, &sn) != TB_OK ||
        !(blk = malloc(tn + sn + nbytes)))
        goto done;
    memcpy(blk, tenc, tn);
    memcpy(blk + tn, senc, sn);
    if (H5Tequal(t, mem_type) > 0)
        memcpy(blk + tn + sn, buf, nbytes); /* native converted nothing: these are the stored bytes */
    else {
        hid_t all = H5S_ALL;
        void *dst = blk + tn + sn;
        if (H5VLdataset_read(1, &o->under, vol, &t, &all, &all, DXPL, &dst, NULL) < 0)
            goto done;
    }
    void *dsets;
    if (tb_ix_reserve(d->dsets, &d->dsetcap, (uint64_t)d->ndset + 1, sizeof(*d->dsets), 64, &dsets) != TB_OK)
        goto done;
    d->dsets         = dsets;
    tb_ix_dset_t *x = &d->dsets[d->ndset];
    memset(x, 0, sizeof(*x));
    x->type_enc          = blk;
    x->space_enc         = blk + tn;
    x->value             = blk + tn + sn;
    x->type_nbytes       = (uint32_t)tn;
    x->space_nbytes      = (uint32_t)sn;
    x->value_nbytes      = (uint32_t)nbytes;
    x->compact           = (uint8_t)compact;
    x->owned             = 1;
    blk                  = NULL;
    d->objs[oi].dset     = d->ndset++;
    kind                 = TB_IX_DC_CACHED;
    d->dset_nbytes      += sizeof(tb_ix_dset_t) + tn + sn + nbytes;
    tb_ix_data_nbytes  += sizeof(tb_ix_dset_t) + tn + sn + nbytes;
    tb_ix_stats.dsets_cached++;
done:
    if (kind != TB_IX_DC_UNKNOWN) {
        d->objs[oi].dcache = (uint8_t)kind;
        d->dirty           = 1;
    }
    free(blk);
    if (t >= 0)
        H5Tclose(t);
    if (s >= 0)
        H5Sclose(s);
    H5Eclear2(H5E_DEFAULT);
}

void
tb_index_dset_read_done(tb_obj_t *o, hid_t mem_type_id, hid_t mem_space_id, hid_t file_space_id, hid_t dxpl_id,
                         const void *buf)
{
    if (!o->ctx->index || !o->under || !buf || o->ctx->cfg.index_data_nbytes == 0 || dxpl_id != DXPL)
        return;
    /* Only what a whole read in storage order returned (the file space must be the dataset's);
     * asked first, as it costs nothing and rules out every partial read. */
    if (file_space_id != H5S_ALL || (mem_space_id != H5S_ALL && H5Sget_select_type(mem_space_id) != H5S_SEL_ALL))
        return;
    uint8_t        tok[TB_IX_TOKEN_NBYTES];
    tb_ix_data_t *d;
    uint32_t       oi;
    if (tb_ix_for(o, H5I_DATASET, tok, &d) != TB_OK || d->writable)
        return;
    if (tb_ix_obj_get(d, tok, &oi) != TB_OK || d->objs[oi].dcache != TB_IX_DC_UNKNOWN)
        return;
    if (!d->objs[oi].has_info) {
        /* The sidecar keeps content only with the object's info (its type says "dataset"). */
        H5VL_loc_params_t      self = {.obj_type = H5I_DATASET, .type = H5VL_OBJECT_BY_SELF};
        H5O_info2_t            info;
        H5VL_object_get_args_t ga = {.op_type = H5VL_OBJECT_GET_INFO};
        ga.args.get_info.fields   = H5O_INFO_ALL;
        ga.args.get_info.oinfo    = &info;
        if (H5VLobject_get(o->under, &self, o->under_vol_id, &ga, DXPL, NULL) < 0 ||
            tb_ix_store_info(d, oi, &info) != TB_OK) {
            H5Eclear2(H5E_DEFAULT);
            return;
        }
    }
    capture(o, d, oi, mem_type_id, buf);
}

/* ------------------------------------------------------------------ lazy datasets */
tb_obj_t *
tb_ix_dset_lazy_open(tb_obj_t *o, tb_ix_data_t *d, uint32_t t, char *path)
{
    struct tb_index_file *f = o->ctx->index;
    const tb_ix_dset_t   *x = &d->dsets[d->objs[t].dset];
    if (!f->file_under || o->ctx->cfg.index_data_nbytes == 0)
        return NULL;
    size_t               n  = (size_t)x->type_nbytes + x->space_nbytes + x->value_nbytes;
    struct tb_ix_lazyd *lz = malloc(sizeof(*lz) + n);
    tb_obj_t           *w  = lz ? tb_obj_new(NULL, o->ctx) : NULL;
    struct tb_index_obj *xo = w ? tb_ix_obj_state(w) : NULL;
    if (!xo) {
        tb_obj_free(w);
        free(lz);
        return NULL;
    }
    uint8_t *p = (uint8_t *)(lz + 1);
    memcpy(p, x->type_enc, x->type_nbytes);
    lz->type_enc = p;
    p += x->type_nbytes;
    memcpy(p, x->space_enc, x->space_nbytes);
    lz->space_enc = p;
    p += x->space_nbytes;
    memcpy(p, x->value, x->value_nbytes);
    lz->value        = p;
    lz->type_nbytes  = x->type_nbytes;
    lz->value_nbytes = x->value_nbytes;
    lz->space        = H5I_INVALID_HID;
    uint64_t npoints = 0;
    if (tb_ix_space_check(lz->space_enc, x->space_nbytes, &npoints) != TB_OK)
        npoints = 0; /* (not reached: checked when cached or decoded) */
    lz->npoints = (hssize_t)npoints;
    tb_ix_lazy_enlist(f, &lz->node, w);
    xo->state = TB_IXO_MINE; /* a location the index answers for, by its token */
    memcpy(xo->token, d->objs[t].token, TB_IX_TOKEN_NBYTES);
    xo->path  = path;
    xo->lazyd = lz;
    tb_ix_stats.dsets_lazy++;
    return w;
}

void
tb_ix_lazyd_free(struct tb_ix_lazyd *lz)
{
    tb_ix_lazy_delist(&lz->node);
    if (lz->space >= 0)
        H5Sclose(lz->space); /* (a valid space: it cannot fail, and no error of this call is pending) */
    free(lz);
}

tb_status_t
tb_index_dset_materialise(tb_obj_t *o)
{
    struct tb_ix_lazyd *lz = o->idx ? o->idx->lazyd : NULL;
    if (o->under || !lz)
        return TB_OK;
    if (!lz->node.f->file_under) {
        TB_PUSH("index", TB_ERR_HDF5, "dataset %s was opened from the cache of a file closed since",
                 o->idx->path ? o->idx->path : "?");
        return TB_ERR_HDF5;
    }
    H5I_type_t type;
    void      *under = tb_ix_open_by_token(lz->node.f->file_under, H5I_FILE, o->under_vol_id, o->idx->token, &type, DXPL);
    if (!under || type != H5I_DATASET) {
        tb_ix_close_under(under, type, o->under_vol_id); /* (not reached: tokens are unique) */
        TB_PUSH("index", TB_ERR_HDF5, "cannot open dataset %s", o->idx->path ? o->idx->path : "?");
        return TB_ERR_HDF5;
    }
    o->under      = under;
    o->idx->lazyd = NULL;
    tb_ix_lazyd_free(lz);
    tb_ix_stats.dsets_materialised++;
    return TB_OK;
}

int
tb_index_materialise(tb_obj_t *o)
{
    if (o->under || !o->idx)
        return 0;
    tb_status_t st = o->idx->lazyd ? tb_index_dset_materialise(o) : tb_index_attr_materialise(o);
    return st == TB_OK ? 0 : -1;
}

/* Whether file space fs (H5S_ALL included) selects all of the dataset, as native would take it
 * (false too when the dataset's space cannot be built to compare). */
static bool
whole_file_selection(struct tb_ix_lazyd *lz, hid_t fs)
{
    if (fs == H5S_ALL)
        return true;
    if (lz->space < 0 && (lz->space = tb_ix_space_make(lz->space_enc)) < 0)
        return false;
    return H5Sget_select_type(fs) == H5S_SEL_ALL && H5Sextent_equal(fs, lz->space) > 0;
}

tb_answer_t
tb_index_dset_read(tb_obj_t *o, hid_t mem_type_id, hid_t mem_space_id, hid_t file_space_id, hid_t dxpl_id,
                    void *buf, herr_t *ret_out)
{
    struct tb_ix_lazyd *lz = o->idx ? o->idx->lazyd : NULL;
    if (!lz || !buf || dxpl_id != DXPL)
        return TB_FORWARD;
    bool done = false;
    if (whole_selection(mem_space_id, lz->npoints) && whole_file_selection(lz, file_space_id)) {
        hid_t ft = tb_ix_type_get(lz->type_enc, lz->type_nbytes);
        done     = ft >= 0 &&
               tb_ix_convert_out(ft, mem_type_id, lz->value, lz->value_nbytes, buf, dxpl_id) == TB_OK;
    }
    if (!done) {
        H5Eclear2(H5E_DEFAULT);
        return TB_FORWARD;
    }
    *ret_out = 0;
    return TB_ANSWERED;
}

tb_answer_t
tb_index_dset_get(tb_obj_t *o, H5VL_dataset_get_args_t *args, herr_t *ret_out)
{
    struct tb_ix_lazyd *lz = o->idx ? o->idx->lazyd : NULL;
    if (!lz)
        return TB_FORWARD;
    switch (args->op_type) {
        case H5VL_DATASET_GET_SPACE: {
            hid_t s = tb_ix_space_make(lz->space_enc);
            if (s < 0)
                break;
            args->args.get_space.space_id = s;
            *ret_out                      = 0;
            return TB_ANSWERED;
        }
        case H5VL_DATASET_GET_TYPE: {
            hid_t ft = tb_ix_type_get(lz->type_enc, lz->type_nbytes);
            hid_t t  = ft >= 0 ? tb_ix_type_copy_rdonly(ft) : H5I_INVALID_HID;
            if (t < 0)
                break;
            args->args.get_type.type_id = t;
            *ret_out                    = 0;
            return TB_ANSWERED;
        }
        case H5VL_DATASET_GET_SPACE_STATUS:
            /* Only allocated storage (or compact data) is ever cached. */
            *args->args.get_space_status.status = H5D_SPACE_STATUS_ALLOCATED;
            *ret_out                            = 0;
            return TB_ANSWERED;
        case H5VL_DATASET_GET_STORAGE_SIZE:
            *args->args.get_storage_size.storage_size = lz->value_nbytes;
            *ret_out                                  = 0;
            return TB_ANSWERED;
        default:
            return TB_FORWARD;
    }
    H5Eclear2(H5E_DEFAULT);
    return TB_FORWARD;
}
