/* index_query.c — answering link, object and group queries from the index with the results
 * native HDF5 gives (order, idx in/out, early stop, errors), and forwarding whatever it cannot
 * answer exactly: soft links met on a path, "." components, dense creation-order native order. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* qsort_r, strchrnul */
#endif
#include "index_ctx.h"

#include <stdlib.h>
#include <string.h>

#define DXPL H5P_DATASET_XFER_DEFAULT

static tb_answer_t get_name_answer(tb_obj_t *o, const H5VL_loc_params_t *loc, H5VL_object_get_args_t *args);
static bool        plain_name(const char *name);
static tb_status_t locate(tb_obj_t *o, const H5VL_loc_params_t *loc, void **req, tb_ix_data_t **d_out,
                          tb_ix_anchor_t *a_out, uint32_t *t_out, char **path_out, bool load);

/* ------------------------------------------------------------------ paths */

/* Where a path led: the group holding its last component and that link (TB_IX_NONE: no such
 * link); or, for a name with no component left after "." ones ("." itself, "a/.", "/"), the
 * object reached (`self`, in gobj: native's traversal ends at that location, with no link). */
typedef struct resolved {
    uint32_t gobj;
    uint32_t gi;
    uint32_t link;
    bool     self;
} resolved_t;

/* The next component of a path at *pp that is not "." (skipped natively, as are repeated
 * slashes): its start, length in *len_out, and *pp moved past it; NULL when none is left. */
static const char *
next_component(const char **pp, size_t *len_out)
{
    const char *p = *pp;
    for (;;) {
        while (*p == '/')
            p++;
        if (!*p) {
            *pp = p;
            return NULL;
        }
        const char *e = strchrnul(p, '/'); /* (libc's scan, many bytes a step) */
        if (e - p == 1 && p[0] == '.') {
            p = e;
            continue;
        }
        *pp      = e;
        *len_out = (size_t)(e - p);
        return p;
    }
}

bool
tb_ix_names_self(const char *name)
{
    size_t len;
    return next_component(&name, &len) == NULL;
}

/* Fills a with what o's queries make by-token calls against: false when there is nothing (a lazy
 * dataset whose file is closed). */
static bool
anchor_of(tb_obj_t *o, H5I_type_t type, tb_ix_anchor_t *a)
{
    a->under      = o->under;
    a->vol        = o->under_vol_id;
    a->type       = type;
    a->evict_file = NULL;
    a->later      = NULL;
    if (o->ctx->index && !o->ctx->index->d->writable && tb_ix_can_evict(o->ctx)) {
        a->evict_file = o->ctx->index->file_under;
        /* (what queries through a group, dataset or datatype handle read waits until it closes;
         * through the file, it leaves at once) */
        if (type != H5I_FILE && o->idx)
            a->later = &o->idx->later;
    }
    a->group_token = type == H5I_GROUP && o->under && o->idx && o->idx->state == TB_IXO_MINE ? o->idx->token : NULL;
    if (!o->under) { /* a lazy dataset: the file it is in serves as well */
        a->under = o->ctx->index ? o->ctx->index->file_under : NULL;
        a->type  = H5I_FILE;
    }
    return a->under != NULL;
}

/* Walks `name` from object `start` through hard links of loaded (or loadable) groups, as native
 * traversal does ("." components and repeated slashes skipped): TB_OK with r filled;
 * TB_ERR_UNSUPPORTED when native semantics would need something the index does not model (a soft
 * or external link on the way, an intermediate that is not a group); the status of a group load
 * that failed. With no anchor (a == NULL), only groups already loaded are walked. */
static tb_status_t
resolve(tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t start, const char *name, resolved_t *r)
{
    uint32_t    cur = start, root;
    tb_status_t st;
    if (*name == '/') {
        if (!d->root1) {
            if ((st = tb_ix_obj_get(d, d->file.id.root_token, &root)) != TB_OK)
                return st;
            d->root1 = root + 1;
        }
        cur = d->root1 - 1;
    }
    const char    *p           = name;
    const uint32_t cur0        = cur;
    uint32_t       resumed     = 0; /* the last lookup's levels this one starts past */
    bool           same_parent = false;
    if (d->rc_valid && d->rc_start == cur0 && strncmp(name, d->rc_prefix, d->rc_len) == 0 &&
        name[d->rc_len] != '\0' && !strchr(name + d->rc_len, '/')) {
        same_parent = true; /* the same parent group as the last lookup: its last level */
        cur         = d->rc_obj[d->rc_n - 1];
        p           = name + d->rc_len;
    }
    else if (d->rc_valid && d->rc_start == cur0) {
        /* Resume from the deepest group of the last lookup whose name up to it this one shares. */
        uint32_t same = 0;
        while (same < d->rc_len && name[same] == d->rc_prefix[same])
            same++;
        for (uint32_t i = d->rc_n; i-- > 0;)
            if (d->rc_at[i] <= same) {
                cur     = d->rc_obj[i];
                p       = name + d->rc_at[i];
                resumed = i;
                break;
            }
    }
    uint32_t    walked[TB_IX_RC_DEPTH], walked_obj[TB_IX_RC_DEPTH], nwalked = 0;
    size_t      len  = 0;
    const char *comp = next_component(&p, &len);
    r->self          = false;
    while (comp) {
        const char *after = p;
        size_t      nlen = 0;
        const char *next = next_component(&after, &nlen);
        if (d->objs[cur].has_info && d->objs[cur].type != H5O_TYPE_GROUP)
            return TB_ERR_UNSUPPORTED; /* a lookup in something that is not a group: native errs */
        uint32_t k;
        if ((st = tb_ix_lookup_link(d, a, cur, comp, len, &k)) != TB_OK)
            return st;
        uint32_t gi = d->objs[cur].group;
        size_t   at = (size_t)(comp - name);
        if (nwalked < TB_IX_RC_DEPTH && at < sizeof(d->rc_prefix)) {
            walked[nwalked]       = (uint32_t)at;
            walked_obj[nwalked++] = cur;
        }
        if (!next) {
            r->gobj = cur;
            r->gi   = gi;
            r->link = k;
            if (!same_parent && cur != cur0 && at < sizeof(d->rc_prefix) && comp[len] == '\0' && nwalked &&
                walked[nwalked - 1] == at && resumed + nwalked <= TB_IX_RC_DEPTH) {
                /* The levels it resumed past stay (their names are this one's too), then the
                 * ones it walked; the last is this lookup's group (the same-parent case's). */
                memcpy(d->rc_prefix, name, at);
                d->rc_prefix[at] = '\0';
                d->rc_len        = (uint32_t)at;
                d->rc_start      = cur0;
                uint32_t n       = resumed;
                for (uint32_t i = 0; i < nwalked; i++, n++) {
                    d->rc_at[n]  = walked[i];
                    d->rc_obj[n] = walked_obj[i];
                }
                d->rc_n     = n;
                d->rc_valid = 1;
            }
            return TB_OK;
        }
        if (k == TB_IX_NONE || d->groups[gi].links[k].type != H5L_TYPE_HARD)
            return TB_ERR_UNSUPPORTED; /* missing or soft/external intermediate: native decides (and errs) */
        uint32_t t = d->groups[gi].links[k].obj;
        if (t == TB_IX_NONE)
            return TB_ERR_UNSUPPORTED;
        cur  = t;
        comp = next;
        len  = nlen;
        p    = after;
    }
    /* No component (left): native's traversal ends at the location it reached, with no link. */
    r->gobj = cur;
    r->gi   = TB_IX_NONE;
    r->link = TB_IX_NONE;
    r->self = true;
    return TB_OK;
}

/* The object a resolved path names: its hard link's target, or the location reached (self);
 * TB_IX_NONE for a missing, soft or external last link. */
static uint32_t
target_of(const tb_ix_data_t *d, const resolved_t *r)
{
    if (r->self)
        return r->gobj;
    if (r->link == TB_IX_NONE || d->groups[r->gi].links[r->link].type != H5L_TYPE_HARD)
        return TB_IX_NONE;
    return d->groups[r->gi].links[r->link].obj;
}

/* The object a resolved hard link points to, with its info loaded, in *t_out: TB_OK;
 * TB_ERR_UNSUPPORTED when there is none (no such link, a soft or external one) or its info may
 * not be loaded; the status of a load that failed. */
static tb_status_t
target_with_info(tb_ix_data_t *d, const tb_ix_anchor_t *a, const resolved_t *r, uint32_t *t_out)
{
    if (r->self) { /* the location itself: known, or asked below by the caller */
        if (!d->objs[r->gobj].has_info)
            return TB_ERR_UNSUPPORTED;
        *t_out = r->gobj;
        return TB_OK;
    }
    if (r->link == TB_IX_NONE)
        return TB_ERR_UNSUPPORTED;
    const tb_ix_link_t *l = &d->groups[r->gi].links[r->link];
    if (l->type != H5L_TYPE_HARD)
        return TB_ERR_UNSUPPORTED;
    uint32_t t = l->obj;
    if (t == TB_IX_NONE)
        return TB_ERR_UNSUPPORTED;
    /* Loading infos reads every sibling's object header (a partial list's: this one's); in a file
     * open for writing, reading a header can rewrite it (HDF5 merges null messages), so only what
     * native reads is read. */
    if (!d->objs[t].has_info) {
        if (d->writable)
            return TB_ERR_UNSUPPORTED;
        tb_status_t st = d->groups[r->gi].partial ? tb_ix_member_info(d, a, r->gobj, r->link)
                                                  : tb_ix_load_group(d, a, r->gobj, NULL, true);
        if (st != TB_OK)
            return st;
    }
    t = l->obj;
    if (t == TB_IX_NONE || !d->objs[t].has_info)
        return TB_ERR_UNSUPPORTED;
    *t_out = t;
    return TB_OK;
}

/* ------------------------------------------------------------------ orders */
static int
cmp_name(const void *a, const void *b, void *ctx)
{
    const tb_ix_link_t *l = ctx;
    return strcmp(l[*(const uint32_t *)a].name, l[*(const uint32_t *)b].name);
}

static int
cmp_corder(const void *a, const void *b, void *ctx)
{
    const tb_ix_link_t *l  = ctx;
    int64_t              x = l[*(const uint32_t *)a].corder, y = l[*(const uint32_t *)b].corder;
    return (x > y) - (x < y);
}

/* g's links in name order (by_corder: creation order) as a permutation, built on first need and
 * kept with g; NULL only when out of memory. */
static uint32_t *
sorted(tb_ix_group_t *g, bool by_corder)
{
    uint32_t **slot = by_corder ? &g->by_corder : &g->by_name;
    if (*slot)
        return *slot;
    uint32_t *p = malloc((size_t)(g->nlinks ? g->nlinks : 1) * sizeof(*p));
    if (!p)
        return NULL;
    bool in_order = true; /* native order is name order for compact and symbol-table groups */
    for (uint32_t k = 0; k < g->nlinks; k++) {
        p[k] = k;
        if (k && in_order)
            in_order = (by_corder ? cmp_corder : cmp_name)(&p[k - 1], &p[k], g->links) < 0;
    }
    if (!in_order && g->nlinks > 32)
        qsort_r(p, g->nlinks, sizeof(*p), by_corder ? cmp_corder : cmp_name, g->links);
    else if (!in_order) /* small groups (most of them): an insertion sort costs far less */
        for (uint32_t k = 1; k < g->nlinks; k++) {
            uint32_t v = p[k], j = k;
            for (; j > 0 && (by_corder ? cmp_corder : cmp_name)(&p[j - 1], &v, g->links) > 0; j--)
                p[j] = p[j - 1];
            p[j] = v;
        }
    return *slot = p;
}

/* Learns whether g tracks link creation order (native asks the group's link info message).
 * Links moved in from a tracking group keep their order, so the links alone do not tell when all
 * have one: then the group creation property list does. TB_OK, or TB_ERR_HDF5 /
 * TB_ERR_UNSUPPORTED when it cannot be known (errors cleared; the caller forwards). */
static tb_status_t
ensure_corder_state(tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t gi)
{
    tb_ix_group_t *g = &d->groups[gi];
    if (g->corder_state)
        return TB_OK;
    for (uint32_t k = 0; k < g->nlinks; k++)
        if (!g->links[k].corder_valid) {
            g->corder_state = 2; /* a tracking group gives every link an order */
            return TB_OK;
        }
    if (d->objs[g->obj].corder_hint) { /* (the creation list the application asked said) */
        g->corder_state = d->objs[g->obj].corder_hint;
        d->dirty        = 1;
        return TB_OK;
    }
    H5I_type_t type;
    void      *grp = tb_ix_open_by_token(a->under, a->type, a->vol, d->objs[g->obj].token, &type, DXPL);
    if (!grp || type != H5I_GROUP) {
        H5Eclear2(H5E_DEFAULT);
        return grp ? TB_ERR_UNSUPPORTED : TB_ERR_HDF5;
    }
    H5VL_group_get_args_t gg = {.op_type = H5VL_GROUP_GET_GCPL};
    gg.args.get_gcpl.gcpl_id = H5I_INVALID_HID;
    unsigned flags           = 0;
    int      ok              = H5VLgroup_get(grp, a->vol, &gg, DXPL, NULL) >= 0 &&
                H5Pget_link_creation_order(gg.args.get_gcpl.gcpl_id, &flags) >= 0;
    if (gg.args.get_gcpl.gcpl_id >= 0)
        H5Pclose(gg.args.get_gcpl.gcpl_id);
    H5VLgroup_close(grp, a->vol, DXPL, NULL);
    if (!ok) {
        H5Eclear2(H5E_DEFAULT);
        return TB_ERR_HDF5;
    }
    d->groups[gi].corder_state = (flags & H5P_CRT_ORDER_TRACKED) ? 1 : 2;
    d->dirty                   = 1;
    return TB_OK;
}

static bool
tracks_corder(const tb_ix_group_t *g)
{
    return g->nlinks > 0 && g->corder_state == 1;
}

/* How to walk g for (idx_type, order): *perm NULL means stored (native name) order; `rev`
 * walks backwards. TB_OK; TB_ERR_UNSUPPORTED when native would do something else (an error, or an
 * order not recorded); TB_ERR_NOMEM. */
static tb_status_t
walk_of(tb_ix_group_t *g, H5_index_t idx_type, H5_iter_order_t order, const uint32_t **perm, bool *rev)
{
    *perm = NULL;
    *rev  = order == H5_ITER_DEC;
    if (idx_type == H5_INDEX_NAME) {
        if (order == H5_ITER_NATIVE)
            return TB_OK;
        return (*perm = sorted(g, false)) ? TB_OK : TB_ERR_NOMEM;
    }
    if (idx_type != H5_INDEX_CRT_ORDER || !tracks_corder(g))
        return TB_ERR_UNSUPPORTED;
    if (order == H5_ITER_NATIVE) /* dense: corder B-tree or hash order */
        return g->storage_type == H5G_STORAGE_TYPE_COMPACT ? TB_OK : TB_ERR_UNSUPPORTED;
    return (*perm = sorted(g, true)) ? TB_OK : TB_ERR_NOMEM;
}

static inline uint32_t
walk_at(const tb_ix_group_t *g, const uint32_t *perm, bool rev, uint32_t i)
{
    uint32_t j = rev ? g->nlinks - 1 - i : i;
    return perm ? perm[j] : j;
}

/* The n-th link of g in (idx_type, order), in *k_out: TB_OK, or why not (native errs past the
 * last link: TB_ERR_UNSUPPORTED, the caller forwards). */
static tb_status_t
nth_link(tb_ix_group_t *g, H5_index_t idx_type, H5_iter_order_t order, hsize_t n, uint32_t *k_out)
{
    const uint32_t *perm;
    bool            rev;
    if (n >= g->nlinks)
        return TB_ERR_UNSUPPORTED;
    tb_status_t st = walk_of(g, idx_type, order, &perm, &rev);
    if (st != TB_OK)
        return st;
    *k_out = walk_at(g, perm, rev, (uint32_t)n);
    return TB_OK;
}

static void
fill_linfo(const tb_ix_data_t *d, const tb_ix_link_t *l, H5L_info2_t *info)
{
    memset(info, 0, sizeof(*info));
    info->type         = (H5L_type_t)l->type;
    info->corder_valid = l->corder_valid;
    info->corder       = l->corder;
    info->cset         = (H5T_cset_t)l->cset;
    if (l->type == H5L_TYPE_HARD)
        memcpy(&info->u.token, d->objs[l->obj].token, TB_IX_TOKEN_NBYTES);
    else
        info->u.val_size = l->val_size;
}

static void
fill_oinfo(unsigned long fileno, const tb_ix_obj_t *r, unsigned fields, H5O_info2_t *out)
{
    memset(out, 0, sizeof(*out));
    out->type  = H5O_TYPE_UNKNOWN;
    out->token = H5O_TOKEN_UNDEF;
    if (fields & H5O_INFO_BASIC) {
        out->fileno = fileno;
        memcpy(&out->token, r->token, TB_IX_TOKEN_NBYTES);
        out->type = (H5O_type_t)r->type;
        out->rc   = r->rc;
    }
    if (fields & H5O_INFO_TIME) {
        out->atime = (time_t)r->atime;
        out->mtime = (time_t)r->mtime;
        out->ctime = (time_t)r->ctime;
        out->btime = (time_t)r->btime;
    }
    if (fields & H5O_INFO_NUM_ATTRS)
        out->num_attrs = r->num_attrs;
}

/* Whether the index may answer for these fields: times of a writable file change with raw-data
 * writes the index does not see. */
static bool
fields_ok(const tb_ix_data_t *d, unsigned fields)
{
    return !(d->writable && (fields & H5O_INFO_TIME));
}

/* Resolves a BY_IDX location to the selected link (group path, then n-th in order): TB_OK, or why
 * not (the caller forwards). */
static tb_status_t
resolve_by_idx(tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t self, const H5VL_loc_by_idx_t *bi,
               resolved_t *r)
{
    uint32_t    g;
    tb_status_t st;
    resolved_t  gr;
    if ((st = resolve(d, a, self, bi->name, &gr)) != TB_OK)
        return st;
    if ((g = target_of(d, &gr)) == TB_IX_NONE)
        return TB_ERR_UNSUPPORTED;
    if ((st = tb_ix_load_group(d, a, g, NULL, false)) != TB_OK)
        return st;
    r->gobj = g;
    r->gi   = d->objs[g].group;
    r->self = false;
    if (bi->idx_type == H5_INDEX_CRT_ORDER && (st = ensure_corder_state(d, a, r->gi)) != TB_OK)
        return st;
    return nth_link(&d->groups[r->gi], bi->idx_type, bi->order, bi->n, &r->link);
}

/* ------------------------------------------------------------------ callback IDs */

/* The object being registered for a callback, until the wrap class has made our wrapper of it
 * (callbacks are serialised by HDF5; registration does not nest): the object below, or for a lazy
 * one this struct's own address standing in for it, and the path and record the wrapper takes. */
static struct {
    void      *under;
    char      *path;
    H5I_type_t lazy_kind; /* H5I_BADID: a real object */
    uint32_t   lazy_obj;
    struct tb_index_file *f;
    bool       failed;    /* the lazy wrapper could not be made (out of memory) */
} pending_wrap;

/* Registers an ID for `obj` below (or, with lazy_kind not H5I_BADID, for a lazy object of record t)
 * as the application's call wraps it, with `path` (taken). */
static hid_t
register_for_callback(tb_obj_t *o, void *obj, H5I_type_t type, H5I_type_t lazy_kind, uint32_t t, char *path)
{
    pending_wrap.under     = lazy_kind != H5I_BADID ? (void *)&pending_wrap : obj;
    pending_wrap.path      = path;
    pending_wrap.lazy_kind = lazy_kind;
    pending_wrap.lazy_obj  = t;
    pending_wrap.f         = o->ctx->index;
    pending_wrap.failed    = false;
    hid_t id               = H5VLwrap_register(pending_wrap.under, type);
    free(pending_wrap.path); /* (not taken: no wrapper of ours was made) */
    bool failed            = pending_wrap.failed;
    memset(&pending_wrap, 0, sizeof(pending_wrap));
    pending_wrap.lazy_kind = H5I_BADID;
    if (id >= 0 && failed) {
        hid_t saved = tb_err_save();
        H5Idec_ref(id); /* (a wrapper with nothing below and no state: its close only frees it) */
        tb_err_restore(saved);
        id = H5I_INVALID_HID;
    }
    return id;
}

/* What an open of record t in a read-only file can hand out without opening anything below: a lazy
 * group, a lazy dataset, or H5I_BADID (named datatypes are opened for real: HDF5 decodes them at
 * once). A lazy dataset answers what the application asked of it before from its record and opens
 * the real one by its path for anything else: so only one with a record, or a dataset of an index
 * read from a sidecar that the run which wrote it opened (it recorded what it asked; a walk that
 * asks a dataset nothing but its attributes, as h5py's visititems does, then opens none), never in
 * a first open that has yet to learn what is asked. A dataset never opened is opened for real: its
 * header may not decode as an open decodes it (a damaged fill value or layout message, say, that
 * H5Oget_info never reads), and the open must fail as native's does. */
static H5I_type_t
lazy_kind(const tb_ix_data_t *d, uint32_t t)
{
    const tb_ix_obj_t *r = &d->objs[t];
    if ((r->has_info && r->type == H5O_TYPE_GROUP) || r->group != TB_IX_NONE)
        return H5I_GROUP;
    if (r->has_info && r->type == H5O_TYPE_DATASET && !d->dset_prefixed && !r->prefixed &&
        ((r->dset != TB_IX_NONE && d->dsets[r->dset].have) || (d->sc_buf && r->opened)))
        return H5I_DATASET;
    /* A named datatype whose binary form the index holds: HDF5 builds the type from it as soon as
     * it is opened. */
    if (r->has_info && r->type == H5O_TYPE_NAMED_DATATYPE && r->dset != TB_IX_NONE &&
        (d->dsets[r->dset].have & TB_IX_DS_TYPE))
        return H5I_DATATYPE;
    return H5I_BADID;
}

/* Record t's info, when it lacks it, from its object `under` (of `type`) just opened, after the
 * open succeeded: its header is in the cache, so this costs a quarter of reading it by name
 * later. */
static void
learn_info(tb_ix_data_t *d, uint32_t t, void *under, H5I_type_t type, hid_t vol)
{
    if (d->objs[t].has_info)
        return;
    H5VL_loc_params_t here = {.obj_type = type, .type = H5VL_OBJECT_BY_SELF};
    if (tb_ix_ask_info(d, t, under, &here, vol) == TB_ERR_HDF5)
        tb_err_drop();
}

/* Opens `name` (a group when want_group) from o, the way native iteration opens the object it
 * hands to callbacks, and registers an ID for it, wrapped as the application's call wraps. In a
 * read-only file whose index knows the object (record t, not TB_IX_NONE) and its path, that is a
 * lazy object: nothing opened below. */
static hid_t
open_for_callback(tb_obj_t *o, H5I_type_t loc_type, const char *name, bool want_group, tb_ix_data_t *d, uint32_t t)
{
    /* Native records the path of what it hands to the callback; in a read-only file the index can
     * tell it too, and what is opened from the callback's object then opens from the index. */
    char *path = NULL;
    if (o->ctx->index && !d->writable) {
        const char *base = loc_type == H5I_FILE ? "/" : (o->idx ? o->idx->path : NULL);
        if (base && tb_ix_join_path(base, name, &path) != TB_OK)
            path = NULL; /* (none when it cannot be told: H5Iget_name forwards) */
    }
    if (path && t != TB_IX_NONE && o->ctx->index->file_under) {
        H5I_type_t kind = lazy_kind(d, t);
        if (kind == H5I_GROUP || ((kind == H5I_DATASET || kind == H5I_DATATYPE) && !want_group)) {
            char *p = strdup(path);
            hid_t id = p ? register_for_callback(o, NULL, kind, kind, t, p) : H5I_INVALID_HID;
            if (id >= 0) {
                free(path);
                tb_ix_stats.answered++;
                return id;
            }
        }
    }
    /* Opened below: from o, or from the file by its path when o is lazy. */
    void             *at    = o->under;
    H5I_type_t        atype = loc_type;
    const char       *nm    = name;
    if (!at) {
        at    = o->ctx->index ? o->ctx->index->file_under : NULL;
        atype = H5I_FILE;
        nm    = path;
        if (!at || !nm) {
            free(path);
            return H5I_INVALID_HID;
        }
    }
    H5VL_loc_params_t self = {.obj_type = atype, .type = H5VL_OBJECT_BY_SELF};
    void             *obj;
    H5I_type_t        type = H5I_GROUP;
    if (want_group)
        obj = H5VLgroup_open(at, &self, o->under_vol_id, nm, H5P_GROUP_ACCESS_DEFAULT, DXPL, NULL);
    else {
        H5VL_loc_params_t byname            = {.obj_type = atype, .type = H5VL_OBJECT_BY_NAME};
        byname.loc_data.loc_by_name.name    = nm;
        byname.loc_data.loc_by_name.lapl_id = H5P_LINK_ACCESS_DEFAULT;
        obj = H5VLobject_open(at, &byname, o->under_vol_id, &type, DXPL, NULL);
    }
    if (!obj) {
        free(path);
        H5Eclear2(H5E_DEFAULT);
        return H5I_INVALID_HID;
    }
    hid_t id = register_for_callback(o, obj, type, H5I_BADID, TB_IX_NONE, path);
    if (id < 0) {
        tb_ix_close_under(obj, type, o->under_vol_id);
        H5Eclear2(H5E_DEFAULT);
    }
    return id;
}

void
tb_ix_learn_opened(tb_obj_t *child, H5I_type_t type, tb_obj_t *parent, H5I_type_t loc_type, const char *base,
                   const char *name)
{
    struct tb_index_file *f  = parent->ctx->index;
    struct tb_index_obj  *px = parent->idx, *cx = tb_ix_obj_state(child);
    tb_ix_data_t         *d  = f->d;
    uint32_t              self, t;
    resolved_t            r;
    if (!cx || cx->path || cx->state != TB_IXO_UNKNOWN)
        return;
    if (loc_type == H5I_FILE)
        self = tb_ix_obj_find(d, d->file.id.root_token);
    else if (px && px->state == TB_IXO_MINE)
        self = tb_ix_obj_find(d, px->token);
    else
        return;
    if (self == TB_IX_NONE || resolve(d, NULL, self, name, &r) != TB_OK || (t = target_of(d, &r)) == TB_IX_NONE)
        return;
    if (!r.self && r.gi != TB_IX_NONE)
        d->groups[r.gi].members_groups = type == H5I_GROUP;
    if (tb_ix_join_path(base, name, &cx->path) != TB_OK) {
        cx->path = NULL;
        return;
    }
    cx->state = TB_IXO_MINE;
    memcpy(cx->token, d->objs[t].token, TB_IX_TOKEN_NBYTES);
    cx->rec = t + 1;
    /* (The index answers the walks and queries that would have kept HDF5's cache hitting: a
     * dataset's header would stay in it, decoded, as those opened by token would; and so would a
     * group's header and link storage, whose later opens (read-only files only come here) are
     * the index's. A smaller cache is also a faster one: loader g of bench/index, 40 experiments,
     * first open 2.77 s -> 2.67 s, peak RSS 72.6 -> 51.1 MB, with closed groups evicted too.) */
    cx->evict = (type == H5I_DATASET || type == H5I_GROUP) && tb_ix_can_evict(child->ctx);
    /* What a dataset or named datatype is, from the header the open just read: the next open of
     * this path is then the index's (a lazy object, or one opened by token) rather than native's
     * walk again. (A group is lazy once its links are listed, as they are when anything below it
     * is opened through the index.) */
    if (type != H5I_GROUP && child->under) {
        learn_info(d, t, child->under, type, child->under_vol_id);
        tb_ix_obj_opened(d, t, type);
    }
}

/* The path of the location native registers an ID for next (tb_index_callback_location). */
static char *next_wrap_path;

void
tb_index_callback_location(tb_obj_t *o, const H5VL_loc_params_t *loc)
{
    tb_index_callback_location_end();
    /* (the object itself only, by self or by a name of "." components: the path of anything a
     * name leads to through links, soft or external, is native's to tell) */
    const char *name = loc->type == H5VL_OBJECT_BY_NAME ? loc->loc_data.loc_by_name.name : NULL;
    bool        self = loc->type == H5VL_OBJECT_BY_SELF || (name && name[0] == '.' && tb_ix_names_self(name));
    if (self && o->ctx->index && o->idx && o->idx->path && o->idx->state == TB_IXO_MINE)
        next_wrap_path = strdup(o->idx->path);
}

void
tb_index_callback_location_end(void)
{
    free(next_wrap_path);
    next_wrap_path = NULL;
}

void
tb_index_obj_wrapped(tb_obj_t *w)
{
    if (next_wrap_path && (!pending_wrap.under || w->under != pending_wrap.under)) {
        struct tb_index_obj *x = tb_ix_obj_state(w);
        if (x && !x->path) {
            x->path        = next_wrap_path;
            next_wrap_path = NULL;
        }
        tb_index_callback_location_end(); /* (only the first wrapper of the call) */
        return;
    }
    if (!pending_wrap.under || w->under != pending_wrap.under)
        return;
    if (pending_wrap.lazy_kind != H5I_BADID) {
        /* A lazy object: the stand-in is not an object below. */
        w->under = NULL;
        if (!tb_ix_lazy_new(pending_wrap.f, w, pending_wrap.lazy_kind, pending_wrap.lazy_obj, 0)) {
            pending_wrap.failed = true;
            return;
        }
        w->idx->state = TB_IXO_MINE;
        memcpy(w->idx->token, pending_wrap.f->d->objs[pending_wrap.lazy_obj].token, TB_IX_TOKEN_NBYTES);
        w->idx->rec = pending_wrap.lazy_obj + 1;
        if (pending_wrap.lazy_kind == H5I_GROUP)
            tb_ix_stats.groups_lazy++;
        else if (pending_wrap.lazy_kind == H5I_DATASET)
            tb_ix_stats.dsets_lazy++;
        else
            tb_ix_stats.types_lazy++;
    }
    struct tb_index_obj *x = pending_wrap.path ? tb_ix_obj_state(w) : NULL;
    if (x && !x->path) {
        x->path           = pending_wrap.path;
        pending_wrap.path = NULL;
    }
}

/* Releases a callback ID; the application's error stack survives when the iteration failed. */
void
tb_ix_callback_close(hid_t id, herr_t status)
{
    if (status < 0) {
        hid_t saved = tb_err_save();
        H5Idec_ref(id);
        tb_err_restore(saved);
    }
    else
        H5Idec_ref(id);
}

hid_t
tb_ix_callback_id(tb_obj_t *o, const tb_ix_data_t *d, uint32_t t, char *path)
{
    H5I_type_t kind = lazy_kind(d, t);
    if (kind == H5I_BADID || !o->ctx->index || !o->ctx->index->file_under) {
        free(path);
        return H5I_INVALID_HID;
    }
    return register_for_callback(o, NULL, kind, kind, t, path);
}

/* ------------------------------------------------------------------ iterate */
/* H5Literate2 over loaded group gi in the walk (perm, rev) that walk_of gave for the call: the
 * iteration's result (the callback's, or -1 with an error pushed when it failed). */
static herr_t
iterate_answer(tb_ix_data_t *d, uint32_t gi, const uint32_t *perm, bool rev, hid_t gid,
               const H5VL_link_iterate_args_t *it)
{
    tb_ix_group_t *g    = &d->groups[gi];
    hsize_t        skip = it->idx_p ? *it->idx_p : 0;
    uint32_t       n    = g->nlinks;
    herr_t         ret  = H5_ITER_CONT;
    hsize_t        i    = skip;
    bool           shim = tb_hdf5_own_code((void (*)(void))it->op); /* (H5Literate1's adapter) */
    d->busy++;
    for (; i < n && ret == H5_ITER_CONT; i++) {
        H5L_info2_t          info;
        const tb_ix_link_t *l = &d->groups[gi].links[walk_at(&d->groups[gi], perm, rev, (uint32_t)i)];
        fill_linfo(d, l, &info);
        char        nb[TB_IX_CB_NAME_BUF], *heap = NULL;
        const char *nm = tb_ix_cb_name(l->name, l->name_len, nb, &heap);
        if (!nm) {
            TB_PUSH("index", TB_ERR_NOMEM, "out of memory");
            ret = -1;
            break;
        }
        tb_ix_permit(shim && l->type == H5L_TYPE_HARD ? d : NULL); /* (the adapter's next call) */
        ret = it->op(gid, nm, &info, it->op_data);
        tb_ix_permit(NULL);
        free(heap);
    }
    d->busy--;
    if (ret < 0) {
        TB_PUSH("index", TB_ERR_HDF5, "link iteration failed (callback returned %d)", (int)ret);
        return -1;
    }
    if (it->idx_p)
        *it->idx_p = i;
    return ret;
}

/* The group object a BY_SELF/BY_NAME location names, loaded, in *g_out: TB_OK, or why not (the
 * caller forwards). */
static tb_status_t
group_at(tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t self, const H5VL_loc_params_t *loc, bool want_info,
         uint32_t *g_out)
{
    uint32_t    g = self;
    tb_status_t st;
    if (loc->type == H5VL_OBJECT_BY_NAME) {
        resolved_t r;
        if ((st = resolve(d, a, self, loc->loc_data.loc_by_name.name, &r)) != TB_OK)
            return st;
        g = target_of(d, &r);
    }
    else if (loc->type != H5VL_OBJECT_BY_SELF)
        return TB_ERR_UNSUPPORTED;
    if (g == TB_IX_NONE)
        return TB_ERR_UNSUPPORTED;
    if ((st = tb_ix_load_group(d, a, g, NULL, want_info)) != TB_OK)
        return st;
    *g_out = g;
    return TB_OK;
}

/* ------------------------------------------------------------------ visit */
typedef struct visit {
    tb_ix_data_t *d;
    unsigned long  fileno;
    H5_index_t     idx_type;
    H5_iter_order_t order;
    hid_t          id;
    char          *path;
    size_t         len, cap;
    bool           objects; /* H5Ovisit: report objects, else links */
    bool           shim;    /* the callback is HDF5's (the 1.8 calls' adapters: tb_ix_permit) */
    unsigned       fields;      /* what the callback's info holds */
    unsigned       walk_fields; /* what native's walk fetches to descend and to skip objects seen */
    H5L_iterate2_t lop;
    H5O_iterate2_t oop;
    void          *op_data;
    /* A name search (name_by_search): 1 + the record whose first hard link ends the walk, its path
     * kept in `found` (malloc'd); no callback. */
    uint32_t       find1;
    char          *found;
    /* Where groups are listed from as the visit enters them and their members' infos asked as it
     * reaches them (with the halves want_ninfo of their native info), and where those members'
     * headers wait until the visit has reported them (a->later, with a->evict_file; NULL: none
     * wait). */
    const tb_ix_anchor_t *a;
    unsigned              want_ninfo;
    /* The callbacks made so far, and whether a group could not be loaded on the way (the visit
     * then goes on natively from there: visit_answer). */
    uint64_t ncb;
    bool     stuck;
} visit_t;

/* Appends name[0..n) to the visit's path: TB_OK, or TB_ERR_NOMEM. */
static tb_status_t
path_push(visit_t *v, const char *name, uint32_t n)
{
    if (v->len + n + 2 > v->cap) {
        size_t cap = v->cap ? v->cap : 256;
        while (cap < v->len + n + 2)
            cap *= 2;
        char *p = realloc(v->path, cap);
        if (!p)
            return TB_ERR_NOMEM;
        v->path = p;
        v->cap  = cap;
    }
    memcpy(v->path + v->len, name, n + 1);
    v->len += n;
    return TB_OK;
}

/* A group the visit is in: its links listed as the visit enters it, and each member's info (with
 * the native info's halves want_ninfo) asked as the visit reaches that member, through the group
 * open below, opened once for the group when the index lacks something of it (a search that
 * stops at its first hit then reads what native's reads; a visit of members the index knows reads
 * nothing). */
typedef struct {
    uint32_t g;
    void    *grp;
    bool     opened;
} visit_level_t;

static bool
level_open(visit_t *v, visit_level_t *lv)
{
    tb_status_t st;
    if (!lv->grp)
        lv->grp = tb_ix_group_below(v->d, v->a, lv->g, &lv->opened, &st);
    return lv->grp != NULL;
}

/* (Its header leaves HDF5's cache with its handle: the visit has reported the group.) */
static void
level_close(visit_t *v, visit_level_t *lv)
{
    if (!lv->opened)
        return;
    tb_ix_close_under(lv->grp, H5I_GROUP, v->a->vol);
    tb_ix_evict_unused(v->a->evict_file, v->d->objs[lv->g].token);
    lv->grp    = NULL;
    lv->opened = false;
}

/* The group's links, listed (through its handle, kept for its members' infos) unless they are:
 * false when they cannot be (the group left open to close). */
static bool
level_enter(visit_t *v, visit_level_t *lv)
{
    tb_ix_data_t *d      = v->d;
    uint32_t      gi     = d->objs[lv->g].group;
    bool          listed = gi != TB_IX_NONE && !d->groups[gi].partial;
    if (!listed && (!level_open(v, lv) || tb_ix_load_group(d, v->a, lv->g, lv->grp, false) != TB_OK)) {
        H5Eclear2(H5E_DEFAULT);
        return false;
    }
    return true;
}

static herr_t
visit_members(visit_t *v, visit_level_t *lv);

static herr_t
visit_group(visit_t *v, uint32_t g)
{
    visit_level_t lv  = {.g = g};
    herr_t        ret = H5_ITER_ERROR;
    if (level_enter(v, &lv))
        ret = visit_members(v, &lv);
    else
        v->stuck = true;
    level_close(v, &lv);
    return ret;
}

/* H5G_visit's per-link step (H5G__visit_cb), with H5O__visit_cb in front for H5Ovisit, over the
 * group of level lv: H5_ITER_ERROR with v->stuck when a member's info cannot be had, nor its
 * order walked, nor a member group entered. */
static herr_t
visit_members(visit_t *v, visit_level_t *lv)
{
    tb_ix_data_t   *d        = v->d;
    uint32_t        g        = lv->g;
    uint32_t        gi       = d->objs[g].group;
    H5_index_t      idx_type = v->idx_type;
    const uint32_t *perm;
    bool            rev;
    if (idx_type == H5_INDEX_CRT_ORDER && ensure_corder_state(d, v->a, gi) != TB_OK) {
        v->stuck = true;
        return H5_ITER_ERROR;
    }
    if (idx_type == H5_INDEX_CRT_ORDER && d->groups[gi].corder_state != 1)
        idx_type = H5_INDEX_NAME;
    if (walk_of(&d->groups[gi], idx_type, v->order, &perm, &rev) != TB_OK) {
        v->stuck = true;
        return H5_ITER_ERROR;
    }
    herr_t ret = H5_ITER_CONT;
    for (uint32_t i = 0; i < d->groups[gi].nlinks && ret == H5_ITER_CONT; i++) {
        const tb_ix_link_t *l   = &d->groups[gi].links[walk_at(&d->groups[gi], perm, rev, i)];
        size_t               old = v->len;
        if (path_push(v, l->name, l->name_len) != TB_OK)
            return H5_ITER_ERROR;
        uint32_t t = TB_IX_NONE;
        if (l->type == H5L_TYPE_HARD) {
            t = l->obj;
            if (t != TB_IX_NONE && !tb_ix_member_known(d, t, v->want_ninfo) &&
                (!level_open(v, lv) ||
                 tb_ix_child_info(d, gi, (uint32_t)(l - d->groups[gi].links), lv->grp, v->a, v->want_ninfo) != TB_OK))
                H5Eclear2(H5E_DEFAULT);
            if (t == TB_IX_NONE || !tb_ix_member_known(d, t, v->want_ninfo)) {
                v->stuck = true;
                return H5_ITER_ERROR;
            }
        }
        if (v->find1) {
            if (t != TB_IX_NONE && t == v->find1 - 1)
                ret = (v->found = strdup(v->path)) ? H5_ITER_STOP : H5_ITER_ERROR;
        }
        else if (v->objects) {
            if (t != TB_IX_NONE && d->objs[t].ostamp != d->stamp) {
                H5O_info2_t info;
                fill_oinfo(v->fileno, &d->objs[t], v->fields, &info);
                tb_ix_permit(v->shim && (v->fields & H5O_INFO_BASIC) ? d : NULL);
                v->ncb++;
                ret = v->oop(v->id, v->path, &info, v->op_data);
                tb_ix_permit(NULL);
                if (ret == H5_ITER_CONT && (v->walk_fields & H5O_INFO_BASIC) && d->objs[t].rc > 1)
                    d->objs[t].ostamp = d->stamp;
            }
        }
        else {
            H5L_info2_t info;
            fill_linfo(d, l, &info);
            tb_ix_permit(v->shim && l->type == H5L_TYPE_HARD ? d : NULL);
            v->ncb++;
            ret = v->lop(v->id, v->path, &info, v->op_data);
            tb_ix_permit(NULL);
        }
        if (t != TB_IX_NONE && v->a->later) /* (reported: its header leaves the cache now) */
            tb_ix_evict_later(d, v->a->evict_file, t);
        if (ret == H5_ITER_CONT && t != TB_IX_NONE && d->objs[t].gstamp != d->stamp) {
            d->objs[t].gstamp = d->stamp;
            if (d->objs[t].type == H5O_TYPE_GROUP) {
                if (path_push(v, "/", 1) != TB_OK)
                    return H5_ITER_ERROR;
                ret = visit_group(v, t);
            }
        }
        v->len          = old;
        v->path[v->len] = '\0';
    }
    return ret;
}

static uint32_t
next_stamp(tb_ix_data_t *d)
{
    if (++d->stamp == 0) {
        for (uint32_t k = 0; k < d->nobj; k++)
            d->objs[k].gstamp = d->objs[k].ostamp = 0;
        d->stamp = 1;
    }
    return d->stamp;
}

/* The headers loaded for the visit and not reported (it stopped early, or forwards) leave HDF5's
 * cache. */
static void
visit_end(tb_ix_data_t *d, tb_ix_anchor_t *pa)
{
    if (pa->later)
        tb_ix_later_flush(d, pa->evict_file, pa->later);
    pa->later = NULL;
}

/* A visit that could not load a group on its way goes on natively: native's visit from the
 * start, its first v->ncb callbacks (those the application already had, in the same order: the
 * index walks as native walks) not passed on. */
typedef struct replay {
    const visit_t *v;
    uint64_t       n;
} replay_t;

/* Whether native's next callback is one the application already had (it is counted). */
static bool
replay_had(replay_t *r)
{
    return r->n < r->v->ncb && ++r->n;
}

static herr_t
replay_obj_cb(hid_t obj, const char *name, const H5O_info2_t *info, void *data)
{
    replay_t *r = data;
    return replay_had(r) ? H5_ITER_CONT : r->v->oop(obj, name, info, r->v->op_data);
}

static herr_t
replay_link_cb(hid_t grp, const char *name, const H5L_info2_t *info, void *data)
{
    replay_t *r = data;
    return replay_had(r) ? H5_ITER_CONT : r->v->lop(grp, name, info, r->v->op_data);
}

static herr_t
replay(tb_obj_t *o, const H5VL_loc_params_t *loc, const visit_t *v)
{
    replay_t r = {.v = v};
    if (!o->under && tb_index_materialise(o) < 0)
        return -1;
    if (v->objects) {
        H5VL_object_specific_args_t sa = {.op_type = H5VL_OBJECT_VISIT};
        sa.args.visit.idx_type         = v->idx_type;
        sa.args.visit.order            = v->order;
        sa.args.visit.fields           = v->fields;
        sa.args.visit.op               = replay_obj_cb;
        sa.args.visit.op_data          = &r;
        return H5VLobject_specific(o->under, loc, o->under_vol_id, &sa, DXPL, NULL);
    }
    H5VL_link_specific_args_t la = {.op_type = H5VL_LINK_ITER};
    la.args.iterate.recursive    = true;
    la.args.iterate.idx_type     = v->idx_type;
    la.args.iterate.order        = v->order;
    la.args.iterate.idx_p        = NULL;
    la.args.iterate.op           = replay_link_cb;
    la.args.iterate.op_data      = &r;
    return H5VLlink_specific(o->under, loc, o->under_vol_id, &la, DXPL, NULL);
}

/* H5Lvisit2 (v->objects false) and H5Ovisit3 (true): TB_ANSWERED (the visit's result in
 * *ret_out), or TB_FORWARD. */
static tb_answer_t
visit_answer(tb_obj_t *o, const H5VL_loc_params_t *loc, tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t self,
             visit_t *v, herr_t *ret_out)
{
    /* Nested visits share the stamps; dense native creation order is not recorded; a visit of a
     * file open for writing would read (and HDF5 may rewrite) headers native would not reach after
     * an early stop. */
    if (d->visiting || d->writable || (v->order == H5_ITER_NATIVE && v->idx_type == H5_INDEX_CRT_ORDER))
        return TB_FORWARD;
    const char *name  = loc->type == H5VL_OBJECT_BY_NAME ? loc->loc_data.loc_by_name.name : ".";
    uint32_t    start = self;
    if (loc->type == H5VL_OBJECT_BY_NAME) {
        resolved_t r;
        if (resolve(d, a, self, name, &r) != TB_OK)
            return TB_FORWARD;
        if (r.self) /* ("." as h5py's visit names it: the location, as BY_SELF) */
            start = r.gobj;
        else if (target_with_info(d, a, &r, &start) != TB_OK)
            return TB_FORWARD;
    }
    else if (loc->type != H5VL_OBJECT_BY_SELF)
        return TB_FORWARD;
    bool is_group = true;
    if (v->objects) {
        if (!d->objs[start].has_info) {
            /* The location's own info, fetched below once. */
            H5VL_loc_params_t sl = {.obj_type = loc->obj_type, .type = H5VL_OBJECT_BY_SELF};
            if (start != self || !o->under || tb_ix_ask_info(d, start, o->under, &sl, o->under_vol_id) != TB_OK) {
                H5Eclear2(H5E_DEFAULT);
                return TB_FORWARD;
            }
        }
        /* Native decides to descend from the info it fetched: in 1.14 without H5O_INFO_BASIC the
         * type reads H5O_TYPE_UNKNOWN and only "." is visited. */
        is_group = (v->walk_fields & H5O_INFO_BASIC) && d->objs[start].type == H5O_TYPE_GROUP;
    }
    /* The 1.8 calls' adapter (H5Ovisit1, H5Ovisit2 with H5O_INFO_HDR or H5O_INFO_META_SIZE) asks
     * every object's native info of these halves: the same bits in its fields. */
    unsigned want_ninfo = v->shim ? tb_ix_ni_halves(v->fields) : 0u;
    /* Groups are listed as the visit enters them and their members' infos asked as it reaches
     * them, as native reads them (a visit stopped early reads no further); the headers read stay
     * in HDF5's cache until the visit has reported their objects. */
    tb_ix_anchor_t pa = *a;
    tb_ix_later_t  vl = {.reports = true};
    pa.later          = a->evict_file ? &vl : NULL;
    v->d          = d;
    v->a          = &pa;
    v->want_ninfo = want_ninfo;
    /* (The start's links first: H5Lvisit of something that is not a group errs natively, the
     * listing fails and we forward.) */
    visit_level_t top = {.g = start};
    if (is_group && !level_enter(v, &top)) {
        level_close(v, &top);
        visit_end(d, &pa);
        return TB_FORWARD;
    }

    v->fileno = o->ctx->index->fileno;
    v->id     = open_for_callback(o, loc->obj_type, name, !v->objects, d, start);
    if (v->id < 0) {
        level_close(v, &top);
        visit_end(d, &pa);
        return TB_FORWARD;
    }
    herr_t ret = H5_ITER_CONT;
    d->visiting++;
    d->busy++;
    uint32_t s = next_stamp(d);
    if (v->objects) {
        H5O_info2_t info;
        fill_oinfo(v->fileno, &d->objs[start], v->fields, &info);
        tb_ix_permit(v->shim && (v->fields & H5O_INFO_BASIC) ? d : NULL);
        v->ncb++;
        ret = v->oop(v->id, ".", &info, v->op_data);
        tb_ix_permit(NULL);
        /* (1.14 remembers the start as seen only when other links lead to it; 2.x always) */
        if (ret == H5_ITER_CONT && is_group && (v->walk_fields & H5O_INFO_BASIC) &&
            (d->objs[start].rc > 1 || H5_VERS_MAJOR >= 2))
            d->objs[start].ostamp = s;
    }
    if (ret == H5_ITER_CONT && is_group) {
        d->objs[start].gstamp = s;
        if (path_push(v, "", 0) != TB_OK)
            ret = H5_ITER_ERROR;
        else
            ret = visit_members(v, &top);
    }
    d->visiting--;
    d->busy--;
    level_close(v, &top);
    visit_end(d, &pa);
    free(v->path);
    if (v->stuck) { /* (what the application was given stays given; native goes on from there) */
        H5Eclear2(H5E_DEFAULT);
        tb_ix_callback_close(v->id, 0);
        tb_ix_stats.visits_replayed++;
        *ret_out = replay(o, loc, v);
        return TB_ANSWERED;
    }
    if (ret < 0) {
        TB_PUSH("index", TB_ERR_HDF5, "visit failed (callback returned %d)", (int)ret);
        ret = -1;
    }
    tb_ix_callback_close(v->id, ret);
    *ret_out = ret;
    return TB_ANSWERED;
}

/* ------------------------------------------------------------------ names by search
 * H5Iget_name of an object opened by token: native records no path for it and, at every call,
 * visits the file from its root group by name in native order for the first hard link to it
 * (H5G_get_name_by_addr; "/" for the root group itself, nothing when no link leads to it). The same
 * visit over the index (visit_group's name search), each group loaded as the search enters it (as
 * native's visit reads them). */
/* The name native's search gives object o (opened by token) in *path_out (malloc'd; NULL: no link
 * leads to it): TB_OK, or why the index cannot tell (then native searches). */
static tb_status_t
name_by_search(tb_obj_t *o, const H5VL_loc_params_t *loc, char **path_out)
{
    uint8_t        tok[TB_IX_TOKEN_NBYTES];
    tb_ix_data_t  *d;
    tb_ix_anchor_t a;
    uint32_t       self, root;
    *path_out = NULL;
    if (!o->ctx->index || tb_ix_for(o, loc->obj_type, tok, &d) != TB_OK || d->writable || d->visiting ||
        !anchor_of(o, loc->obj_type, &a) || tb_ix_self_rec(o, d, tok, &self) != TB_OK ||
        tb_ix_obj_get(d, d->file.id.root_token, &root) != TB_OK) {
        H5Eclear2(H5E_DEFAULT);
        return TB_ERR_UNSUPPORTED;
    }
    if (self == root)
        return (*path_out = strdup("/")) ? TB_OK : TB_ERR_NOMEM;
    visit_t v = {.d = d, .a = &a, .idx_type = H5_INDEX_NAME, .order = H5_ITER_NATIVE, .find1 = self + 1};
    herr_t  ret = path_push(&v, "/", 1) == TB_OK ? H5_ITER_CONT : H5_ITER_ERROR;
    if (ret == H5_ITER_CONT) {
        d->objs[root].gstamp = next_stamp(d);
        ret                  = visit_group(&v, root);
    }
    free(v.path);
    if (ret < 0) {
        free(v.found);
        H5Eclear2(H5E_DEFAULT);
        return v.stuck ? TB_ERR_UNSUPPORTED : TB_ERR_NOMEM;
    }
    *path_out = v.found;
    tb_ix_stats.answered++;
    return TB_OK;
}

/* Whether the link access property list of a location lets the index answer: native checks it
 * (and uses it for soft and external links); one that is not a property list must meet native's
 * error. */
static bool
lapl_ok(const H5VL_loc_params_t *loc)
{
    hid_t lapl = loc->type == H5VL_OBJECT_BY_NAME  ? loc->loc_data.loc_by_name.lapl_id
                 : loc->type == H5VL_OBJECT_BY_IDX ? loc->loc_data.loc_by_idx.lapl_id
                                                   : H5P_LINK_ACCESS_DEFAULT;
    if (lapl == H5P_LINK_ACCESS_DEFAULT || lapl == H5P_DEFAULT)
        return true;
    hid_t saved = tb_err_save();
    bool  ok    = H5Iget_type(lapl) == H5I_GENPROP_LST && H5Pisa_class(lapl, H5P_LINK_ACCESS) > 0;
    tb_err_restore(saved);
    return ok;
}

/* ------------------------------------------------------------------ entry points */
#define ANSWERED(r)                                                                                        \
    do {                                                                                                   \
        tb_ix_stats.answered++;                                                                           \
        *ret_out = (r);                                                                                    \
        return TB_ANSWERED;                                                                                \
    } while (0)
#define FORWARD()                                                                                          \
    do {                                                                                                   \
        tb_ix_stats.forwarded++;                                                                          \
        return TB_FORWARD;                                                                                 \
    } while (0)

/* The start every query shares: o's file index, where relative names start, and the index entry
 * of o itself. TB_OK: go on. Else the query is not for the index: TB_ERR_UNSUPPORTED (no index,
 * asynchronous, non-default link access, not an object of its file) or a failure; one in entering
 * o in the index (out of memory) is counted as forwarded. */
static tb_status_t
query_begin(tb_obj_t *o, const H5VL_loc_params_t *loc, void **req, tb_ix_data_t **d_out, tb_ix_anchor_t *a,
            uint32_t *self_out)
{
    uint8_t       tok[TB_IX_TOKEN_NBYTES];
    tb_ix_data_t *d;
    tb_status_t   st;
    if (req || !o->ctx->index || !lapl_ok(loc))
        return TB_ERR_UNSUPPORTED;
    if ((st = tb_ix_for(o, loc->obj_type, tok, &d)) != TB_OK)
        return st;
    if (!anchor_of(o, loc->obj_type, a))
        return TB_ERR_UNSUPPORTED;
    *d_out = d;
    if ((st = tb_ix_self_rec(o, d, tok, self_out)) != TB_OK) {
        tb_ix_stats.forwarded++;
        return st;
    }
    return TB_OK;
}

tb_answer_t
tb_index_link_specific(tb_obj_t *o, const H5VL_loc_params_t *loc, H5VL_link_specific_args_t *args, void **req,
                        herr_t *ret_out)
{
    if (args->op_type != H5VL_LINK_EXISTS && args->op_type != H5VL_LINK_ITER)
        return TB_FORWARD;
    tb_ix_data_t  *d;
    tb_ix_anchor_t a;
    uint32_t        self;
    if (query_begin(o, loc, req, &d, &a, &self) != TB_OK)
        return TB_FORWARD;

    if (args->op_type == H5VL_LINK_EXISTS) {
        resolved_t  r;
        tb_status_t st = TB_ERR_UNSUPPORTED;
        if (loc->type == H5VL_OBJECT_BY_NAME) {
            d->exists_first = 1;
            st              = resolve(d, &a, self, loc->loc_data.loc_by_name.name, &r);
            d->exists_first = 0;
        }
        if (st != TB_OK || r.self)
            FORWARD(); /* (a name with no component: native's own answer) */
        *args->args.exists.exists = r.link != TB_IX_NONE;
        ANSWERED(0);
    }

    const H5VL_link_iterate_args_t *it = &args->args.iterate;
    if (it->recursive) {
        visit_t v;
        memset(&v, 0, sizeof(v));
        v.idx_type = it->idx_type;
        v.order    = it->order;
        v.lop      = it->op;
        v.shim     = tb_hdf5_own_code((void (*)(void))it->op);
        v.op_data  = it->op_data;
        if (visit_answer(o, loc, d, &a, self, &v, ret_out) != TB_ANSWERED)
            FORWARD();
        tb_ix_stats.answered++;
        return TB_ANSWERED;
    }
    uint32_t g;
    if (group_at(d, &a, self, loc, false, &g) != TB_OK)
        FORWARD();
    uint32_t        gi = d->objs[g].group;
    const uint32_t *perm;
    bool            rev;
    hsize_t         skip = it->idx_p ? *it->idx_p : 0;
    if (it->idx_type == H5_INDEX_CRT_ORDER && ensure_corder_state(d, &a, gi) != TB_OK)
        FORWARD();
    if (walk_of(&d->groups[gi], it->idx_type, it->order, &perm, &rev) != TB_OK ||
        (skip > 0 && skip >= d->groups[gi].nlinks))
        FORWARD(); /* native errs (or orders as the index cannot know) */
    hid_t gid = open_for_callback(o, loc->obj_type,
                                  loc->type == H5VL_OBJECT_BY_NAME ? loc->loc_data.loc_by_name.name : ".", true, d, g);
    if (gid < 0)
        FORWARD();
    herr_t ret = iterate_answer(d, gi, perm, rev, gid, it);
    tb_ix_callback_close(gid, ret);
    ANSWERED(ret);
}

tb_answer_t
tb_index_link_get(tb_obj_t *o, const H5VL_loc_params_t *loc, H5VL_link_get_args_t *args, void **req,
                   herr_t *ret_out)
{
    tb_ix_data_t  *d;
    tb_ix_anchor_t a;
    uint32_t        self;
    if (query_begin(o, loc, req, &d, &a, &self) != TB_OK)
        return TB_FORWARD;
    resolved_t r;
    if (loc->type == H5VL_OBJECT_BY_NAME) {
        if (resolve(d, &a, self, loc->loc_data.loc_by_name.name, &r) != TB_OK || r.link == TB_IX_NONE)
            FORWARD();
    }
    else if (loc->type == H5VL_OBJECT_BY_IDX) {
        if (resolve_by_idx(d, &a, self, &loc->loc_data.loc_by_idx, &r) != TB_OK)
            FORWARD();
    }
    else
        FORWARD();
    const tb_ix_link_t *l = &d->groups[r.gi].links[r.link];
    switch (args->op_type) {
        case H5VL_LINK_GET_INFO:
            fill_linfo(d, l, args->args.get_info.linfo);
            /* H5Lget_info1 (PyTables' Group._g_get_objinfo) turns a hard link's token into an
             * address through the location's native object: its file, which a stand-in has. */
            tb_ix_permit_obj(l->type == H5L_TYPE_HARD && !o->under ? o : NULL);
            ANSWERED(0);
        case H5VL_LINK_GET_NAME: {
            char  *buf  = args->args.get_name.name;
            size_t size = args->args.get_name.name_size;
            if (args->args.get_name.name_len)
                *args->args.get_name.name_len = l->name_len;
            if (buf && size > 0) {
                strncpy(buf, l->name, (size_t)l->name_len + 1 < size ? (size_t)l->name_len + 1 : size);
                if (l->name_len >= size)
                    buf[size - 1] = '\0';
            }
            ANSWERED(0);
        }
        case H5VL_LINK_GET_VAL: {
            void  *buf  = args->args.get_val.buf;
            size_t size = args->args.get_val.buf_size;
            if (l->type == H5L_TYPE_SOFT) {
                if (size > 0 && buf) {
                    strncpy(buf, l->val, size);
                    if (strlen(l->val) >= size)
                        ((char *)buf)[size - 1] = '\0';
                }
                ANSWERED(0);
            }
            if (l->type == H5L_TYPE_EXTERNAL) {
                if (buf)
                    memcpy(buf, l->val, size < l->val_size ? size : l->val_size);
                ANSWERED(0);
            }
            FORWARD(); /* hard links (an error) and other link classes (their own query callback) */
        }
        default:
            FORWARD();
    }
}

tb_answer_t
tb_index_object_get(tb_obj_t *o, const H5VL_loc_params_t *loc, H5VL_object_get_args_t *args, void **req,
                     herr_t *ret_out)
{
    if (!req && args->op_type == H5VL_OBJECT_GET_NAME && get_name_answer(o, loc, args) == TB_ANSWERED) {
        *ret_out = 0;
        return TB_ANSWERED;
    }
    if (!req && args->op_type == H5VL_OBJECT_GET_FILE && !o->under && o->idx && o->idx->lazy &&
        o->idx->lazy->node.f->file_under) {
        /* H5Iget_file_id (h5py's obj.file, on every object it makes): a lazy object is in its
         * index's file, which the file's own object below names (native returns that file). */
        H5VL_loc_params_t self = {.obj_type = H5I_FILE, .type = H5VL_OBJECT_BY_SELF};
        *ret_out = H5VLobject_get(o->idx->lazy->node.f->file_under, &self, o->under_vol_id, args, DXPL, NULL);
        tb_ix_stats.answered++;
        return TB_ANSWERED;
    }
    if (args->op_type != H5VL_OBJECT_GET_INFO)
        return TB_FORWARD;
    tb_ix_data_t  *d;
    tb_ix_anchor_t a;
    uint32_t        self, t = TB_IX_NONE;
    if (query_begin(o, loc, req, &d, &a, &self) != TB_OK)
        return TB_FORWARD;
    unsigned fields = args->args.get_info.fields;
    if (!fields_ok(d, fields))
        FORWARD();
    resolved_t r;
    if (loc->type == H5VL_OBJECT_BY_SELF) {
        /* Ask below once for everything, keep it, and hand back what was asked for. */
        if (!d->objs[self].has_info && tb_ix_ask_info(d, self, o->under, loc, o->under_vol_id) != TB_OK)
            FORWARD();
        t = self;
    }
    else if (loc->type == H5VL_OBJECT_BY_NAME) {
        if (resolve(d, &a, self, loc->loc_data.loc_by_name.name, &r) != TB_OK ||
            target_with_info(d, &a, &r, &t) != TB_OK)
            FORWARD();
    }
    else if (loc->type == H5VL_OBJECT_BY_IDX) {
        if (resolve_by_idx(d, &a, self, &loc->loc_data.loc_by_idx, &r) != TB_OK ||
            target_with_info(d, &a, &r, &t) != TB_OK)
            FORWARD();
    }
    if (t == TB_IX_NONE)
        FORWARD(); /* (any other kind of location) */
    fill_oinfo(o->ctx->index->fileno, &d->objs[t], fields, args->args.get_info.oinfo);
    /* (H5Oget_info1's adapters, and the by-name and by-index ones, turn the token into an
     * address through the location's native object: its file, which a stand-in has) */
    tb_ix_permit_obj(!o->under && (fields & H5O_INFO_BASIC) ? o : NULL);
    ANSWERED(0);
}

tb_answer_t
tb_index_object_specific(tb_obj_t *o, const H5VL_loc_params_t *loc, H5VL_object_specific_args_t *args,
                          void **req, herr_t *ret_out)
{
    if (args->op_type != H5VL_OBJECT_EXISTS && args->op_type != H5VL_OBJECT_VISIT)
        return TB_FORWARD;
    tb_ix_data_t  *d;
    tb_ix_anchor_t a;
    uint32_t        self;
    if (query_begin(o, loc, req, &d, &a, &self) != TB_OK)
        return TB_FORWARD;
    if (args->op_type == H5VL_OBJECT_EXISTS) {
        resolved_t r;
        if (loc->type != H5VL_OBJECT_BY_NAME ||
            resolve(d, &a, self, loc->loc_data.loc_by_name.name, &r) != TB_OK || r.link == TB_IX_NONE ||
            d->groups[r.gi].links[r.link].type != H5L_TYPE_HARD)
            FORWARD(); /* missing, soft or external last component: native decides */
        *args->args.exists.exists = 1;
        ANSWERED(0);
    }
    const H5VL_object_visit_args_t *vi = &args->args.visit;
    if (!fields_ok(d, vi->fields))
        FORWARD();
    visit_t v;
    memset(&v, 0, sizeof(v));
    v.idx_type = vi->idx_type;
    v.order    = vi->order;
    v.objects  = true;
    v.shim     = tb_hdf5_own_code((void (*)(void))vi->op);
    v.fields   = vi->fields;
#if H5_VERS_MAJOR >= 2
    v.walk_fields = vi->fields | H5O_INFO_BASIC; /* (2.x's walk always fetches the basic info) */
#else
    v.walk_fields = vi->fields;
#endif
    v.oop      = vi->op;
    v.op_data  = vi->op_data;
    if (visit_answer(o, loc, d, &a, self, &v, ret_out) != TB_ANSWERED)
        FORWARD();
    tb_ix_stats.answered++;
    return TB_ANSWERED;
}

/* The object a native-info query names, through groups the index has already loaded only (a
 * query never loads a group for it: the forwarded call reads what native reads), and the halves
 * asked (TB_IX_NI_*): TB_OK, or TB_ERR_UNSUPPORTED when the index does not answer it. */
static tb_status_t
native_target(tb_obj_t *o, const H5VL_loc_params_t *loc, const H5VL_optional_args_t *args, void **req,
              tb_ix_data_t **d_out, uint32_t *t_out, unsigned *have_out)
{
    if (args->op_type != H5VL_NATIVE_OBJECT_GET_NATIVE_INFO)
        return TB_ERR_UNSUPPORTED;
    const H5VL_native_object_optional_args_t *na = args->args;
    unsigned fields = na->get_native_info.fields;
    if (fields == 0 || (fields & ~(unsigned)H5O_NATIVE_INFO_ALL))
        return TB_ERR_UNSUPPORTED; /* (native checks nothing else: left to it) */
    /* (read-only files only: reading a header in a writable one may rewrite it) */
    tb_ix_anchor_t a;
    tb_status_t    st = locate(o, loc, req, d_out, &a, t_out, NULL, false);
    if (st != TB_OK)
        return st;
    *have_out = tb_ix_ni_halves(fields);
    return TB_OK;
}

tb_answer_t
tb_index_native_info(tb_obj_t *o, const H5VL_loc_params_t *loc, H5VL_optional_args_t *args, void **req,
                     herr_t *ret_out)
{
    tb_ix_data_t *d;
    uint32_t      t;
    unsigned      have;
    if (native_target(o, loc, args, req, &d, &t, &have) != TB_OK)
        return TB_FORWARD;
    uint32_t k = d->objs[t].ninfo;
    if (k == TB_IX_NONE || (d->ninfos[k].have & have) != have)
        FORWARD();
    const tb_ix_ninfo_t *x  = &d->ninfos[k];
    H5O_native_info_t   *ni = ((H5VL_native_object_optional_args_t *)args->args)->get_native_info.ninfo;
    memset(ni, 0, sizeof(*ni)); /* (native zeroes the whole struct, then fills the halves asked for) */
    if (have & TB_IX_NI_HDR) {
        ni->hdr.version       = x->version;
        ni->hdr.nmesgs        = x->nmesgs;
        ni->hdr.nchunks       = x->nchunks;
        ni->hdr.flags         = x->flags;
        ni->hdr.space.total   = x->space_total;
        ni->hdr.space.meta    = x->space_meta;
        ni->hdr.space.mesg    = x->space_mesg;
        ni->hdr.space.free    = x->space_free;
        ni->hdr.mesg.present  = x->mesg_present;
        ni->hdr.mesg.shared   = x->mesg_shared;
    }
    if (have & TB_IX_NI_META) {
        ni->meta_size.obj.index_size  = x->obj_index_size;
        ni->meta_size.obj.heap_size   = x->obj_heap_size;
        ni->meta_size.attr.index_size = x->attr_index_size;
        ni->meta_size.attr.heap_size  = x->attr_heap_size;
    }
    ANSWERED(0);
}

void
tb_index_native_info_done(tb_obj_t *o, const H5VL_loc_params_t *loc, const H5VL_optional_args_t *args)
{
    const H5VL_native_object_optional_args_t *na = args->args;
    tb_ix_data_t                             *d;
    uint32_t                                  t;
    unsigned                                  have;
    if (native_target(o, loc, args, NULL, &d, &t, &have) == TB_OK)
        tb_ix_keep_native_info(d, t, have, na->get_native_info.ninfo);
}

#ifndef H5_NO_DEPRECATED_SYMBOLS
/* What H5Gget_objinfo of `name` from o asks of the index: its object record in *t_out (*l_out
 * NULL), or, when the last link is soft or external and not to be followed, that link in *l_out.
 * Names are "." or plain names only (a "." or slash after the last component has native resolve
 * the link and then ask of it). TB_OK, or TB_ERR_UNSUPPORTED (the caller forwards). */
static tb_status_t
objinfo_target(tb_obj_t *o, const H5VL_native_group_get_objinfo_t *gi, void **req, tb_ix_data_t **d_out,
               uint32_t *t_out, const tb_ix_link_t **l_out)
{
    const H5VL_loc_params_t *lp   = &gi->loc_params;
    const char              *name = lp->type == H5VL_OBJECT_BY_NAME ? lp->loc_data.loc_by_name.name : NULL;
    if (!name || (strcmp(name, ".") != 0 && !plain_name(name)))
        return TB_ERR_UNSUPPORTED;
    tb_ix_data_t  *d;
    tb_ix_anchor_t a;
    uint32_t       self;
    resolved_t     r;
    if (query_begin(o, lp, req, &d, &a, &self) != TB_OK || d->writable || resolve(d, &a, self, name, &r) != TB_OK)
        return TB_ERR_UNSUPPORTED;
    *d_out = d;
    *l_out = NULL;
    if (r.self) {
        *t_out = r.gobj;
        return TB_OK;
    }
    if (r.link == TB_IX_NONE)
        return TB_ERR_UNSUPPORTED; /* (native's error) */
    const tb_ix_link_t *l = &d->groups[r.gi].links[r.link];
    if (l->type != H5L_TYPE_HARD) {
        if (gi->follow_link)
            return TB_ERR_UNSUPPORTED;
        *l_out = l;
        return TB_OK;
    }
    if ((*t_out = l->obj) == TB_IX_NONE)
        return TB_ERR_UNSUPPORTED;
    return TB_OK;
}

tb_answer_t
tb_index_objinfo(tb_obj_t *o, H5VL_optional_args_t *args, void **req, herr_t *ret_out)
{
    if (args->op_type != H5VL_NATIVE_GROUP_GET_OBJINFO)
        return TB_FORWARD;
    const H5VL_native_group_get_objinfo_t *gi = &((H5VL_native_group_optional_args_t *)args->args)->get_objinfo;
    tb_ix_data_t                          *d;
    uint32_t                               t = TB_IX_NONE;
    const tb_ix_link_t                    *l;
    if (objinfo_target(o, gi, req, &d, &t, &l) != TB_OK)
        return TB_FORWARD;
    const tb_ix_obj_t   *r  = l ? NULL : &d->objs[t];
    const tb_ix_ninfo_t *ni = r && r->ninfo != TB_IX_NONE ? &d->ninfos[r->ninfo] : NULL;
    if (r && (!r->has_info || !ni || !(ni->have & TB_IX_NI_HDR)))
        FORWARD(); /* (recorded when native answers: tb_index_objinfo_done) */
    H5G_stat_t *sb = gi->statbuf;
    if (!sb)
        ANSWERED(0);
    memset(sb, 0, sizeof(*sb));
    sb->fileno[0] = o->ctx->index->fileno;
    if (l) { /* a soft or external link, not followed: the link itself */
        sb->linklen = l->val_size;
        sb->type    = l->type == H5L_TYPE_SOFT ? H5G_LINK : H5G_UDLINK;
        ANSWERED(0);
    }
    sb->type = r->type == H5O_TYPE_GROUP            ? H5G_GROUP
               : r->type == H5O_TYPE_DATASET        ? H5G_DATASET
               : r->type == H5O_TYPE_NAMED_DATATYPE ? H5G_TYPE
                                                    : H5G_UNKNOWN;
    sb->objno[0]     = (unsigned long)tb_ix_token_addr(r->token);
    sb->nlink        = r->rc;
    sb->mtime        = (time_t)r->ctime; /* (native reports the change time there) */
    sb->ohdr.size    = ni->space_total;
    sb->ohdr.free    = ni->space_free;
    sb->ohdr.nmesgs  = ni->nmesgs;
    sb->ohdr.nchunks = ni->nchunks;
    ANSWERED(0);
}

void
tb_index_objinfo_done(tb_obj_t *o, const H5VL_optional_args_t *args)
{
    if (args->op_type != H5VL_NATIVE_GROUP_GET_OBJINFO || !o->under)
        return;
    const H5VL_native_group_get_objinfo_t *gi = &((H5VL_native_group_optional_args_t *)args->args)->get_objinfo;
    tb_ix_data_t                          *d;
    uint32_t                               t = TB_IX_NONE;
    const tb_ix_link_t                    *l;
    hid_t                                  saved = tb_err_save();
    if (objinfo_target(o, gi, NULL, &d, &t, &l) != TB_OK || l)
        goto done;
    /* The object's info and its header's half of the native info, asked of native as the same
     * name's H5Oget_info / H5Oget_native_info would be (the header the call just read is in HDF5's
     * cache): the next run's H5Gget_objinfo is the index's. */
    if (!d->objs[t].has_info && tb_ix_ask_info(d, t, o->under, &gi->loc_params, o->under_vol_id) != TB_OK)
        goto done;
    (void)tb_ix_ask_native_info(d, t, o->under, &gi->loc_params, o->under_vol_id, TB_IX_NI_HDR);
done:
    tb_err_restore(saved);
}
#endif

tb_answer_t
tb_index_group_get(tb_obj_t *o, H5VL_group_get_args_t *args, void **req, herr_t *ret_out)
{
    if (args->op_type != H5VL_GROUP_GET_INFO)
        return TB_FORWARD;
    const H5VL_loc_params_t *loc = &args->args.get_info.loc_params;
    if (loc->type != H5VL_OBJECT_BY_SELF && loc->type != H5VL_OBJECT_BY_NAME)
        return TB_FORWARD;
    tb_ix_data_t  *d;
    tb_ix_anchor_t a;
    uint32_t        self, g;
    if (query_begin(o, loc, req, &d, &a, &self) != TB_OK)
        return TB_FORWARD;
    if (group_at(d, &a, self, loc, false, &g) != TB_OK)
        FORWARD();
    const tb_ix_group_t *gr = &d->groups[d->objs[g].group];
    H5G_info_t           *gi = args->args.get_info.ginfo;
    gi->storage_type         = (H5G_storage_type_t)gr->storage_type;
    gi->nlinks               = gr->nlinks;
    gi->max_corder           = gr->max_corder;
    gi->mounted              = gr->mounted;
    ANSWERED(0);
}

/* The kind of lazy object an open wanting `want` (H5I_BADID: any) gets for record t, or H5I_BADID
 * when none (named datatypes are opened for real: HDF5 decodes them at once). */
static H5I_type_t
wanted_kind(const tb_ix_data_t *d, uint32_t t, H5I_type_t want)
{
    H5I_type_t kind = lazy_kind(d, t);
    return kind != H5I_BADID && (want == H5I_BADID || want == kind) ? kind : H5I_BADID;
}

/* The lazy object of `kind` for record t under `path` (taken; NULL: opened by token), counted as
 * an answer; NULL when it cannot be made. */
static tb_obj_t *
hand_out_lazy(tb_obj_t *o, tb_ix_data_t *d, uint32_t t, H5I_type_t kind, char *path, hid_t apl,
              H5I_type_t *opened_type_out)
{
    tb_obj_t *lazy = tb_ix_lazy_open(o, d, t, kind, path, apl);
    if (!lazy) {
        free(path);
        if (apl >= 0) {
            hid_t saved = tb_err_save();
            H5Pclose(apl);
            tb_err_restore(saved);
        }
        return NULL;
    }
    if (opened_type_out)
        *opened_type_out = kind;
    tb_ix_stats.answered++;
    return lazy;
}

/* H5Oopen_by_idx (the n-th link of a group, by name or creation order: native records the group's
 * path and the link's name) and H5Oopen_by_token / H5Rdereference (by token: native records no
 * path, and a lazy object of that kind is made real by its token) of an object the index knows. */
static tb_obj_t *
open_by_idx_or_token(tb_obj_t *o, const H5VL_loc_params_t *loc, H5I_type_t want, H5I_type_t *opened_type_out,
                     void **req)
{
    uint8_t        tok[TB_IX_TOKEN_NBYTES];
    tb_ix_data_t  *d;
    tb_ix_anchor_t a;
    uint32_t       self, t;
    char          *path = NULL;
    if (req || !o->ctx->index || !lapl_ok(loc) || tb_ix_for(o, loc->obj_type, tok, &d) != TB_OK || d->writable ||
        !anchor_of(o, loc->obj_type, &a) || tb_ix_self_rec(o, d, tok, &self) != TB_OK)
        return NULL;
    if (loc->type == H5VL_OBJECT_BY_TOKEN) {
        if ((t = tb_ix_obj_find(d, (const uint8_t *)loc->loc_data.loc_by_token.token)) == TB_IX_NONE ||
            wanted_kind(d, t, want) == H5I_BADID)
            return NULL;
    }
    else {
        const H5VL_loc_by_idx_t *bi   = &loc->loc_data.loc_by_idx;
        const char              *base = loc->obj_type == H5I_FILE ? "/" : (o->idx ? o->idx->path : NULL);
        resolved_t               r;
        char                    *gpath;
        if ((!base && bi->name[0] != '/') || resolve_by_idx(d, &a, self, bi, &r) != TB_OK ||
            (t = target_of(d, &r)) == TB_IX_NONE || wanted_kind(d, t, want) == H5I_BADID)
            return NULL;
        if (tb_ix_join_path(base, bi->name, &gpath) != TB_OK)
            return NULL;
        tb_status_t st = tb_ix_join_path(gpath, d->groups[r.gi].links[r.link].name, &path);
        free(gpath);
        if (st != TB_OK)
            return NULL;
    }
    tb_obj_t *lazy = hand_out_lazy(o, d, t, wanted_kind(d, t, want), path, H5I_INVALID_HID, opened_type_out);
    if (lazy && loc->type == H5VL_OBJECT_BY_TOKEN)
        lazy->idx->nameless = true;
    return lazy;
}

/* Whether a dataset access list sets an external-file or a virtual-dataset prefix that native
 * would use: "" and "." mean none, and the HDF5_EXTFILE_PREFIX / HDF5_VDS_PREFIX environment
 * variables override the list's. A list that cannot be asked counts as prefixed (left to native). */
static bool
dapl_prefixed(hid_t apl)
{
    char    buf[2];
    hid_t   saved = tb_err_save();
    ssize_t efile = H5Pget_efile_prefix(apl, buf, sizeof(buf));
    bool    on    = efile < 0 || (efile > 0 && !(efile == 1 && buf[0] == '.'));
    const char *env = getenv("HDF5_EXTFILE_PREFIX");
    if (env && *env)
        on = efile < 0;
    ssize_t vds = H5Pget_virtual_prefix(apl, buf, sizeof(buf));
    bool    von = vds < 0 || (vds > 0 && !(vds == 1 && buf[0] == '.'));
    env         = getenv("HDF5_VDS_PREFIX");
    if (env && *env)
        von = vds < 0;
    tb_err_restore(saved);
    return on || von;
}

int
tb_index_dset_open_prefix(tb_obj_t *o, const H5VL_loc_params_t *loc, const char *name, hid_t dapl_id)
{
    bool own = dapl_id != H5P_DEFAULT && dapl_id != H5P_DATASET_ACCESS_DEFAULT;
    /* A dataset stand-in must not be the first open of the one opened here (index_lazy.c). */
    if (own && o->ctx->index)
        tb_ix_standins_release(o->ctx->index);
    if (!own || !o->ctx->index || loc->type != H5VL_OBJECT_BY_SELF || !name || !dapl_prefixed(dapl_id))
        return 0;
    uint8_t       tok[TB_IX_TOKEN_NBYTES];
    tb_ix_data_t *d;
    if (tb_ix_for(o, loc->obj_type, tok, &d) != TB_OK)
        return 1;
    /* That dataset is never handed out lazily from now on (lazy_kind), nor any other of the file
     * when the index cannot tell which it is. Is it one this open holds lazily? Native would have
     * it open under no prefix. */
    tb_ix_anchor_t a;
    uint32_t       self, t;
    resolved_t     r;
    if (!anchor_of(o, loc->obj_type, &a) || tb_ix_self_rec(o, d, tok, &self) != TB_OK ||
        resolve(d, &a, self, name, &r) != TB_OK || (t = target_of(d, &r)) == TB_IX_NONE) {
        H5Eclear2(H5E_DEFAULT);
        d->dset_prefixed = 1;
        return 1;
    }
    d->objs[t].prefixed = 1;
    for (const tb_ix_lazy_node_t *n = o->ctx->index->lazies; n; n = n->next) {
        const tb_ix_lazy_t *lz = n->owner->idx->lazy;
        if (lz && lz->kind == H5I_DATASET && lz->obj == t) {
            TB_PUSH("index", TB_ERR_HDF5,
                    "dataset %s is open already, under no external-file or virtual-dataset prefix: native "
                    "refuses to open it again under another one",
                    name);
            return -1;
        }
    }
    return 1;
}

/* Makes real every lazy handle of this open that stands for the dataset of `token`: the number
 * made real, or -1 (an error pushed). Native's first real open of a dataset sets what later opens
 * share (its chunk cache and prefixes, from that open's access list), so a lazy handle opened
 * earlier must be real before another open of the dataset with an access list of its own is. */
static int
materialise_dataset(struct tb_index_file *f, const void *token)
{
    int made = 0;
    for (;;) {
        const tb_ix_lazy_node_t *n = f->lazies;
        while (n && !(n->owner->idx->lazy && n->owner->idx->lazy->kind == H5I_DATASET &&
                      memcmp(f->d->objs[n->owner->idx->lazy->obj].token, token, TB_IX_TOKEN_NBYTES) == 0))
            n = n->next;
        if (!n)
            return made;
        if (tb_index_materialise(n->owner) < 0)
            return -1;
        made++;
    }
}

int
tb_index_dset_own_apl_opened(tb_obj_t *w, const char *name, bool prefixed)
{
    struct tb_index_file    *f = w && w->under ? w->ctx->index : NULL;
    const tb_ix_lazy_node_t *n = f ? f->lazies : NULL;
    while (n && !(n->owner->idx->lazy && n->owner->idx->lazy->kind == H5I_DATASET))
        n = n->next;
    if (!n)
        return 0; /* (no lazy dataset in this open: nothing native did not see) */
    H5O_info2_t            info;
    H5VL_object_get_args_t ga   = {.op_type = H5VL_OBJECT_GET_INFO};
    H5VL_loc_params_t      self = {.obj_type = H5I_DATASET, .type = H5VL_OBJECT_BY_SELF};
    ga.args.get_info.fields     = H5O_INFO_BASIC;
    ga.args.get_info.oinfo      = &info;
    hid_t saved = tb_err_save();
    int   got   = H5VLobject_get(w->under, &self, w->under_vol_id, &ga, DXPL, NULL) >= 0;
    tb_err_restore(saved);
    if (!got)
        return 0;
    for (; n; n = n->next) {
        const tb_ix_lazy_t *lz = n->owner->idx->lazy;
        if (lz && lz->kind == H5I_DATASET && memcmp(f->d->objs[lz->obj].token, &info.token, TB_IX_TOKEN_NBYTES) == 0)
            break;
    }
    if (!n)
        return 0;
    if (prefixed)
        TB_PUSH("index", TB_ERR_HDF5,
                "dataset %s is open already, under no external-file or virtual-dataset prefix: native "
                "refuses to open it again under another one",
                name ? name : "");
    /* (w first: the lazy ones must be the first real opens) */
    saved = tb_err_save();
    (void)H5VLdataset_close(w->under, w->under_vol_id, DXPL, NULL);
    tb_err_restore(saved);
    tb_obj_free(w);
    if (prefixed)
        return -1;
    return materialise_dataset(f, &info.token) < 0 ? -1 : 1;
}

/* An open of a dataset the index can reach but has no lazy form of yet (a first open): the real
 * dataset, opened by its token instead of by name, which skips native's walk of the path (a
 * fifth of what an open by a path of a few links costs). HDF5 opens it as the named open would
 * (H5D_open, with the access list of the call's API context, which is the application's own);
 * only the path native would have recorded is missing below, and the wrapper holds it for what
 * asks for it (H5Iget_name of the dataset and of its attributes). Its metadata leaves HDF5's
 * cache when it closes (index.c's evict_closed); where that cannot be done, nothing is opened
 * by token. NULL when the index cannot tell, or when t is not a dataset (the caller opens by
 * name: native's answer or error); *found_out is the kind the open by token found, when it
 * opened something. */
static tb_obj_t *
open_dataset_by_token(tb_obj_t *o, tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t t, const char *base,
                      const char *name, hid_t dxpl_id, H5I_type_t *found_out)
{
    const tb_ix_obj_t *r = &d->objs[t];
    if ((r->has_info && r->type != H5O_TYPE_DATASET) || r->group != TB_IX_NONE)
        return NULL; /* (not a dataset: native opens it, or errs) */
    if (!tb_ix_can_evict(o->ctx))
        return NULL;
    char *path;
    if (tb_ix_join_path(base, name, &path) != TB_OK)
        return NULL;
    /* (by token from the anchor: a lazy location stays lazy; at the start of the application's
     * open, whose error stack holds nothing yet) */
    H5I_type_t type;
    void      *under = tb_ix_open_by_token(a->under, a->type, a->vol, r->token, &type, dxpl_id);
    tb_obj_t  *w     = under && type == H5I_DATASET ? tb_wrap_new(under, o, NULL) : NULL;
    if (under)
        *found_out = type;
    struct tb_index_obj *x = w ? tb_ix_obj_state(w) : NULL;
    if (!x) {
        tb_ix_close_under(under, type, a->vol);
        tb_obj_free(w);
        tb_err_drop();
        free(path);
        return NULL;
    }
    x->state = TB_IXO_MINE;
    memcpy(x->token, r->token, TB_IX_TOKEN_NBYTES);
    x->rec   = t + 1;
    x->path  = path;
    x->evict = true;
    learn_info(d, t, under, H5I_DATASET, a->vol); /* (the next open's is then lazy) */
    tb_ix_obj_opened(d, t, H5I_DATASET);
    tb_ix_stats.dsets_by_token++;
    return w;
}

tb_obj_t *
tb_index_open(tb_obj_t *o, const H5VL_loc_params_t *loc, const char *name, H5I_type_t want, hid_t apl_id,
              H5I_type_t *opened_type_out, hid_t dxpl_id, void **req)
{
    /* Native records the path an object was opened by (H5Iget_name reports it, and names of what
     * is opened from it derive from it): the index hands out a lazy object only when it can tell
     * that path, from the file or from a location whose path it knows. Read-only files: no
     * renames to follow. */
    if (loc->type == H5VL_OBJECT_BY_NAME) { /* H5Oopen: a link access list (h5py's sets an external
                                              * link file access list), which only soft and external
                                              * links use, and the index resolves through neither */
        name = loc->loc_data.loc_by_name.name;
        if (!lapl_ok(loc))
            return NULL;
    }
    else if (loc->type == H5VL_OBJECT_BY_IDX || loc->type == H5VL_OBJECT_BY_TOKEN)
        return open_by_idx_or_token(o, loc, want, opened_type_out, req);
    else if (loc->type != H5VL_OBJECT_BY_SELF)
        return NULL;
    /* An access list of the open's own: the real object is opened with a copy of it when the
     * lazy one is made real, under another call's API context. A group's (link traversal
     * settings) travels whole that way; a dataset's too, but for the external-file and
     * virtual-dataset prefixes, which native takes from the open's own context: the caller
     * leaves a list with either to native (tb_index_dset_open_prefix). */
    bool own_apl = apl_id != H5P_DEFAULT && apl_id != H5P_DATASET_ACCESS_DEFAULT &&
                   apl_id != H5P_GROUP_ACCESS_DEFAULT && apl_id != H5P_DATATYPE_ACCESS_DEFAULT;
    if (req || !o->ctx->index || !name || (own_apl && want != H5I_GROUP && want != H5I_DATASET))
        return NULL;
    uint8_t       tok[TB_IX_TOKEN_NBYTES];
    tb_ix_data_t *d;
    const char *base = loc->obj_type == H5I_FILE ? "/" : (o->idx ? o->idx->path : NULL);
    if (!base && name[0] != '/')
        return NULL;
    if (tb_ix_for(o, loc->obj_type, tok, &d) != TB_OK || d->writable)
        return NULL;
    tb_ix_anchor_t a;
    if (!anchor_of(o, loc->obj_type, &a))
        return NULL;
    uint32_t   self, t;
    resolved_t r;
    /* Only a target whose kind the index already knows (a sidecar, or an earlier query): finding
     * out here would read its header, which an open does anyway. */
    if (tb_ix_self_rec(o, d, tok, &self) != TB_OK || resolve(d, &a, self, name, &r) != TB_OK ||
        (t = target_of(d, &r)) == TB_IX_NONE)
        return NULL;
    H5I_type_t kind = wanted_kind(d, t, want);
    /* A dataset opened with an access list of its own is opened for real (by token, under the
     * open's API context, which holds that list): native's first real open of a dataset sets the
     * chunk cache and prefixes its later opens share, so a lazy one would have them set by
     * whichever handle became real first; and a lazy one with its own list is made real by its
     * path only (the list goes with a named open), twice what native's open costs. Lazy handles
     * of it opened before (all with the default list) become real first. */
    if (kind == H5I_DATASET && own_apl)
        kind = H5I_BADID;
    char      *path;
    if (kind == H5I_BADID) {
        /* H5Dopen2, or H5Oopen (h5py's f[name]) of what may be a dataset: by token, the lookup
         * of its name skipped (what is not a dataset is left to native, its header read once) */
        if (want != H5I_DATASET && want != H5I_BADID)
            return NULL;
        uint32_t gi = r.self ? TB_IX_NONE : r.gi;
        if (want == H5I_BADID && !d->objs[t].has_info && gi != TB_IX_NONE && d->groups[gi].members_groups)
            return NULL; /* (its siblings' opens found groups: native's open, no dataset tried first) */
        if (own_apl && materialise_dataset(o->ctx->index, d->objs[t].token) < 0)
            return NULL;
        H5I_type_t found = H5I_BADID;
        tb_obj_t  *w     = open_dataset_by_token(o, d, &a, t, base, name, dxpl_id, &found);
        if (gi != TB_IX_NONE && found != H5I_BADID)
            d->groups[gi].members_groups = found == H5I_GROUP;
        if (w && opened_type_out)
            *opened_type_out = H5I_DATASET;
        return w;
    }
    if (tb_ix_join_path(base, name, &path) != TB_OK)
        return NULL;
    hid_t apl = H5I_INVALID_HID;
    if (own_apl) {
        hid_t saved = tb_err_save();
        apl         = H5Pcopy(apl_id);
        tb_err_restore(saved);
        if (apl < 0) {
            free(path);
            return NULL;
        }
    }
    return hand_out_lazy(o, d, t, kind, path, apl, opened_type_out);
}

/* Whether name is one or more components ("." excluded) joined by single slashes, absolute or not,
 * with no slash at its end: what tb_ix_join_path's walk would copy unchanged. */
static bool
plain_name(const char *name)
{
    const char *p = name[0] == '/' ? name + 1 : name;
    for (;;) {
        const char *e = strchrnul(p, '/');
        if (e == p || (e - p == 1 && p[0] == '.'))
            return false; /* (an empty or "." component) */
        if (!*e)
            return true;
        p = e + 1;
    }
}

tb_status_t
tb_ix_join_path(const char *base, const char *name, char **path_out)
{
    /* Native builds a path link by link (H5G_name_set): "/" then each component, "." ones and
     * repeated slashes skipped; absolute names start at the root's "/". */
    if (!name || (!base && name[0] != '/'))
        return TB_ERR_UNSUPPORTED;
    const char *from = name[0] == '/' ? "/" : base;
    size_t      n    = strlen(from), nlen = strlen(name);
    char       *out  = malloc(n + nlen + 2);
    if (!out)
        return TB_ERR_NOMEM;
    if (plain_name(name)) { /* (the common case: the walk below would copy it as it is) */
        size_t at = 0;
        if (name[0] != '/') {
            memcpy(out, from, n);
            at = n;
            if (n == 0 || out[n - 1] != '/')
                out[at++] = '/';
        }
        memcpy(out + at, name, nlen + 1);
        *path_out = out;
        return TB_OK;
    }
    memcpy(out, from, n);
    const char *p = name, *comp;
    size_t      len;
    while ((comp = next_component(&p, &len))) {
        if (n == 0 || out[n - 1] != '/')
            out[n++] = '/';
        memcpy(out + n, comp, len);
        n += len;
    }
    out[n]    = '\0';
    *path_out = out;
    return TB_OK;
}

/* tb_ix_locate, with `load`: whether groups not loaded yet may be loaded on the way (else only
 * what the index already holds is walked). */
static tb_status_t
locate(tb_obj_t *o, const H5VL_loc_params_t *loc, void **req, tb_ix_data_t **d_out, tb_ix_anchor_t *a_out,
       uint32_t *t_out, char **path_out, bool load)
{
    tb_ix_data_t *d;
    uint32_t       self, t;
    tb_status_t    st;
    if (loc->type != H5VL_OBJECT_BY_SELF && loc->type != H5VL_OBJECT_BY_NAME)
        return TB_ERR_UNSUPPORTED;
    if ((st = query_begin(o, loc, req, &d, a_out, &self)) != TB_OK)
        return st;
    if (d->writable)
        return TB_ERR_UNSUPPORTED;
    if (loc->type == H5VL_OBJECT_BY_SELF)
        t = self;
    else {
        resolved_t r;
        if ((st = resolve(d, load ? a_out : NULL, self, loc->loc_data.loc_by_name.name, &r)) != TB_OK)
            return st;
        t = target_of(d, &r);
    }
    if (t == TB_IX_NONE)
        return TB_ERR_UNSUPPORTED;
    if (path_out) {
        const char *base = loc->obj_type == H5I_FILE ? "/" : (o->idx ? o->idx->path : NULL);
        st = tb_ix_join_path(base, loc->type == H5VL_OBJECT_BY_NAME ? loc->loc_data.loc_by_name.name : ".", path_out);
        if (st != TB_OK)
            return st;
    }
    *d_out = d;
    *t_out = t;
    return TB_OK;
}

tb_status_t
tb_ix_locate(tb_obj_t *o, const H5VL_loc_params_t *loc, void **req, tb_ix_data_t **d_out, tb_ix_anchor_t *a_out,
              uint32_t *t_out, char **path_out)
{
    return locate(o, loc, req, d_out, a_out, t_out, path_out, true);
}

/* H5Iget_name of an object the index opened (or an attribute of one): the recorded path. */
static tb_answer_t
get_name_answer(tb_obj_t *o, const H5VL_loc_params_t *loc, H5VL_object_get_args_t *args)
{
    if (loc->type != H5VL_OBJECT_BY_SELF || !o->idx)
        return TB_FORWARD;
    const char *path  = o->idx->path;
    char       *found = NULL;
    /* (native's search copies "/" first, two bytes, whatever the buffer's size: not for buffers of
     * fewer) */
    if (!path && o->idx->nameless && !(args->args.get_name.buf && args->args.get_name.buf_size < 2)) {
        if (name_by_search(o, loc, &found) != TB_OK)
            return TB_FORWARD;
        if (!found) { /* (no link leads to it: native returns 0 and writes nothing) */
            if (args->args.get_name.name_len)
                *args->args.get_name.name_len = 0;
            return TB_ANSWERED;
        }
        path = found;
    }
    if (!path)
        return TB_FORWARD;
    size_t len  = strlen(path);
    char  *buf  = args->args.get_name.buf;
    size_t size = args->args.get_name.buf_size;
    if (buf && size > 0) {
        /* native: strncpy of MIN(len + 1, size) bytes, NUL at the end when cut */
        size_t n = len < size ? len : size - 1;
        memcpy(buf, path, n);
        buf[n] = '\0';
    }
    if (args->args.get_name.name_len)
        *args->args.get_name.name_len = len;
    free(found);
    return TB_ANSWERED;
}
