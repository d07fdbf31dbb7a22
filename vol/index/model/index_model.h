/* index_model.h — the data model of the link/object index, shared by index.c (tables, loading,
 * coherence), index_query.c (answers) and sidecar_format.c (the persistent form). No HDF5 calls
 * here: tokens are kept as the 16 opaque bytes of H5O_token_t. */
#ifndef TB_INDEX_MODEL_H
/* Levels of the last lookup kept for the next (tb_ix_data_t's rc_*). */
#define TB_IX_RC_DEPTH 16
/* Large groups whose look-ups are left to native, remembered at once (tb_ix_data_t's defer). */
#define TB_IX_DEFER 16

#define TB_INDEX_MODEL_H

#include "tb_common.h"
#include "index_spill.h"
#include "tb_sidecar.h"

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>

/* How the index's functions report (the same in vol/index): a function that can fail returns a
 * tb_status_t (TB_OK, TB_ERR_NOMEM when an allocation failed, TB_ERR_HDF5 when an HDF5 call did,
 * TB_ERR_UNSUPPORTED when the index does not model the case and the caller forwards,
 * TB_ERR_CORRUPT for bytes that do not decode) and hands its results through *_out parameters; a
 * query offered by a callback returns a tb_answer_t (TB_ANSWERED or TB_FORWARD); a yes/no question
 * returns a bool. */

/* A record index that names no record, as NULL names no object: "there is no such object, link,
 * group or dataset record". Never a failure: failures are statuses. */
#define TB_IX_NONE UINT32_MAX

/* One link of a group, as H5Literate reports it. Names are NUL-terminated; for soft and
 * user-defined links `val` holds the bytes H5Lget_val returns; a hard link names its target's
 * object record (whose token is the link's). Strings live either in the group's own blob or in
 * the sidecar buffer. 40 bytes: a 400,000-object file has as many. A partial list also keeps names
 * native found no link of (`absent`). */
typedef struct tb_ix_link {
    const char *name;
    const void *val;
    uint32_t    name_len;
    uint32_t    val_size;
    uint32_t    obj;  /* hard links: the target's object record */
    uint8_t     type; /* H5L_type_t */
    uint8_t     cset;
    uint8_t     corder_valid;
    uint8_t     absent; /* (partial lists only) the group has no link of this name: native found
                         * none (type hard, obj TB_IX_NONE) */
    int64_t     corder;
} tb_ix_link_t;

/* Attributes of at most this many bytes of data are cached with their value. */
#define TB_IX_ATTR_MAX_VALUE 256

/* One attribute of an object. Every attribute is listed (so that "does it exist" has an answer, and
 * with its H5A_info_t, so that an iteration has one); a partial list also keeps names native found
 * no attribute of (`absent`: a name, nothing else);
 * small ones of fixed-size types and of variable-length strings (`cached`) also carry their
 * datatype and dataspace, encoded by H5Tencode / H5Sencode, and their value: raw, in that datatype,
 * or the strings (tb_ix_vstr_check). Bytes live either in one block
 * owned by the record (`owned`: the block starts at `name`) or in the sidecar buffer. */
typedef struct tb_ix_attr {
    const char *name;
    const void *type_enc;
    const void *space_enc;
    const void *value;
    uint32_t    name_len;
    uint32_t    type_nbytes;
    uint32_t    space_nbytes;
    uint32_t    value_nbytes;
    uint8_t     cached : 1;
    uint8_t     corder_valid : 1;
    uint8_t     owned : 1;
    /* (in memory only) its value was looked at on an open handle and is of a type no record
     * keeps: the next opens of it record nothing */
    uint8_t     novalue : 1;
    uint8_t     absent : 1; /* (partial lists only) the object has no attribute of this name */
    uint8_t     cset; /* of the name (H5T_cset_t) */
    uint32_t    data_size; /* H5A_info_t.data_size; TB_IX_NONE: not known */
    int64_t     corder;
} tb_ix_attr_t;

/* Datasets of at most this many bytes of raw data may have their content cached. */
#define TB_IX_DSET_MAX_VALUE TB_INDEX_DSET_MAX_NBYTES

/* What the index knows of one dataset (tb_ix_obj_t.dset), each part captured when the application
 * first asks for it (or with the content): its datatype (H5Tencode's bytes), its dataspace (the
 * caches' form below), its creation property list (H5Pencode2's bytes), its storage size and space
 * status, and for small datasets of fixed-size types its whole raw content in the file type
 * (tb_ix_obj_t.dcache == TB_IX_DC_CACHED). `have` says which parts are known; a part the index
 * allocated has its `owned` bit (each part its own allocation), the others point into the sidecar
 * buffer. */
enum {
    TB_IX_DS_TYPE    = 1,
    TB_IX_DS_SPACE   = 2,
    TB_IX_DS_DCPL    = 4,
    TB_IX_DS_STORAGE = 8,
    TB_IX_DS_STATUS  = 16,
    TB_IX_DS_VALUE   = 32,
    TB_IX_DS_ALL     = 63
};
typedef struct tb_ix_dset {
    const void *type_enc;
    const void *space_enc;
    const void *dcpl_enc;
    const void *value;
    uint32_t    type_nbytes;
    uint32_t    space_nbytes;
    uint32_t    dcpl_nbytes;
    uint32_t    value_nbytes;
    uint64_t    storage_size; /* H5Dget_storage_size */
    uint8_t     have;         /* TB_IX_DS_* known */
    uint8_t     owned;        /* TB_IX_DS_* allocated by the index */
    uint8_t     layout;       /* H5D_layout_t (known with TB_IX_DS_DCPL or TB_IX_DS_VALUE) */
    uint8_t     space_status; /* H5D_space_status_t (TB_IX_DS_STATUS) */
} tb_ix_dset_t;

/* A DCPL encoding the index keeps is at most this large (an external file list of thousands of
 * files is not cached). */
#define TB_IX_DCPL_MAX_NBYTES 65536

/* tb_ix_obj_t.dcache: what the small-dataset cache knows of a dataset's content. */
enum { TB_IX_DC_UNKNOWN = 0, TB_IX_DC_NO, TB_IX_DC_CACHED };

/* tb_ix_obj_t.attr_storage: where native keeps an object's attributes, as a native open of one it
 * does not have told (its error names the storage): not known yet, in the object header, or in
 * dense storage. An index answers that failure itself only when it knows which. */
enum { TB_IX_AS_UNKNOWN = 0, TB_IX_AS_HEADER, TB_IX_AS_DENSE };

/* What H5Oget_native_info reported for one object (H5O_native_info_t, field by field), kept once an
 * application asked for it in a read-only file: `have` says which halves are known, the header's
 * (TB_IX_NI_HDR) and the metadata sizes (TB_IX_NI_META); the fields of a half not known are zero.
 * 104 bytes, only for the objects asked about (tb_ix_obj_t.ninfo). */
enum { TB_IX_NI_HDR = 1, TB_IX_NI_META = 2, TB_IX_NI_ALL = 3 };
typedef struct tb_ix_ninfo {
    uint32_t version, nmesgs, nchunks, flags;                   /* H5O_hdr_info_t */
    uint64_t space_total, space_meta, space_mesg, space_free;
    uint64_t mesg_present, mesg_shared;
    uint64_t obj_index_size, obj_heap_size, attr_index_size, attr_heap_size; /* meta_size */
    uint8_t  have;
} tb_ix_ninfo_t;

/* One object, by token. `has_info` says whether the H5Oget_info fields below are known;
 * `attrs_loaded` whether its attributes are the run [attr_first, attr_first + nattr) of the
 * attribute table; `attrs_partial` (never with attrs_loaded) that the run holds only some of them:
 * those the application opened (index_attr.c records them from its own opens); `attrs_unordered`
 * (only with attrs_loaded) that the run's order is not native's by name (the list came from an
 * iteration in another order: `attrs_crt_native` when that was native's by creation order). */
typedef struct tb_ix_obj {
    uint8_t  token[TB_IX_TOKEN_NBYTES];
    uint8_t  has_info : 1;
    uint8_t  attrs_crt_native : 1; /* (with attrs_unordered) the run is in the order of an
                                    * iteration by creation order natively */
    uint8_t  type; /* H5O_type_t */
    uint8_t  attrs_loaded : 1;
    uint8_t  attrs_partial : 1;
    uint8_t  attrs_unordered : 1;
    uint8_t  attr_storage : 2; /* TB_IX_AS_* */
    uint8_t  prefixed : 1;     /* a dataset opened in this process with an external-file or
                                * virtual-dataset prefix: never lazy (index_query.c); not persisted */
    uint8_t  corder_hint : 2;  /* a group: whether it tracks link creation order, as the creation
                                * list the application asked said (0 not known, 1 yes, 2 no); not
                                * persisted (its group record keeps what it learns from it) */
    uint8_t  opened : 1; /* datasets: a native open of it succeeded (here, or in the run that wrote
                          * the sidecar), so its header decodes as an open decodes it: an index
                          * read from a sidecar may hand it out lazily (index_query.c) */
    uint8_t  evict_later : 1; /* its header, read by the index for itself, waits in HDF5's cache
                               * in a list (tb_ix_later_t: a visit's or a handle's); not
                               * persisted */
    uint8_t  dcache; /* datasets: TB_IX_DC_* */
    uint32_t attr_first;
    uint32_t nattr;
    uint32_t rc;
    uint32_t group;  /* index into the group table when this group's links are loaded */
    uint16_t gstamp; /* visit bookkeeping (H5G "visited" and H5O "visited"), never persisted */
    uint16_t ostamp;
    uint32_t dset;      /* index into the dataset table once anything of the dataset is known */
    uint32_t num_attrs; /* (an object with more is not described here: 88 bytes a record) */
    uint32_t ninfo;     /* index into the native-info table once H5Oget_native_info was answered */
    int64_t  atime, mtime, ctime, btime;
} tb_ix_obj_t;

/* The links of one group in native (H5_INDEX_NAME, H5_ITER_NATIVE) order, plus its H5Gget_info;
 * or, `partial`, some of its links only: those native's look-ups of single names found (index.c's
 * tb_ix_lookup_link), and the names they found no link of (`absent` records), in the order they
 * were asked, its H5Gget_info not known (zero). A name a partial list does not hold says nothing;
 * counts, orders and iterations need a whole list (tb_ix_load_group makes a partial list whole). */
typedef struct tb_ix_group {
    tb_ix_link_t *links;
    uint32_t       nlinks;
    uint32_t       obj; /* the group's own object record */
    uint8_t        storage_type; /* H5G_storage_type_t */
    uint8_t        mounted;
    uint8_t        owned; /* links and blob were allocated for this group (not in a sidecar buffer) */
    uint8_t        corder_state; /* link creation order tracked: 0 not known yet, 1 yes, 2 no */
    uint8_t        partial;
    /* (in memory only) The last member an open found the kind of was a group: an H5Oopen of a
     * member of a kind not known is native's then, not tried as a dataset by token first. */
    uint8_t        members_groups;
    uint32_t       ht_mask;
    int64_t        max_corder;
    uint32_t      *ht; /* name lookup: link index + 1, open addressing; NULL for small groups */
    uint32_t      *by_name;   /* permutation sorted by name, built on first need */
    uint32_t      *by_corder; /* permutation sorted by creation order, built on first need */
    void          *blob;
    /* (partial lists, owned: what tb_ix_group_add appends into, malloc'd, never in a spill) */
    uint32_t       link_cap, blob_len, blob_cap;
} tb_ix_group_t;

/* A slot of the object records' token lookup: the record + 1 (0: empty), and its token's hash. */
typedef struct tb_ix_oslot {
    uint32_t v, h;
} tb_ix_oslot_t;

/* All that is known about one file, shared by every open of it in this process. */
typedef struct tb_ix_data {
    struct tb_ix_data *next; /* registry list */
    int                 refs;
    uint64_t            dev, ino;
    int                 writable; /* some open of it may write: drop everything on tb_index_modified */
    uint64_t            epoch;    /* last modification epoch seen */
    int                 dirty;    /* holds something its sidecar does not */
    int                 visiting; /* a visit is running (stamps in use) */
    int                 busy;     /* an iteration or visit is running over these tables */
    /* A dataset the index could not tell was opened with an external-file or virtual-dataset
     * prefix: native refuses to open an open dataset again under another prefix, which a lazy
     * dataset (nothing open below) would not, so no more are handed out in this file
     * (index_query.c; one it could tell is marked in its record). */
    int dset_prefixed;
    uint16_t            stamp;

    tb_ix_obj_t  *objs;
    uint32_t       nobj, objcap;
    tb_ix_oslot_t *oht; /* token lookup (open addressing) */
    uint32_t       oht_mask;
    tb_ix_group_t *groups;
    uint32_t        ngroup, groupcap;
    tb_ix_attr_t  *attrs;
    uint32_t        nattr, attrcap;
    tb_ix_dset_t  *dsets;
    uint32_t        ndset, dsetcap;
    tb_ix_ninfo_t *ninfos; /* native infos (tb_ix_obj_t.ninfo) */
    uint32_t        nninfo, ninfocap;
    tb_ix_spill_t *spill; /* where the tables and parts above are kept (NULL: malloc'd) */
    uint64_t        dset_nbytes; /* held for the dataset table (records, encodings, contents): counted in
                                  * the process budget */

    /* The groups the last multi-component lookup passed through, by its start object and the
     * name up to its last component: for each of up to TB_IX_RC_DEPTH components, where it starts
     * in rc_prefix and the group it is looked up in. A visit's callbacks and a loader's
     * per-dataset lookups walk the same parent path, or one beside it, again and again. Dropped
     * with the tables. */
    int      rc_valid;
    uint32_t root1; /* 1 + the root group's record, once looked up (0: not yet) */
    uint32_t rc_start, rc_len, rc_n;
    uint32_t rc_at[TB_IX_RC_DEPTH], rc_obj[TB_IX_RC_DEPTH];
    char     rc_prefix[256];

    /* Groups too large to list at a first look-up, whose single-name look-ups native makes (kept
     * in their partial lists) until they are worth listing (index.c's tb_ix_lookup_link): the
     * record + 1 (0: empty slot), its token and the look-ups made so far. In memory only; dropped
     * with the tables. */
    struct {
        uint32_t obj1, lookups;
        uint8_t  token[TB_IX_TOKEN_NBYTES];
    } defer[TB_IX_DEFER];
    uint32_t defer_next;
    /* The kinds of groups this process has listed or probed in the file (TB_IX_KIND_*): in a
     * file whose groups have all been symbol tables so far, a probe lists without asking the
     * group's header its kind first (index.c's load_group). */
    uint8_t listed_kinds;
#define TB_IX_KIND_STAB 1  /* a symbol-table group (the 1.6 format) */
#define TB_IX_KIND_LINFO 2 /* a compact or dense group (the 1.8 format) */
    /* The look-ups under way answer an H5Lexists (index_query.c): native's single-name look-ups
     * then ask whether the name is there before its info (index.c's lookup_native). */
    uint8_t exists_first;

    void          *sc_buf;  /* the copy of the sidecar's strings the loaded records point into (its
                             * size: sc_strbytes) */
    const uint8_t *sc_strs; /* where the strings start (in the decoded bytes until compacted: then
                             * sc_buf), and their size */
    uint64_t       sc_strbytes;
    tb_ix_link_t *sc_links; /* links decoded from it */

    /* persistence */
    int             persist; /* a sidecar may be written at last close */
    int             have_id;
    int             sc_absent; /* its sidecar looked for at the open: nothing at its name anywhere */
    /* Kept after its last close (index.c's kept indexes): when, on the registry's clock (0: open
     * or not kept); and how many records it held when this process last published its sidecar. */
    uint64_t kept_at;
    uint64_t published_records;
    tb_sc_file_t   file;    /* the data file: path (absolute, owned), identity, owner and mode */
    tb_sc_policy_t policy;  /* where its sidecars go (dir owned) */
} tb_ix_data_t;

/* Dataset content held by every index of this process (the `index_data` budget): changed
 * atomically, as an index is also freed on the publisher thread (index_publish.c) while the
 * application's thread records. */
extern uint64_t tb_ix_data_nbytes;

/* ---- the caches' own forms of a dataspace and a datatype (index_table.c)
 * A dataspace: u8 class (0 null, 1 scalar, 2 simple), u8 rank, u8 dataspace message version (0:
 * the one H5Screate/H5Screate_simple give; 2: version 2, for scalar and simple only), 5 zero
 * bytes, then `rank` current and `rank` maximum dimensions as u64 (host order; H5S_UNLIMITED as it
 * is). Built back with H5Screate/H5Screate_simple (or H5Sset_extent_simple of a null space for
 * version 2), which costs far less than H5Sdecode. A datatype: H5Tencode's bytes,
 * whose message header carries the type's size at byte 6. */
#define TB_IX_SPACE_MAXRANK 32
#define TB_IX_SPACE_NBYTES(rank) (8u + 16u * (uint32_t)(rank))
/* Checks an encoded dataspace of n bytes; its number of elements in *npoints_out. TB_OK, or
 * TB_ERR_CORRUPT. */
tb_status_t tb_ix_space_check(const void *enc, size_t n, uint64_t *npoints_out);
/* The number of elements of a space form a record holds (checked when the record was made or
 * decoded); UINT64_MAX for none. */
static inline uint64_t
tb_ix_space_npoints(const void *enc)
{
    const uint8_t *b = enc;
    if (!b)
        return UINT64_MAX;
    uint64_t npoints = b[0] == 0 ? 0 : 1;
    for (unsigned i = 0; i < b[1]; i++) {
        uint64_t cur;
        memcpy(&cur, b + 8 + 8 * i, 8);
        npoints *= cur;
    }
    return npoints;
}
/* The element size an encoded datatype of n bytes declares, or 0 (no type has that size) when it
 * is too short to say. */
uint32_t tb_ix_type_nbytes(const void *enc, size_t n);
/* Whether cached bytes are consistent: a valid space whose elements times the type's size make
 * value_nbytes; for a variable-length string or reference sequence type, a valid list (below) of
 * that many. */
bool tb_ix_value_consistent(const void *type_enc, size_t type_nbytes, const void *space_enc, size_t space_nbytes,
                            const void *value, uint64_t value_nbytes);
/* The same, for a space already checked (tb_ix_space_check) to hold npoints elements. */
bool tb_ix_value_fits(const void *type_enc, size_t type_nbytes, uint64_t npoints, const void *value,
                      uint64_t value_nbytes);
/* Whether an H5Tencode form is a variable-length string type. */
bool tb_ix_type_is_vstr(const void *enc, size_t n);
/* The cached value of a variable-length string type: per element, its length (8 bytes, host order;
 * TB_IX_VSTR_NULL for a null pointer) and that many bytes, no NUL among them (what a reader gets
 * through a C string). Whether value holds exactly npoints of them. */
#define TB_IX_VSTR_NULL UINT64_MAX
bool tb_ix_vstr_check(const void *value, uint64_t nbytes, uint64_t npoints);
/* Whether an H5Tencode form is a variable-length sequence of object references (H5T_STD_REF_OBJ:
 * the dimension scales' DIMENSION_LIST, which netCDF-C and h5py read for every variable). */
bool tb_ix_type_is_vref(const void *enc, size_t n);
/* The cached value of such a type: per element, its count of references (8 bytes, host order) and
 * that many 8-byte file addresses (what a read into the same type gives). Whether value holds
 * exactly npoints of them. */
bool tb_ix_vref_check(const void *value, uint64_t nbytes, uint64_t npoints);
/* Whether a type's cached value is not its raw data but one of the two forms above. */
bool tb_ix_type_is_seq_value(const void *enc, size_t n);

/* ---- tables (index_table.c) */
uint32_t tb_ix_hash_name(const char *s, size_t n);
/* The record of the object with this token, or TB_IX_NONE when there is none. */
uint32_t tb_ix_obj_find(const tb_ix_data_t *d, const uint8_t *token);
/* Makes room for `need` elements of `elem_nbytes` in a growing array `arr` of *cap elements,
 * doubling from `first_cap`; the array to use from now on in *arr_out. TB_OK, or TB_ERR_NOMEM
 * with `arr` and *cap unchanged. */
tb_status_t tb_ix_reserve(void *arr, uint32_t *cap, uint64_t need, size_t elem_nbytes, uint32_t first_cap,
                           void **arr_out);
/* A new record for token (insert), or the record found else a new one (get): its index in *k_out.
 * TB_OK, or TB_ERR_NOMEM (the table unchanged). Every query looks its location up with get: the
 * lookup is inlined, the insertion is not. */
tb_status_t tb_ix_obj_insert(tb_ix_data_t *d, const uint8_t *token, uint32_t *k_out);
static inline tb_status_t
tb_ix_obj_get(tb_ix_data_t *d, const uint8_t *token, uint32_t *k_out)
{
    uint32_t k = tb_ix_obj_find(d, token);
    if (k == TB_IX_NONE)
        return tb_ix_obj_insert(d, token, k_out);
    *k_out = k;
    return TB_OK;
}
/* The link of g named name[0..len), or TB_IX_NONE when g has none of that name. */
uint32_t    tb_ix_link_find(const tb_ix_group_t *g, const char *name, size_t len);
tb_status_t tb_ix_group_finish(tb_ix_group_t *g); /* hashes names, builds the lookup table */
/* Appends link l (its name and value copied from where they are) to partial list g, whose
 * records and strings become g's own malloc'd blocks; its index in *k_out. TB_OK, or TB_ERR_NOMEM
 * (g unchanged). */
tb_status_t tb_ix_group_add(tb_ix_group_t *g, const tb_ix_link_t *l, uint32_t *k_out);
/* Whether group object oi's links are all loaded (a whole list, not a partial one). */
static inline bool
tb_ix_group_whole(const tb_ix_data_t *d, uint32_t oi)
{
    return d->objs[oi].group != TB_IX_NONE && !d->groups[d->objs[oi].group].partial;
}
void        tb_ix_group_free(tb_ix_spill_t *s, tb_ix_group_t *g);
void        tb_ix_data_clear(tb_ix_data_t *d);
/* Frees the parts of dataset record x that the index allocated (its owned bits). */
void        tb_ix_dset_parts_free(tb_ix_spill_t *s, tb_ix_dset_t *x);
/* Rebuilds the token hash of the object records: TB_OK, TB_ERR_NOMEM, or TB_ERR_CORRUPT when two
 * records hold one token. */
tb_status_t tb_ix_rehash_objs(tb_ix_data_t *d);

/* ---- sidecar (sidecar_format.c): the persistent form, a pure encoder/decoder of bytes */

/* How much a sidecar holds: what decides whether an existing one already covers an index. */
typedef struct tb_sc_counts {
    uint32_t nobj, ngroup, nlink, nattr, ndset, nninfo;
} tb_sc_counts_t;

/* Checks the header of a sidecar (n bytes of it, at least the header): magic, version, byte order.
 * Fills what is asked: identity, counts, the total size the header declares, and the data file's
 * path when the n bytes hold it (else NULL). TB_ERR_CORRUPT when it is not a sidecar of ours. */
tb_status_t tb_sidecar_peek(const void *buf, size_t n, tb_ix_identity_t *id_out, tb_sc_counts_t *counts_out,
                              uint64_t *total_out, const char **path_out);
/* Validates `n` bytes as a sidecar and, when `d` is not NULL, fills the empty `d` with its
 * objects and groups (strings point into buf, which must then outlive d: d->sc_buf is not set
 * here). Untrusted input: any inconsistency is TB_ERR_CORRUPT / TB_ERR_CHECKSUM, never UB;
 * TB_ERR_NOMEM when it is sound but memory ran out. */
tb_status_t tb_sidecar_decode(const void *buf, size_t n, tb_ix_identity_t *id_out, tb_ix_data_t *d);
/* After a successful decode into d: copies the strings section of the decoded bytes into a block
 * of d's own (d->sc_buf), re-pointing d's strings at it, so that the caller may release the bytes.
 * TB_OK, or TB_ERR_NOMEM (d unchanged, still pointing into the bytes). */
tb_status_t  tb_sidecar_compact(tb_ix_data_t *d);
/* Serialises d (objects with info, attributes or cached content, loaded groups) with identity id
 * and the data file's absolute path, handing the bytes to sink(ctx, bytes, n) in order, in pieces
 * of at most 64 KiB (a sink returns 0, or nonzero to fail the encoding: TB_ERR_IO); the length
 * in *n_out. An encoding longer than max_nbytes hands nothing on: TB_ERR_UNSUPPORTED, its length
 * in *n_out. No buffer of the sidecar's size is made. */
typedef int (*tb_sc_sink_fn)(void *ctx, const void *bytes, size_t n);
tb_status_t tb_sidecar_encode_to(const tb_ix_data_t *d, const tb_ix_identity_t *id, const char *path,
                                 uint64_t max_nbytes, tb_sc_sink_fn sink, void *ctx, size_t *n_out);
/* The same into a malloc'd buffer (TB_ERR_UNSUPPORTED for an encoding longer than max_nbytes). */
tb_status_t tb_sidecar_encode(const tb_ix_data_t *d, const tb_ix_identity_t *id, const char *path,
                                uint64_t max_nbytes, void **buf_out, size_t *n_out);
/* What encoding d would hold, and whether a sidecar holding `have` says at least as much. */
void         tb_sidecar_counts(const tb_ix_data_t *d, tb_sc_counts_t *out);
int          tb_sidecar_covers(const tb_sc_counts_t *have, const tb_sc_counts_t *want);
/* The sidecar's checksum (a 64-bit multiply-xor hash) of n bytes. */
uint64_t     tb_sidecar_checksum(const void *buf, size_t n);

#endif
