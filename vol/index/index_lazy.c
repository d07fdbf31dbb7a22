/* index_lazy.c — lazy objects, for read-only files: wrappers the index opens from what it knows
 * with nothing open below, one mechanism for groups, datasets, named datatypes and attributes.
 * Queries the index can answer never touch the file; anything else makes the object real first
 * (groups by the path they were opened by, datasets by token or by path, datatypes by token,
 * attributes by replaying the application's open), and every lazy object of an open is made real
 * before its file closes. */
#include "index_ctx.h"
#include "tb_pool.h"

#include <stdlib.h>
#include <string.h>

/* HDF5's internal: the link access list of the current call's API context (NULL where a library
 * does not export it). */
extern hid_t H5CX_get_lapl(void) __attribute__((weak));

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

/* Lazy groups, datasets and named datatypes come and go by the thousand on a second open (a
 * calloc and a free each, whose cost depended on the heap's state: bench/index loader b's second
 * open counted 3M instructions more after an unrelated library stopped being loaded). */
static tb_objpool_t lazy_pool = TB_OBJPOOL_INIT(tb_ix_lazy_t, 4096);

tb_ix_lazy_t *
tb_ix_lazy_new(struct tb_index_file *f, tb_obj_t *w, H5I_type_t kind, uint32_t obj, size_t extra)
{
    struct tb_index_obj *x  = tb_ix_obj_state(w);
    tb_ix_lazy_t        *lz = !x ? NULL : extra ? calloc(1, sizeof(*lz) + extra) : tb_objpool_get(&lazy_pool);
    if (!lz)
        return NULL;
    lz->pooled = extra == 0;
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
    if (lz->pooled)
        tb_objpool_put(&lazy_pool, lz);
    else
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
    w->idx->rec  = t + 1;
    w->idx->path = path;
    if (kind == H5I_GROUP)
        tb_ix_stats.groups_lazy++;
    else if (kind == H5I_DATASET)
        tb_ix_stats.dsets_lazy++;
    else
        tb_ix_stats.types_lazy++;
    return w;
}

/* The real group, dataset or named datatype a lazy one stands for, opened from its file by the
 * path it was opened by, so that native records that path as it would have (H5Iget_name, and the
 * names of what native opens from it, depend on it); one opened by token is opened by its token,
 * and has none, as native's (which then names it by any of its links). NULL with an error pushed. */
static void *
object_open_real(const tb_obj_t *o, const tb_ix_lazy_t *lz)
{
    const char *what = lz->kind == H5I_GROUP ? "group" : lz->kind == H5I_DATASET ? "dataset" : "datatype";
    const char *path = o->idx->path;
    if (!lz->node.f->file_under) {
        TB_PUSH("index", TB_ERR_HDF5, "%s %s was opened from the index of a file closed since", what,
                path ? path : "(by token)");
        return NULL;
    }
    H5I_type_t type  = H5I_BADID;
    void      *under = NULL;
    /* A dataset with the default access list: opened by its token, the walk of its path skipped
     * (that costs twice a native open by name), native then holding no path for it and the
     * wrapper its path for what asks (as open_dataset_by_token's). An open by token takes the
     * access list of the current call's context (H5O__dset_open), which is the default one unless
     * that call was given a list of its own (an H5Dopen2 with one, or a dataset access list passed
     * as a link access list): then by its path, with the default list. */
    bool by_token = lz->kind == H5I_DATASET && lz->apl < 0 && H5CX_get_lapl &&
                    H5CX_get_lapl() == H5P_LINK_ACCESS_DEFAULT;
    H5VL_loc_params_t self = {.obj_type = H5I_FILE, .type = H5VL_OBJECT_BY_SELF};
    if (path && lz->apl >= 0) {
        /* With the access list the application opened it with (a copy: a group's or a dataset's,
         * the only kinds opened with one), by the path it was opened by. */
        under = lz->kind == H5I_GROUP
                    ? H5VLgroup_open(lz->node.f->file_under, &self, o->under_vol_id, path, lz->apl, DXPL, NULL)
                    : H5VLdataset_open(lz->node.f->file_under, &self, o->under_vol_id, path, lz->apl, DXPL, NULL);
        type = under ? lz->kind : H5I_BADID;
    }
    else if (path && lz->kind == H5I_DATASET && !by_token) {
        under = H5VLdataset_open(lz->node.f->file_under, &self, o->under_vol_id, path, H5P_DATASET_ACCESS_DEFAULT,
                                 DXPL, NULL);
        type  = under ? H5I_DATASET : H5I_BADID;
    }
    else if (path && lz->kind != H5I_DATASET) {
        H5VL_loc_params_t byname            = {.obj_type = H5I_FILE, .type = H5VL_OBJECT_BY_NAME};
        byname.loc_data.loc_by_name.name    = path;
        byname.loc_data.loc_by_name.lapl_id = H5P_LINK_ACCESS_DEFAULT;
        under = H5VLobject_open(lz->node.f->file_under, &byname, o->under_vol_id, &type, DXPL, NULL);
    }
    else /* (by token: a dataset as said, or one opened by token, as the real one then is, which
          * has no path either) */
        under = tb_ix_open_by_token(lz->node.f->file_under, H5I_FILE, o->under_vol_id, o->idx->token, &type, DXPL);
    if (!under || type != lz->kind) {
        tb_ix_close_under(under, type, o->under_vol_id); /* (not reached: read-only files do not change) */
        TB_PUSH("index", TB_ERR_HDF5, "cannot open %s %s", what, path ? path : "(by token)");
        return NULL;
    }
    return under;
}

/* A real object of a lazy one's kind in its file, to stand in for it: opened by the lazy one's
 * token (its header is read, not its path's groups; only its file is ever asked of it). */
static void *
standin_open(const tb_obj_t *o, const tb_ix_lazy_t *lz)
{
    H5I_type_t type  = H5I_BADID;
    void      *under = lz->node.f->file_under ? tb_ix_open_by_token(lz->node.f->file_under, H5I_FILE, o->under_vol_id,
                                                                  o->idx->token, &type, DXPL)
                                              : NULL;
    if (under && type != lz->kind) {
        tb_ix_close_under(under, type, o->under_vol_id); /* (not reached: read-only files do not change) */
        under = NULL;
    }
    return under;
}

/* A lazy group, dataset or named datatype made real. */
static tb_status_t
object_materialise(tb_obj_t *o, tb_ix_lazy_t *lz)
{
    H5I_type_t type  = lz->kind;
    void      *under = object_open_real(o, lz);
    if (!under)
        return TB_ERR_HDF5;
    if (type == H5I_DATASET && lz->apl < 0) /* (as open_dataset_by_token's, or as a recognised one's) */
        o->idx->evict = tb_ix_can_evict(o->ctx);
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

/* ------------------------------------------------------------------ stand-ins */
/* What HDF5 asks of a lazy object's native form, in a few places, is only its file:
 *  - while it lists a file's open objects (H5F__get_objects_cb: the object location's file); set
 *    around those calls (tb_index_listing);
 *  - in the 1.8 calls' adapters for link iteration and object visits, which turn each token into
 *    an address (H5VLnative_token_to_addr: the file's address size) before calling the
 *    application; permitted once per callback, for groups of the file iterated (tb_ix_permit);
 *  - in the adapters of H5Oget_info1 and its by-name and by-index forms (h5py's h5o.get_info, and
 *    len() of an object's attrs; napi5's H5Oget_info_by_name1 of each entry), which do the same
 *    with the token of the object info the index just answered, and in H5Lget_info1
 *    (PyTables), with the token of a hard link's info just answered: permitted once, for that
 *    lazy object, the location asked (tb_ix_permit_obj).
 * One stand-in of each kind per file, opened by the token of the first lazy object that needed
 * it. The group stand-in stays open until its file closes (a group native holds open changes
 * nothing). Dataset and datatype stand-ins are closed when the listing that opened them ends,
 * else when their file closes or a dataset of it is opened with an access list of its own
 * (tb_ix_standins_release): native's first open of a dataset sets the chunk cache and prefixes
 * its later opens share, and refuses another open of it under another external-file prefix. A
 * dataset held open by a stand-in is otherwise opened as stock opens it (the default list). */
static _Thread_local int                    listing;
static _Thread_local struct tb_index_file *listed; /* files with stand-ins open (standin_next) */
static _Thread_local const tb_ix_data_t   *permit; /* a file whose lazy group may stand in, once */
static _Thread_local const tb_obj_t       *permit_obj; /* a lazy object that may stand in, once */

enum { SI_GROUP, SI_DATASET, SI_DATATYPE };

void
tb_index_listing(int on)
{
    listing = on;
    if (on)
        return;
    while (listed) {
        struct tb_index_file *f = listed;
        listed                  = f->standin_next;
        f->standin_next         = NULL;
        tb_ix_standins_release(f);
    }
}

void
tb_ix_standins_release(struct tb_index_file *f)
{
    if (!f->standins[SI_DATASET] && !f->standins[SI_DATATYPE])
        return;
    hid_t saved = tb_err_save();
    tb_ix_close_under(f->standins[SI_DATASET], H5I_DATASET, f->standin_vol);
    tb_ix_close_under(f->standins[SI_DATATYPE], H5I_DATATYPE, f->standin_vol);
    f->standins[SI_DATASET] = f->standins[SI_DATATYPE] = NULL;
    tb_err_restore(saved);
}

/* Whether f is on this listing's list (a few files at most). */
static bool
on_listed(const struct tb_index_file *f)
{
    for (const struct tb_index_file *l = listed; l; l = l->standin_next)
        if (l == f)
            return true;
    return false;
}

void
tb_ix_permit(const tb_ix_data_t *d)
{
    permit = d;
}

void
tb_ix_permit_obj(const tb_obj_t *o)
{
    permit_obj = o;
}

void *
tb_index_standin(const tb_obj_t *o)
{
    const tb_ix_lazy_t *lz = o->idx ? o->idx->lazy : NULL;
    if (!lz)
        return NULL;
    struct tb_index_file *f = lz->node.f;
    if (lz->kind == H5I_ATTR)
        return f->sentinel;
    bool permitted = (lz->kind == H5I_GROUP && permit && permit == f->d) || permit_obj == o;
    permit_obj     = NULL; /* (for the next stand-in asked only) */
    if (!(listing || permitted) || !f->file_under)
        return NULL;
    permit = NULL;
    int k  = lz->kind == H5I_GROUP ? SI_GROUP : lz->kind == H5I_DATASET ? SI_DATASET : SI_DATATYPE;
    if (!f->standins[k]) {
        hid_t saved    = tb_err_save();
        f->standins[k] = standin_open(o, lz);
        tb_err_restore(saved);
        if (!f->standins[k])
            return NULL;
        f->standin_vol = o->under_vol_id;
        if (k != SI_GROUP && listing && !on_listed(f)) {
            f->standin_next = listed;
            listed          = f;
        }
    }
    return f->standins[k];
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
    tb_ix_mpi_closing(file);
    if (!f || f->file_under != file->under)
        return;
    tb_ix_check_unchanged(f, file);
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
    tb_ix_standins_release(f); /* (`listed` holds files only during a listing, which closes none) */
    tb_ix_evict_kept(f);
    hid_t saved = tb_err_save();
    if (f->sentinel)
        H5VLattr_close(f->sentinel, file->under_vol_id, DXPL, NULL);
    tb_ix_close_under(f->standins[SI_GROUP], H5I_GROUP, file->under_vol_id);
    tb_err_restore(saved);
    f->sentinel           = NULL;
    f->standins[SI_GROUP] = NULL;
    f->file_under         = NULL;
}
