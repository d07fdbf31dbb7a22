/* tb_vol.h — internal interface of the h5turbo VOL connector: the wrapper object every callback
 * receives, the per-stack context shared by those objects, and the forwarding helpers that each
 * subclass file (file.c, group.c, dataset.c, ...) is written with. */
#ifndef TB_VOL_H
#define TB_VOL_H

#define H5_USE_114_API_DEFAULT 1
#include <hdf5.h>
#include <H5VLconnector.h>
#include <H5VLconnector_passthru.h>

#include "tb_common.h"
#include "tb_config.h"
#include "tb_hdf5err.h"

#define H5TURBO_VOL_NAME    "h5turbo"
#define H5TURBO_VOL_VALUE   420 /* in the range HDF5 reserves for testing (256-511) */
#define H5TURBO_VOL_VERSION 1

/* HDF5 2.x renamed H5VLstart_lib_state; keep one spelling here. */
#if H5_VERSION_GE(2, 0, 0)
#define TB_VOL_START_LIB_STATE() H5VLstart_lib_context()
#else
#define TB_VOL_START_LIB_STATE() H5VLstart_lib_state()
#endif

/* Connector info, as parsed from "under_vol=0;under_info={};threads=8". */
typedef struct tb_info {
    hid_t        under_vol_id;   /* holds one reference */
    void        *under_vol_info; /* owned; freed with the under connector's info class */
    tb_config_t cfg;
} tb_info_t;

/* Everything objects of one open file share: the connector below and the configuration.
 * Reference-counted by the objects (plain int: VOL callbacks are serialised by HDF5), so
 * that creating and releasing wrappers costs no HDF5 ID operation and no malloc. */
struct tb_index_file; /* index.c: the link/object index of one open file */

typedef struct tb_ctx {
    int                    refs;
    hid_t                  under_vol_id; /* one H5I reference, dropped with the last object */
    tb_config_t           cfg;
    struct tb_index_file *index;        /* owned by index.c; NULL when the index is off */
    unsigned               file_intent;  /* H5F_ACC_* of the open/create (plus SWMR_WRITE once
                                          * started); objects reached through external links
                                          * share their parent's. The chunk pipeline reads it. */
} tb_ctx_t;

/* What HDF5 holds for each of our objects (file, group, dataset, attribute, datatype, request). */
struct tb_pipe_dset; /* pipeline.c: per-dataset state of the chunk pipeline */
struct tb_index_obj; /* index.c: per-object state of the index */

typedef struct tb_obj {
    void                 *under;        /* the object of the connector below */
    hid_t                 under_vol_id; /* == ctx->under_vol_id, kept here for the hot path */
    tb_ctx_t            *ctx;
    struct tb_pipe_dset *pipe;         /* datasets: pipeline state, owned by pipeline.c */
    struct tb_index_obj *idx;          /* owned by index.c */
} tb_obj_t;

/* Wrap context handed to HDF5 for wrapping objects it creates on our behalf. */
typedef struct tb_wrap_ctx {
    tb_ctx_t *ctx;
    void      *under_wrap_ctx;
} tb_wrap_ctx_t;

/* ---- contexts and objects (wrap.c) */
tb_ctx_t *tb_ctx_new(hid_t under_vol_id, const tb_config_t *cfg); /* takes a new H5I ref */
void       tb_ctx_ref(tb_ctx_t *ctx);
void       tb_ctx_unref(tb_ctx_t *ctx);
tb_obj_t *tb_obj_new(void *under, tb_ctx_t *ctx);
void       tb_obj_free(tb_obj_t *o);
/* The wrapper wrap_object made last (HDF5 wrapping an object for H5VLwrap_register): how code
 * that registers an ID finds our wrapper of it (compare its under with the object registered). */
extern tb_obj_t *tb_last_wrapped;

/* The under object of a (possibly NULL) wrapper. */
static inline void *
tb_under(const void *obj)
{
    return obj ? ((const tb_obj_t *)obj)->under : NULL;
}

/* If the connector below returned an asynchronous request, wraps it in one of our objects so
 * that request callbacks reach us. The one helper for request wrapping. */
static inline void
tb_req_wrap(void **req, tb_ctx_t *ctx)
{
    if (req && *req) {
        tb_obj_t *r = tb_obj_new(*req, ctx);
        if (r)
            *req = r;
    }
}

/* Wraps a newly created/opened under object like `parent`'s; NULL stays NULL. */
static inline void *
tb_wrap_new(void *under, const tb_obj_t *parent, void **req)
{
    if (!under)
        return NULL;
    tb_obj_t *o = tb_obj_new(under, parent->ctx);
    tb_req_wrap(req, parent->ctx);
    return o;
}

/* The shape of nearly every callback: call the connector below, wrap its request, return its
 * status; closes also release our wrapper once the object below is gone. */
#define TB_FORWARD(o, req, call)                                                                          \
    do {                                                                                                   \
        herr_t ret_ = (call);                                                                              \
        tb_req_wrap((req), (o)->ctx);                                                                     \
        return ret_;                                                                                       \
    } while (0)
#define TB_FORWARD_CLOSE(o, req, call)                                                                    \
    do {                                                                                                   \
        tb_ctx_t *ctx_ = (o)->ctx;                                                                        \
        herr_t     ret_ = (call);                                                                          \
        tb_req_wrap((req), ctx_);                                                                         \
        if (ret_ >= 0)                                                                                     \
            tb_obj_free(o);                                                                               \
        return ret_;                                                                                       \
    } while (0)

/* A lazy attribute or dataset (index_attr.c, index_dset.c: opened from the index's caches,
 * nothing open below yet, under == NULL) is made real before any callback needs the object
 * below: every callback that can receive one starts with TB_LIVE. 0 on success (and for any
 * other object), -1. */
int tb_index_materialise(tb_obj_t *o);
int tb_index_attr_materialise(tb_obj_t *o);
int tb_index_dset_materialise(tb_obj_t *o);
/* What get_object hands HDF5 for a lazy attribute (index_attr.c); NULL for any other object. */
void *tb_index_attr_sentinel(const tb_obj_t *o);
#define TB_LIVE(o, fail)                                                                                  \
    do {                                                                                                   \
        if ((o) && !((tb_obj_t *)(o))->under && tb_index_materialise((tb_obj_t *)(o)) < 0)         \
            return (fail);                                                                                 \
    } while (0)

/* The address of a dataset's contiguous storage in its file (native below): HADDR_UNDEF for any
 * other layout, for external or unallocated storage, and when it cannot be told. One cheap
 * native call, where the creation property list would be a copy (dataset.c). */
haddr_t tb_dset_contig_addr(void *under, hid_t vol, hid_t dxpl_id);

/* ---- info (info.c) */
extern const H5VL_info_class_t tb_info_cls;
/* Our info from a FAPL; when the FAPL carries none (HDF5_VOL_CONNECTOR="h5turbo", or HDF5
 * probing plugins) the default: native underneath, configuration from the environment. */
tb_info_t *tb_info_from_fapl(hid_t fapl_id);
void        tb_info_release(tb_info_t *info);
/* A copy of fapl_id with the under connector set (caller closes it). */
hid_t       tb_under_fapl(hid_t fapl_id, const tb_info_t *info);

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

/* Counters of the allocation pools, for tests and the malloc benchmark (H5TURBO_STATS=1 prints
 * them at library close). */
typedef struct tb_vol_stats {
    size_t obj_malloc, obj_reused, obj_live;
    size_t wrap_malloc, wrap_reused, wrap_live;
    size_t ctx_live;
} tb_vol_stats_t;
void tb_vol_stats(tb_vol_stats_t *out);

#endif
