/* index.h — the link/object index of the h5turbo connector, as the callbacks see it: the hooks it
 * attaches to objects (life cycle, coherence, lazy objects), and the queries the callbacks ask it
 * to answer from memory (TB_ANSWERED, or TB_FORWARD when they must forward instead). */
#ifndef TB_INDEX_H
#define TB_INDEX_H

#include "tb_obj.h"

#include <stdio.h>

/* The index's duties on objects (tb_obj.h): attach to opened files, make lazy attributes and
 * datasets real, drop what writable files' indexes hold when this process changes links, objects
 * or attributes, stop answering once files are mounted, persist sidecars at the last close. */
extern const tb_hooks_t tb_index_hooks;

/* ---- queries: TB_ANSWERED (the callback's status in *ret_out), or TB_FORWARD */
tb_answer_t tb_index_link_get(tb_obj_t *o, const H5VL_loc_params_t *loc, H5VL_link_get_args_t *args, void **req,
                              herr_t *ret_out);
tb_answer_t tb_index_link_specific(tb_obj_t *o, const H5VL_loc_params_t *loc, H5VL_link_specific_args_t *args,
                                   void **req, herr_t *ret_out);
tb_answer_t tb_index_object_get(tb_obj_t *o, const H5VL_loc_params_t *loc, H5VL_object_get_args_t *args,
                                void **req, herr_t *ret_out);
tb_answer_t tb_index_object_specific(tb_obj_t *o, const H5VL_loc_params_t *loc, H5VL_object_specific_args_t *args,
                                     void **req, herr_t *ret_out);
tb_answer_t tb_index_group_get(tb_obj_t *o, H5VL_group_get_args_t *args, void **req, herr_t *ret_out);
/* H5Oget_native_info, and the header and metadata sizes of the 1.8 info calls and visits (the
 * native optional H5VL_NATIVE_OBJECT_GET_NATIVE_INFO, by self or by a name through groups the
 * index has loaded), in read-only files: TB_ANSWERED from what an earlier forwarded call of the
 * same object reported (kept in its sidecar), or TB_FORWARD. */
tb_answer_t tb_index_native_info(tb_obj_t *o, const H5VL_loc_params_t *loc, H5VL_optional_args_t *args, void **req,
                                 herr_t *ret_out);
/* After such a call succeeded forwarded: what it reported is kept for the object. */
void tb_index_native_info_done(tb_obj_t *o, const H5VL_loc_params_t *loc, const H5VL_optional_args_t *args);
#ifndef H5_NO_DEPRECATED_SYMBOLS
/* H5Gget_objinfo (the 1.8 call; h5py's hash of every object asks it of "."), in read-only files, of
 * "." or a plain name: TB_ANSWERED from the object's info and the header half of its native info
 * (or, for a soft or external link not followed, from the link), or TB_FORWARD. */
tb_answer_t tb_index_objinfo(tb_obj_t *o, H5VL_optional_args_t *args, void **req, herr_t *ret_out);
/* After such a call succeeded forwarded on a real object: the object's info and header half are
 * asked of native and kept, so that the next run's is answered. */
void tb_index_objinfo_done(tb_obj_t *o, const H5VL_optional_args_t *args);
#endif

/* Opening a group, dataset or named datatype of a read-only file (H5Gopen, H5Dopen, H5Topen,
 * H5Oopen: `want` is H5I_GROUP, H5I_DATASET, H5I_DATATYPE or H5I_BADID for any) by any name from
 * any location whose path the index knows, by index (H5Oopen_by_idx) or by token
 * (H5Oopen_by_token, H5Ropen_object): a lazy object (nothing opened below), or NULL to forward. `apl_id` the access property list of the call (anything but a default forwards). */
tb_obj_t *tb_index_open(tb_obj_t *o, const H5VL_loc_params_t *loc, const char *name, H5I_type_t want,
                          hid_t apl_id, H5I_type_t *opened_type_out, hid_t dxpl_id, void **req);
/* H5Dopen with a dataset access list that sets an external-file or virtual-dataset prefix, which
 * native takes from the open's own API context (so no lazy dataset can stand for such an open):
 * 0 when the list sets none (go on with tb_index_open); 1 forward the open (and that dataset is
 * not handed out lazily from now on: native refuses to open an open dataset again under another
 * prefix, and a lazy one is not open below); -1 refused as native would refuse it, with the error
 * on the stack: the name leads to a dataset this open holds lazily. */
int tb_index_dset_open_prefix(tb_obj_t *o, const H5VL_loc_params_t *loc, const char *name, hid_t dapl_id);
/* After a forwarded open that made `w` below with an access list of the application's own
 * (`prefixed`: tb_index_dset_open_prefix's 1): 0 when no lazy handle of this open stands for the
 * same dataset; else w is closed and freed, and as native (which would have held the dataset open)
 * would have: -1 with an error pushed when prefixed (native refuses), or 1 with those handles made
 * real (-1 when that failed): the caller opens again, its list then meeting the open dataset. */
int tb_index_dset_own_apl_opened(tb_obj_t *w, const char *name, bool prefixed);
/* An object of a read-only file was opened (forwarded) from `parent` (`loc`, or `name` for the
 * H5Dopen/H5Gopen/H5Topen forms): it gets the path native records, when the index can tell it
 * (from the file, or from a parent whose path it knows), for H5Iget_name and for the lazy opens
 * made from it; a dataset (`type`) whose path it tells leaves HDF5's metadata cache when it closes,
 * as those it opens by token do. */
void tb_index_obj_opened(void *child, H5I_type_t type, tb_obj_t *parent, const H5VL_loc_params_t *loc,
                         const char *name);
/* An attribute was opened or created on `parent` (at `loc`): it inherits the name H5Iget_name
 * reports when the index opened parent. */
void tb_index_attr_opened(void *attr, const tb_obj_t *parent, const H5VL_loc_params_t *loc);
/* Around a forwarded attribute iteration or object visit of o itself (H5Aiterate2, H5Ovisit3, or
 * their _by_name forms with a name of "." components), which native starts by opening o's object
 * again and registering an ID for the callbacks: that ID's wrapper (the first made in the call)
 * gets the path o holds (a dataset the index opened by token has none below, and native would
 * name the callbacks' object by any of its links). */
void tb_index_callback_location(tb_obj_t *o, const H5VL_loc_params_t *loc);
void tb_index_callback_location_end(void);

/* After a successful H5Fget_access_plist (H5VL_FILE_GET_FAPL) of `file`: a file opened with
 * collective metadata reads whose reads the index made independent reports them collective, as
 * its opens asked. */
void tb_index_fapl_done(const tb_obj_t *file, hid_t fapl_id);

/* ---- the small-attribute cache (index_attr.c), read-only files only */

/* H5Aexists / H5Aexists_by_name: TB_ANSWERED (status in *ret_out), or TB_FORWARD; with *note_out
 * set (not 0), native's answer, once it succeeded, goes to tb_index_attr_exists_done. */
tb_answer_t tb_index_attr_exists(tb_obj_t *o, const H5VL_loc_params_t *loc, H5VL_attr_specific_args_t *args,
                                 void **req, herr_t *ret_out, uint32_t *note_out);
void        tb_index_attr_exists_done(tb_obj_t *o, uint32_t note, const H5VL_attr_specific_args_t *args);
/* H5Aiterate2 / H5Aiterate_by_name of an object whose attribute list the index holds:
 * TB_ANSWERED (the iteration's result in *ret_out), or TB_FORWARD. */
tb_answer_t tb_index_attr_iterate(tb_obj_t *o, const H5VL_loc_params_t *loc, H5VL_attr_specific_args_t *args,
                                  void **req, herr_t *ret_out);
/* A forwarded H5Aiterate2 of a real object whose attributes the index does not list (from the
 * first, by name or creation order): the application's callback is wrapped so that the names and
 * infos native hands it are collected, and an iteration that ran to the end lists them all for
 * the object (each value then comes from its first open: tb_index_attr_forwarded); one the
 * application stopped early has the object's list read. */
typedef struct tb_ix_acollect {
    char       **names;
    H5A_info_t  *infos;
    uint32_t     n, cap;
    tb_status_t  st; /* why the collection was stopped (TB_OK: it was not) */
} tb_ix_acollect_t;
typedef struct tb_ix_attr_watch {
    H5A_operator2_t  op; /* the application's callback and its data */
    void            *op_data;
    uint32_t         obj; /* 1 + the object's record */
    H5_index_t       idx_type;
    H5_iter_order_t  order;
    tb_ix_acollect_t c;
} tb_ix_attr_watch_t;
/* true: args now call the wrapper, and tb_index_attr_watched must follow the forwarded call. */
bool tb_index_attr_watch(tb_obj_t *o, const H5VL_loc_params_t *loc, H5VL_attr_specific_args_t *args,
                         tb_ix_attr_watch_t *w);
void tb_index_attr_watched(tb_obj_t *o, const H5VL_loc_params_t *loc, tb_ix_attr_watch_t *w,
                           H5VL_attr_specific_args_t *args, herr_t ret);
/* H5Aopen / H5Aopen_by_name: TB_ANSWERED with a lazy attribute (under == NULL) of the cache in
 * *out, or with NULL in *out (an attribute the index knows is missing, asked of a lazy object:
 * native's error on the stack); TB_FORWARD, with in *note_out the object (1 + its record; 0: none)
 * whose record of the attribute the forwarded open's handle is to fill (tb_index_attr_forwarded). */
tb_answer_t tb_index_attr_open(tb_obj_t *o, const H5VL_loc_params_t *loc, const char *name, hid_t aapl_id,
                               void **req, tb_obj_t **out, uint32_t *note_out);
/* After a forwarded H5Aopen that succeeded, `a` its handle, `note` what tb_index_attr_open said:
 * the object's record of attribute `name` (a new one in its partial list when the index lists
 * only some of its attributes) takes the attribute's info; when small and of a fixed-size type or
 * of variable-length strings, its datatype, dataspace and value follow from what the application
 * does with the handle: its successful H5Aget_type / H5Aget_space (tb_index_attr_got), its first
 * successful H5Aread (tb_index_attr_read_done: strings only when that read gave them as native
 * gives them to a memory type of the file's character set), or else the handle's close
 * (tb_index_attr_closing, before the close is forwarded; strings are not read there). */
void tb_index_attr_forwarded(tb_obj_t *a, const char *name, uint32_t note);
void tb_index_attr_got(tb_obj_t *a, const H5VL_attr_get_args_t *args);
void tb_index_attr_read_done(tb_obj_t *a, hid_t mem_type_id, const void *buf);
void tb_index_attr_closing(tb_obj_t *a);
/* A forwarded H5Aopen failed (native's error on the stack, kept): when it failed because the
 * object has no such attribute, the index keeps where the object's attributes are stored, which
 * the error names, and lists them all if it did not yet, so that the same failure can be answered
 * from a sidecar. */
void tb_index_attr_missing(tb_obj_t *o, const H5VL_loc_params_t *loc, const char *name);
/* H5Aread and H5Aget_type/space/info/name of a lazy attribute: TB_ANSWERED, or TB_FORWARD when
 * the caller must make it real (tb_enter with TB_USE) and forward. */
tb_answer_t tb_index_attr_read(tb_obj_t *a, hid_t mem_type_id, void *buf, hid_t dxpl_id, herr_t *ret_out);
tb_answer_t tb_index_attr_get(tb_obj_t *a, H5VL_attr_get_args_t *args, herr_t *ret_out);

/* What the wrap class's get_object hands HDF5 for a lazy object without making it real
 * (index_lazy.c), NULL when it must be made real: for an attribute, its file's sentinel; for a
 * group, dataset or named datatype, a real object of the same kind and file, only while HDF5 lists
 * a file's open objects (tb_index_listing(1) ... (0), around H5Fget_obj_count/_ids), which asks
 * an object's native form for nothing but its file. */
void *tb_index_standin(const tb_obj_t *o);
void  tb_index_listing(int on);

/* ---- groups' creation property lists (index_dset.c), read-only files only */

/* After a successful H5Gget_create_plist forwarded for a real group: the list is recorded. */
void tb_index_group_get_done(tb_obj_t *o, const H5VL_group_get_args_t *args);
/* H5Gget_create_plist of a lazy group: TB_ANSWERED (status in *ret_out), or TB_FORWARD. */
tb_answer_t tb_index_group_gcpl(tb_obj_t *o, H5VL_group_get_args_t *args, herr_t *ret_out);

/* ---- datasets (index_dset.c), read-only files only */

/* After a successful read of a real dataset (one dataset, this call's arguments): a whole read
 * with a transfer list that cannot change the result captures the dataset's content, once, if it
 * is small. */
void tb_index_dset_read_done(tb_obj_t *o, hid_t mem_type_id, hid_t mem_space_id, hid_t file_space_id,
                             hid_t dxpl_id, const void *buf);
/* After a successful H5Dget_type/_space/_create_plist/_storage_size/_space_status forwarded for a
 * real dataset: the answer is recorded for the dataset's lazy opens to come. */
void tb_index_dset_get_done(tb_obj_t *o, const H5VL_dataset_get_args_t *args);
/* H5Dread and H5Dget_space/type/create_plist/storage_size/space_status of a lazy dataset:
 * TB_ANSWERED (status in *ret_out), or TB_FORWARD when the caller must make it real (tb_enter
 * with TB_USE) and forward. */
tb_answer_t tb_index_dset_read(tb_obj_t *o, hid_t mem_type_id, hid_t mem_space_id, hid_t file_space_id,
                               hid_t dxpl_id, void *buf, herr_t *ret_out);
tb_answer_t tb_index_dset_get(tb_obj_t *o, H5VL_dataset_get_args_t *args, herr_t *ret_out);

/* ---- named datatypes (index_dset.c), read-only files only */

/* After a successful H5VL_DATATYPE_GET_BINARY forwarded for a real named datatype (what HDF5 asks
 * to build the type when it opens one): the encoding is kept, so that the type's lazy opens to come
 * can be built from it. */
void tb_index_dtype_get_done(tb_obj_t *o, const H5VL_datatype_get_args_t *args);
/* The binary form and its size, asked of a lazy named datatype: TB_ANSWERED (status in *ret_out),
 * or TB_FORWARD when the caller must make it real (tb_enter with TB_USE) and forward. */
tb_answer_t tb_index_dtype_get(tb_obj_t *o, H5VL_datatype_get_args_t *args, herr_t *ret_out);

/* Waits until the sidecars queued for publication (MPI jobs) are written, and stops the thread
 * writing them: at the connector's end, before HDF5 may unload it. */
void tb_index_drain_publications(void);

/* ---- statistics for tests and the benchmark */
typedef struct tb_index_stats {
    size_t answered;      /* queries answered from the index */
    size_t forwarded;     /* queries seen by the index and forwarded */
    size_t groups_loaded; /* groups loaded from the file */
    size_t lookups_left;  /* look-ups of one name in a large group not listed, made by native */
    size_t links_kept;    /* links such look-ups found, kept in their group's partial list */
    size_t partial_hits;  /* names found in a group's partial list */
    size_t absent_kept;   /* attribute names native found missing, kept in their object's partial list */
    size_t absent_hits;   /* questions such a kept name answered (exists: no; open: native's failure) */
    size_t sidecar_loads; /* sidecars accepted */
    size_t sidecar_rejects;
    size_t sidecar_writes;
    size_t sidecar_queued; /* publications handed to the publisher thread (MPI jobs) */
    size_t kept_reused;    /* opens that took the index this process kept from a last close */
    size_t groups_lazy;        /* groups opened from the index */
    size_t groups_materialised; /* lazy groups made real */
    size_t types_lazy;         /* named datatypes opened from the index */
    size_t types_materialised;
    size_t attrs_lazy;        /* attributes opened from the cache */
    size_t attrs_materialised; /* lazy attributes made real */
    size_t dsets_cached;       /* datasets whose content was captured */
    size_t dsets_lazy;         /* datasets opened from the cache */
    size_t dsets_materialised; /* lazy datasets made real */
    size_t dsets_by_token;     /* datasets opened for real by their token, not by name */
    size_t visits_replayed;    /* visits that went on natively from a group the index could not load */
} tb_index_stats_t;
void tb_index_get_stats(tb_index_stats_t *out);
/* One "h5turbo stats: index ..." line: answers, and every sidecar outcome (loads, writes, each
 * kind of rejection and fallback) that happened in this process. */
void tb_index_print_stats(FILE *out);

#endif
