/* index_dset.c — what the index knows of datasets, for read-only files: each dataset's datatype,
 * dataspace, creation property list, storage size and space status, recorded from the answers the
 * application's own calls got, and the whole content of small datasets of fixed-size types or
 * variable-length strings (any layout but external and virtual), captured from the application's
 * first whole read; and, in a
 * record of the same kind, a group's creation property list. All of it persists in the sidecar; a
 * lazy dataset or group (index_lazy.c) answers from it and is made real for anything else. */
#include "index_ctx.h"

#include <stdlib.h>
#include <string.h>

#define DXPL H5P_DATASET_XFER_DEFAULT

/* ------------------------------------------------------------------ records */
tb_status_t
tb_ix_dset_record(tb_ix_data_t *d, uint32_t oi, size_t budget, tb_ix_dset_t **x_out)
{
    tb_ix_obj_t *r = &d->objs[oi];
    if (r->dset != TB_IX_NONE) {
        *x_out = &d->dsets[r->dset];
        return TB_OK;
    }
    if (__atomic_load_n(&tb_ix_data_nbytes, __ATOMIC_RELAXED) + sizeof(tb_ix_dset_t) > budget)
        return TB_ERR_UNSUPPORTED;
    void       *dsets;
    tb_status_t st = tb_ix_spill_reserve(d->spill, TB_IX_LANE_DSETS, d->dsets, &d->dsetcap, (uint64_t)d->ndset + 1, sizeof(*d->dsets), 64, &dsets);
    if (st != TB_OK)
        return st;
    d->dsets        = dsets;
    tb_ix_dset_t *x = &d->dsets[d->ndset];
    memset(x, 0, sizeof(*x));
    r->dset = d->ndset++;
    d->dset_nbytes += sizeof(*x);
    __atomic_fetch_add(&tb_ix_data_nbytes, sizeof(*x), __ATOMIC_RELAXED);
    *x_out = x;
    return TB_OK;
}

/* Keeps a copy of n bytes as part `part` of record x (the record owns it): TB_OK, TB_ERR_NOMEM. */
static tb_status_t
keep_part(tb_ix_data_t *d, tb_ix_dset_t *x, unsigned part, const void *src, size_t n)
{
    void *p = tb_ix_spill_keep(d->spill, src, n);
    if (!p)
        return TB_ERR_NOMEM;
    switch (part) {
        case TB_IX_DS_TYPE: x->type_enc = p, x->type_nbytes = (uint32_t)n; break;
        case TB_IX_DS_SPACE: x->space_enc = p, x->space_nbytes = (uint32_t)n; break;
        case TB_IX_DS_DCPL: x->dcpl_enc = p, x->dcpl_nbytes = (uint32_t)n; break;
        default: x->value = p, x->value_nbytes = (uint32_t)n; break;
    }
    x->have |= (uint8_t)part;
    x->owned |= (uint8_t)part;
    d->dset_nbytes += n;
    __atomic_fetch_add(&tb_ix_data_nbytes, n, __ATOMIC_RELAXED);
    d->dirty = 1;
    return TB_OK;
}

/* (t, described by td, known cacheable: tb_ix_type_cacheable, or a variable-length string) */
static tb_status_t
keep_described_type(tb_ix_data_t *d, tb_ix_dset_t *x, hid_t t, const tb_h5t_desc_t *td)
{
    if (x->have & TB_IX_DS_TYPE)
        return TB_OK;
    tb_ix_type_ref_t r;
    tb_status_t      st = tb_ix_type_encode(t, td, &r);
    return st == TB_OK ? keep_part(d, x, TB_IX_DS_TYPE, r.enc, r.n) : st;
}

/* A dataset's type as H5Dget_type gave it: of a cacheable class, or a variable-length string
 * (whose content is never cached: the record's content checks the type again). */
static tb_status_t
keep_type(tb_ix_data_t *d, tb_ix_dset_t *x, hid_t t)
{
    if (x->have & TB_IX_DS_TYPE)
        return TB_OK;
    tb_h5t_desc_t td;
    tb_h5t_describe(t, &td);
    bool vstr = td.cls == H5T_STRING && td.vstr > 0 && td.named == 0;
    if (!vstr && !tb_ix_type_cacheable(t, &td))
        return TB_ERR_UNSUPPORTED; /* (encodings of vlen, references and committed types are not complete) */
    return keep_described_type(d, x, t, &td);
}

/* Whether object r's header is of version 1, told by the times its info reports: a version-1
 * header has only a change time (its modification-time message), a version-2 one all four or
 * none. Such an object was created under the earliest format bound, so its dataspace message is
 * of version 1 too (H5O_obj_ver_bounds and H5O_sdspace_ver_bounds follow the same bound). */
static bool
header_v1(const tb_ix_obj_t *r)
{
    return r->has_info && r->ctime != 0 && r->atime == 0 && r->mtime == 0 && r->btime == 0;
}

static tb_status_t
keep_space(tb_ix_data_t *d, uint32_t oi, tb_ix_dset_t *x, hid_t s)
{
    uint8_t enc[TB_IX_SPACE_NBYTES(TB_IX_SPACE_MAXRANK)];
    size_t  n;
    if (x->have & TB_IX_DS_SPACE)
        return TB_OK;
    tb_status_t st = tb_ix_space_encode(s, header_v1(&d->objs[oi]), enc, &n);
    return st == TB_OK ? keep_part(d, x, TB_IX_DS_SPACE, enc, n) : st;
}

/* A creation property list's H5Pencode2 bytes as the record's creation-list part: a dataset's
 * (`dcpl`: its layout kept beside) or a group's. (Two passes over the list, its length then its
 * bytes: H5Pequal, which might have matched a list encoded before, calls a dataset's lists with
 * other chunk dimensions equal.) */
static tb_status_t
keep_cpl(tb_ix_data_t *d, tb_ix_dset_t *x, hid_t cpl, bool dcpl)
{
    if (x->have & TB_IX_DS_DCPL)
        return TB_OK;
    size_t n = 0;
    if (H5Pencode2(cpl, NULL, &n, H5P_DEFAULT) < 0 || n == 0 || n > TB_IX_DCPL_MAX_NBYTES)
        return TB_ERR_UNSUPPORTED;
    void *buf = malloc(n);
    if (!buf)
        return TB_ERR_NOMEM;
    H5D_layout_t layout = dcpl ? H5Pget_layout(cpl) : H5D_COMPACT;
    tb_status_t  st     = H5Pencode2(cpl, buf, &n, H5P_DEFAULT) >= 0 && layout >= 0 ? TB_OK : TB_ERR_HDF5;
    if (st == TB_OK && (st = keep_part(d, x, TB_IX_DS_DCPL, buf, n)) == TB_OK && dcpl)
        x->layout = (uint8_t)layout;
    free(buf);
    return st;
}

static tb_status_t
keep_dcpl(tb_ix_data_t *d, tb_ix_dset_t *x, hid_t dcpl)
{
    return keep_cpl(d, x, dcpl, true);
}

/* The record of o's dataset, when the index keeps one for o (a real dataset of a read-only file,
 * whose info is known) and it may grow: TB_OK. */
static tb_status_t
record_of_kind(tb_obj_t *o, H5I_type_t kind, tb_ix_data_t **d_out, uint32_t *oi_out, tb_ix_dset_t **x_out)
{
    uint8_t       tok[TB_IX_TOKEN_NBYTES];
    tb_ix_data_t *d;
    uint32_t      oi;
    tb_status_t   st;
    if (!o->ctx->index || o->ctx->cfg.index_data_nbytes == 0)
        return TB_ERR_UNSUPPORTED;
    if ((st = tb_ix_for(o, kind, tok, &d)) != TB_OK)
        return st;
    if (d->writable)
        return TB_ERR_UNSUPPORTED;
    if ((st = tb_ix_self_rec(o, d, tok, &oi)) != TB_OK)
        return st;
    if (!d->objs[oi].has_info) {
        /* The sidecar keeps a record only with the object's info (its type says "dataset" or
         * "named datatype"): asked once, from the object header the open just read. */
        H5VL_loc_params_t self = {.obj_type = kind, .type = H5VL_OBJECT_BY_SELF};
        if ((st = tb_ix_ask_info(d, oi, o->under, &self, o->under_vol_id)) != TB_OK) {
            if (st == TB_ERR_HDF5)
                H5Eclear2(H5E_DEFAULT);
            return st;
        }
    }
    if ((st = tb_ix_dset_record(d, oi, o->ctx->cfg.index_data_nbytes, x_out)) != TB_OK)
        return st;
    struct tb_index_obj *ix = tb_ix_obj_state(o);
    if (ix)
        ix->dset_obj = oi + 1;
    *d_out  = d;
    *oi_out = oi;
    return TB_OK;
}

static tb_status_t
record_of(tb_obj_t *o, tb_ix_data_t **d_out, uint32_t *oi_out, tb_ix_dset_t **x_out)
{
    return record_of_kind(o, H5I_DATASET, d_out, oi_out, x_out);
}

/* Whether what o's record holds (its record found before: record_of_kind) includes `part`. */
static bool
recorded(const tb_obj_t *o, unsigned part)
{
    const tb_ix_data_t *d = o->idx && o->idx->dset_obj ? o->ctx->index->d : NULL;
    if (!d || d->writable || o->idx->dset_obj > d->nobj)
        return false;
    uint32_t k = d->objs[o->idx->dset_obj - 1].dset;
    return k != TB_IX_NONE && (d->dsets[k].have & part);
}

void
tb_index_dset_get_done(tb_obj_t *o, const H5VL_dataset_get_args_t *args)
{
    if (!o->under || !o->ctx->index)
        return;
    unsigned part;
    switch (args->op_type) {
        case H5VL_DATASET_GET_TYPE: part = TB_IX_DS_TYPE; break;
        case H5VL_DATASET_GET_SPACE: part = TB_IX_DS_SPACE; break;
        case H5VL_DATASET_GET_DCPL: part = TB_IX_DS_DCPL; break;
        case H5VL_DATASET_GET_STORAGE_SIZE: part = TB_IX_DS_STORAGE; break;
        case H5VL_DATASET_GET_SPACE_STATUS: part = TB_IX_DS_STATUS; break;
        default: return;
    }
    /* (h5py asks a dataset's type and space again and again: once recorded, nothing to do) */
    if (recorded(o, part))
        return;
    tb_ix_data_t *d;
    tb_ix_dset_t *x;
    uint32_t      oi;
    /* The answer native just gave is kept as it is; the calls below only encode it. */
    if (record_of(o, &d, &oi, &x) == TB_OK) {
        switch (args->op_type) {
            case H5VL_DATASET_GET_TYPE: (void)keep_type(d, x, args->args.get_type.type_id); break;
            case H5VL_DATASET_GET_SPACE: (void)keep_space(d, oi, x, args->args.get_space.space_id); break;
            case H5VL_DATASET_GET_DCPL: (void)keep_dcpl(d, x, args->args.get_dcpl.dcpl_id); break;
            case H5VL_DATASET_GET_STORAGE_SIZE:
                x->storage_size = *args->args.get_storage_size.storage_size;
                x->have |= TB_IX_DS_STORAGE;
                d->dirty = 1;
                break;
            default:
                x->space_status = (uint8_t)*args->args.get_space_status.status;
                x->have |= TB_IX_DS_STATUS;
                d->dirty = 1;
                break;
        }
    }
    tb_err_drop();
}

/* ------------------------------------------------------------------ groups */
/* A group's creation property list, as H5Gget_create_plist of a real group gave it, is kept in a
 * record of its own (holding nothing else) for the group's lazy opens to come: h5py asks for it
 * before every iteration of a group's attributes. */
void
tb_index_group_get_done(tb_obj_t *o, const H5VL_group_get_args_t *args)
{
    if (!o->under || !o->ctx->index || args->op_type != H5VL_GROUP_GET_GCPL || recorded(o, TB_IX_DS_DCPL))
        return;
    tb_ix_data_t *d;
    tb_ix_dset_t *x;
    uint32_t      oi;
    if (record_of_kind(o, H5I_GROUP, &d, &oi, &x) == TB_OK) {
        hid_t    gcpl  = args->args.get_gcpl.gcpl_id;
        unsigned flags = 0;
        (void)keep_cpl(d, x, gcpl, false);
        /* (whether the group tracks link creation order, which its link queries need to know) */
        if (!d->objs[oi].corder_hint && H5Pget_link_creation_order(gcpl, &flags) >= 0)
            d->objs[oi].corder_hint = (flags & H5P_CRT_ORDER_TRACKED) ? 1 : 2;
    }
    tb_err_drop();
}

/* A creation list as native builds one (a group's, H5G__get_create_plist, or a dataset's, at its
 * open): a copy of the default list, then the properties the object's header has messages for
 * set on it, so that it lists them in native's order (H5Pencode2, H5Piterate: the properties set
 * first, then the class's others) and not H5Pdecode's (every property set). Which ones native set
 * is not in the encoding, only their order: the first k properties of the encoding, for the k
 * whose values set on the default list (H5Pget/H5Pset, as native sets them; H5Pcopy_prop would
 * leave the class's property marked deleted) encode to the same bytes, found once per distinct
 * encoding (most objects of a file share a few) and kept in a small table. The values of a
 * layout, fill value, external file list or filter pipeline hold memory of their own: H5Pget
 * hands out a copy, which HDF5's internal H5O_msg_reset frees (where the library exports it: its
 * own 1.14 builds, and the h5py and netCDF4 wheels' 1.14.6, 2.0.0 and 2.2.0; where it does not,
 * such lists stay decoded). When no k does: the decoded list as it is, or,
 * with `exact`, none (H5Pdecode drops the filters' names, which native's lists of filtered
 * datasets hold: such a question is left to native). */
extern herr_t H5O_msg_reset(unsigned type_id, void *native) __attribute__((weak));

#define CPL_NAMES 24
typedef struct {
    uint64_t h;
    size_t   n;
    uint8_t *enc;   /* (a copy: the form's key) */
    hid_t    deflt; /* the default list it was built from */
    /* The list built for it, once: what each answer copies (H5Pcopy, a fifth of decoding and
     * building a list; h5py asks every dataset it opens for its creation list); 0: no list of
     * native's form was found. */
    hid_t tmpl;
} cpl_form_t;
/* (A file has a few forms: a pandas table store 8 of datasets and 2 of groups.) */
static cpl_form_t cpl_forms[32];
static unsigned   cpl_next;
static int        cpl_atclose; /* forms_forget registered with HDF5 */

static void
form_drop(cpl_form_t *f)
{
    if (f->tmpl > 0) {
        hid_t saved = tb_err_save();
        H5Pclose(f->tmpl);
        tb_err_restore(saved);
    }
    free(f->enc);
    memset(f, 0, sizeof(*f));
}

/* At library close, before HDF5 closes the IDs (a re-initialised library has other lists). */
static void
forms_forget(void *ctx)
{
    (void)ctx;
    for (unsigned i = 0; i < sizeof(cpl_forms) / sizeof(cpl_forms[0]); i++)
        form_drop(&cpl_forms[i]);
    cpl_atclose = 0;
}

typedef struct {
    char names[CPL_NAMES][48];
    int  n;
    bool full;
} cpl_names_t;

static herr_t
cpl_name_cb(hid_t id, const char *name, void *data)
{
    cpl_names_t *l = data;
    (void)id;
    if (l->n == CPL_NAMES || strlen(name) >= sizeof(l->names[0])) {
        l->full = true;
        return 1;
    }
    strcpy(l->names[l->n++], name);
    return 0;
}

/* The object header message whose native form a creation property holds (H5Oprivate.h's IDs,
 * the ones its get and set callbacks copy with), or 0 for a plain value. */
static unsigned
cpl_msg_type(const char *name)
{
    if (!strcmp(name, "layout"))
        return 0x0008; /* H5O_LAYOUT_ID */
    if (!strcmp(name, "efl"))
        return 0x0007; /* H5O_EFL_ID */
    if (!strcmp(name, "pline"))
        return 0x000b; /* H5O_PLINE_ID */
    if (!strcmp(name, "fill_value"))
        return 0x0004; /* H5O_FILL_ID */
    return 0;
}

/* The default list `deflt` with the values of the first k of `names` in q set on it, or -1. */
static hid_t
cpl_build(hid_t q, hid_t deflt, char (*names)[48], int k)
{
    hid_t l = H5Pcopy(deflt);
    for (int i = 0; l >= 0 && i < k; i++) {
        unsigned msg  = cpl_msg_type(names[i]);
        size_t   size = 0;
        void    *value;
        bool     ok   = (!msg || H5O_msg_reset) && H5Pget_size(q, names[i], &size) >= 0 &&
                  (value = calloc(1, size ? size : 1)) != NULL;
        if (ok) {
            ok = H5Pget(q, names[i], value) >= 0;
            if (ok) {
                ok = H5Pset(l, names[i], value) >= 0; /* (the list keeps a copy of its own) */
                if (msg)
                    (void)H5O_msg_reset(msg, value); /* (H5Pget's copy) */
            }
            free(value);
        }
        if (!ok) {
            H5Pclose(l);
            l = H5I_INVALID_HID;
        }
    }
    return l;
}

static bool
cpl_encodes_to(hid_t l, const uint8_t *enc, size_t n)
{
    size_t m = 0;
    if (H5Pencode2(l, NULL, &m, H5P_DEFAULT) < 0 || m != n)
        return false;
    uint8_t *b  = malloc(m);
    bool     eq = b && H5Pencode2(l, b, &m, H5P_DEFAULT) >= 0 && m == n && memcmp(b, enc, n) == 0;
    free(b);
    return eq;
}

/* The list native's encoding `enc` came from, built as native builds it from `deflt`; with
 * `exact`, -1 (no error left) unless it encodes to `enc`. */
static hid_t
cpl_like_native(const uint8_t *enc, size_t n, hid_t deflt, bool exact)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ enc[i]) * 1099511628211ull;
    cpl_form_t *f = NULL;
    for (unsigned i = 0; i < sizeof(cpl_forms) / sizeof(cpl_forms[0]) && !f; i++)
        if (cpl_forms[i].n == n && cpl_forms[i].h == h && cpl_forms[i].deflt == deflt &&
            memcmp(cpl_forms[i].enc, enc, n) == 0)
            f = &cpl_forms[i];
    if (f && f->tmpl > 0)
        return H5Pcopy(f->tmpl);
    if (f && exact)
        return H5I_INVALID_HID; /* (no list of native's form was found for it) */
    hid_t q = H5Pdecode(enc);
    if (q < 0)
        return q;
    uint8_t *key = f ? NULL : malloc(n);
    if (!f && key && (cpl_atclose || H5atclose(forms_forget, NULL) >= 0)) {
        /* The properties' names, in the encoding's order (each name is in it, NUL-terminated). */
        cpl_names_t l = {0};
        long        at[CPL_NAMES];
        cpl_atclose   = 1;
        f = &cpl_forms[cpl_next++ % (sizeof(cpl_forms) / sizeof(cpl_forms[0]))];
        form_drop(f);
        memcpy(key, enc, n);
        *f = (cpl_form_t){.h = h, .n = n, .enc = key, .deflt = deflt};
        key = NULL;
        bool named = H5Piterate(q, NULL, cpl_name_cb, &l) >= 0 && !l.full;
        for (int i = 0; named && i < l.n; i++) {
            size_t         len = strlen(l.names[i]) + 1;
            const uint8_t *p   = len <= n ? memmem(enc, n, l.names[i], len) : NULL;
            at[i]              = p ? (long)(p - enc) : -1;
            named              = at[i] >= 0;
        }
        if (!named)
            l.n = -1; /* (no k to try) */
        for (int i = 0; i < l.n; i++) /* (a handful: insertion sort by position) */
            for (int j = i; j > 0 && at[j] < at[j - 1]; j--) {
                long t    = at[j];
                at[j]     = at[j - 1];
                at[j - 1] = t;
                char tmp[48];
                memcpy(tmp, l.names[j], sizeof(tmp));
                memcpy(l.names[j], l.names[j - 1], sizeof(tmp));
                memcpy(l.names[j - 1], tmp, sizeof(tmp));
            }
        for (int k = 0; k <= l.n && f->tmpl <= 0; k++) {
            hid_t c = cpl_build(q, deflt, l.names, k);
            if (c >= 0 && cpl_encodes_to(c, enc, n))
                f->tmpl = c;
            else if (c >= 0)
                H5Pclose(c);
        }
    }
    free(key);
    hid_t c = f && f->tmpl > 0 ? H5Pcopy(f->tmpl) : H5I_INVALID_HID;
    if (c < 0) {
        H5Eclear2(H5E_DEFAULT);
        if (!exact)
            return q;
    }
    H5Pclose(q);
    return c;
}

tb_answer_t
tb_index_group_gcpl(tb_obj_t *o, H5VL_group_get_args_t *args, herr_t *ret_out)
{
    const tb_ix_lazy_t *lz = tb_ix_lazy_of(o, H5I_GROUP);
    if (!lz || args->op_type != H5VL_GROUP_GET_GCPL)
        return TB_FORWARD;
    const tb_ix_data_t *d = lz->node.f->d;
    uint32_t            k = d->objs[lz->obj].dset;
    if (k == TB_IX_NONE || !(d->dsets[k].have & TB_IX_DS_DCPL))
        return TB_FORWARD;
    hid_t p = cpl_like_native(d->dsets[k].dcpl_enc, d->dsets[k].dcpl_nbytes, H5P_GROUP_CREATE_DEFAULT, false);
    if (p < 0) {
        H5Eclear2(H5E_DEFAULT);
        return TB_FORWARD;
    }
    args->args.get_gcpl.gcpl_id = p;
    *ret_out                    = 0;
    tb_ix_stats.answered++;
    return TB_ANSWERED;
}

/* ------------------------------------------------------------------ content */

/* Whether dataspace sid's selection is all of its extent in storage order: "all", or a hyperslab
 * selection with as many elements as the extent (hyperslabs hold no element twice and are taken
 * in row-major order; h5py selects a whole dataset that way for ds[:] and read_direct). Point
 * selections may repeat or reorder elements: not. */
static bool
selects_all(hid_t sid)
{
    H5S_sel_type t = tb_h5s_select_type(sid);
    if (t == H5S_SEL_ALL)
        return true;
    if (t != H5S_SEL_HYPERSLABS)
        return false;
    hssize_t n = H5Sget_select_npoints(sid);
    return n >= 0 && n == tb_h5s_npoints(sid);
}

/* Whether a transfer list cannot change what a whole read of a fixed-size type returns: no data
 * transform. (Conversion callbacks and buffers are honoured by converting with the same list.)
 * Error detection only matters for data that fails it: a capture (`capturing`) also needs it on,
 * so that cached content is content that passed its checksums; answers from it may then be given
 * with it off. On a file whose driver does MPI I/O (`mpi`) an answer also needs an independent
 * transfer: a collective one (H5Pset_dxpl_mpio) is a call every rank must make below, and another
 * rank's index need not hold the content. (HDF5's "io_xfer_mode" holds H5FD_mpio_xfer_t, 0 for
 * independent; it exists in serial builds too.) */
static bool
dxpl_neutral(hid_t dxpl_id, bool capturing, bool mpi)
{
    if (dxpl_id == H5P_DEFAULT || dxpl_id == DXPL)
        return true;
    /* (at the start of a read, or after one that succeeded: nothing on the error stack to keep;
     * the transform's query leaves none, a list HDF5 checked gives the others without error) */
    bool transform = tb_dxpl_has_transform(dxpl_id);
    bool edc       = !capturing || H5Pget_edc_check(dxpl_id) == H5Z_ENABLE_EDC;
    bool coll      = false;
    if (mpi && !capturing) {
        int xfer_mode = 0;
        if (H5Pget(dxpl_id, "io_xfer_mode", &xfer_mode) < 0) {
            tb_err_drop();
            coll = true; /* (not known: taken as collective) */
        }
        else
            coll = xfer_mode != 0;
    }
    return !transform && edc && !coll;
}

/* The layout of o's dataset, for the content cache: compact, contiguous (not external) or
 * chunked: TB_OK with it in *layout_out, and in *allocated_out whether its storage is all there
 * (compact, or contiguous and allocated); TB_ERR_UNSUPPORTED for virtual and external storage. */
static tb_status_t
content_layout(tb_obj_t *o, H5D_layout_t *layout_out, bool *allocated_out)
{
    *allocated_out = true;
    if (tb_dset_contig_addr(o->under, o->under_vol_id, DXPL) != HADDR_UNDEF) {
        *layout_out = H5D_CONTIGUOUS; /* (allocated, in this file) */
        return TB_OK;
    }
    /* Compact, chunked, unallocated, external or virtual: the creation property list says. It is
     * kept in the record only when the application asks for it (tb_index_dset_get_done): encoding
     * it costs two H5Pencode2, 18k instructions, a fifth of a small dataset's first read. */
    hid_t dcpl = tb_dset_dcpl(o, DXPL);
    if (dcpl < 0)
        return TB_ERR_HDF5;
    H5D_layout_t layout = H5Pget_layout(dcpl);
    int          nefl   = H5Pget_external_count(dcpl);
    if (layout < 0 || layout == H5D_VIRTUAL || nefl != 0)
        return TB_ERR_UNSUPPORTED;
    *layout_out    = layout;
    *allocated_out = layout == H5D_COMPACT;
    return TB_OK;
}

/* Reads what the content cache records of dataset record oi from the open dataset below;
 * `mem_type` and `buf` are what the application's whole read just returned (used when mem_type is
 * the file type). The record's content becomes TB_IX_DC_CACHED or TB_IX_DC_NO; it stays unknown
 * when only this moment stands in the way (memory, budget). */
static void
capture(tb_obj_t *o, tb_ix_data_t *d, uint32_t oi, tb_ix_dset_t *x, hid_t mem_type, const void *buf)
{
    hid_t                   t = H5I_INVALID_HID, s = H5I_INVALID_HID, vol = o->under_vol_id;
    hid_t                   ft   = H5I_INVALID_HID; /* the file's type: t, or the record's (not ours to close) */
    int                     kind = TB_IX_DC_NO;
    uint8_t                *val  = NULL;
    H5VL_dataset_get_args_t gt   = {.op_type = H5VL_DATASET_GET_TYPE};
    H5VL_dataset_get_args_t gs   = {.op_type = H5VL_DATASET_GET_SPACE};
    gt.args.get_type.type_id     = H5I_INVALID_HID;
    gs.args.get_space.space_id   = H5I_INVALID_HID;
    uint64_t                have_points;
    /* The type the application asked for before reading is in the record already (and was
     * cacheable, or a variable-length string). Strings are kept as the application's read gave
     * them, when it read them into a type native would not have converted (tb_ix_vstr_mem_ok):
     * another read may still. */
    bool          vstr = false, as_mem = false;
    const void   *mem_enc;
    size_t        mem_enc_n;
    tb_h5t_desc_t td = {.cls = H5T_NO_CLASS};
    if (x->have & TB_IX_DS_TYPE) {
        vstr = tb_ix_type_is_vstr(x->type_enc, x->type_nbytes);
        ft   = tb_ix_type_get(x->type_enc, x->type_nbytes);
    }
    else if (H5VLdataset_get(o->under, vol, &gt, DXPL, NULL) >= 0 && (t = gt.args.get_type.type_id) >= 0) {
        /* Read into the native type it is (a loader's common case): its encoding is known. */
        if ((as_mem = tb_ix_type_as_predef(t, mem_type, &mem_enc, &mem_enc_n)))
            ft = t;
        else {
            tb_h5t_describe(t, &td);
            vstr = td.cls == H5T_STRING && td.vstr > 0 && td.named == 0;
            if (vstr || tb_ix_type_cacheable(t, &td))
                ft = t;
        }
    }
    if (ft < 0)
        goto done;
    if (vstr && !tb_ix_vstr_mem_ok(ft, mem_type, H5P_DEFAULT)) {
        kind = TB_IX_DC_UNKNOWN;
        goto done;
    }
    if (vstr)
        o->ctx->index->vstr_converted = true; /* (native converted this file's strings: tb_ix_vstr_read) */
    /* The space the application asked for before reading is in the record already. */
    hssize_t npoints;
    if ((x->have & TB_IX_DS_SPACE) && tb_ix_space_check(x->space_enc, x->space_nbytes, &have_points) == TB_OK)
        npoints = (hssize_t)have_points;
    else if (H5VLdataset_get(o->under, vol, &gs, DXPL, NULL) < 0 || (s = gs.args.get_space.space_id) < 0)
        goto done;
    else
        npoints = tb_h5s_npoints(s);
    size_t tsize = vstr ? 8 : tb_h5t_size(ft); /* (a string takes 8 bytes at least) */
    if (npoints <= 0 || tsize == 0 || (uint64_t)npoints > TB_IX_DSET_MAX_VALUE / tsize)
        goto done;
    size_t       nbytes = (size_t)npoints * tsize;
    H5D_layout_t layout;
    bool         allocated;
    if (content_layout(o, &layout, &allocated) != TB_OK)
        goto done;
    if (!allocated) {
        /* Only a content all stored: where storage is missing, native fills the application's
         * buffer with the fill value itself (zeros of the memory type for the default one, never
         * converted, or nothing at H5D_FILL_TIME_NEVER), which no conversion of what this read
         * returned reproduces for every other memory type. */
        H5D_space_status_t      st = H5D_SPACE_STATUS_ERROR;
        H5VL_dataset_get_args_t gq = {.op_type = H5VL_DATASET_GET_SPACE_STATUS};
        gq.args.get_space_status.status = &st;
        if (x->have & TB_IX_DS_STATUS)
            st = (H5D_space_status_t)x->space_status;
        else if (H5VLdataset_get(o->under, vol, &gq, DXPL, NULL) >= 0) {
            x->space_status = (uint8_t)st;
            x->have |= TB_IX_DS_STATUS;
        }
        if (st != H5D_SPACE_STATUS_ALLOCATED)
            goto done;
    }
    kind = TB_IX_DC_UNKNOWN; /* cacheable: from here on, failing leaves it to a later read */
    if (__atomic_load_n(&tb_ix_data_nbytes, __ATOMIC_RELAXED) + nbytes + 2 * TB_IX_SPACE_NBYTES(TB_IX_SPACE_MAXRANK) + 64 > o->ctx->cfg.index_data_nbytes)
        goto done; /* (encodings counted too, at most what they can take) */
    if ((as_mem ? keep_part(d, x, TB_IX_DS_TYPE, mem_enc, mem_enc_n)
                : keep_described_type(d, x, ft, &td)) != TB_OK || /* (td: unless the record has the type) */
        (s >= 0 && keep_space(d, oi, x, s) != TB_OK))
        goto done;
    const void *stored = buf; /* native converted nothing: these are the stored bytes */
    if (vstr) {
        if (!(nbytes = tb_ix_vstr_encode(buf, (size_t)npoints, TB_IX_DSET_MAX_VALUE, &val, 0))) {
            kind = TB_IX_DC_NO; /* (longer than a cached content may be) */
            goto done;
        }
        stored = val;
    }
    else if (!as_mem && tb_h5t_equal(ft, mem_type) <= 0) {
        hid_t all = H5S_ALL;
        void *dst = val = malloc(nbytes);
        if (!val || H5VLdataset_read(1, &o->under, vol, &ft, &all, &all, DXPL, &dst, NULL) < 0)
            goto done;
        stored = val;
    }
    if (keep_part(d, x, TB_IX_DS_VALUE, stored, nbytes) != TB_OK)
        goto done;
    x->layout = (uint8_t)layout;
    if (allocated && !vstr && !(x->have & (TB_IX_DS_STORAGE | TB_IX_DS_STATUS))) {
        /* All of it stored, uncompressed: what H5Dget_storage_size and _space_status say. */
        x->storage_size = nbytes;
        x->space_status = H5D_SPACE_STATUS_ALLOCATED;
        x->have |= TB_IX_DS_STORAGE | TB_IX_DS_STATUS;
    }
    kind = TB_IX_DC_CACHED;
    tb_ix_stats.dsets_cached++;
done:
    if (kind != TB_IX_DC_UNKNOWN) {
        d->objs[oi].dcache = (uint8_t)kind;
        d->dirty           = 1;
    }
    free(val);
    if (t >= 0)
        H5Tclose(t);
    if (s >= 0)
        H5Sclose(s);
    if (kind != TB_IX_DC_CACHED)
        H5Eclear2(H5E_DEFAULT); /* (what a failed query left; a cached value's calls all succeeded) */
}

/* Whether the selection of space `sid` (H5S_ALL included) covers every element in order, for a
 * dataset of `npoints` elements, where it stands (not moved out of its extent by
 * H5Soffset_simple: native refuses that read). */
static bool
whole_selection(hid_t sid, hssize_t npoints)
{
    if (sid == H5S_ALL)
        return true;
    return selects_all(sid) && tb_h5s_npoints(sid) == npoints && H5Sselect_valid(sid) > 0;
}

void
tb_index_dset_read_done(tb_obj_t *o, hid_t mem_type_id, hid_t mem_space_id, hid_t file_space_id, hid_t dxpl_id,
                        const void *buf)
{
    if (!o->ctx->index || !o->under || !buf || o->ctx->cfg.index_data_nbytes == 0 || (o->idx && o->idx->no_capture))
        return;
    /* Only what a whole read in storage order returned; asked first, as it rules out most partial
     * reads. A partial read of a dataset too large to be cached settles this handle: reading a
     * large dataset piece by piece then costs one query here, not one per read (a few hundred
     * instructions, 3 % of a row of a frame read natively). */
    if (file_space_id != H5S_ALL && !selects_all(file_space_id)) {
        hssize_t             n  = tb_h5s_npoints(file_space_id);
        struct tb_index_obj *ix = n > (hssize_t)TB_IX_DSET_MAX_VALUE ? tb_ix_obj_state(o) : NULL;
        if (ix)
            ix->no_capture = true; /* (more elements than bytes a cached content may have) */
        return;
    }
    if (mem_space_id != H5S_ALL && !selects_all(mem_space_id))
        return;
    tb_ix_data_t *d;
    tb_ix_dset_t *x;
    uint32_t      oi;
    if (record_of(o, &d, &oi, &x) != TB_OK)
        return;
    if (d->objs[oi].dcache != TB_IX_DC_UNKNOWN) {
        o->idx->no_capture = true; /* (record_of gave o its state) */
        return;
    }
    if (!dxpl_neutral(dxpl_id, true, false))
        return;
    /* A file space naming its own selection must be the dataset's whole extent. */
    if (file_space_id != H5S_ALL && (x->have & TB_IX_DS_SPACE)) {
        uint64_t npoints;
        if (tb_ix_space_check(x->space_enc, x->space_nbytes, &npoints) != TB_OK ||
            tb_h5s_npoints(file_space_id) != (hssize_t)npoints)
            return;
    }
    else if (file_space_id != H5S_ALL)
        return; /* (its extent cannot be compared yet: a later read) */
    capture(o, d, oi, x, mem_type_id, buf);
    if (d->objs[oi].dcache != TB_IX_DC_UNKNOWN)
        o->idx->no_capture = true;
}

/* ------------------------------------------------------------------ lazy datasets */

/* The record of lazy dataset o, or NULL. */
static const tb_ix_dset_t *
lazy_record(const tb_obj_t *o, tb_ix_lazy_t **lz_out)
{
    tb_ix_lazy_t *lz = tb_ix_lazy_of(o, H5I_DATASET);
    if (!lz)
        return NULL;
    const tb_ix_data_t *d = lz->node.f->d;
    uint32_t            k = d->objs[lz->obj].dset;
    *lz_out               = lz;
    return k == TB_IX_NONE ? NULL : &d->dsets[k];
}

/* Whether file space fs (H5S_ALL included) selects all of the dataset, as native would take it
 * (false too when the dataset's space cannot be built to compare). */
static bool
whole_file_selection(tb_ix_lazy_t *lz, const tb_ix_dset_t *x, hid_t fs)
{
    if (fs == H5S_ALL)
        return true;
    if (lz->space < 0 && (lz->space = tb_ix_space_make(x->space_enc)) < 0)
        return false;
    return selects_all(fs) && H5Sextent_equal(fs, lz->space) > 0 && H5Sselect_valid(fs) > 0;
}

/* H5Dscatter's source: the whole converted selection at once. */
typedef struct scatter_src {
    const void *buf;
    size_t      nbytes;
} scatter_src_t;

static herr_t
scatter_src(const void **src, size_t *nbytes, void *op_data)
{
    scatter_src_t *s = op_data;
    *src             = s->buf;
    *nbytes          = s->nbytes;
    s->nbytes        = 0;
    return 0;
}

/* A read of part of a cached content, as native reads it: the file selection's elements in the
 * order native takes them (H5Dgather walks a selection as native's reads do), converted as native
 * converts them, into the memory selection (H5Dscatter). Spaces as native takes them: H5S_ALL for
 * the file is the dataset's space, for memory the file's; a file space must have the dataset's
 * extent, and both selections as many elements, valid ones (native reports anything else). */
static tb_status_t
read_part(tb_ix_lazy_t *lz, const tb_ix_dset_t *x, hid_t ft, hid_t mem_type_id, hid_t mem_space_id,
          hid_t file_space_id, hid_t dxpl_id, void *buf)
{
    if (lz->space < 0 && (lz->space = tb_ix_space_make(x->space_enc)) < 0)
        return TB_ERR_HDF5;
    hid_t fs = file_space_id == H5S_ALL ? lz->space : file_space_id;
    hid_t ms = mem_space_id == H5S_ALL ? fs : mem_space_id;
    if (fs != lz->space && H5Sextent_equal(fs, lz->space) <= 0)
        return TB_ERR_UNSUPPORTED;
    hssize_t n = H5Sget_select_npoints(fs);
    if (n <= 0 || H5Sget_select_npoints(ms) != n || H5Sselect_valid(fs) <= 0 || H5Sselect_valid(ms) <= 0)
        return TB_ERR_UNSUPPORTED;
    size_t   fsize = tb_h5t_size(ft), msize = tb_h5t_size(mem_type_id);
    uint8_t *sel   = fsize && msize ? malloc((size_t)n * fsize) : NULL;
    uint8_t *conv  = sel ? malloc((size_t)n * msize) : NULL;
    tb_status_t st = TB_ERR_NOMEM;
    if (conv) {
        st = H5Dgather(fs, x->value, ft, (size_t)n * fsize, sel, NULL, NULL) < 0 ? TB_ERR_HDF5 : TB_OK;
        if (st == TB_OK)
            st = tb_ix_convert_out(ft, mem_type_id, sel, (size_t)n * fsize, conv, dxpl_id);
        scatter_src_t src = {conv, (size_t)n * msize};
        if (st == TB_OK && H5Dscatter(scatter_src, &src, mem_type_id, ms, buf) < 0)
            st = TB_ERR_HDF5;
    }
    free(sel);
    free(conv);
    return st;
}

tb_answer_t
tb_index_dset_read(tb_obj_t *o, hid_t mem_type_id, hid_t mem_space_id, hid_t file_space_id, hid_t dxpl_id,
                   void *buf, herr_t *ret_out)
{
    tb_ix_lazy_t       *lz;
    const tb_ix_dset_t *x = lazy_record(o, &lz);
    if (!x || !(x->have & TB_IX_DS_VALUE) || !buf || !dxpl_neutral(dxpl_id, false, o->ctx->file_mpi))
        return TB_FORWARD;
    uint64_t npoints;
    bool     done = false;
    hid_t    ft   = tb_ix_type_get(x->type_enc, x->type_nbytes);
    if (ft >= 0 && (npoints = tb_ix_space_npoints(x->space_enc)) != UINT64_MAX) {
        bool whole = whole_selection(mem_space_id, (hssize_t)npoints) && whole_file_selection(lz, x, file_space_id);
        if (tb_ix_type_is_vstr(x->type_enc, x->type_nbytes)) /* (strings: whole reads only) */
            done = whole && tb_ix_vstr_read(lz->node.f, ft, mem_type_id, dxpl_id, x->value, x->value_nbytes, buf) == TB_OK;
        else if (whole)
            done = tb_ix_convert_out(ft, mem_type_id, x->value, x->value_nbytes, buf, dxpl_id) == TB_OK;
        else /* (a scatter writes into buf: only after the checks that native makes first) */
            done = read_part(lz, x, ft, mem_type_id, mem_space_id, file_space_id, dxpl_id, buf) == TB_OK;
    }
    if (!done) {
        H5Eclear2(H5E_DEFAULT);
        return TB_FORWARD;
    }
    *ret_out = 0;
    tb_ix_stats.answered++;
    return TB_ANSWERED;
}

/* Whether HDF5 took an external-file or virtual-dataset prefix from the environment (it reads
 * HDF5_EXTFILE_PREFIX and HDF5_VDS_PREFIX once, when it starts; so the first look here, and any
 * later one: set or unset since, the answer is native's). */
static bool
env_prefix(void)
{
    static int at_start = -1;
    const char *e = getenv("HDF5_EXTFILE_PREFIX"), *v = getenv("HDF5_VDS_PREFIX");
    int         now = (e && *e && strcmp(e, ".") != 0) || (v && *v && strcmp(v, ".") != 0);
    if (at_start < 0)
        at_start = now;
    return now || at_start;
}

/* H5Dget_access_plist of a lazy dataset (opened with the default access list: one with its own is
 * opened for real), built as native's H5D_get_access_plist builds it, property by property in its
 * order (H5Pencode2 lists set properties in the order they were set): a copy of the default list,
 * then the chunk cache (for a chunked dataset what the default list leaves to the file: the file's,
 * both sizes 0 when either is; else the default list's values) and append-flush settings (the
 * default's), the virtual-dataset view and printf gap (the default's), and no virtual-dataset or
 * external-file prefix. Not when the dataset is virtual, a prefix came from the environment, or a
 * handle below has the dataset open (its first open set the cache a new one shares): native's. */
static hid_t
lazy_dapl(const tb_obj_t *o, tb_ix_lazy_t *lz, const tb_ix_dset_t *x)
{
    struct tb_index_file *f = lz->node.f;
    if (!(x->have & (TB_IX_DS_DCPL | TB_IX_DS_VALUE)) || x->layout == H5D_VIRTUAL || env_prefix() ||
        tb_ix_open_below(f->file_under, f->d->objs[lz->obj].token))
        return H5I_INVALID_HID;
    bool chunked = x->layout == H5D_CHUNKED;
    if (chunked && f->rdcc_known == 0) {
        H5VL_file_get_args_t ga = {.op_type = H5VL_FILE_GET_FAPL};
        ga.args.get_fapl.fapl_id = H5I_INVALID_HID;
        f->rdcc_known            = -1;
        if (H5VLfile_get(f->file_under, o->under_vol_id, &ga, DXPL, NULL) >= 0) {
            if (H5Pget_cache(ga.args.get_fapl.fapl_id, NULL, &f->rdcc_nslots, &f->rdcc_nbytes, &f->rdcc_w0) >= 0)
                f->rdcc_known = 1;
            H5Pclose(ga.args.get_fapl.fapl_id);
        }
    }
    if (chunked && f->rdcc_known != 1)
        return H5I_INVALID_HID;
    hid_t p = H5Pcopy(H5P_DATASET_ACCESS_DEFAULT);
    if (p < 0)
        return p;
    size_t nslots = 0, nbytes = 0;
    double w0 = 0;
    bool   ok = H5Pget(p, "rdcc_nslots", &nslots) >= 0 && H5Pget(p, "rdcc_nbytes", &nbytes) >= 0 &&
              H5Pget(p, "rdcc_w0", &w0) >= 0;
    if (ok && chunked) {
        nslots = nslots == H5D_CHUNK_CACHE_NSLOTS_DEFAULT ? f->rdcc_nslots : nslots;
        nbytes = nbytes == H5D_CHUNK_CACHE_NBYTES_DEFAULT ? f->rdcc_nbytes : nbytes;
        w0     = w0 < 0 ? f->rdcc_w0 : w0;
        if (!nslots || !nbytes)
            nslots = nbytes = 0;
    }
    ok = ok && H5Pset(p, "rdcc_nslots", &nslots) >= 0 && H5Pset(p, "rdcc_nbytes", &nbytes) >= 0 &&
         H5Pset(p, "rdcc_w0", &w0) >= 0;
    /* (values kept as they are: the default's, which native sets again) */
    static const char *const same[] = {"append_flush", "vds_view", "vds_printf_gap"};
    for (size_t i = 0; ok && i < sizeof(same) / sizeof(same[0]); i++) {
        size_t        n = 0;
        unsigned char v[1024];
        ok = H5Pget_size(p, same[i], &n) >= 0 && n <= sizeof(v) && H5Pget(p, same[i], v) >= 0 &&
             H5Pset(p, same[i], v) >= 0;
    }
    const char *none = NULL;
    ok = ok && H5Pset(p, "vds_prefix", &none) >= 0 && H5Pset(p, "external file prefix", &none) >= 0;
    if (!ok) {
        H5Pclose(p);
        return H5I_INVALID_HID;
    }
    return p;
}

tb_answer_t
tb_index_dset_get(tb_obj_t *o, H5VL_dataset_get_args_t *args, herr_t *ret_out)
{
    tb_ix_lazy_t       *lz;
    const tb_ix_dset_t *x = lazy_record(o, &lz);
    if (!x)
        return TB_FORWARD;
    switch (args->op_type) {
        case H5VL_DATASET_GET_SPACE: {
            hid_t s = (x->have & TB_IX_DS_SPACE) ? tb_ix_space_make(x->space_enc) : H5I_INVALID_HID;
            if (s < 0)
                break;
            args->args.get_space.space_id = s;
            goto answered;
        }
        case H5VL_DATASET_GET_TYPE: {
            hid_t ft = (x->have & TB_IX_DS_TYPE) ? tb_ix_type_get(x->type_enc, x->type_nbytes) : H5I_INVALID_HID;
            hid_t t  = ft >= 0 ? tb_ix_type_copy_rdonly(ft) : H5I_INVALID_HID;
            if (t < 0)
                break;
            args->args.get_type.type_id = t;
            goto answered;
        }
        case H5VL_DATASET_GET_DCPL: {
            hid_t p = (x->have & TB_IX_DS_DCPL) ? cpl_like_native(x->dcpl_enc, x->dcpl_nbytes, H5P_DATASET_CREATE_DEFAULT, true)
                                                : H5I_INVALID_HID;
            if (p < 0)
                break;
            args->args.get_dcpl.dcpl_id = p;
            goto answered;
        }
        case H5VL_DATASET_GET_DAPL: {
            hid_t p = lazy_dapl(o, lz, x);
            if (p < 0)
                break;
            args->args.get_dapl.dapl_id = p;
            goto answered;
        }
        case H5VL_DATASET_GET_SPACE_STATUS:
            if (!(x->have & TB_IX_DS_STATUS))
                break;
            *args->args.get_space_status.status = (H5D_space_status_t)x->space_status;
            goto answered;
        case H5VL_DATASET_GET_STORAGE_SIZE:
            if (!(x->have & TB_IX_DS_STORAGE))
                break;
            *args->args.get_storage_size.storage_size = x->storage_size;
            goto answered;
        default:
            break;
    }
    H5Eclear2(H5E_DEFAULT);
    return TB_FORWARD;
answered:
    *ret_out = 0;
    tb_ix_stats.answered++;
    return TB_ANSWERED;
}

/* ------------------------------------------------------------------ named datatypes */

void
tb_index_dtype_get_done(tb_obj_t *o, const H5VL_datatype_get_args_t *args)
{
    if (!o->under || !o->ctx->index || args->op_type != H5VL_DATATYPE_GET_BINARY || !args->args.get_binary.buf)
        return;
    tb_ix_data_t *d;
    tb_ix_dset_t *x;
    uint32_t      oi;
    hid_t         saved = tb_err_save();
    if (record_of_kind(o, H5I_DATATYPE, &d, &oi, &x) == TB_OK && !(x->have & TB_IX_DS_TYPE) &&
        d->objs[oi].type == H5O_TYPE_NAMED_DATATYPE) {
        /* Kept only when the buffer held exactly the encoding (what HDF5 asks for to build the
         * type when it opens it): its size, asked of native. */
        size_t                   n  = 0;
        H5VL_datatype_get_args_t gs = {.op_type = H5VL_DATATYPE_GET_BINARY_SIZE};
        gs.args.get_binary_size.size = &n;
        if (H5VLdatatype_get(o->under, o->under_vol_id, &gs, DXPL, NULL) >= 0 && n > 0 &&
            n == args->args.get_binary.buf_size && n <= TB_IX_DCPL_MAX_NBYTES &&
            tb_ix_type_nbytes(args->args.get_binary.buf, n) != 0)
            (void)keep_part(d, x, TB_IX_DS_TYPE, args->args.get_binary.buf, n);
    }
    H5Eclear2(H5E_DEFAULT);
    tb_err_restore(saved);
}

tb_answer_t
tb_index_dtype_get(tb_obj_t *o, H5VL_datatype_get_args_t *args, herr_t *ret_out)
{
    tb_ix_lazy_t *lz = tb_ix_lazy_of(o, H5I_DATATYPE);
    if (!lz)
        return TB_FORWARD;
    const tb_ix_data_t *d = lz->node.f->d;
    uint32_t            k = d->objs[lz->obj].dset;
    if (k == TB_IX_NONE || !(d->dsets[k].have & TB_IX_DS_TYPE))
        return TB_FORWARD;
    const tb_ix_dset_t *x = &d->dsets[k];
    switch (args->op_type) {
        case H5VL_DATATYPE_GET_BINARY_SIZE:
            *args->args.get_binary_size.size = x->type_nbytes;
            break;
        case H5VL_DATATYPE_GET_BINARY:
            if (!args->args.get_binary.buf || args->args.get_binary.buf_size != x->type_nbytes)
                return TB_FORWARD; /* (native's rules for other sizes are its own) */
            memcpy(args->args.get_binary.buf, x->type_enc, x->type_nbytes);
            break;
        default:
            return TB_FORWARD;
    }
    *ret_out = 0;
    tb_ix_stats.answered++;
    return TB_ANSWERED;
}
