/* tb_callbacks.h — what the connector's callback files share: its identity, its info (the
 * connector string, parsed), the per-subclass tables the class is assembled from, and the wrap
 * class's pool counters. Only vol/callbacks includes it. */
#ifndef TB_CALLBACKS_H
#define TB_CALLBACKS_H

#include "tb_obj.h"

#include <h5turbo.h> /* the connector's name, value and version (public) */

/* Connector info, as parsed from "under_vol=0;under_info={};threads=8". */
typedef struct tb_info {
    hid_t       under_vol_id;   /* holds one reference */
    void       *under_vol_info; /* owned; freed with the under connector's info class */
    tb_config_t cfg;
} tb_info_t;

/* Wrap context handed to HDF5 for wrapping objects it creates on our behalf (wrap.c). */
typedef struct tb_wrap_ctx {
    tb_ctx_t *ctx;
    void     *under_wrap_ctx;
} tb_wrap_ctx_t;

/* ---- info (info.c) */
extern const H5VL_info_class_t tb_info_cls;
/* Our info from a FAPL; when the FAPL carries none (HDF5_VOL_CONNECTOR="h5turbo", or HDF5
 * probing plugins) the default: native underneath, configuration from the environment. */
tb_info_t *tb_info_from_fapl(hid_t fapl_id);
void       tb_info_release(tb_info_t *info);
/* The access list to hand the connector below: fapl_id naming the under connector, a copy of it,
 * or (mpi: its driver does MPI I/O, where a copy would duplicate the communicator) fapl_id itself
 * changed until tb_under_fapl_end puts our connector back; or, native below (called directly or
 * by its ID: nothing picks it from the list), fapl_id as it is (info.c). */
typedef struct tb_under_fapl {
    hid_t fapl_id;    /* the list for the connector below */
    hid_t our_vol_id; /* >= 0: fapl_id is the caller's own, changed in place; our ID to restore */
    void *our_info;   /* the info it held (may be NULL), restored with our ID */
    bool  borrowed;   /* fapl_id is the caller's own, unchanged */
} tb_under_fapl_t;
int tb_under_fapl_begin(hid_t fapl_id, const tb_info_t *info, bool mpi, tb_under_fapl_t *u_out);
int tb_under_fapl_end(tb_under_fapl_t *u);

/* ---- the subclasses (one file each) */
extern const H5VL_wrap_class_t       tb_wrap_cls;
extern const H5VL_attr_class_t       tb_attr_cls;
extern const H5VL_dataset_class_t    tb_dataset_cls;
extern const H5VL_datatype_class_t   tb_datatype_cls;
extern const H5VL_file_class_t       tb_file_cls;
extern const H5VL_group_class_t      tb_group_cls;
extern const H5VL_link_class_t       tb_link_cls;
extern const H5VL_object_class_t     tb_object_cls;
extern const H5VL_introspect_class_t tb_introspect_cls;
extern const H5VL_request_class_t    tb_request_cls;
extern const H5VL_blob_class_t       tb_blob_cls;
extern const H5VL_token_class_t      tb_token_cls;
herr_t tb_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req);

extern H5VL_class_t tb_vol_class; /* assembled in connector.c */

/* The wrap class's pool of wrap contexts (wrap.c), for H5TURBO_STATS. */
void tb_wrap_stats(size_t *malloc_out, size_t *reused_out, size_t *live_out);

/* Read-only files kept open below after the application closed them (file_kept.c). Before an open
 * or create of `name` (or a delete: create 1): the kept files it would conflict with are closed
 * below; returns the entry an open may share (the unchanged file opened read-only with an equal
 * access list), or -1. After that open: `under` as it is, or NULL with *retry set where the open
 * is to be made again (it failed with the file kept, or a lock it must take is taken); with
 * `under`, the shared entry's access list in *fapl_out (else H5I_INVALID_HID), the caller's. */
int   tb_kept_before(const char *name, unsigned flags, int create, hid_t fapl_id, hid_t vol);
void *tb_kept_after(int share, void *under, hid_t vol, bool *retry, hid_t *fapl_out);
/* After a synchronous open (not a create) of file: one that may be kept at its close (read-only,
 * not MPI, native below, the option on) of a file closed before keeps its access list in
 * ctx->keep_fapl: `kept_fapl` (tb_kept_after's, equal to the open's) or a copy. Takes
 * `kept_fapl` (H5I_INVALID_HID for none). */
void tb_kept_opened(tb_obj_t *file, unsigned flags, hid_t fapl_id, hid_t kept_fapl);
/* An open whose file changed in a way the next open would see and stock's would not (its
 * metadata cache's configuration or logging set): not kept at its close. */
void tb_kept_forgo(tb_ctx_t *ctx);
/* At the application's close of a file: whether it is kept (then not closed below). */
bool tb_kept_keep(tb_obj_t *file);
/* Closes every kept file below (registered with H5atclose at the first one kept). */
void tb_kept_close_all(void);
void tb_kept_stats(size_t *kept_out, size_t *reused_out, size_t *trimmed_out);

#endif
