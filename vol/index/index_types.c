/* index_types.c — datatypes and dataspaces for the index's attribute and dataset caches: one
 * process-wide table of datatypes (each distinct type encoded once, decoded once, shared by every
 * cached value of that type: H5Tencode/H5Tdecode cost thousands of instructions a call), and the
 * caches' own dataspace form (index_model.h), built back with H5Screate_simple or, for a
 * version-2 dataspace message, H5Sset_extent_simple of a null space (copied from one kept per
 * recent form). */
#include "index_ctx.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct tentry {
    hid_t       id;  /* decoded from enc; never handed out (callers copy it) */
    const void *obj; /* the library's object behind id (tb_h5t_desc_t's), or NULL */
    uint8_t    *enc;
    size_t      n;
    uint64_t    hash;
    H5T_class_t cls;
    size_t      size;
    int         cset, strpad; /* string_key's */
    bool        library; /* id holds no application reference (id_to_library) */
} tentry_t;

/* What H5Tequal leaves out of a comparison of t (of class cls): a variable-length string's
 * character set and padding (-1 and -1 where it compares them: other classes, and fixed-length
 * strings, such as netCDF-C's text attributes, which are then spared two public calls each). */
static void
string_key(hid_t t, const tb_h5t_desc_t *td, int *cset, int *strpad)
{
    bool ask = td->cls == H5T_STRING && td->vstr > 0;
    *cset    = ask ? (int)H5Tget_cset(t) : -1;
    *strpad  = ask ? (int)H5Tget_strpad(t) : -1;
}

/* At most this many distinct types are kept; beyond, callers do without the caches. */
#define TB_IX_MAX_TYPES 4096

static tentry_t *types;
static uint32_t  ntypes, typecap;
static uint32_t  last_type; /* the entry tb_ix_type_get found last (ntypes or more: none) */
static int       atclose_registered;

static uint64_t
hash_bytes(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* HDF5's predefined native integer and floating-point types, which no application can change or
 * close, each with the table's entry of the type it equals (TB_IX_NONE: not asked yet). */
typedef struct predef {
    hid_t    id;
    uint32_t k;
} predef_t;
static predef_t predefs[20];
static int      npredef;

/* Read-only types handed to the application, each with its entry: copies of an entry
 * (tb_ix_type_copy_rdonly) and what native's H5Aget_type gave it (tb_ix_type_note_rdonly: native
 * locks those; their entry is tb_ix_type_encode's). IDs are not reused while the library lives and
 * a read-only type cannot change, so a read whose memory type is one of the last few of these
 * reads in its entry's type, known without H5Tequal or H5Tencode (0.3k-1.8k instructions a read). */
#define RDONLY_MEMO 16
static struct {
    hid_t id, ft; /* (ft: the entry's id) */
} rdonly[RDONLY_MEMO];
static unsigned rdonly_next;

static void
note_rdonly(hid_t t, hid_t ft)
{
    rdonly[rdonly_next % RDONLY_MEMO].id = t;
    rdonly[rdonly_next % RDONLY_MEMO].ft = ft;
    rdonly_next++;
}

static void forget_spaces(void);

/* The table's types are h5turbo's, not the application's: IDs without an application reference,
 * which H5Fget_obj_count(H5F_OBJ_ALL, ...) leaves out as it leaves out the library's own (it counts
 * every transient datatype the application holds). Through HDF5's internal H5I_inc_ref and
 * H5I_dec_ref where the library exports them; elsewhere an entry's ID stays an application's. */
extern int H5I_inc_ref(hid_t id, bool app_ref) __attribute__((weak));
extern int H5I_dec_ref(hid_t id) __attribute__((weak));

static bool
id_to_library(hid_t id)
{
    if (!H5I_inc_ref || !H5I_dec_ref || H5I_inc_ref(id, false) < 0)
        return false;
    (void)H5Idec_ref(id); /* (the application's reference H5Tdecode gave: the library's stays) */
    return true;
}

/* At library close, before HDF5 closes the IDs: a re-initialised library starts a new table. */
static void
forget_types(void *ctx)
{
    (void)ctx;
    npredef = 0;
    memset(rdonly, 0, sizeof(rdonly));
    hid_t saved = tb_err_save();
    for (uint32_t k = 0; k < ntypes; k++) {
        if (types[k].library)
            (void)H5I_dec_ref(types[k].id);
        else
            H5Tclose(types[k].id);
        free(types[k].enc);
    }
    forget_spaces();
    tb_err_restore(saved);
    free(types);
    types              = NULL;
    ntypes = typecap   = 0;
    atclose_registered = 0;
}

/* Registers forget_types with HDF5 once: false when HDF5 refuses. */
static bool
forget_at_close(void)
{
    if (!atclose_registered && H5atclose(forget_types, NULL) < 0)
        return false;
    atclose_registered = 1;
    return true;
}

/* Adds the type encoded by enc[0..n) (copied), decoding it; its index in *k_out. TB_OK;
 * TB_ERR_UNSUPPORTED (the table is full), TB_ERR_NOMEM, TB_ERR_HDF5 (errors cleared), or
 * TB_ERR_CORRUPT when the decoded type's size is not the one the encoding declares. */
static tb_status_t
add_type(const void *enc, size_t n, uint64_t hash, uint32_t *k_out)
{
    if (ntypes >= TB_IX_MAX_TYPES)
        return TB_ERR_UNSUPPORTED;
    if (!forget_at_close())
        return TB_ERR_HDF5;
    void       *arr;
    tb_status_t st = tb_ix_reserve(types, &typecap, (uint64_t)ntypes + 1, sizeof(*types), 16, &arr);
    if (st != TB_OK)
        return st;
    types        = arr;
    tentry_t *e  = &types[ntypes];
    e->enc       = malloc(n);
    if (!e->enc)
        return TB_ERR_NOMEM;
    memcpy(e->enc, enc, n);
    e->n    = n;
    e->hash = hash;
    e->id   = H5Tdecode(e->enc);
    tb_h5t_desc_t td = {.cls = H5T_NO_CLASS};
    if (e->id >= 0)
        tb_h5t_describe(e->id, &td);
    e->obj  = td.obj;
    e->cls  = td.cls;
    e->size = td.size;
    string_key(e->id, &td, &e->cset, &e->strpad);
    /* The size the encoding declares is what the sidecar's checks relied on; and only a type whose
     * values the caches keep has an entry: a value of any other (a sequence, a reference, a string
     * inside a compound) holds pointers, which a sidecar's bytes must never become. */
    if (e->id < 0 || e->size == 0 || e->size != tb_ix_type_nbytes(enc, n) ||
        !(tb_ix_type_is_seq_value(enc, n) || tb_ix_type_cacheable(e->id, &td))) {
        st = e->id < 0 ? TB_ERR_HDF5 : TB_ERR_CORRUPT;
        if (e->id >= 0)
            H5Tclose(e->id);
        free(e->enc);
        H5Eclear2(H5E_DEFAULT);
        return st;
    }
    e->library = id_to_library(e->id);
    *k_out     = ntypes++;
    return TB_OK;
}

/* The entry of the type encoded as enc, added when no entry has those bytes: TB_OK (*k_out), or
 * why it could not be added. */
static tb_status_t
type_entry(const void *enc, size_t n, uint32_t *k_out)
{
    /* Records of one file mostly share a type: the last one found is compared first. */
    if (last_type < ntypes && types[last_type].n == n && memcmp(types[last_type].enc, enc, n) == 0) {
        *k_out = last_type;
        return TB_OK;
    }
    uint64_t h = hash_bytes(enc, n);
    for (uint32_t k = 0; k < ntypes; k++)
        if (types[k].hash == h && types[k].n == n && memcmp(types[k].enc, enc, n) == 0) {
            *k_out = last_type = k;
            return TB_OK;
        }
    tb_status_t st = add_type(enc, n, h, k_out);
    if (st == TB_OK)
        last_type = *k_out;
    return st;
}

hid_t
tb_ix_type_get(const void *enc, size_t n)
{
    uint32_t k;
    return type_entry(enc, n, &k) == TB_OK ? types[k].id : H5I_INVALID_HID;
}

/* The form of H5Tvlen_create(H5T_STD_REF_OBJ) (tb_ix_type_is_vref): H5Tencode encodes only into a
 * buffer large enough, leaving the length it was given, and else says the length it needs; so one
 * call into a buffer of the form's length, filled first with bytes the form's last ones are not,
 * tells it (a sequence of references in every variable netCDF-C and h5py read: half the cost of
 * asking the length first). */
#define VREF_NBYTES 18
static bool
encodes_vref(hid_t t, uint8_t enc[VREF_NBYTES])
{
    size_t n = VREF_NBYTES;
    memset(enc, 0xff, VREF_NBYTES);
    return H5Tencode(t, enc, &n) >= 0 && n == VREF_NBYTES && tb_ix_type_is_vref(enc, n);
}

bool
tb_ix_type_encodes_vref(hid_t t)
{
    uint8_t enc[VREF_NBYTES];
    return tb_h5t_class(t) == H5T_VLEN && encodes_vref(t, enc);
}

static void
type_ref(uint32_t k, tb_ix_type_ref_t *out)
{
    out->enc = types[k].enc;
    out->n   = types[k].n;
    out->id  = types[k].id;
    out->obj = types[k].obj;
}

tb_status_t
tb_ix_type_encode(hid_t t, const tb_h5t_desc_t *td, tb_ix_type_ref_t *out)
{
    uint32_t k;
    uint8_t  vref[VREF_NBYTES];
    if (td->cls == H5T_VLEN) { /* (of sequences, the table holds those of object references only) */
        tb_status_t st = encodes_vref(t, vref) ? type_entry(vref, sizeof(vref), &k) : TB_ERR_UNSUPPORTED;
        if (st == TB_OK)
            type_ref(k, out);
        return st;
    }
    int cset, strpad;
    string_key(t, td, &cset, &strpad);
    for (k = 0; k < ntypes; k++)
        if (types[k].cls == td->cls && types[k].size == td->size && types[k].cset == cset &&
            types[k].strpad == strpad && tb_h5t_equal_objs(types[k].id, types[k].obj, t, td->obj) > 0) {
            type_ref(k, out);
            return TB_OK;
        }
    size_t n = 0;
    if (H5Tencode(t, NULL, &n) < 0)
        return TB_ERR_HDF5;
    if (n == 0 || n > UINT32_MAX)
        return TB_ERR_UNSUPPORTED; /* (an encoding the records cannot hold) */
    uint8_t *enc = malloc(n);
    if (!enc)
        return TB_ERR_NOMEM;
    tb_status_t st = H5Tencode(t, enc, &n) < 0 ? TB_ERR_HDF5 : type_entry(enc, n, &k);
    free(enc);
    if (st == TB_OK)
        type_ref(k, out);
    return st;
}

/* The native types reads name, listed once per library initialisation. */
static bool
list_predefs(void)
{
    if (!forget_at_close()) /* (IDs of a re-initialised library are others) */
        return false;
    const hid_t ids[] = {H5T_NATIVE_DOUBLE, H5T_NATIVE_FLOAT,  H5T_NATIVE_INT,    H5T_NATIVE_UINT,
                         H5T_NATIVE_LLONG,  H5T_NATIVE_ULLONG, H5T_NATIVE_LONG,   H5T_NATIVE_ULONG,
                         H5T_NATIVE_SHORT,  H5T_NATIVE_USHORT, H5T_NATIVE_SCHAR,  H5T_NATIVE_UCHAR,
                         H5T_NATIVE_INT8,   H5T_NATIVE_UINT8,  H5T_NATIVE_INT16,  H5T_NATIVE_UINT16,
                         H5T_NATIVE_INT32,  H5T_NATIVE_UINT32, H5T_NATIVE_INT64,  H5T_NATIVE_UINT64};
    _Static_assert(sizeof(ids) / sizeof(ids[0]) == sizeof(predefs) / sizeof(predefs[0]), "one slot per type");
    for (npredef = 0; npredef < (int)(sizeof(ids) / sizeof(ids[0])); npredef++)
        predefs[npredef] = (predef_t){ids[npredef], TB_IX_NONE};
    return true;
}

/* The table's entry for predefined type mem (found, or added, the first time), or NULL when mem
 * is not one of those listed or the table cannot hold it. */
static const tentry_t *
predef_entry(hid_t mem)
{
    if (!npredef && !list_predefs())
        return NULL;
    predef_t *p = NULL;
    for (int i = 0; i < npredef && !p; i++)
        if (predefs[i].id == mem)
            p = &predefs[i];
    if (!p)
        return NULL;
    if (p->k == TB_IX_NONE) {
        tb_h5t_desc_t    td;
        tb_ix_type_ref_t r;
        tb_h5t_describe(mem, &td);
        if (tb_ix_type_encode(mem, &td, &r) != TB_OK)
            return NULL;
        for (uint32_t k = 0; k < ntypes; k++)
            if (types[k].enc == r.enc)
                p->k = k;
    }
    return p->k == TB_IX_NONE ? NULL : &types[p->k];
}

bool
tb_ix_type_as_predef(hid_t t, hid_t mem, const void **enc_out, size_t *n_out)
{
    const tentry_t *e = predef_entry(mem);
    if (!e || tb_h5t_equal(t, mem) <= 0 || tb_h5t_committed(t) != 0)
        return false;
    *enc_out = e->enc;
    *n_out   = e->n;
    return true;
}

bool
tb_ix_type_is_copy(hid_t ft, hid_t mem)
{
    for (unsigned i = 0; i < RDONLY_MEMO; i++)
        if (rdonly[i].id == mem && mem > 0)
            return rdonly[i].ft == ft;
    const tentry_t *e = predef_entry(mem);
    return e && e->id == ft;
}

/* What H5Dget_type/H5Aget_type hand out: a read-only copy (HDF5's own H5T_lock, which the public
 * API does not offer: H5Tlock makes a type immutable, and unclosable; where a library does not
 * export it, the copy stays modifiable). */
extern void *H5I_object_verify(hid_t id, H5I_type_t type) __attribute__((weak));

hid_t
tb_ix_type_copy_rdonly(hid_t ft)
{
    bool  locked;
    hid_t t = tb_h5t_copy(ft, true, &locked);
    if (locked)
        note_rdonly(t, ft);
    return t;
}

void
tb_ix_type_note_rdonly(hid_t t, const void *enc)
{
    for (uint32_t k = 0; k < ntypes; k++)
        if (types[k].enc == enc) {
            note_rdonly(t, types[k].id);
            return;
        }
}

/* A scalar or simple space built back from a form with its dataspace message version: 0 (what
 * H5Screate/H5Screate_simple make, version 1) or 2 (a null space is created with version 2, and
 * H5Sset_extent_simple keeps the version while it sets the extent; rank 0 gives a scalar). */
static hid_t
space_build(unsigned version, int rank, const hsize_t *dims, const hsize_t *maxdims)
{
    if (version == 0)
        return tb_h5s_create_simple(rank, dims, maxdims);
    hid_t s = H5Screate(H5S_NULL);
    if (s >= 0 && H5Sset_extent_simple(s, rank, rank ? dims : NULL, rank ? maxdims : NULL) < 0) {
        H5Sclose(s);
        s = H5I_INVALID_HID;
    }
    return s;
}

/* H5Sencode2's length for a space, 0 on failure. */
static size_t
space_encoded_nbytes(hid_t s)
{
    size_t n = 0;
    return H5Sencode2(s, NULL, &n, H5P_DEFAULT) < 0 ? 0 : n;
}

/* Where HDF5 keeps a dataspace's message version: the `version` after the `type` of its extent
 * (H5S_extent_t, first in H5S_t), an unsigned int at a byte offset that depends on the build's
 * structure layout. Found once per process on spaces of known type and version (H5Screate makes
 * version 1, or 2 for a null space, which H5Sset_extent_simple keeps), and used only when exactly
 * one offset fits all four; 0 when none was found (or HDF5 hides H5I_object_verify): then
 * H5Sencode2's length tells (space_version), at a few thousand instructions a space. */
#define VERSION_PROBE_BYTES 128

static size_t
version_offset(void)
{
    static int    probed;
    static size_t offset;
    if (probed || !H5I_object_verify)
        return offset;
    probed                 = 1;
    hsize_t     dims[1]    = {3};
    hid_t       sp[4]      = {H5Screate_simple(1, dims, NULL), H5Screate(H5S_NULL), H5Screate(H5S_SCALAR),
                              H5Screate(H5S_NULL)};
    /* (type, version) of each: H5S_SIMPLE v1, H5S_SIMPLE v2, H5S_SCALAR v1, H5S_NULL v2 */
    const unsigned want[4][2] = {{H5S_SIMPLE, 1}, {H5S_SIMPLE, 2}, {H5S_SCALAR, 1}, {H5S_NULL, 2}};
    const uint8_t *obj[4]  = {NULL};
    bool           ok      = sp[1] >= 0 && H5Sset_extent_simple(sp[1], 1, dims, NULL) >= 0;
    for (int i = 0; ok && i < 4; i++)
        ok = sp[i] >= 0 && (obj[i] = H5I_object_verify(sp[i], H5I_DATASPACE)) != NULL;
    size_t found = 0, nfound = 0;
    for (size_t k = sizeof(unsigned); ok && k + sizeof(unsigned) <= VERSION_PROBE_BYTES; k += sizeof(unsigned)) {
        bool fits = true;
        for (int i = 0; fits && i < 4; i++) {
            unsigned type, version;
            memcpy(&type, obj[i] + k - sizeof(unsigned), sizeof(type));
            memcpy(&version, obj[i] + k, sizeof(version));
            fits = type == want[i][0] && version == want[i][1];
        }
        if (fits) {
            found = k;
            nfound++;
        }
    }
    for (int i = 0; i < 4; i++)
        if (sp[i] >= 0)
            H5Sclose(sp[i]);
    H5Eclear2(H5E_DEFAULT);
    offset = nfound == 1 ? found : 0;
    return offset;
}

/* Which message version a native scalar or simple space carries (files written with a low format
 * bound of 1.8 or later, HDF5 2.x's default, hold version 2): read where version_offset found it,
 * else the one whose rebuilt space encodes to the same length (versions 1 and 2 differ in their
 * header), or -1 when neither does. The lengths depend only on the rank and the version, so each
 * is learnt once per process. */
static int
space_version(hid_t s, int rank, const hsize_t *dims, const hsize_t *maxdims)
{
    size_t at = version_offset();
    if (at) {
        const uint8_t *obj = H5I_object_verify(s, H5I_DATASPACE);
        unsigned       version;
        if (!obj)
            return -1;
        memcpy(&version, obj + at, sizeof(version));
        return version == 1 ? 0 : version == 2 ? 2 : -1;
    }
    static size_t known[2][TB_IX_SPACE_MAXRANK + 1];
    size_t        n = space_encoded_nbytes(s);
    for (unsigned v = 0; n && v < 2; v++) {
        if (!known[v][rank]) {
            hid_t c = space_build(v ? 2 : 0, rank, dims, maxdims);
            if (c < 0)
                return -1;
            known[v][rank] = space_encoded_nbytes(c);
            H5Sclose(c);
        }
        if (known[v][rank] == n)
            return v ? 2 : 0;
    }
    return -1;
}

tb_status_t
tb_ix_space_encode(hid_t s, bool version1, uint8_t *buf, size_t *nbytes_out)
{
    /* One query for a simple space (the dimensions give the rank), a second only for rank 0 to
     * tell a scalar space from a null one: a few hundred instructions each, on every dataset and
     * attribute a first open records. */
    _Static_assert(H5S_MAX_RANK <= TB_IX_SPACE_MAXRANK, "a dataspace of HDF5's largest rank fits the form");
    hsize_t dims[TB_IX_SPACE_MAXRANK], maxdims[TB_IX_SPACE_MAXRANK];
    int     rank = tb_h5s_dims(s, dims, maxdims);
    if (rank < 0)
        return TB_ERR_HDF5;
    H5S_class_t cls = rank > 0 ? H5S_SIMPLE : tb_h5s_extent_type(s);
    if (cls != H5S_NULL && cls != H5S_SCALAR && cls != H5S_SIMPLE)
        return TB_ERR_UNSUPPORTED;
    int version = cls == H5S_NULL || version1 ? 0 : space_version(s, rank, dims, maxdims);
    if (version < 0)
        return TB_ERR_UNSUPPORTED;
    memset(buf, 0, 8);
    buf[0] = cls == H5S_NULL ? 0 : cls == H5S_SCALAR ? 1 : 2;
    buf[1] = (uint8_t)(cls == H5S_SIMPLE ? rank : 0);
    buf[2] = (uint8_t)version;
    for (int i = 0; i < buf[1]; i++) {
        uint64_t c = dims[i], m = maxdims[i];
        memcpy(buf + 8 + 8 * i, &c, 8);
        memcpy(buf + 8 + 8 * (buf[1] + i), &m, 8);
    }
    *nbytes_out = TB_IX_SPACE_NBYTES(buf[1]);
    return TB_OK;
}

/* Spaces of a version-2 form (libver "latest" files, netCDF-4's attributes) take two calls to build
 * (H5Screate of a null space, H5Sset_extent_simple: ~2,900 instructions); each of the last few such
 * forms keeps one built space, which later answers copy (tb_h5s_copy: HDF5's copy keeps the
 * extent's version). Freed with the types at library close. */
#define SPACE_MEMO 8
#define SPACE_MEMO_RANK 4
static struct {
    uint8_t enc[TB_IX_SPACE_NBYTES(SPACE_MEMO_RANK)];
    hid_t   id; /* 0: empty */
} space_memo[SPACE_MEMO];
static unsigned space_memo_next;

static void
forget_spaces(void)
{
    for (unsigned i = 0; i < SPACE_MEMO; i++)
        if (space_memo[i].id > 0)
            H5Sclose(space_memo[i].id);
    memset(space_memo, 0, sizeof(space_memo));
}

hid_t
tb_ix_space_make(const void *enc)
{
    const uint8_t *b = enc;
    if (b[0] == 0)
        return H5Screate(H5S_NULL);
    size_t n    = TB_IX_SPACE_NBYTES(b[1]);
    int    memo = b[2] != 0 && b[1] <= SPACE_MEMO_RANK;
    for (unsigned i = 0; memo && i < SPACE_MEMO; i++)
        if (space_memo[i].id > 0 && memcmp(space_memo[i].enc, b, n) == 0)
            return tb_h5s_copy(space_memo[i].id);
    hsize_t dims[TB_IX_SPACE_MAXRANK] = {0}, maxdims[TB_IX_SPACE_MAXRANK] = {0};
    for (unsigned i = 0; i < b[1] && i < TB_IX_SPACE_MAXRANK; i++) {
        uint64_t c, m;
        memcpy(&c, b + 8 + 8 * i, 8);
        memcpy(&m, b + 8 + 8 * ((size_t)b[1] + i), 8);
        dims[i]    = c;
        maxdims[i] = m;
    }
    hid_t sp = space_build(b[2], b[1], dims, maxdims);
    if (sp >= 0 && memo && forget_at_close()) {
        unsigned at = space_memo_next++ % SPACE_MEMO;
        hid_t    keep = tb_h5s_copy(sp);
        if (keep >= 0) {
            if (space_memo[at].id > 0)
                H5Sclose(space_memo[at].id);
            memcpy(space_memo[at].enc, b, n);
            space_memo[at].id = keep;
        }
    }
    return sp;
}
