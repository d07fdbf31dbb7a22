/* index_lazy.c — lazy objects, for read-only files: wrappers the index opens from what it knows
 * with nothing open below, one mechanism for groups, datasets, named datatypes and attributes.
 * Queries the index can answer never touch the file; anything else makes the object real first
 * (groups, datasets and datatypes are opened by token from the file, attributes by replaying the
 * application's open), and every lazy object of an open is made real before its file closes. */
#include "index_ctx.h"

#include <stdlib.h>
#include <string.h>

#define DXPL H5P_DATASET_XFER_DEFAULT

void
tb_ix_lazy_enlist(struct tb_index_file *f, tb_ix_lazy_node_t *n, tb_obj_t *owner)
{
    n->f        = f;
    n->owner    = owner;
    n->detached = 0;
    n->prev     = NULL;
    n->next     = f->lazies;
    if (f->lazies)
        f->lazies->prev = n;
    f->lazies = n;
}

void
tb_ix_lazy_delist(tb_ix_lazy_node_t *n)
{
    if (n->detached)
        return;
    if (n->prev)
        n->prev->next = n->next;
    else
        n->f->lazies = n->next;
    if (n->next)
        n->next->prev = n->prev;
    n->detached = 1;
}

tb_ix_lazy_t *
tb_ix_lazy_new(struct tb_index_file *f, tb_obj_t *w, H5I_type_t kind, uint32_t obj, size_t extra)
{
    struct tb_index_obj *x  = tb_ix_obj_state(w);
    tb_ix_lazy_t        *lz = x ? calloc(1, sizeof(*lz) + extra) : NULL;
    if (!lz)
        return NULL;
    lz->kind  = kind;
    lz->obj   = obj;
    lz->space = H5I_INVALID_HID;
    lz->apl   = H5I_INVALID_HID;
    tb_ix_lazy_enlist(f, &lz->node, w);
    x->lazy = lz;
    return lz;
}

void
tb_ix_lazy_free(tb_ix_lazy_t *lz)
{
    tb_ix_lazy_delist(&lz->node);
    if (lz->space >= 0 || lz->apl >= 0) {
        hid_t saved = tb_err_save();
        if (lz->space >= 0)
            H5Sclose(lz->space);
        if (lz->apl >= 0)
            H5Pclose(lz->apl);
        tb_err_restore(saved);
    }
    free(lz->loc_path);
    free(lz->rel_name);
    free(lz);
}

tb_obj_t *
tb_ix_lazy_open(tb_obj_t *o, tb_ix_data_t *d, uint32_t t, H5I_type_t kind, char *path, hid_t apl)
{
    struct tb_index_file *f = o->ctx->index;
    if (!f || !f->file_under)
        return NULL;
    tb_obj_t *w = tb_obj_new(NULL, o->ctx);
    if (!w)
        return NULL;
    if (!tb_ix_lazy_new(f, w, kind, t, 0)) {
        tb_obj_free(w);
        return NULL;
    }
    w->idx->lazy->apl = apl;
    /* A location the index answers for, by its token, under the path native would record. */
    w->idx->state = TB_IXO_MINE;
    memcpy(w->idx->token, d->objs[t].token, TB_IX_TOKEN_NBYTES);
    w->idx->path = path;
    if (kind == H5I_GROUP)
        tb_ix_stats.groups_lazy++;
    else if (kind == H5I_DATASET)
        tb_ix_stats.dsets_lazy++;
    else
        tb_ix_stats.types_lazy++;
    return w;
}

/* A lazy group, dataset or named datatype made real: opened from its file by the path it was
 * opened by, so that native records that path as it would have (H5Iget_name, and the names of
 * what native opens from it, depend on it); one opened by token is opened by its token, and has
 * none, as native's (which then names it by any of its links). */
static tb_status_t
object_materialise(tb_obj_t *o, tb_ix_lazy_t *lz)
{
    const char *what = lz->kind == H5I_GROUP ? "group" : lz->kind == H5I_DATASET ? "dataset" : "datatype";
    const char *path = o->idx->path;
    if (!lz->node.f->file_under) {
        TB_PUSH("index", TB_ERR_HDF5, "%s %s was opened from the index of a file closed since", what,
                path ? path : "(by token)");
        return TB_ERR_HDF5;
    }
    H5I_type_t type  = H5I_BADID;
    void      *under = NULL;
    if (path && lz->apl >= 0) {
        /* With the access list the application opened it with (a copy: a group's or a dataset's,
         * the only kinds opened with one), by the path it was opened by. */
        H5VL_loc_params_t self = {.obj_type = H5I_FILE, .type = H5VL_OBJECT_BY_SELF};
        under = lz->kind == H5I_GROUP
                    ? H5VLgroup_open(lz->node.f->file_under, &self, o->under_vol_id, path, lz->apl, DXPL, NULL)
                    : H5VLdataset_open(lz->node.f->file_under, &self, o->under_vol_id, path, lz->apl, DXPL, NULL);
        type = under ? lz->kind : H5I_BADID;
    }
    else if (path) {
        H5VL_loc_params_t byname            = {.obj_type = H5I_FILE, .type = H5VL_OBJECT_BY_NAME};
        byname.loc_data.loc_by_name.name    = path;
        byname.loc_data.loc_by_name.lapl_id = H5P_LINK_ACCESS_DEFAULT;
        under = H5VLobject_open(lz->node.f->file_under, &byname, o->under_vol_id, &type, DXPL, NULL);
    }
    else /* (opened by token: so is the real one, which then has no path either) */
        under = tb_ix_open_by_token(lz->node.f->file_under, H5I_FILE, o->under_vol_id, o->idx->token, &type, DXPL);
    if (!under || type != lz->kind) {
        tb_ix_close_under(under, type, o->under_vol_id); /* (not reached: read-only files do not change) */
        TB_PUSH("index", TB_ERR_HDF5, "cannot open %s %s", what, path ? path : "(by token)");
        return TB_ERR_HDF5;
    }
    o->under     = under;
    o->idx->lazy = NULL;
    tb_ix_lazy_free(lz);
    if (type == H5I_GROUP)
        tb_ix_stats.groups_materialised++;
    else if (type == H5I_DATASET)
        tb_ix_stats.dsets_materialised++;
    else
        tb_ix_stats.types_materialised++;
    return TB_OK;
}

int
tb_index_materialise(tb_obj_t *o)
{
    if (o->under || !o->idx || !o->idx->lazy)
        return 0;
    tb_ix_lazy_t *lz = o->idx->lazy;
    tb_status_t   st = lz->kind == H5I_ATTR ? tb_index_attr_materialise(o) : object_materialise(o, lz);
    return st == TB_OK ? 0 : -1;
}

void
tb_index_file_closing(tb_obj_t *file)
{
    struct tb_index_file *f = file->ctx->index;
    if (!f || f->file_under != file->under)
        return;
    tb_ix_check_unchanged(f, file->under, file->under_vol_id);
    /* No longer sure the file below stays open: every lazy object of this open becomes real now
     * (they then keep it open as native's would), and no more are handed out. */
    while (f->lazies) {
        tb_ix_lazy_node_t *n = f->lazies;
        if (tb_index_materialise(n->owner) < 0) {
            /* It stays lazy (what it answers still works); anything else on it will fail. */
            tb_ix_lazy_delist(n);
            H5Eclear2(H5E_DEFAULT);
        }
    }
    if (f->sentinel) {
        hid_t saved = tb_err_save();
        H5VLattr_close(f->sentinel, file->under_vol_id, DXPL, NULL);
        tb_err_restore(saved);
        f->sentinel = NULL;
    }
    f->file_under = NULL;
}
