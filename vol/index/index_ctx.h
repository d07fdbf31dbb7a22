/* index_ctx.h — what index.c and index_query.c share beyond the data model: the per-open and
 * per-object state hung on tb_ctx_t / tb_obj_t, and the loaders that fill the tables from the
 * connector below. */
#ifndef TB_INDEX_CTX_H
#define TB_INDEX_CTX_H

#include "index.h"
#include "index_model.h"
#include "tb_h5query.h"
#include <stdlib.h>
#include <string.h>

/* A lazy object's place in its open's list: what must be made real before the file below is
 * closed. */
typedef struct tb_ix_lazy_node {
    struct tb_ix_lazy_node *prev, *next;
    struct tb_index_file   *f;
    tb_obj_t               *owner;    /* the wrapper this is the state of */
    int                     detached; /* left f's list (its file closed and it could not be made real) */
} tb_ix_lazy_node_t;

/* A lazy object (index_lazy.c): a wrapper with nothing open below (under == NULL) that the index
 * opened from what it knows, and that it answers for until something it cannot answer needs the
 * real object (tb_index_materialise: groups, datasets and named datatypes are opened by token
 * from the file, attributes by replaying the application's open). One kind of state for all. */
typedef struct tb_ix_lazy {
    tb_ix_lazy_node_t node;  /* (first) in its open's list */
    H5I_type_t        kind;  /* H5I_ATTR, H5I_GROUP, H5I_DATASET or H5I_DATATYPE */
    uint32_t          obj;   /* its object record (an attribute's: its object's) */
    /* Groups and datasets opened with an access list other than the default: a copy taken at the
     * open (what native keeps), which the real object is opened with; else H5I_INVALID_HID. */
    hid_t apl;
    hid_t             space; /* datasets: their dataspace, built once to compare selections with */
    /* Attributes (index_attr.c) carry their own copy of what they answer and of how the
     * application opened them (the bytes follow the struct: attribute records can move). */
    const char *name;
    int         loc_is_file;
    const char *loc_path; /* the location's path ("/" for the file) */
    const char *rel_name; /* the name from the location (H5Aopen_by_name), or NULL (H5Aopen) */
    const void *type_enc, *space_enc, *value;
    size_t      type_nbytes, space_nbytes, value_nbytes;
    H5A_info_t  ainfo;
    bool        pooled; /* from index_lazy.c's pool (nothing follows the struct) */
} tb_ix_lazy_t;

#define TB_IX_EVICTED 32

/* One open of a file (ctx->index). */
struct tb_index_file {
    tb_ix_data_t *d;
    unsigned long  fileno; /* of this open's shared file: how objects of this file are recognised */
    int            debug;
    /* The file object below, while the application holds this open's file: what lazy attributes
     * and datasets open their real object through. Every lazy object of this open is made real
     * before that file is closed, and none is handed out after (NULL). */
    void               *file_under;
    /* The last TB_IX_EVICTED objects whose header left HDF5's cache when a handle of them closed
     * (evict_closed): token, and whether one was closed again since (it stays in the cache until
     * it leaves this ring); the next replaced is at `evicted_at`. An all-zero token (no object's)
     * is an empty slot. */
    struct {
        uint8_t token[TB_IX_TOKEN_NBYTES];
        bool    kept;
    } evicted[TB_IX_EVICTED];
    uint32_t evicted_at;
    tb_ix_lazy_node_t *lazies; /* this open's lazy attributes and datasets */
    /* One real attribute of this file, opened below with the first lazy one and closed with the
     * file: what HDF5 gets when it asks for the native object of a lazy attribute. It only ever
     * does so to tell which file an attribute ID belongs to (H5Fget_obj_count/ids, and native's
     * own search for an already open attribute before opening one, which then finds this
     * attribute only if it is the one being opened). */
    void *sentinel;
    /* A real group, dataset and named datatype of this file, each opened when HDF5 first asks
     * for the native form of a lazy one of that kind only to learn its file: what it then gets
     * (tb_index_standin; index_lazy.c says when, and how long they stay open). */
    void                  *standins[3];
    hid_t                  standin_vol;  /* the connector below them */
    struct tb_index_file *standin_next; /* the listing's other files with dataset or datatype ones open */
    /* Whether native has converted a variable-length string of this open for a read (the first
     * such read of a cached attribute is forwarded: index_attr.c says why). */
    bool vstr_converted;
    /* The file's chunk cache (H5Pget_cache of its access list), what a chunked dataset opened
     * with the default access list takes: asked once (index_dset.c's lazy H5Dget_access_plist). */
    int    rdcc_known; /* 0 not asked yet, 1 known, -1 could not be asked */
    size_t rdcc_nslots, rdcc_nbytes;
    double rdcc_w0;
};

/* Objects whose headers the index read for itself (their records marked evict_later), left in
 * HDF5's cache for a while instead of leaving at once:
 * - a visit's (`reports`): the members' headers it read as it reached them, until it has
 *   reported each member. The callback of h5py's visititems opens every object it is given,
 *   which read each header a second time when it had left at once.
 * - a handle's (tb_index_obj.later): what queries through an open group, dataset or named
 *   datatype read, until the application closes that handle. Mantid's descriptor asks each
 *   member's type by index (which loads every member's info) and then opens the member groups
 *   and reads their NX_class; napi5 asks H5Oget_info_by_name1 of each entry, then opens it. Stock
 *   reads each header once for both, from its cache; under the index each was read twice.
 * At most TB_IX_LATER in a list: past that, the oldest leaves, so that a group of more members
 * does not hold all their headers (4,096 of a few hundred bytes to a few KiB each, within
 * HDF5's default cache bound of 32 MiB; HDF5's own cache bound still applies). */
#define TB_IX_LATER 4096
typedef struct tb_ix_later {
    uint32_t *obj; /* (grown as needed, up to TB_IX_LATER) */
    uint32_t  n, cap, oldest;
    bool      reports;
} tb_ix_later_t;

/* Per wrapper (o->idx): which file object it is, learned once. */
enum { TB_IXO_UNKNOWN = 0, TB_IXO_MINE, TB_IXO_FOREIGN };
struct tb_index_obj {
    int     state;
    uint8_t token[TB_IX_TOKEN_NBYTES];
    /* The path native HDF5 would have recorded for an object the index opened by token (and
     * for attributes opened from it): what H5Iget_name must return. NULL otherwise. */
    char *path;
    /* A lazy object: opened from the index, nothing open below yet. */
    tb_ix_lazy_t *lazy;
    /* A dataset whose reads through this handle need no look for a capture any more: its content
     * is settled (cached, or not cacheable), or it has more elements than a cached content can
     * hold (index_dset.c). */
    bool no_capture;
    /* An attribute opened for real whose record waits for its value (index_attr.c). */
    struct tb_ix_pending *pending;
    /* A dataset opened by token, or a dataset or group opened by name and recognised, where
     * tb_ix_can_evict holds: its metadata leaves HDF5's cache when it closes. */
    bool evict;
    /* Opened by token (H5Rdereference, H5Oopen_by_token): native records no path for it and names
     * it by searching the file (index_query.c's name_by_search). */
    bool nameless;
    /* A real dataset's or group's object record + 1 once its dataset record exists (index_dset.c):
     * what its next gets look at first, to record nothing known already. */
    uint32_t dset_obj;
    /* Its own object record + 1, once found (tb_ix_self_rec). */
    uint32_t rec;
    /* What queries through this handle read, waiting until it closes (tb_ix_later_t). */
    tb_ix_later_t later;
};

/* Something in the file to make by-token calls against (the query's location object). */
typedef struct tb_ix_anchor {
    void      *under;
    hid_t      vol;
    H5I_type_t type;
    /* The native file below, where what the index opens for itself may leave HDF5's metadata
     * cache afterwards (tb_ix_evict_unused); NULL where it may not. */
    void *evict_file;
    /* With evict_file, where the headers the index reads for itself wait instead of leaving at
     * once (a visit's, or the handle's the query was made on), or NULL. */
    tb_ix_later_t *later;
    /* The token of the group `under` is, when it is a group the index knows (NULL otherwise):
     * listing that group's links then iterates the application's open group, not a copy opened
     * by token. */
    const uint8_t *group_token;
} tb_ix_anchor_t;

/* The index's hooks (tb_index_hooks), spread over index.c, index_attr.c and index_dset.c. */
void tb_index_file_opened(tb_obj_t *file, const char *name, unsigned flags, hid_t fapl_id, int created);
void tb_index_file_closing(tb_obj_t *file); /* lazy objects of this open become real first */
/* The materialise hook: a lazy attribute or dataset becomes real (0; 0 too for anything else),
 * or -1 with the error on the stack, as tb_hooks_t asks. */
int tb_index_materialise(tb_obj_t *o);
/* A lazy attribute made real by replaying its open (index_attr.c): TB_OK, or TB_ERR_HDF5 with the
 * error on the stack. */
tb_status_t tb_index_attr_materialise(tb_obj_t *o);
void tb_index_obj_release(tb_obj_t *o);
void tb_index_ctx_release(tb_ctx_t *ctx);
void tb_index_obj_wrapped(tb_obj_t *w); /* index_query.c: a callback object gets its path */

/* The application closes an open of a read-only file: if what HDF5 reads changed since it was
 * opened (a rewrite in place), no sidecar is written for it. */
void tb_ix_check_unchanged(struct tb_index_file *f, tb_obj_t *file);

/* A finished index (out of the registry): its sidecar published if it learned something, then
 * its memory freed (index.c; any thread). */
void tb_ix_data_finish(tb_ix_data_t *d);

/* index_publish.c: sidecars published off the application's thread in MPI jobs. Whether the
 * process is one (an MPI library of a known family is mapped); d queued for the publisher thread
 * (tb_ix_data_finish there; here when no thread can be started); waiting until no publication of
 * the file (dev, ino) is queued or running; and waiting for all, the thread then stopped (at the
 * connector's end, before HDF5 unloads it, and before statistics are read). */
bool tb_ix_publish_in_background(void);
void tb_ix_publish_queue(tb_ix_data_t *d);
void tb_ix_publish_wait_for(uint64_t dev, uint64_t ino);
void tb_ix_publish_drain(void);

/* index_mpi.c. The family of the MPI library the process has mapped ("openmpi": OpenMPI's
 * defines ompi_mpi_comm_world; "mpich": MPICH's MPIR_Init_thread), or NULL: not an MPI job. */
const char *tb_ix_mpi_family(void);

/* index.c. A file on an MPI driver, read-only, is closing: whether the program walked it
 * (tb_mpi_asked) decides rank 0's build of the job's next file (index_mpi_build=auto). */
void tb_ix_mpi_closing(const tb_obj_t *file);

/* What rank 0 reads (or makes) for tb_ix_mpi_sidecar, for nranks ranks: TB_OK with the bytes
 * (malloc'd), or a miss. */
typedef tb_status_t (*tb_ix_mpi_load_fn)(void *arg, int nranks, void **buf_out, size_t *n_out);
/* The sidecar step of a read-only open on an MPI-IO driver: rank 0 of the ranks that opened the
 * file loads its sidecar (load(arg, nranks): or builds the index) and broadcasts the bytes; every
 * rank gets them in *buf_out (malloc'd; none: NULL and 0), and its rank among them in *rank_out (-1 without the add-on). A
 * collective of those ranks: each one calls it, whatever it found.
 * TB_OK; TB_ERR_UNSUPPORTED when there is no MPI add-on or communicator (on every rank alike: the
 * caller reads the sidecar itself); TB_ERR_IO or TB_ERR_NOMEM: nothing for this rank (a miss).
 * *n_out is the length rank 0 broadcast, the same on every rank, once that broadcast succeeded
 * (also with TB_ERR_NOMEM: a rank short of memory for the bytes still knows there were some). */
tb_status_t tb_ix_mpi_sidecar(void *file_under, hid_t vol, bool debug, tb_ix_mpi_load_fn load, void *arg,
                              void **buf_out, size_t *n_out, int *rank_out);

/* The data of o's file, in *d_out, when the index may answer for o (o is in that file), and o's
 * own token in token_out: TB_OK; TB_ERR_UNSUPPORTED when it may not (no index, not one of its
 * objects, an iteration is walking the tables), TB_ERR_NOMEM. Drops stale data of writable files
 * first. */
tb_status_t tb_ix_for(tb_obj_t *o, H5I_type_t obj_type, uint8_t *token_out, tb_ix_data_t **d_out);

/* Record t was opened natively as `type` just now, with success: a dataset is marked so
 * (tb_ix_obj_t.opened: a later run may hand it out lazily). The mark alone does not make d dirty:
 * a publication checks only whether the sidecar there has as many records (tb_sidecar_covers), so
 * it would read and validate that sidecar at every last close to write nothing; the mark goes out
 * with whatever else d learns. */
static inline void
tb_ix_obj_opened(tb_ix_data_t *d, uint32_t t, H5I_type_t type)
{
    tb_ix_obj_t *r = &d->objs[t];
    if (type == H5I_DATASET && r->has_info && r->type == H5O_TYPE_DATASET)
        r->opened = 1;
}

/* The file address a native token holds (its first 8 bytes, little-endian). */
static inline uint64_t
tb_ix_token_addr(const uint8_t *token)
{
    uint64_t addr = 0;
    for (int i = 7; i >= 0; i--)
        addr = addr << 8 | token[i];
    return addr;
}
/* o's own object record in d (tok: o's token, from tb_ix_for), found or entered as tb_ix_obj_get
 * does, in *oi_out: the record is remembered in o's state, so that o's next queries skip the
 * token lookup (a probe of a table the size of the file's objects, a cache miss or two in a large
 * one). Checked against the token at every use: a record dropped with stale data is looked up
 * again. */
tb_status_t tb_ix_self_rec(tb_obj_t *o, tb_ix_data_t *d, const uint8_t *tok, uint32_t *oi_out);


/* Makes sure the links of group object `oi` are loaded, all of them (a partial list is listed
 * whole in its place; under_grp: the group already opened below, or NULL to open it by token
 * through `a`). With want_info, also the object info of every hard-link target. TB_OK, or why it
 * cannot (TB_ERR_HDF5, TB_ERR_NOMEM, TB_ERR_UNSUPPORTED: not a group, or one the records cannot
 * hold); the caller forwards. Errors below are cleared. */
tb_status_t tb_ix_load_group(tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t oi, void *under_grp,
                             bool want_info);
/* Group object oi open below, to list or look up its links: the application's own open group
 * when the anchor is it, else opened by token (*opened_out set: the caller closes it with
 * tb_ix_close_under). NULL when it cannot be: TB_ERR_HDF5 (error on the stack), or
 * TB_ERR_UNSUPPORTED (not a group: native errs, the caller forwards) in *st_out. */
void *tb_ix_group_below(tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t oi, bool *opened_out,
                        tb_status_t *st_out);
/* Whether the index holds object oi's info, and the halves want_ninfo (TB_IX_NI_*, or 0) of its
 * native info. */
bool tb_ix_member_known(const tb_ix_data_t *d, uint32_t oi, unsigned want_ninfo);
/* Link k of loaded group gi: its target's info and the halves want_ninfo of its native info, asked
 * by name through grp (the group open below) when the index lacks them (nothing for a soft or
 * external link). The target's header then leaves HDF5's cache through the anchor
 * (tb_ix_evict_read), a group's excepted: it is read again soon, to list its links. TB_OK, or the
 * status of the question that failed (its error on the stack). */
tb_status_t tb_ix_child_info(tb_ix_data_t *d, uint32_t gi, uint32_t k, void *grp, const tb_ix_anchor_t *a,
                             unsigned want_ninfo);
/* What the index read for itself of object oi (through anchor a) leaves HDF5's cache: now, or,
 * with a list (a->later), once the visit has reported it or the handle closes. */
void tb_ix_evict_read(tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t oi);
/* Object oi's header leaves HDF5's cache now if a list left it there (evict_later), as
 * tb_ix_evict_unused does; every such header of `l`, with tb_ix_later_flush (which also frees
 * the list's memory). */
void tb_ix_evict_later(tb_ix_data_t *d, void *evict_file, uint32_t oi);
void tb_ix_later_flush(tb_ix_data_t *d, void *evict_file, tb_ix_later_t *l);
/* Keeps the halves `have` (TB_IX_NI_*) of object oi's native info from *ni (out of memory: not
 * kept). */
void tb_ix_keep_native_info(tb_ix_data_t *d, uint32_t oi, unsigned have, const H5O_native_info_t *ni);
/* Makes sure the index holds the halves `have` of object oi's native info, asked of native at loc
 * through `under` when it does not: TB_OK, or TB_ERR_HDF5 (error on the stack). */
tb_status_t tb_ix_ask_native_info(tb_ix_data_t *d, uint32_t oi, void *under, const H5VL_loc_params_t *loc, hid_t vol,
                                  unsigned have);
/* The halves (TB_IX_NI_*) that native-info fields (H5O_NATIVE_INFO_*) name. */
static inline unsigned
tb_ix_ni_halves(unsigned fields)
{
    return ((fields & H5O_NATIVE_INFO_HDR) ? TB_IX_NI_HDR : 0u) |
           ((fields & H5O_NATIVE_INFO_META_SIZE) ? TB_IX_NI_META : 0u);
}
/* Link `name` (len bytes, no NUL) of group object `oi`, its index in the group's record in *k_out
 * (TB_IX_NONE: the group has no such link): TB_OK; TB_ERR_UNSUPPORTED when the index cannot tell
 * (the caller forwards: no anchor `a` to ask through, and the group not listed whole nor the name
 * in its partial list; a file open for writing); a failed load's status. A group is listed at
 * the first look-up in it when it has at most TB_IX_LOOKUP_FIRST links, and at the
 * TB_IX_LOOKUP_PROBE-th look-up, twice that, four times, ... when it has at most TB_IX_LOOKUP_LIST
 * links a look-up made by then, or at most TB_IX_LOOKUP_FIRST. Each try is an iteration stopped
 * past the limit, which costs what listing that many links costs, where counting a symbol-table
 * group's links would read its whole B-tree; a compact or dense group, whose count is cheap, is
 * counted first and not read when larger. So where the file's groups so far were all symbol
 * tables the limits are the _STAB ones: a first try of 64 links cost a program reading ten
 * entries of a 20,000-link group 2 % of its first run, and tries at 4 links a look-up one looking
 * up 200 names 3 % (wide_group.py, earliest format: 0.938x and 0.925x of stock's instructions
 * against 0.955x and 0.962x now; a 40-link group is listed at the 32nd look-up then, ten of its
 * entries 0.952x against 0.958x). Between tries native looks the name up (H5Lget_info, H5Lexists
 * when it fails; H5Lexists first under an H5Lexists, tb_ix_data_t's exists_first), and the link it
 * finds, or that there is none, is kept in the group's partial list, which the sidecar keeps: a
 * second run finds it there without listing anything. Before, any look-up listed the whole
 * group: a program reading ten entries of a 20,000-link group ran at 0.11x of stock on a first
 * open (all 20,000 listed) and 0.37x on a second (all loaded from the sidecar). Whole-list
 * queries (iterations, counts, by-index) list a group at once. */
tb_status_t tb_ix_lookup_link(tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t oi, const char *name, size_t len,
                              uint32_t *k_out);
/* The info of the target of link k in group object oi's partial list, asked below by its name:
 * TB_OK, or why not (errors cleared; the caller forwards). */
tb_status_t tb_ix_member_info(tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t oi, uint32_t k);
#define TB_IX_LOOKUP_FIRST 64
#define TB_IX_LOOKUP_FIRST_STAB 16
#define TB_IX_LOOKUP_LIST_STAB 1
#define TB_IX_LOOKUP_LIST 4
#define TB_IX_LOOKUP_PROBE 32
/* Object record `oi`'s info, asked below (H5Oget_info with every field) of the object at `loc`
 * from `under` (connector vol) and kept: TB_OK; TB_ERR_HDF5 (the error on the stack); or
 * TB_ERR_UNSUPPORTED when the record cannot hold it (more than 2^32-1 attributes; the caller
 * forwards). */
tb_status_t tb_ix_ask_info(tb_ix_data_t *d, uint32_t oi, void *under, const H5VL_loc_params_t *loc, hid_t vol);

/* o's per-wrapper state, created zeroed on first need (NULL when out of memory). */
struct tb_index_obj *tb_ix_obj_state(tb_obj_t *o);

/* For the attribute cache (index_query.c): the object a BY_SELF or BY_NAME location names, in the
 * index of a read-only file, in *t_out, and (path_out not NULL) the path native records for it,
 * malloc'd. TB_OK, or why the index cannot tell (the caller forwards). */
tb_status_t tb_ix_locate(tb_obj_t *o, const H5VL_loc_params_t *loc, void **req, tb_ix_data_t **d_out,
                         tb_ix_anchor_t *a_out, uint32_t *t_out, char **path_out);
/* An ID for record t of d, as native iterations hand the object they iterate to their callbacks:
 * a lazy group or dataset (nothing opened below) with `path` (taken) for H5Iget_name, or
 * H5I_INVALID_HID when the record cannot be one (the caller forwards). Released with
 * tb_ix_callback_close (status: the iteration's; a failure's error stack survives the close). */
hid_t tb_ix_callback_id(tb_obj_t *o, const tb_ix_data_t *d, uint32_t t, char *path);
void  tb_ix_callback_close(hid_t id, herr_t status);
/* Native's path for `name` looked up from an object whose path is `base` ("." components and
 * repeated slashes skipped; absolute names from "/"), malloc'd in *path_out: TB_OK;
 * TB_ERR_UNSUPPORTED when it cannot be told (a relative name and no base), TB_ERR_NOMEM. */
tb_status_t tb_ix_join_path(const char *base, const char *name, char **path_out);
/* A name of the index's (n bytes) as a callback gets it: a copy the callback's own calls cannot
 * free (caching an attribute's value replaces its record's block, name and all), in the caller's
 * `buf` of TB_IX_CB_NAME_BUF bytes or in *heap (freed by the caller; NULL when out of memory).
 * Native's names live through the callback. */
#define TB_IX_CB_NAME_BUF 256
static inline const char *
tb_ix_cb_name(const char *name, size_t n, char *buf, char **heap)
{
    char *to = n < TB_IX_CB_NAME_BUF ? buf : (*heap = malloc(n + 1));
    if (to) {
        memcpy(to, name, n);
        to[n] = '\0';
    }
    return to;
}
/* A forwarded open of `name` from parent (of type loc_type, whose path is base) made `child`: when
 * the index can tell, from groups it has loaded and without reading anything, that the name leads
 * there through hard links only, child learns which object it is and the path native records for
 * it (what H5Iget_name reports, and where relative opens from it start). Otherwise nothing is
 * recorded (a soft or external link records another path natively). A child of `type` dataset
 * so recognised leaves HDF5's metadata cache when it closes. */
void tb_ix_learn_opened(tb_obj_t *child, H5I_type_t type, tb_obj_t *parent, H5I_type_t loc_type, const char *base,
                        const char *name);
/* Loads the attributes of object oi (opened by token through a). TB_OK, or why not (caller
 * forwards); errors below are cleared. */
tb_status_t tb_ix_load_attrs(tb_ix_data_t *d, const tb_ix_anchor_t *a, uint32_t oi);
/* Enters a new lazy object of owner in f's list, takes it out again (unless detached). */
void tb_ix_lazy_enlist(struct tb_index_file *f, tb_ix_lazy_node_t *n, tb_obj_t *owner);
void tb_ix_lazy_delist(tb_ix_lazy_node_t *n);
/* Opens the object of `token` below, by token from loc_obj (of type loc_type); its type in
 * *type_out. NULL on failure (error on the stack). */
void *tb_ix_open_by_token(void *loc_obj, H5I_type_t loc_type, hid_t vol, const uint8_t *token,
                           H5I_type_t *type_out, hid_t dxpl_id);
/* Frees a lazy object's state (from tb_index_obj_release). */
void tb_ix_lazy_free(tb_ix_lazy_t *lz);
/* Whether values of type t (described by td: tb_h5t_describe) are plain bytes that a read with t itself
 * returns unchanged, and that H5Tencode describes completely: no variable-length data, no
 * references, no committed type. */
bool tb_ix_type_cacheable(hid_t t, const tb_h5t_desc_t *td);
/* Converts nbytes of cached values of type ft into buf as mem_type_id, the way a native read
 * would: TB_OK; TB_ERR_UNSUPPORTED when that needs what the cache cannot do (background buffer,
 * vlen), TB_ERR_NOMEM, TB_ERR_HDF5 (the caller clears the stack and forwards). */
tb_status_t tb_ix_convert_out(hid_t ft, hid_t mem_type_id, const void *value, size_t nbytes, void *buf,
                              hid_t dxpl_id);
/* Whether datasets opened by token can leave HDF5's metadata cache when they close (HDF5's
 * internal eviction is there, and the file is not MPI-IO's). */
bool tb_ix_can_evict(const tb_ctx_t *ctx);

/* The object at `token` was opened and closed again by the index for itself (to list its
 * attributes or links, or to read its info): its header and what HDF5 tagged with it leave the
 * metadata cache, unless `file` is NULL or some handle still has the object open. */
void tb_ix_evict_unused(void *file, const uint8_t *token);
/* The objects evict_closed kept in HDF5's cache for this open of the file (closed again while in
 * its ring) leave it: the application is closing the file (a kept file's cache must not carry
 * them into the next open: file_kept.c empties a cache found half full there). */
void tb_ix_evict_kept(struct tb_index_file *f);
/* Whether native has the object at `token` open in `file` (a handle's shared state, which a new
 * open of it shares); true when that cannot be told. */
bool tb_ix_open_below(void *file, const uint8_t *token);
/* Whether a name has no component but "." ones (and slashes): the walk from a location by it
 * ends where it started (resolve's self). */
bool tb_ix_names_self(const char *name);
/* Closes an object opened below by H5VLobject_open. */
void tb_ix_close_under(void *obj, H5I_type_t type, hid_t vol);

/* Datatypes and dataspaces of the caches (index_types.c). A type ID for an encoded datatype, shared
 * (never close it, copy it to hand it out), or H5I_INVALID_HID. */
hid_t  tb_ix_type_get(const void *enc, size_t n);
/* What H5Dget_type/H5Aget_type return for a cached type: a copy, read-only like native's. */
hid_t  tb_ix_type_copy_rdonly(hid_t ft);
/* An entry of the shared type table: its encoding (copy it: the table goes at library close), its
 * ID (tb_ix_type_get's) and the library's object behind that (tb_h5t_desc_t's obj, or NULL). */
typedef struct tb_ix_type_ref {
    const void *enc;
    size_t      n;
    hid_t       id;
    const void *obj;
} tb_ix_type_ref_t;
/* The table's entry of type t, described by td (tb_h5t_describe(t)) into *out (untouched on
 * failure): TB_OK, or TB_ERR_HDF5, TB_ERR_NOMEM, TB_ERR_UNSUPPORTED (the table is full, or t is a
 * sequence but of object references), or TB_ERR_CORRUPT (a type whose values no cache keeps: the
 * table holds none).
 * A sequence is found by its bytes (H5Tequal of a file's and a decoded one compares where a
 * reference lives). */
tb_status_t tb_ix_type_encode(hid_t t, const tb_h5t_desc_t *td, tb_ix_type_ref_t *out);
/* Whether t encodes to the form of H5Tvlen_create(H5T_STD_REF_OBJ) (tb_ix_type_is_vref). */
bool tb_ix_type_encodes_vref(hid_t t);
/* Whether type t (a dataset's, not committed) equals `mem`, one of HDF5's predefined integer or
 * floating-point types (what reads name), with the table's encoding of it (as tb_ix_type_encode
 * would give for t): a look-up and an H5Tequal instead of a walk of the table. */
bool tb_ix_type_as_predef(hid_t t, hid_t mem, const void **enc_out, size_t *n_out);
/* Notes that t, a type native handed the application read-only (its H5Aget_type), is of the entry
 * whose encoding tb_ix_type_encode gave as t's (enc). */
void tb_ix_type_note_rdonly(hid_t t, const void *enc);
/* Whether mem reads as ft, a type of the table (tb_ix_type_get), without asking HDF5: the table's
 * entry for predefined type mem, or one of the last read-only types handed out as ft's (copies of
 * ft, or noted). true proves them equal (H5Tequal; sequences, which the table finds by their
 * bytes: of the same encoding); false says nothing. */
bool tb_ix_type_is_copy(hid_t ft, hid_t mem);
/* The caches' form of dataspace s into buf (TB_IX_SPACE_NBYTES(TB_IX_SPACE_MAXRANK) bytes), its
 * length in *nbytes_out: TB_OK, TB_ERR_UNSUPPORTED (a rank or class it has no form for, or a
 * message version it cannot build back), or TB_ERR_HDF5. The dataspace message version is found
 * out by encoding s (H5Sencode2, a few thousand instructions) unless the caller knows it is 1
 * (version1). */
tb_status_t tb_ix_space_encode(hid_t s, bool version1, uint8_t *buf, size_t *nbytes_out);
/* A new dataspace from a checked encoding (the caller closes it). */
hid_t  tb_ix_space_make(const void *enc);

/* Lazy objects (index_lazy.c). A lazy group, dataset or named datatype (kind) for object record t
 * of o's file, which takes `path` (what H5Iget_name reports) and `apl` (a copy of the open's access
 * list, or H5I_INVALID_HID for the default): the new wrapper, or NULL (path and apl untouched)
 * when the index cannot hand one out (no file below, out of memory). */
tb_obj_t *tb_ix_lazy_open(tb_obj_t *o, tb_ix_data_t *d, uint32_t t, H5I_type_t kind, char *path, hid_t apl);
/* A lazy object's state for wrapper w (attributes add their own parts): NULL when out of memory. */
tb_ix_lazy_t *tb_ix_lazy_new(struct tb_index_file *f, tb_obj_t *w, H5I_type_t kind, uint32_t obj, size_t extra);
/* The lazy state of o when it is a lazy object of that kind, else NULL. */
static inline tb_ix_lazy_t *
tb_ix_lazy_of(const tb_obj_t *o, H5I_type_t kind)
{
    return o->idx && o->idx->lazy && o->idx->lazy->kind == kind ? o->idx->lazy : NULL;
}

/* The next time HDF5 asks for the native form of a lazy group of d's file (before anything else
 * is asked of a lazy group), only its file is wanted (tb_index_standin); NULL: no longer. */
void tb_ix_permit(const tb_ix_data_t *d);
/* The next stand-in asked for (tb_index_standin) may be lazy group o's (NULL: none): the adapters
 * of H5Oget_info1 and of its by-name and by-index forms ask for o's native form right after the
 * object info the index answered at o, only to turn that info's token into an address. */
void tb_ix_permit_obj(const tb_obj_t *o);
/* Closes f's dataset and datatype stand-ins, if open (index_lazy.c says when). */
void tb_ix_standins_release(struct tb_index_file *f);

/* An attribute handle's record waiting for its value (index_attr.c); back to its pool. */
typedef struct tb_ix_pending tb_ix_pending_t;
void tb_ix_pending_free(tb_ix_pending_t *p);

/* Variable-length strings (index_attr.c), cached as tb_ix_vstr_check says. The strings ptrs
 * points to encoded at *blob + at (realloc'd): their length, or 0 when above max (or out of memory). */
size_t tb_ix_vstr_encode(char *const *ptrs, size_t npoints, size_t max, uint8_t **blob, size_t at);
/* Whether a read into mem_type_id of strings of file type ft is one the cache answers. */
bool tb_ix_vstr_mem_ok(hid_t ft, hid_t mem_type_id, hid_t dxpl_id);
/* A whole read of cached strings into buf, as native's: TB_OK, or (TB_ERR_UNSUPPORTED) native's
 * to make (another memory type; or the open's first such read: index_attr.c says why). */
tb_status_t tb_ix_vstr_read(struct tb_index_file *f, hid_t ft, hid_t mem_type_id, hid_t dxpl_id, const void *value,
                            size_t nbytes, void *buf);

/* Dataset records (index_dset.c): object oi's, created empty on first need: TB_OK, TB_ERR_NOMEM,
 * TB_ERR_UNSUPPORTED (no room in the index_data budget). */
tb_status_t tb_ix_dset_record(tb_ix_data_t *d, uint32_t oi, size_t budget, tb_ix_dset_t **x_out);

/* Counters (index.c) */
extern tb_index_stats_t tb_ix_stats;

#endif
