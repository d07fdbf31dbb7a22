/* index_attr.c — the index's small-attribute cache, for read-only files: every object's attribute
 * names, and for small attributes of fixed-size types or of variable-length strings their datatype,
 * dataspace and value, persisted in the sidecar. On a first open they come from what the
 * application does (the lists from its own iterations, or from its open object; values from its
 * opens and reads); an object known only from the index has its list and values read by its token.
 * H5Aexists and H5Aiterate are answered from it, and H5Aopen of a cached attribute hands out a
 * "lazy" attribute (a wrapper with nothing open below) that answers H5Aread and
 * H5Aget_type/space/info/name itself; anything else makes it real first
 * (tb_index_attr_materialise), by replaying the application's open from the file. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* qsort_r */
#endif
#include "index_ctx.h"
#include "tb_pool.h"

#include <stdlib.h>
#include <string.h>

#define DXPL H5P_DATASET_XFER_DEFAULT

/* ------------------------------------------------------------------ loading */
typedef tb_ix_acollect_t acollect_t;

static herr_t
acollect_cb(hid_t loc, const char *name, const H5A_info_t *ainfo, void *op_data)
{
    acollect_t *c = op_data;
    (void)loc;
    if (c->n == c->cap) {
        uint32_t    cap = c->cap ? c->cap * 2 : 8;
        char      **nv  = realloc(c->names, (size_t)cap * sizeof(*nv));
        if (nv)
            c->names = nv;
        H5A_info_t *iv = nv ? realloc(c->infos, (size_t)cap * sizeof(*iv)) : NULL;
        if (!iv) {
            c->st = TB_ERR_NOMEM;
            return H5_ITER_ERROR;
        }
        c->infos = iv;
        c->cap   = cap;
    }
    size_t len = strlen(name);
    if (len == 0 || len >= UINT32_MAX) {
        c->st = TB_ERR_UNSUPPORTED; /* (a name the record cannot hold) */
        return H5_ITER_ERROR;
    }
    if (!(c->names[c->n] = strdup(name))) {
        c->st = TB_ERR_NOMEM;
        return H5_ITER_ERROR;
    }
    c->infos[c->n++] = *ainfo;
    return H5_ITER_CONT;
}

static void
acollect_free(acollect_t *c)
{
    for (uint32_t k = 0; k < c->n; k++)
        free(c->names[k]);
    free(c->names);
    free(c->infos);
}

bool
tb_ix_type_cacheable(hid_t t, const tb_h5t_desc_t *td)
{
    H5T_class_t cls = td->cls;
    if (cls == H5T_VLEN || cls == H5T_REFERENCE || cls == H5T_NO_CLASS || td->named != 0 ||
        (cls == H5T_STRING && td->vstr != 0))
        return false;
    if (cls == H5T_COMPOUND || cls == H5T_ARRAY) /* members: no strings at all, to stay simple */
        return H5Tdetect_class(t, H5T_VLEN) == 0 && H5Tdetect_class(t, H5T_REFERENCE) == 0 &&
               H5Tdetect_class(t, H5T_STRING) == 0;
    return true;
}

size_t
tb_ix_vstr_encode(char *const *ptrs, size_t npoints, size_t max, uint8_t **blob, size_t at)
{
    size_t n = 0;
    for (size_t k = 0; k < npoints; k++)
        n += 8 + (ptrs[k] ? strlen(ptrs[k]) : 0);
    uint8_t *b = n && n <= max ? realloc(*blob, at + n) : NULL;
    if (!b)
        return 0;
    *blob = b;
    b += at;
    for (size_t k = 0; k < npoints; k++) {
        uint64_t len = ptrs[k] ? strlen(ptrs[k]) : TB_IX_VSTR_NULL;
        memcpy(b, &len, 8);
        b += 8;
        if (ptrs[k]) {
            memcpy(b, ptrs[k], len);
            b += len;
        }
    }
    return n;
}

/* What a record with a value holds besides the value: its datatype (the type table's encoding) and
 * its dataspace (the caches' form), with what the value's checks need. Taken from the type and the
 * space an attribute gives, whoever asked for them. */
typedef struct vshape {
    tb_ix_type_ref_t type; /* the table's entry (type.n 0: not known yet) */
    size_t           sn;   /* 0: not known yet */
    size_t           tsize;
    hssize_t         npoints;
    bool             vstr; /* variable-length strings */
    bool             vref; /* sequences of object references (tb_ix_type_is_vref) */
    uint8_t          senc[TB_IX_SPACE_NBYTES(TB_IX_SPACE_MAXRANK)];
} vshape_t;

typedef enum { SHAPE_OK, SHAPE_NEVER, SHAPE_FAILED } shape_status_t;

/* The type part of *v from t: SHAPE_NEVER for a type no record keeps a value of (variable-length
 * strings and sequences of object references are kept, from the application's read), SHAPE_FAILED
 * when HDF5 or memory failed. */
static shape_status_t
shape_type(vshape_t *v, hid_t t)
{
    tb_h5t_desc_t td;
    tb_h5t_describe(t, &td);
    H5T_class_t cls = td.cls;
    htri_t      var = cls == H5T_STRING ? td.vstr : 0;
    v->vstr         = var > 0;
    if (var < 0)
        return SHAPE_FAILED;
    if (cls == H5T_STRING ? !v->vstr && td.named != 0 /* (tb_ix_type_cacheable's test, the rest asked) */
                          : cls != H5T_VLEN && !tb_ix_type_cacheable(t, &td))
        return SHAPE_NEVER;
    v->tsize = td.size;
    if (!v->tsize || tb_ix_type_encode(t, &td, &v->type) != TB_OK)
        /* (the table holds no sequence but of object references: another is never kept) */
        return cls == H5T_VLEN && v->tsize && !tb_ix_type_encodes_vref(t) ? SHAPE_NEVER : SHAPE_FAILED;
    /* (of sequences, those of object references: what dimension scales keep) */
    return cls != H5T_VLEN || (v->vref = tb_ix_type_is_vref(v->type.enc, v->type.n)) ? SHAPE_OK : SHAPE_NEVER;
}

static shape_status_t
shape_space(vshape_t *v, hid_t s)
{
    uint64_t npoints; /* (the form's count: H5Sget_simple_extent_npoints, without asking) */
    if (tb_ix_space_encode(s, false, v->senc, &v->sn) != TB_OK || tb_ix_space_check(v->senc, v->sn, &npoints) != TB_OK)
        return SHAPE_FAILED;
    v->npoints = (hssize_t)npoints;
    return SHAPE_OK;
}

/* The part of *v that an answer of H5VLattr_get (args) gives, when not known yet. */
static shape_status_t
shape_from(vshape_t *v, const H5VL_attr_get_args_t *args)
{
    if (args->op_type == H5VL_ATTR_GET_TYPE && !v->type.n)
        return shape_type(v, args->args.get_type.type_id);
    if (args->op_type == H5VL_ATTR_GET_SPACE && !v->sn)
        return shape_space(v, args->args.get_space.space_id);
    return SHAPE_OK;
}

/* Whatever of *v is not known yet, asked of the open attribute below. */
static shape_status_t
shape_of(vshape_t *v, void *attr, hid_t vol)
{
    shape_status_t st = SHAPE_OK;
    for (int i = 0; i < 2 && st == SHAPE_OK; i++) {
        bool                 type = i == 0;
        H5VL_attr_get_args_t g    = {.op_type = type ? H5VL_ATTR_GET_TYPE : H5VL_ATTR_GET_SPACE};
        if (type ? v->type.n : v->sn)
            continue;
        if (type)
            g.args.get_type.type_id = H5I_INVALID_HID;
        else
            g.args.get_space.space_id = H5I_INVALID_HID;
        if (H5VLattr_get(attr, vol, &g, DXPL, NULL) < 0)
            return SHAPE_FAILED;
        st = shape_from(v, &g);
        H5Idec_ref(type ? g.args.get_type.type_id : g.args.get_space.space_id);
    }
    return st;
}

/* Fills the cached part of record x from the open attribute below (its type, space and value,
 * read into the file type), or leaves it listed only (whatever stood in the way: the attribute is
 * then read from the file; `novalue` when its type is one no record keeps). Variable-length
 * strings are not read here: reading them makes native keep a conversion (index_attr.c's string
 * reads say why that matters), which the application's own read makes when stock's would; they
 * are kept from that read (tb_index_attr_read_done), as are sequences of references (not read
 * twice). */
static void
cache_value(void *attr, hid_t vol, size_t data_size, tb_ix_attr_t *x, uint8_t **blob, size_t *blen)
{
    vshape_t       v  = {0};
    shape_status_t st = shape_of(&v, attr, vol);
    x->novalue        = st == SHAPE_NEVER;
    if (st != SHAPE_OK || v.vstr || v.vref || (size_t)v.npoints * v.tsize != data_size)
        return;
    size_t   need = *blen + v.type.n + v.sn + data_size;
    uint8_t *b    = realloc(*blob, need);
    if (!b)
        return;
    *blob = b;
    memcpy(b + *blen, v.type.enc, v.type.n);
    memcpy(b + *blen + v.type.n, v.senc, v.sn);
    if (data_size && H5VLattr_read(attr, vol, v.type.id, b + *blen + v.type.n + v.sn, DXPL, NULL) < 0)
        return;
    /* Offsets for now: the blob may still move. */
    x->type_enc     = (const void *)(uintptr_t)*blen;
    x->space_enc    = (const void *)(uintptr_t)(*blen + v.type.n);
    x->value        = (const void *)(uintptr_t)(*blen + v.type.n + v.sn);
    x->type_nbytes  = (uint32_t)v.type.n;
    x->space_nbytes = (uint32_t)v.sn;
    x->value_nbytes = (uint32_t)data_size;
    x->cached       = 1;
    *blen           = need;
}

/* Builds record *x of attribute `name` (its info *ai) in a block of its own (`owned`; kept in
 * spill s when that is in use), its value cached from `attr` (open below; NULL: listed only) when
 * small enough and of a cacheable type. What the calls it makes push on the error stack is the
 * caller's to clear. */
static tb_status_t
make_record(tb_ix_spill_t *s, const char *name, const H5A_info_t *ai, void *attr, hid_t vol, tb_ix_attr_t *x)
{
    size_t nlen = strlen(name);
    memset(x, 0, sizeof(*x));
    if (nlen == 0 || nlen >= UINT32_MAX)
        return TB_ERR_UNSUPPORTED; /* (a name the record cannot hold) */
    uint8_t *blob = malloc(nlen + 1);
    size_t   blen = nlen + 1;
    if (!blob)
        return TB_ERR_NOMEM;
    memcpy(blob, name, nlen + 1);
    x->name_len     = (uint32_t)nlen;
    x->cset         = (uint8_t)ai->cset;
    x->corder_valid = (uint8_t)(ai->corder_valid != 0);
    x->corder       = ai->corder;
    x->data_size    = ai->data_size < TB_IX_NONE ? (uint32_t)ai->data_size : TB_IX_NONE;
    x->owned        = 1;
    if (attr && ai->data_size <= TB_IX_ATTR_MAX_VALUE)
        cache_value(attr, vol, (size_t)ai->data_size, x, &blob, &blen);
    blob    = tb_ix_spill_adopt(s, blob, blen);
    x->name = (const char *)blob;
    if (x->cached) {
        x->type_enc  = blob + (uintptr_t)x->type_enc;
        x->space_enc = blob + (uintptr_t)x->space_enc;
        x->value     = blob + (uintptr_t)x->value;
    }
    return TB_OK;
}

/* Leaves the n records at `first` as orphans: slots no object's run holds any more, with no name
 * and marked cached (nothing fills them); their blocks are freed unless `moved` (their records were
 * copied elsewhere, blocks and all). */
static void
orphan_records(tb_ix_data_t *d, uint32_t first, uint32_t n, bool moved)
{
    for (uint32_t k = first; k < first + n; k++) {
        if (d->attrs[k].owned && !moved)
            tb_ix_spill_part_free(d->spill, (void *)d->attrs[k].name);
        memset(&d->attrs[k], 0, sizeof(d->attrs[k]));
        d->attrs[k].cached = 1;
    }
}

/* Room for `extra` more records after object oi's run, which is moved to the end of the table
 * first unless it is there already: TB_OK, the run then ending at d->nattr. */
static tb_status_t
run_at_end(tb_ix_data_t *d, uint32_t oi, uint32_t extra)
{
    tb_ix_obj_t *r      = &d->objs[oi];
    uint32_t     n      = r->nattr;
    bool         at_end = n == 0 || r->attr_first + n == d->nattr;
    uint64_t     need   = (uint64_t)d->nattr + (at_end ? 0 : n) + extra;
    if (need >= TB_IX_NONE)
        return TB_ERR_UNSUPPORTED; /* (more attributes than the table can number) */
    void       *attrs;
    tb_status_t st = tb_ix_spill_reserve(d->spill, TB_IX_LANE_ATTRS, d->attrs, &d->attrcap, need, sizeof(*d->attrs), 64, &attrs);
    if (st != TB_OK)
        return st;
    d->attrs = attrs;
    if (n == 0)
        r->attr_first = d->nattr;
    else if (!at_end) {
        memcpy(&d->attrs[d->nattr], &d->attrs[r->attr_first], (size_t)n * sizeof(*d->attrs));
        orphan_records(d, r->attr_first, n, true);
        r->attr_first = d->nattr;
        d->nattr += n;
    }
    return TB_OK;
}

/* Appends record *rec (its block made by make_record) to object oi's partial list: its index, or
 * TB_IX_NONE, the block freed, where the list is whole or the table cannot grow. */
static uint32_t
add_partial(tb_ix_data_t *d, uint32_t oi, const tb_ix_attr_t *rec)
{
    if (d->objs[oi].attrs_loaded || run_at_end(d, oi, 1) != TB_OK) {
        tb_ix_spill_part_free(d->spill, (void *)rec->name);
        return TB_IX_NONE;
    }
    uint32_t k  = d->nattr++;
    d->attrs[k] = *rec;
    d->objs[oi].nattr++;
    d->objs[oi].attrs_partial = 1;
    d->dirty                  = 1;
    return k;
}

/* Native order by creation order and native order by name: HDF5 walks attributes in an object's
 * header in header order for either index (H5A__attr_sort_table sorts no native walk), and those
 * in dense storage by the creation-order B-tree where there is one (increasing creation order;
 * there only when creation order is tracked), else in the name index's order. So the two agree
 * when there is at most one attribute or creation order is not tracked (any_crt_valid false); and,
 * `native_increasing`, when the list's order by name natively is increasing creation order. */
static bool
any_crt_valid(const tb_ix_attr_t *t, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (t[k].corder_valid)
            return true;
    return false;
}

static bool
crt_native_is_native(const tb_ix_attr_t *t, uint32_t n)
{
    if (n <= 1 || !any_crt_valid(t, n))
        return true;
    for (uint32_t k = 0; k < n; k++)
        if (!t[k].corder_valid || (k > 0 && t[k].corder <= t[k - 1].corder))
            return false;
    return true; /* (native_increasing) */
}

/* The order a complete list was taken in, for the iterations in native order that can follow it. */
typedef enum { LIST_NATIVE, LIST_CRT_NATIVE, LIST_OTHER } list_order_t;

/* Makes object oi's run the complete list of the n attributes named (infos beside), in that
 * order (`order`: native's by name, native's by creation order, or another, which native-order
 * iterations then cannot take from the list; a list of at most one attribute is in every order,
 * and native's by creation order is native's by name where creation order is untracked):
 * records of its partial list are kept (their values with them), the others listed only, or
 * cached from the object open below (obj, of type otype; NULL: none). */
static tb_status_t
list_attrs(tb_ix_data_t *d, uint32_t oi, char *const *names, const H5A_info_t *infos, uint32_t n, list_order_t order,
           void *obj, H5I_type_t otype, hid_t vol)
{
    if (d->nattr + (uint64_t)n >= TB_IX_NONE)
        return TB_ERR_UNSUPPORTED; /* (more attributes than the table can number) */
    void       *attrs;
    tb_status_t st = tb_ix_spill_reserve(d->spill, TB_IX_LANE_ATTRS, d->attrs, &d->attrcap, (uint64_t)d->nattr + n, sizeof(*d->attrs), 64, &attrs);
    if (st != TB_OK)
        return st;
    d->attrs        = attrs;
    tb_ix_obj_t *r  = &d->objs[oi];
    bool        *moved = calloc(r->nattr + 1, sizeof(*moved)); /* (which of the partial list's moved here) */
    bool        *made  = calloc(n + 1, sizeof(*made));          /* (which new slots own a new record) */
    uint32_t     done  = 0;
    if (!moved || !made)
        st = TB_ERR_NOMEM;
    for (; st == TB_OK && done < n; done++) {
        tb_ix_attr_t *x = &d->attrs[d->nattr + done];
        uint32_t      j = 0;
        while (j < r->nattr && (moved[j] || d->attrs[r->attr_first + j].absent ||
                                strcmp(d->attrs[r->attr_first + j].name, names[done]) != 0))
            j++;
        if (j < r->nattr) { /* (known from an open: its record, block and value move here) */
            *x       = d->attrs[r->attr_first + j];
            moved[j] = true;
            continue;
        }
        void *attr = NULL;
        if (obj && infos[done].data_size <= TB_IX_ATTR_MAX_VALUE) {
            H5VL_loc_params_t here = {.obj_type = otype, .type = H5VL_OBJECT_BY_SELF};
            attr = H5VLattr_open(obj, &here, vol, names[done], H5P_ATTRIBUTE_ACCESS_DEFAULT, DXPL, NULL);
        }
        st         = make_record(d->spill, names[done], &infos[done], attr, vol, x);
        made[done] = st == TB_OK;
        if (obj) { /* (HDF5 was called) */
            if (attr)
                H5VLattr_close(attr, vol, DXPL, NULL);
            H5Eclear2(H5E_DEFAULT);
        }
    }
    if (st == TB_OK) {
        /* The partial list's records not named (in a file nobody writes: the names it lacks) go;
         * the moved ones' slots are left behind. */
        for (uint32_t j = 0; j < r->nattr; j++)
            orphan_records(d, r->attr_first + j, 1, moved[j]);
        if (n <= 1 || (order == LIST_CRT_NATIVE && !any_crt_valid(d->attrs + d->nattr, n)))
            order = LIST_NATIVE;
        r->attr_first      = d->nattr;
        r->nattr           = n;
        r->attrs_loaded    = 1;
        r->attrs_partial   = 0;
        r->attrs_unordered  = order != LIST_NATIVE;
        r->attrs_crt_native = order == LIST_CRT_NATIVE;
        d->nattr += n;
        d->dirty = 1;
    }
    else
        for (uint32_t k = 0; made && k < done; k++)
            if (made[k])
                tb_ix_spill_part_free(d->spill, (void *)d->attrs[d->nattr + k].name);
    free(moved);
    free(made);
    return st;
}

/* Lists the attributes of obj (open below, of type otype) as object oi's whole list, in native's
 * order by name; small values with them when `values`. What HDF5 pushes is cleared. */
static tb_status_t
list_from(tb_ix_data_t *d, uint32_t oi, void *obj, H5I_type_t otype, hid_t vol, bool values)
{
    acollect_t                c    = {0};
    tb_status_t               ret  = TB_ERR_HDF5;
    H5VL_loc_params_t         self = {.obj_type = otype, .type = H5VL_OBJECT_BY_SELF};
    H5VL_attr_specific_args_t sa   = {.op_type = H5VL_ATTR_ITER};
    sa.args.iterate.idx_type       = H5_INDEX_NAME;
    sa.args.iterate.order          = H5_ITER_NATIVE;
    sa.args.iterate.idx            = NULL;
    sa.args.iterate.op             = acollect_cb;
    sa.args.iterate.op_data        = &c;
    if (H5VLattr_specific(obj, &self, vol, &sa, DXPL, NULL) < 0 || c.st != TB_OK)
        ret = c.st != TB_OK ? c.st : TB_ERR_HDF5; /* (acollect_cb stopped the iteration, or HDF5 failed) */
    else
        ret = list_attrs(d, oi, c.names, c.infos, c.n, LIST_NATIVE, values ? obj : NULL, otype, vol);
    if (ret != TB_OK)
        H5Eclear2(H5E_DEFAULT);
    acollect_free(&c);
    return ret;
}

tb_status_t
tb_ix_load_attrs(tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t oi)
{
    if (d->objs[oi].attrs_loaded)
        return TB_OK;
    H5I_type_t otype;
    void      *obj = tb_ix_open_by_token(a->under, a->type, a->vol, d->objs[oi].token, &otype, DXPL);
    if (!obj) {
        H5Eclear2(H5E_DEFAULT);
        return TB_ERR_HDF5;
    }
    tb_ix_obj_opened(d, oi, otype);
    tb_status_t ret = list_from(d, oi, obj, otype, a->vol, true);
    tb_ix_close_under(obj, otype, a->vol);
    /* (A group whose links are not listed yet keeps its header for that.) */
    if (otype != H5I_GROUP || tb_ix_group_whole(d, oi))
        tb_ix_evict_read(d, a, oi);
    return ret;
}

/* Object t's whole list before a question only it answers, asked at o (loc): from o itself when o
 * is t open for real (its header is in HDF5's cache already), names and infos only: the values
 * come from the application's own opens (tb_index_attr_forwarded), so that a first open reads no
 * attribute stock's does not; else by t's token with small values (tb_ix_load_attrs), as for a
 * lazy object, whose next opens are answered from them. */
static tb_status_t
load_attrs_at(tb_obj_t *o, const H5VL_loc_params_t *loc, tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t t)
{
    if (d->objs[t].attrs_loaded)
        return TB_OK;
    if (o->under && o->idx && o->idx->rec == t + 1 && d == o->ctx->index->d)
        return list_from(d, t, o->under, loc->obj_type, o->under_vol_id, false);
    return tb_ix_load_attrs(d, a, t);
}

/* The record of attribute `name` in object oi's list (all its attributes or some), or NULL; in a
 * partial list, the record may say the object has none of that name (`absent`). */
static const tb_ix_attr_t *
attr_find(const tb_ix_data_t *d, uint32_t oi, const char *name)
{
    const tb_ix_obj_t *r   = &d->objs[oi];
    size_t             len = strlen(name); /* (lengths first: a record keeps its name's) */
    for (uint32_t k = 0; k < r->nattr; k++) {
        const tb_ix_attr_t *x = &d->attrs[r->attr_first + k];
        if (x->name_len == len && memcmp(x->name, name, len) == 0)
            return x;
    }
    return NULL;
}

/* Opens attribute `name` below as H5Aopen_by_name(location, rel_name) or H5Aopen(location)
 * (rel_name NULL) would, the location being the file or the object at loc_path. */
static void *
open_real(struct tb_index_file *f, hid_t vol, int loc_is_file, const char *loc_path, const char *rel_name,
          const char *name)
{
    void      *locobj = f->file_under;
    H5I_type_t ltype  = H5I_FILE;
    if (!loc_is_file && !rel_name) {
        /* H5Aopen(object): by the object's path from the file, which native traverses as it did to
         * open the object, recording the same path, without opening the object itself (a dataset
         * already open under another external-file prefix, which a second open of it would refuse,
         * needs not be opened at all). */
        H5VL_loc_params_t byname            = {.obj_type = H5I_FILE, .type = H5VL_OBJECT_BY_NAME};
        byname.loc_data.loc_by_name.name    = loc_path;
        byname.loc_data.loc_by_name.lapl_id = H5P_LINK_ACCESS_DEFAULT;
        return H5VLattr_open(locobj, &byname, vol, name, H5P_ATTRIBUTE_ACCESS_DEFAULT, DXPL, NULL);
    }
    if (!loc_is_file) {
        H5VL_loc_params_t byname          = {.obj_type = H5I_FILE, .type = H5VL_OBJECT_BY_NAME};
        byname.loc_data.loc_by_name.name    = loc_path;
        byname.loc_data.loc_by_name.lapl_id = H5P_LINK_ACCESS_DEFAULT;
        if (!(locobj = H5VLobject_open(f->file_under, &byname, vol, &ltype, DXPL, NULL)))
            return NULL;
    }
    H5VL_loc_params_t loc = {.obj_type = ltype, .type = rel_name ? H5VL_OBJECT_BY_NAME : H5VL_OBJECT_BY_SELF};
    if (rel_name) {
        loc.loc_data.loc_by_name.name    = rel_name;
        loc.loc_data.loc_by_name.lapl_id = H5P_LINK_ACCESS_DEFAULT;
    }
    void *attr = H5VLattr_open(locobj, &loc, vol, name, H5P_ATTRIBUTE_ACCESS_DEFAULT, DXPL, NULL);
    if (locobj != f->file_under) {
        hid_t saved = tb_err_save();
        tb_ix_close_under(locobj, ltype, vol);
        tb_err_restore(saved);
    }
    return attr;
}

/* Attribute `name` of object t opened below by the object's token (its header is read, not the
 * groups of its path; the object itself is closed again): the file's sentinel (index_ctx.h), or
 * one to read from. */
static void *
open_by_token(const tb_ix_anchor_t *a, const tb_ix_data_t *d, uint32_t t, const char *name)
{
    H5I_type_t otype;
    void      *obj = tb_ix_open_by_token(a->under, a->type, a->vol, d->objs[t].token, &otype, DXPL);
    if (!obj)
        return NULL;
    H5VL_loc_params_t self  = {.obj_type = otype, .type = H5VL_OBJECT_BY_SELF};
    void             *attr  = H5VLattr_open(obj, &self, a->vol, name, H5P_ATTRIBUTE_ACCESS_DEFAULT, DXPL, NULL);
    hid_t             saved = tb_err_save();
    tb_ix_close_under(obj, otype, a->vol);
    tb_err_restore(saved);
    return attr;
}

/* ------------------------------------------------------------------ queries */
/* Keeps in object t's partial list that it has no attribute `name`, as native just said. */
static void
keep_absent(tb_ix_data_t *d, uint32_t t, const char *name)
{
    H5A_info_t   none = {.data_size = TB_IX_NONE}; /* (the record's info: none known) */
    tb_ix_attr_t rec;
    if (d->writable || d->objs[t].attrs_loaded || attr_find(d, t, name) ||
        make_record(d->spill, name, &none, NULL, H5I_INVALID_HID, &rec) != TB_OK)
        return;
    rec.absent = 1;
    if (add_partial(d, t, &rec) != TB_IX_NONE)
        tb_ix_stats.absent_kept++;
}

tb_answer_t
tb_index_attr_exists(tb_obj_t *o, const H5VL_loc_params_t *loc, H5VL_attr_specific_args_t *args, void **req,
                      herr_t *ret_out, uint32_t *note_out)
{
    *note_out = 0;
    tb_ix_data_t  *d;
    tb_ix_anchor_t a;
    uint32_t        t;
    if (tb_ix_locate(o, loc, req, &d, &a, &t, NULL) != TB_OK)
        return TB_FORWARD;
    /* (what its partial list holds, present or not; any other name needs the whole list) */
    const tb_ix_attr_t *x = attr_find(d, t, args->args.exists.name);
    if (!x && !d->objs[t].attrs_loaded) {
        if (o->under && !req && d == o->ctx->index->d) {
            /* Asked at a real location: native answers, as under stock, and the answer is kept
             * (tb_index_attr_exists_done), rather than the object's whole list read for it. */
            *note_out = t + 1;
            return TB_FORWARD;
        }
        if (tb_ix_load_attrs(d, &a, t) != TB_OK) /* (a lazy location stays lazy) */
            return TB_FORWARD;
        x = attr_find(d, t, args->args.exists.name);
    }
    *args->args.exists.exists = x && !x->absent;
    tb_ix_stats.absent_hits += x && x->absent;
    tb_ix_stats.answered++;
    *ret_out = 0;
    return TB_ANSWERED;
}

void
tb_index_attr_exists_done(tb_obj_t *o, uint32_t note, const H5VL_attr_specific_args_t *args)
{
    struct tb_index_file *f = o->ctx->index;
    tb_ix_data_t         *d = f ? f->d : NULL;
    /* (an attribute that is there is kept when it is opened, with its info) */
    if (d && note - 1 < d->nobj && !*args->args.exists.exists)
        keep_absent(d, note - 1, args->args.exists.name);
}

/* H5Aiterate2 / H5Aiterate_by_name: over the attributes the index lists for the object, in the
 * order native takes (names compared as strcmp does; creation order when every attribute has a
 * distinct one; native order by name: the order the list was taken in), each with its H5A_info_t,
 * the callback getting an ID of the object as native's does (a lazy one). Only for objects whose
 * list is known: iterating does not read one. */
static int
cmp_attr_name(const void *a, const void *b, void *ctx)
{
    const tb_ix_attr_t *t = ctx;
    return strcmp(t[*(const uint32_t *)a].name, t[*(const uint32_t *)b].name);
}

static int
cmp_attr_corder(const void *a, const void *b, void *ctx)
{
    const tb_ix_attr_t *t = ctx;
    int64_t             x = t[*(const uint32_t *)a].corder, y = t[*(const uint32_t *)b].corder;
    return (x > y) - (x < y);
}

/* The walk of the n attributes at `first` an iteration takes, in *perm_out (malloc'd): TB_OK, or
 * TB_ERR_UNSUPPORTED when the index cannot tell native's order. */
static tb_status_t
attr_walk(const tb_ix_data_t *d, uint32_t oi, H5_index_t idx_type, H5_iter_order_t order, uint32_t **perm_out)
{
    const tb_ix_attr_t *t = d->attrs + d->objs[oi].attr_first;
    uint32_t            n = d->objs[oi].nattr;
    if (idx_type != H5_INDEX_NAME && idx_type != H5_INDEX_CRT_ORDER)
        return TB_ERR_UNSUPPORTED;
    if (order != H5_ITER_INC && order != H5_ITER_DEC && order != H5_ITER_NATIVE)
        return TB_ERR_UNSUPPORTED;
    /* (the storage's own order: known when the list was recorded in it, or in the other native
     * order where the two agree) */
    const tb_ix_obj_t *r = &d->objs[oi];
    if (order == H5_ITER_NATIVE &&
        (idx_type == H5_INDEX_NAME ? r->attrs_unordered
                                   : r->attrs_unordered ? !r->attrs_crt_native : !crt_native_is_native(t, n)))
        return TB_ERR_UNSUPPORTED;
    uint32_t *perm = malloc((size_t)(n ? n : 1) * sizeof(*perm));
    if (!perm)
        return TB_ERR_NOMEM;
    for (uint32_t k = 0; k < n; k++)
        perm[k] = k;
    if (order == H5_ITER_NATIVE)
        ; /* (the list as recorded) */
    else if (idx_type == H5_INDEX_CRT_ORDER) {
        qsort_r(perm, n, sizeof(*perm), cmp_attr_corder, (void *)t);
        for (uint32_t k = 0; k < n; k++)
            if (!t[perm[k]].corder_valid || (k > 0 && t[perm[k]].corder == t[perm[k - 1]].corder)) {
                free(perm); /* (ties: native's order among them is not known) */
                return TB_ERR_UNSUPPORTED;
            }
    }
    else
        qsort_r(perm, n, sizeof(*perm), cmp_attr_name, (void *)t);
    if (order == H5_ITER_DEC)
        for (uint32_t k = 0; k < n / 2; k++) {
            uint32_t x      = perm[k];
            perm[k]         = perm[n - 1 - k];
            perm[n - 1 - k] = x;
        }
    *perm_out = perm;
    return TB_OK;
}

tb_answer_t
tb_index_attr_iterate(tb_obj_t *o, const H5VL_loc_params_t *loc, H5VL_attr_specific_args_t *args, void **req,
                      herr_t *ret_out)
{
    tb_ix_data_t  *d;
    tb_ix_anchor_t a;
    uint32_t       t, *perm = NULL;
    char          *path = NULL;
    if (args->op_type != H5VL_ATTR_ITER || tb_ix_locate(o, loc, req, &d, &a, &t, &path) != TB_OK)
        return TB_FORWARD;
    /* (a lazy object's list is read rather than the object made real; a real one's comes from
     * native's iteration: tb_index_attr_watch) */
    if (!d->objs[t].attrs_loaded && !o->under && tb_ix_load_attrs(d, &a, t) != TB_OK) {
        free(path);
        return TB_FORWARD;
    }
    const H5VL_attr_iterate_args_t *it = &args->args.iterate;
    const tb_ix_obj_t              *r  = &d->objs[t];
    hsize_t                         skip = it->idx ? *it->idx : 0;
    bool                            ok   = r->attrs_loaded && !(skip > 0 && skip >= r->nattr);
    for (uint32_t k = 0; ok && k < r->nattr; k++)
        ok = d->attrs[r->attr_first + k].data_size != TB_IX_NONE;
    if (!ok || attr_walk(d, t, it->idx_type, it->order, &perm) != TB_OK) {
        free(path); /* (skip past the end: native's error) */
        tb_ix_stats.forwarded++;
        return TB_FORWARD;
    }
    hid_t id = tb_ix_callback_id(o, d, t, path);
    if (id < 0) {
        free(perm);
        H5Eclear2(H5E_DEFAULT);
        tb_ix_stats.forwarded++;
        return TB_FORWARD;
    }
    uint32_t first = r->attr_first, n = r->nattr; /* (the tables may grow in the callbacks) */
    herr_t   ret   = H5_ITER_CONT;
    hsize_t  i     = skip;
    d->busy++;
    for (; i < n && ret == H5_ITER_CONT; i++) {
        const tb_ix_attr_t *x  = &d->attrs[first + perm[i]];
        H5A_info_t          ai = {.corder_valid = x->corder_valid != 0, .corder = x->corder,
                                  .cset = (H5T_cset_t)x->cset, .data_size = x->data_size};
        char                nb[TB_IX_CB_NAME_BUF], *heap = NULL;
        const char         *nm = tb_ix_cb_name(x->name, x->name_len, nb, &heap);
        if (!nm) {
            TB_PUSH("index", TB_ERR_NOMEM, "out of memory");
            ret = -1;
            break;
        }
        ret = it->op(id, nm, &ai, it->op_data);
        free(heap);
    }
    d->busy--;
    free(perm);
    if (it->idx)
        *it->idx = i;
    if (ret < 0)
        TB_PUSH("index", TB_ERR_HDF5, "attribute iteration failed (callback returned %d)", (int)ret);
    tb_ix_callback_close(id, ret);
    tb_ix_stats.answered++;
    *ret_out = ret < 0 ? -1 : ret;
    return TB_ANSWERED;
}

/* The application's callback, behind the collection of what native hands it. */
static herr_t
watch_cb(hid_t loc, const char *name, const H5A_info_t *ainfo, void *op_data)
{
    tb_ix_attr_watch_t *w = op_data;
    if (w->c.st == TB_OK)
        (void)acollect_cb(loc, name, ainfo, &w->c); /* (a failure only ends the collection) */
    return w->op(loc, name, ainfo, w->op_data);
}

bool
tb_index_attr_watch(tb_obj_t *o, const H5VL_loc_params_t *loc, H5VL_attr_specific_args_t *args,
                    tb_ix_attr_watch_t *w)
{
    memset(w, 0, sizeof(*w));
    struct tb_index_file           *f  = o->ctx->index;
    const H5VL_attr_iterate_args_t *it = &args->args.iterate;
    if (!f || !o->under || args->op_type != H5VL_ATTR_ITER || !it->op ||
        (it->idx_type != H5_INDEX_NAME && it->idx_type != H5_INDEX_CRT_ORDER) ||
        (it->order != H5_ITER_INC && it->order != H5_ITER_DEC && it->order != H5_ITER_NATIVE) ||
        (it->idx && *it->idx != 0))
        return false;
    tb_ix_data_t  *d;
    tb_ix_anchor_t a;
    uint32_t       t;
    if (tb_ix_locate(o, loc, NULL, &d, &a, &t, NULL) != TB_OK || d != f->d || d->objs[t].attrs_loaded)
        return false;
    w->op                       = it->op;
    w->op_data                  = it->op_data;
    w->obj                      = t + 1;
    w->idx_type                 = it->idx_type;
    w->order                    = it->order;
    args->args.iterate.op       = watch_cb;
    args->args.iterate.op_data  = w;
    return true;
}

void
tb_index_attr_watched(tb_obj_t *o, const H5VL_loc_params_t *loc, tb_ix_attr_watch_t *w,
                      H5VL_attr_specific_args_t *args, herr_t ret)
{
    args->args.iterate.op      = w->op;
    args->args.iterate.op_data = w->op_data;
    struct tb_index_file *f  = o->ctx->index;
    tb_ix_data_t         *d  = f ? f->d : NULL;
    uint32_t              oi = w->obj - 1;
    /* From the first to the last: the whole list, in native's order when taken by name in native
     * order (else the one it was taken in, increasing). */
    if (ret == 0 && w->c.st == TB_OK && d && !d->writable && oi < d->nobj && !d->objs[oi].attrs_loaded) {
        uint32_t n = w->c.n;
        if (w->order == H5_ITER_DEC)
            for (uint32_t k = 0; k < n / 2; k++) {
                char      *x  = w->c.names[k];
                H5A_info_t xi = w->c.infos[k];
                w->c.names[k]         = w->c.names[n - 1 - k];
                w->c.infos[k]         = w->c.infos[n - 1 - k];
                w->c.names[n - 1 - k] = x;
                w->c.infos[n - 1 - k] = xi;
            }
        list_order_t lo = w->order != H5_ITER_NATIVE ? LIST_OTHER
                          : w->idx_type == H5_INDEX_NAME ? LIST_NATIVE
                                                         : LIST_CRT_NATIVE;
        /* (no object to read values from: HDF5 is not called) */
        (void)list_attrs(d, oi, w->c.names, w->c.infos, n, lo, NULL, H5I_BADID, H5I_INVALID_HID);
    }
    else if (ret > 0 && d && !d->writable && oi < d->nobj && !d->objs[oi].attrs_loaded) {
        /* Stopped by the application (napi5's search for NX_class): what it saw is not the whole
         * list, which the next open's same search would need; read once now. */
        tb_ix_anchor_t a;
        uint32_t       t;
        hid_t          saved = tb_err_save();
        if (tb_ix_locate(o, loc, NULL, &d, &a, &t, NULL) == TB_OK && t == oi)
            (void)load_attrs_at(o, loc, d, &a, t);
        tb_err_restore(saved);
    }
    acollect_free(&w->c);
}

/* ------------------------------------------------------------------ missing attributes
 * Native's failure to open an attribute an object lacks ends in one of two errors (H5E_ATTR,
 * H5E_NOTFOUND), by where the object keeps its attributes: in its header (H5O__attr_open_by_name)
 * or in dense storage (H5A__dense_open, below an H5E_CANTOPENOBJ "can't open attribute"). h5py
 * turns the failure into its KeyError with the innermost description. */
#define MISSING_IN_HEADER "can't locate attribute: '%s'"
#define MISSING_IN_DENSE  "can't locate attribute in name index"

typedef struct missing {
    const char *name;
    uint8_t     storage; /* TB_IX_AS_* */
} missing_t;

static herr_t
storage_named(unsigned n, const H5E_error2_t *e, void *missing)
{
    missing_t *m = missing;
    if (n != 0 || e->cls_id != H5E_ERR_CLS || e->maj_num != H5E_ATTR || e->min_num != H5E_NOTFOUND || !e->desc)
        return 0;
    char header[1100];
    snprintf(header, sizeof(header), MISSING_IN_HEADER, m->name);
    if (strcmp(e->desc, header) == 0)
        m->storage = TB_IX_AS_HEADER;
    else if (strcmp(e->desc, MISSING_IN_DENSE) == 0)
        m->storage = TB_IX_AS_DENSE;
    return 0;
}

/* Where the failure on the stack (native's, to open attribute `name`) says the attributes are:
 * TB_IX_AS_UNKNOWN when it is not that failure. Clears nothing. */
static uint8_t
storage_of_failure(const char *name)
{
    missing_t m = {name, TB_IX_AS_UNKNOWN};
    if (strlen(name) <= 1000)
        H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, storage_named, &m);
    return m.storage;
}

/* Keeps what a failure said of object t's attributes (`name` not one its list holds): a fact of
 * the object, kept whether the index lists all its attributes, some or none yet. */
static void
keep_storage(tb_ix_data_t *d, uint32_t t, const char *name, uint8_t storage)
{
    const tb_ix_attr_t *x = attr_find(d, t, name);
    if (storage != TB_IX_AS_UNKNOWN && (!x || x->absent) && d->objs[t].attr_storage != storage) {
        d->objs[t].attr_storage = storage;
        d->dirty                = 1;
    }
}

void
tb_index_attr_missing(tb_obj_t *o, const H5VL_loc_params_t *loc, const char *name)
{
    if (!o->ctx->index || !name)
        return;
    uint8_t storage = storage_of_failure(name); /* (before any call that clears the stack) */
    if (storage == TB_IX_AS_UNKNOWN)
        return;
    hid_t          saved = tb_err_save();
    tb_ix_data_t  *d;
    tb_ix_anchor_t a;
    uint32_t       t;
    if (tb_ix_locate(o, loc, NULL, &d, &a, &t, NULL) == TB_OK) {
        keep_storage(d, t, name, storage);
        /* Kept in the object's partial list (its whole list is not read for it), so that the next
         * opens (lazy ones) answer this failure themselves. */
        keep_absent(d, t, name);
    }
    tb_err_restore(saved);
}

/* An attribute the index knows is not there, asked of a lazy object: native's failure. When an
 * earlier failure said where the object keeps its attributes, the same error is pushed (no I/O);
 * else it comes from an open by the object's path from the file (its header is read, as native
 * reads it), without opening the object itself. TB_ANSWERED (*out NULL, the error on the stack),
 * or TB_FORWARD when it unexpectedly opens or the path cannot be told. */
static tb_answer_t
open_missing(tb_obj_t *o, const H5VL_loc_params_t *loc, const char *name, void **req, tb_ix_data_t *d, uint32_t t,
             tb_obj_t **out)
{
    switch (d->objs[t].attr_storage) {
        case TB_IX_AS_HEADER:
            H5Epush2(H5E_DEFAULT, __FILE__, __func__, __LINE__, H5E_ERR_CLS, H5E_ATTR, H5E_NOTFOUND,
                     MISSING_IN_HEADER, name);
            goto answered;
        case TB_IX_AS_DENSE:
            H5Epush2(H5E_DEFAULT, __FILE__, __func__, __LINE__, H5E_ERR_CLS, H5E_ATTR, H5E_NOTFOUND, MISSING_IN_DENSE);
            H5Epush2(H5E_DEFAULT, __FILE__, __func__, __LINE__, H5E_ERR_CLS, H5E_ATTR, H5E_CANTOPENOBJ,
                     "can't open attribute");
            goto answered;
        default: break;
    }
    tb_ix_anchor_t a;
    uint32_t       t_again;
    char          *path = NULL;
    if (tb_ix_locate(o, loc, req, &d, &a, &t_again, &path) != TB_OK || !path || t_again != t) {
        free(path);
        return TB_FORWARD;
    }
    void *attr = open_real(o->ctx->index, o->under_vol_id, 1, NULL, path, name);
    free(path);
    if (attr) {
        hid_t saved = tb_err_save();
        H5VLattr_close(attr, o->under_vol_id, DXPL, NULL);
        tb_err_restore(saved);
        return TB_FORWARD;
    }
    keep_storage(d, t, name, storage_of_failure(name)); /* (for the next time, as a forwarded one) */
answered:
    *out = NULL;
    tb_ix_stats.answered++;
    return TB_ANSWERED;
}

tb_answer_t
tb_index_attr_open(tb_obj_t *o, const H5VL_loc_params_t *loc, const char *name, hid_t aapl_id, void **req,
                   tb_obj_t **out, uint32_t *note_out)
{
    *note_out = 0;
    if (aapl_id != H5P_DEFAULT && aapl_id != H5P_ATTRIBUTE_ACCESS_DEFAULT)
        return TB_FORWARD;
    struct tb_index_file *f = o->ctx->index;
    if (!f || !f->file_under || !name)
        return TB_FORWARD;
    tb_ix_data_t  *d;
    tb_ix_anchor_t a;
    uint32_t        t;
    if (tb_ix_locate(o, loc, req, &d, &a, &t, NULL) != TB_OK)
        return TB_FORWARD;
    const tb_ix_attr_t *x = attr_find(d, t, name);
    if (!d->objs[t].attrs_loaded && !(x && (x->cached || x->absent))) {
        if (o->under && !req && d == f->d) {
            /* Of a real object whose attributes the index does not list yet: native opens it, as
             * under stock, and the open handle gives the record (tb_index_attr_forwarded): only
             * what the application opens is read, not the object's whole list. */
            *note_out = t + 1;
            return TB_FORWARD;
        }
        if (tb_ix_load_attrs(d, &a, t) != TB_OK) /* (a lazy object stays lazy) */
            return TB_FORWARD;
        x = attr_find(d, t, name);
    }
    if ((!x || x->absent) && !o->under) {
        tb_ix_stats.absent_hits += x != NULL;
        return open_missing(o, loc, name, req, d, t, out);
    }
    /* The sentinel is opened on its own object, so that native finds it open only when that very
     * attribute is opened: by the object's token (its header is read, not its path's groups). */
    if (x && x->cached && !f->sentinel && !(f->sentinel = open_by_token(&a, d, t, name))) {
        H5Eclear2(H5E_DEFAULT);
        x = NULL;
    }
    if (!x || !x->cached) {
        if (x && !x->absent && !req && d == f->d)
            *note_out = t + 1; /* (its value, or its strings, from the open handle) */
        return TB_FORWARD;
    }
    /* A replay that opens a dataset by its path (H5Aopen_by_name) would be refused when the dataset
     * is open under an external-file prefix: such an attribute is native's. */
    const tb_ix_obj_t *r = &d->objs[t];
    if (loc->type == H5VL_OBJECT_BY_NAME && (!r->has_info || r->type == H5O_TYPE_DATASET) &&
        (r->prefixed || d->dset_prefixed))
        return TB_FORWARD;
    /* Native records the location's path in the attribute (H5Iget_name reports it), not its
     * object's: "/" for the file. */
    const char *base  = loc->obj_type == H5I_FILE ? "/" : (o->idx ? o->idx->path : NULL);
    const char *rel   = loc->type == H5VL_OBJECT_BY_NAME ? loc->loc_data.loc_by_name.name : NULL;
    size_t      blen  = base ? strlen(base) + 1 : 0, rlen = rel ? strlen(rel) + 1 : 0;
    char       *xpath = base ? strdup(base) : NULL; /* the wrapper's (H5Iget_name) */
    tb_obj_t     *w  = xpath && (loc->type != H5VL_OBJECT_BY_NAME || rel) ? tb_obj_new(NULL, o->ctx) : NULL;
    tb_ix_lazy_t *lz = w ? tb_ix_lazy_new(f, w, H5I_ATTR, t,
                                          x->name_len + 1 + x->type_nbytes + x->space_nbytes + x->value_nbytes +
                                              blen + rlen)
                         : NULL;
    if (!lz) {
        tb_obj_free(w);
        free(xpath);
        return TB_FORWARD;
    }
    lz->loc_is_file = loc->obj_type == H5I_FILE;
    uint8_t *p = (uint8_t *)(lz + 1);
    /* (the replay's location and name in the lazy state's own block, as what it answers) */
    memcpy(p, base, blen);
    lz->loc_path = (char *)p;
    p += blen;
    if (rel) {
        memcpy(p, rel, rlen);
        lz->rel_name = (char *)p;
        p += rlen;
    }
    memcpy(p, x->name, (size_t)x->name_len + 1);
    lz->name = (const char *)p;
    p += x->name_len + 1;
    memcpy(p, x->type_enc, x->type_nbytes);
    lz->type_enc    = p;
    lz->type_nbytes = x->type_nbytes;
    p += x->type_nbytes;
    memcpy(p, x->space_enc, x->space_nbytes);
    lz->space_enc    = p;
    lz->space_nbytes = x->space_nbytes;
    p += x->space_nbytes;
    if (x->value_nbytes)
        memcpy(p, x->value, x->value_nbytes);
    lz->value              = p;
    lz->value_nbytes       = x->value_nbytes;
    lz->ainfo.corder_valid = x->corder_valid;
    lz->ainfo.corder       = x->corder;
    lz->ainfo.cset         = (H5T_cset_t)x->cset;
    lz->ainfo.data_size    = x->data_size;
    w->idx->state = TB_IXO_FOREIGN; /* an attribute: never a location for the index */
    w->idx->path  = xpath;           /* what H5Iget_name reports */
    tb_ix_stats.attrs_lazy++;
    tb_ix_stats.answered++;
    *out = w;
    return TB_ANSWERED;
}

tb_status_t
tb_index_attr_materialise(tb_obj_t *o)
{
    tb_ix_lazy_t *lz = tb_ix_lazy_of(o, H5I_ATTR);
    if (o->under || !lz)
        return TB_OK;
    if (!lz->node.f->file_under) {
        TB_PUSH("index", TB_ERR_HDF5, "attribute \"%s\" was opened from the cache of a file closed since", lz->name);
        return TB_ERR_HDF5;
    }
    /* Replays the application's open, from the file: the real one records what native would. */
    void *under = open_real(lz->node.f, o->under_vol_id, lz->loc_is_file, lz->loc_path, lz->rel_name, lz->name);
    if (!under) {
        TB_PUSH("index", TB_ERR_HDF5, "cannot open attribute \"%s\" from %s", lz->name, lz->loc_path);
        return TB_ERR_HDF5;
    }
    o->under      = under;
    o->idx->lazy  = NULL;
    tb_ix_lazy_free(lz);
    tb_ix_stats.attrs_materialised++;
    return TB_OK;
}

/* ------------------------------------------------------------------ sequences of object references
 * (DIMENSION_LIST): kept as tb_ix_vref_check says, given back as native's read into the same type
 * gives them, an hvl_t per element whose references native's default allocator holds. */

/* Whether a transfer list leaves variable-length data to native's default allocator. */
static bool
vlen_alloc_default(hid_t dxpl_id)
{
    if (dxpl_id == H5P_DEFAULT || dxpl_id == H5P_DATASET_XFER_DEFAULT)
        return true;
    H5MM_allocate_t alloc = NULL;
    H5MM_free_t     freef = NULL;
    void           *info = NULL, *finfo = NULL;
    return H5Pget_vlen_mem_manager(dxpl_id, &alloc, &info, &freef, &finfo) >= 0 && !alloc;
}

/* A read of references into mem_type_id is answered only in the file's own type (no conversion):
 * told by its encoding (H5Tequal of a file's type, or of one H5Tvlen_create made, and a decoded
 * one compares where a reference lives, not what it is), or by its being a read-only copy of ft,
 * a type of that form. */
static bool
vref_mem_ok(hid_t ft, hid_t mem_type_id, hid_t dxpl_id)
{
    return vlen_alloc_default(dxpl_id) &&
           (tb_ix_type_is_copy(ft, mem_type_id) || tb_ix_type_encodes_vref(mem_type_id));
}

/* The npoints sequences at seqs encoded at *blob + at (realloc'd): their length, 0 when above max
 * (or out of memory). */
static size_t
vref_encode(const hvl_t *seqs, size_t npoints, size_t max, uint8_t **blob, size_t at)
{
    size_t n = 0;
    for (size_t k = 0; k < npoints; k++) {
        if (seqs[k].len > max / 8 || (seqs[k].len && !seqs[k].p))
            return 0;
        n += 8 + seqs[k].len * 8;
        if (n > max)
            return 0;
    }
    uint8_t *b = n ? realloc(*blob, at + n) : NULL;
    if (!b)
        return 0;
    *blob = b;
    b += at;
    for (size_t k = 0; k < npoints; k++) {
        uint64_t count = seqs[k].len;
        memcpy(b, &count, 8);
        if (count)
            memcpy(b + 8, seqs[k].p, count * 8);
        b += 8 + count * 8;
    }
    return n;
}

/* The cached sequences into buf as native's read into the same type gives them: an hvl_t per
 * element, its references malloc'd (native's default), NULL where it holds none. */
static tb_status_t
vref_decode(const void *value, size_t nbytes, void *buf)
{
    const uint8_t *p = value, *end = p + nbytes;
    hvl_t         *out = buf;
    size_t         n   = 0;
    while (p < end) { /* (checked when cached or loaded: tb_ix_vref_check) */
        uint64_t count;
        memcpy(&count, p, 8);
        p += 8;
        void *refs = NULL;
        if (count && !(refs = malloc(count * 8))) {
            while (n > 0)
                free(out[--n].p);
            return TB_ERR_NOMEM;
        }
        if (count)
            memcpy(refs, p, count * 8);
        p += count * 8;
        out[n].len   = count;
        out[n++].p   = refs;
    }
    return TB_OK;
}

/* ------------------------------------------------------------------ records from the application's opens
 * An attribute the application opens for real gets its record (with its info) at the open, and its
 * value afterwards from what the application itself does with the handle: the datatype and
 * dataspace its H5Aget_type / H5Aget_space received, the value its first successful H5Aread gave
 * (in the file type; else read once into it), or, when the handle closes unread, from the handle.
 * Native's own calls are not made twice. */
struct tb_ix_pending {
    uint32_t rec; /* 1 + the record */
    vshape_t v;
};

static tb_objpool_t pending_pool = TB_OBJPOOL_INIT(tb_ix_pending_t, 64);

void
tb_ix_pending_free(tb_ix_pending_t *p)
{
    if (p)
        tb_objpool_put(&pending_pool, p);
}

/* The handle's pending record, when it is still one to fill (the file's index as it was). */
static tb_ix_pending_t *
pending_of(tb_obj_t *a, tb_ix_data_t **d_out, uint32_t *k_out)
{
    struct tb_index_file *f = a->idx && a->idx->pending ? a->ctx->index : NULL;
    tb_ix_data_t         *d = f ? f->d : NULL;
    if (!d)
        return NULL;
    tb_ix_pending_t *p = a->idx->pending;
    uint32_t         k = p->rec - 1;
    if (k >= d->nattr || d->attrs[k].cached || d->attrs[k].novalue) {
        tb_ix_pending_free(p);
        a->idx->pending = NULL;
        return NULL;
    }
    *d_out = d;
    *k_out = k;
    return p;
}

static void
pending_done(tb_obj_t *a)
{
    tb_ix_pending_free(a->idx->pending);
    a->idx->pending = NULL;
}

void
tb_index_attr_forwarded(tb_obj_t *a, const char *name, uint32_t note)
{
    struct tb_index_file *f  = a && a->under && note ? a->ctx->index : NULL;
    tb_ix_data_t         *d  = f ? f->d : NULL;
    uint32_t              oi = note - 1;
    if (!d || d->writable || oi >= d->nobj)
        return;
    const tb_ix_attr_t *x = attr_find(d, oi, name);
    if (x && (x->cached || x->novalue || x->absent || x->data_size > TB_IX_ATTR_MAX_VALUE))
        return;
    uint32_t k = x ? (uint32_t)(x - d->attrs) : TB_IX_NONE;
    if (k == TB_IX_NONE) { /* (a new record in the object's partial list, with the info) */
        H5A_info_t           ai;
        tb_ix_attr_t         rec;
        H5VL_attr_get_args_t gi              = {.op_type = H5VL_ATTR_GET_INFO};
        gi.args.get_info.loc_params.obj_type = H5I_ATTR;
        gi.args.get_info.loc_params.type     = H5VL_OBJECT_BY_SELF;
        gi.args.get_info.ainfo               = &ai;
        /* (not in a whole list: native's open found what it lacks) */
        if (H5VLattr_get(a->under, a->under_vol_id, &gi, DXPL, NULL) < 0 ||
            make_record(d->spill, name, &ai, NULL, H5I_INVALID_HID, &rec) != TB_OK ||
            (k = add_partial(d, oi, &rec)) == TB_IX_NONE) {
            tb_err_drop();
            return;
        }
    }
    struct tb_index_obj *ix = d->attrs[k].data_size <= TB_IX_ATTR_MAX_VALUE ? tb_ix_obj_state(a) : NULL;
    if (ix && !ix->pending && (ix->pending = tb_objpool_get(&pending_pool)))
        ix->pending->rec = k + 1;
}

void
tb_index_attr_got(tb_obj_t *a, const H5VL_attr_get_args_t *args)
{
    tb_ix_data_t    *d;
    uint32_t         k;
    tb_ix_pending_t *p = pending_of(a, &d, &k);
    if (!p)
        return;
    /* (after the application's call succeeded: nothing of its own is on the error stack) */
    shape_status_t st = shape_from(&p->v, args);
    if (st == SHAPE_OK && args->op_type == H5VL_ATTR_GET_TYPE)
        tb_ix_type_note_rdonly(args->args.get_type.type_id, p->v.type.enc);
    if (st != SHAPE_OK) {
        d->attrs[k].novalue = st == SHAPE_NEVER;
        pending_done(a);
        tb_err_drop();
    }
}

/* Record k takes type, space and value: one new block for its name, type, space and value. */
static void
record_value(tb_ix_data_t *d, uint32_t k, const vshape_t *v, uint8_t *block, size_t at, size_t vn)
{
    tb_ix_attr_t *x = &d->attrs[k];
    memcpy(block, x->name, (size_t)x->name_len + 1);
    memcpy(block + x->name_len + 1, v->type.enc, v->type.n);
    memcpy(block + x->name_len + 1 + v->type.n, v->senc, v->sn);
    block = tb_ix_spill_adopt(d->spill, block, at + vn);
    if (x->owned)
        tb_ix_spill_part_free(d->spill, (void *)x->name);
    x->name         = (const char *)block;
    x->type_enc     = block + x->name_len + 1;
    x->space_enc    = block + x->name_len + 1 + v->type.n;
    x->value        = block + at;
    x->type_nbytes  = (uint32_t)v->type.n;
    x->space_nbytes = (uint32_t)v->sn;
    x->value_nbytes = (uint32_t)vn;
    x->owned        = 1;
    x->cached       = 1;
    d->dirty        = 1;
}

/* The pending record's value: from buf, what the handle's read gave in mem_type_id, or (buf NULL)
 * read from the handle into the file type. */
static void
take_value(tb_obj_t *a, hid_t mem_type_id, const void *buf)
{
    tb_ix_data_t    *d;
    uint32_t         k;
    tb_ix_pending_t *p = pending_of(a, &d, &k);
    if (!p)
        return;
    /* (after the application's read succeeded, or as its close begins: its error stack is empty) */
    vshape_t      *v     = &p->v;
    tb_ix_attr_t  *x     = &d->attrs[k];
    uint8_t       *block = NULL;
    shape_status_t st    = shape_of(v, a->under, a->under_vol_id);
    x->novalue           = st == SHAPE_NEVER;
    hid_t  ft            = st == SHAPE_OK ? v->type.id : H5I_INVALID_HID;
    size_t at            = (size_t)x->name_len + 1 + v->type.n + v->sn, vn = 0;
    if (ft < 0 || ((v->vstr || v->vref) && !buf))
        goto done; /* (strings and references: only from the application's read, tb_ix_vstr_read says why) */
    if (v->vstr) {
        if (v->npoints <= 0 || (size_t)v->npoints > TB_IX_ATTR_MAX_VALUE / 8 || !tb_ix_vstr_mem_ok(ft, mem_type_id, DXPL))
            goto done;
        a->ctx->index->vstr_converted = true; /* (native converted this file's strings: tb_ix_vstr_read) */
        if (!(vn = tb_ix_vstr_encode((char *const *)buf, (size_t)v->npoints, TB_IX_ATTR_MAX_VALUE, &block, at)))
            goto done;
    }
    else if (v->vref) {
        if (v->npoints <= 0 || (size_t)v->npoints > TB_IX_ATTR_MAX_VALUE / 8 || !vref_mem_ok(ft, mem_type_id, DXPL) ||
            !(vn = vref_encode(buf, (size_t)v->npoints, TB_IX_ATTR_MAX_VALUE, &block, at)))
            goto done;
    }
    else {
        vn = (size_t)v->npoints * v->tsize;
        if (vn != x->data_size || !(block = malloc(at + vn)))
            goto done;
        if (buf && (tb_ix_type_is_copy(ft, mem_type_id) || tb_h5t_equal_objs(ft, v->type.obj, mem_type_id, NULL) > 0))
            memcpy(block + at, buf, vn); /* (what native's read gave, in the file type) */
        else if (vn && H5VLattr_read(a->under, a->under_vol_id, ft, block + at, DXPL, NULL) < 0)
            goto done;
    }
    record_value(d, k, v, block, at, vn);
    pending_done(a);
    return;
done:
    free(block);
    pending_done(a);
    tb_err_drop();
}

void
tb_index_attr_read_done(tb_obj_t *a, hid_t mem_type_id, const void *buf)
{
    if (buf && a->idx && a->idx->pending)
        take_value(a, mem_type_id, buf);
}

void
tb_index_attr_closing(tb_obj_t *a)
{
    if (a->under && a->idx && a->idx->pending)
        take_value(a, H5I_INVALID_HID, NULL);
}

/* ------------------------------------------------------------------ answers for lazy attributes */
static hid_t
lazy_ftype(const tb_ix_lazy_t *lz)
{
    return tb_ix_type_get(lz->type_enc, lz->type_nbytes);
}

/* Whether a read of variable-length strings into mem_type_id is one the cache answers: a string
 * type of the file type's character set and padding, with native's default memory manager (H5Aread
 * has no transfer list of its own: the one given here is the default's, unless a connector above
 * passed another). Any other memory type is native's to convert. */
bool
tb_ix_vstr_mem_ok(hid_t ft, hid_t mem_type_id, hid_t dxpl_id)
{
    if (tb_h5t_class(mem_type_id) != H5T_STRING || tb_h5t_is_vstr(mem_type_id) <= 0 ||
        H5Tget_cset(mem_type_id) != H5Tget_cset(ft) || H5Tget_strpad(mem_type_id) != H5Tget_strpad(ft))
        return false;
    return vlen_alloc_default(dxpl_id);
}

/* The cached strings into buf as native's read gives them: a char * per element, each malloc'd
 * (native's default), or NULL where none was stored. */
static tb_status_t
vstr_decode(const void *value, size_t nbytes, void *buf)
{
    const uint8_t *p = value, *end = p + nbytes;
    char         **out = buf;
    size_t         n   = 0;
    while (p < end) { /* (checked when cached or loaded: tb_ix_vstr_check) */
        uint64_t len;
        memcpy(&len, p, 8);
        p += 8;
        char *str = NULL;
        if (len != TB_IX_VSTR_NULL) {
            if (!(str = malloc(len + 1))) {
                while (n > 0)
                    free(out[--n]);
                return TB_ERR_NOMEM;
            }
            memcpy(str, p, len);
            str[len] = '\0';
            p += len;
        }
        out[n++] = str;
    }
    return TB_OK;
}

tb_status_t
tb_ix_vstr_read(struct tb_index_file *f, hid_t ft, hid_t mem_type_id, hid_t dxpl_id, const void *value, size_t nbytes,
                void *buf)
{
    /* Native keeps the conversion it finds for a file's variable-length strings and finds it again
     * for any character set (H5T_cmp does not compare a string's set), so that a read into another
     * set succeeds once a first one of the file has been converted, and fails before. The first
     * read of an open is native's, so that the reads after it find what they find under stock. */
    if (!tb_ix_vstr_mem_ok(ft, mem_type_id, dxpl_id))
        return TB_ERR_UNSUPPORTED;
    if (!f->vstr_converted) {
        f->vstr_converted = true;
        return TB_ERR_UNSUPPORTED;
    }
    return vstr_decode(value, nbytes, buf);
}

tb_answer_t
tb_index_attr_read(tb_obj_t *a, hid_t mem_type_id, void *buf, hid_t dxpl_id, herr_t *ret_out)
{
    tb_ix_lazy_t *lz = tb_ix_lazy_of(a, H5I_ATTR);
    if (!lz)
        return TB_FORWARD;
    *ret_out = 0;
    if (lz->value_nbytes == 0)
        return TB_ANSWERED; /* native converts nothing when there are no elements */
    if (!buf)
        return TB_FORWARD;
    /* The public calls below start by clearing the error stack, which holds nothing of this call
     * yet; whatever they leave on failure is cleared before the real attribute is asked. */
    hid_t                 ft   = lazy_ftype(lz);
    struct tb_index_file *f    = lz->node.f;
    bool                  vstr = ft >= 0 && tb_ix_type_is_vstr(lz->type_enc, lz->type_nbytes);
    bool                  vref = ft >= 0 && tb_ix_type_is_vref(lz->type_enc, lz->type_nbytes);
    tb_status_t           st;
    if (vstr && !f->vstr_converted && f->file_under && tb_ix_vstr_mem_ok(ft, mem_type_id, dxpl_id)) {
        /* The file's first string read is native's (tb_ix_vstr_read): of the same attribute,
         * opened by its object's token, the lazy one staying lazy. */
        tb_ix_anchor_t file = {.under = f->file_under, .vol = a->under_vol_id, .type = H5I_FILE};
        void          *attr = open_by_token(&file, f->d, lz->obj, lz->name);
        st = attr && H5VLattr_read(attr, file.vol, mem_type_id, buf, DXPL, NULL) >= 0 ? TB_OK : TB_ERR_HDF5;
        if (attr)
            H5VLattr_close(attr, file.vol, DXPL, NULL);
        f->vstr_converted = st == TB_OK;
    }
    else if (vref)
        st = vref_mem_ok(ft, mem_type_id, dxpl_id) ? vref_decode(lz->value, lz->value_nbytes, buf) : TB_ERR_UNSUPPORTED;
    else
        st = ft < 0  ? TB_ERR_HDF5
             : vstr ? tb_ix_vstr_read(f, ft, mem_type_id, dxpl_id, lz->value, lz->value_nbytes, buf)
                    : tb_ix_convert_out(ft, mem_type_id, lz->value, lz->value_nbytes, buf, dxpl_id);
    if (st != TB_OK) {
        H5Eclear2(H5E_DEFAULT);
        return TB_FORWARD;
    }
    return TB_ANSWERED;
}

/* H5Tfind without HDF5's report of its failure: a pair native has no conversion for fails there,
 * and the public call would print its error stack as it returns, before the application's own
 * failed read prints its own (stock prints one). */
static H5T_conv_t
find_quietly(hid_t src, hid_t dst, H5T_cdata_t **cdata)
{
    tb_quiet_t q;
    tb_quiet_on(&q);
    H5T_conv_t conv = H5Tfind(src, dst, cdata);
    tb_quiet_off(&q);
    return conv;
}

tb_status_t
tb_ix_convert_out(hid_t ft, hid_t mem_type_id, const void *value, size_t nbytes, void *buf, hid_t dxpl_id)
{
    /* Usually the type H5Aget_type/H5Dget_type gave, which is a copy of ft, or the native type ft
     * is (the table knows those): equal, a plain copy. */
    htri_t eq = tb_ix_type_is_copy(ft, mem_type_id) ? 1 : tb_h5t_equal(ft, mem_type_id);
    if (eq > 0) {
        memcpy(buf, value, nbytes);
        return TB_OK;
    }
    if (eq < 0)
        return TB_ERR_HDF5;
    /* (a fixed-length string, h5py's memory type for every such attribute, holds neither a
     * sequence nor a reference: no need to look for either among its members) */
    tb_h5t_desc_t md;
    tb_h5t_describe(mem_type_id, &md);
    if (md.cls == H5T_VLEN || md.vstr != 0 ||
        (md.cls != H5T_STRING &&
         (H5Tdetect_class(mem_type_id, H5T_VLEN) != 0 || H5Tdetect_class(mem_type_id, H5T_REFERENCE) != 0)))
        return TB_ERR_UNSUPPORTED;
    /* A conversion that needs no background buffer, as native's read makes it. */
    H5T_cdata_t *cdata = NULL;
    size_t       src = tb_h5t_size(ft), dst = md.size;
    if (!find_quietly(ft, mem_type_id, &cdata) || !cdata || cdata->need_bkg != H5T_BKG_NO || !src || !dst)
        return TB_ERR_UNSUPPORTED;
    size_t   nelem = nbytes / src;
    uint8_t *tmp   = malloc(nelem * (src > dst ? src : dst));
    if (!tmp)
        return TB_ERR_NOMEM;
    tb_status_t st = TB_ERR_HDF5;
    memcpy(tmp, value, nbytes);
    if (H5Tconvert(ft, mem_type_id, nelem, tmp, NULL, dxpl_id) >= 0) {
        memcpy(buf, tmp, nelem * dst);
        st = TB_OK;
    }
    free(tmp);
    return st;
}

tb_answer_t
tb_index_attr_get(tb_obj_t *a, H5VL_attr_get_args_t *args, herr_t *ret_out)
{
    tb_ix_lazy_t *lz = tb_ix_lazy_of(a, H5I_ATTR);
    if (!lz)
        return TB_FORWARD;
    *ret_out = 0;
    switch (args->op_type) {
        case H5VL_ATTR_GET_TYPE: {
            /* A copy of the decoded type, which reads then compare against. */
            hid_t ft = lazy_ftype(lz);
            hid_t t  = ft >= 0 ? tb_ix_type_copy_rdonly(ft) : H5I_INVALID_HID;
            if (t < 0)
                return TB_FORWARD;
            args->args.get_type.type_id = t;
            return TB_ANSWERED;
        }
        case H5VL_ATTR_GET_SPACE: {
            hid_t s = tb_ix_space_make(lz->space_enc);
            if (s < 0)
                return TB_FORWARD;
            args->args.get_space.space_id = s;
            return TB_ANSWERED;
        }
        case H5VL_ATTR_GET_INFO:
            if (args->args.get_info.loc_params.type != H5VL_OBJECT_BY_SELF)
                return TB_FORWARD;
            *args->args.get_info.ainfo = lz->ainfo;
            return TB_ANSWERED;
        case H5VL_ATTR_GET_NAME: {
            if (args->args.get_name.loc_params.type != H5VL_OBJECT_BY_SELF)
                return TB_FORWARD;
            /* native H5A__get_name: MIN(buf_size - 1, len) bytes, then a NUL */
            size_t len  = strlen(lz->name);
            size_t size = args->args.get_name.buf_size;
            size_t n    = size - 1 < len ? size - 1 : len;
            char  *buf  = args->args.get_name.buf;
            if (buf && n > 0) {
                memcpy(buf, lz->name, n);
                buf[n] = '\0';
            }
            if (args->args.get_name.attr_name_len)
                *args->args.get_name.attr_name_len = len;
            return TB_ANSWERED;
        }
        default:
            return TB_FORWARD;
    }
}
