/* h5t_vol.h — internal interface of the h5turbo VOL connector: the wrapper object every callback
 * receives, the per-stack context shared by those objects, and the forwarding helpers that each
 * subclass file (file.c, group.c, dataset.c, ...) is written with. */
#ifndef H5T_VOL_H
#define H5T_VOL_H

#define H5_USE_114_API_DEFAULT 1
#include <hdf5.h>
#include <H5VLconnector.h>
#include <H5VLconnector_passthru.h>

#include "h5t_common.h"
#include "h5t_config.h"
#include "h5t_hdf5err.h"

#define H5TURBO_VOL_NAME    "h5turbo"
#define H5TURBO_VOL_VALUE   420 /* in the range HDF5 reserves for testing (256-511) */
#define H5TURBO_VOL_VERSION 1

/* HDF5 2.x renamed H5VLstart_lib_state; keep one spelling here. */
#if H5_VERSION_GE(2, 0, 0)
#define H5T_VOL_START_LIB_STATE() H5VLstart_lib_context()
#else
#define H5T_VOL_START_LIB_STATE() H5VLstart_lib_state()
#endif

/* Connector info, as parsed from "under_vol=0;under_info={};threads=8". */
typedef struct h5t_info {
    hid_t        under_vol_id;   /* holds one reference */
    void        *under_vol_info; /* owned; freed with the under connector's info class */
    h5t_config_t cfg;
} h5t_info_t;

/* Everything objects of one open file share: the connector below and the configuration.
 * Reference-counted by the objects (plain int: VOL callbacks are serialised by HDF5), so
 * that creating and releasing wrappers costs no HDF5 ID operation and no malloc. */
struct h5t_index_file; /* index.c: the link/object index of one open file */

typedef struct h5t_ctx {
    int                    refs;
    hid_t                  under_vol_id; /* one H5I reference, dropped with the last object */
    h5t_config_t           cfg;
    struct h5t_index_file *index;        /* owned by index.c; NULL when the index is off */
    unsigned               file_intent;  /* H5F_ACC_* of the open/create (plus SWMR_WRITE once
                                          * started); objects reached through external links
                                          * share their parent's. The chunk pipeline reads it. */
} h5t_ctx_t;

/* What HDF5 holds for each of our objects (file, group, dataset, attribute, datatype, request). */
struct h5t_pipe_dset; /* pipeline.c: per-dataset state of the chunk pipeline */
struct h5t_index_obj; /* index.c: per-object state of the index */

typedef struct h5t_obj {
    void                 *under;        /* the object of the connector below */
    hid_t                 under_vol_id; /* == ctx->under_vol_id, kept here for the hot path */
    h5t_ctx_t            *ctx;
    struct h5t_pipe_dset *pipe;         /* datasets: pipeline state, owned by pipeline.c */
    struct h5t_index_obj *idx;          /* owned by index.c */
} h5t_obj_t;

/* Wrap context handed to HDF5 for wrapping objects it creates on our behalf. */
typedef struct h5t_wrap_ctx {
    h5t_ctx_t *ctx;
    void      *under_wrap_ctx;
} h5t_wrap_ctx_t;

/* ---- contexts and objects (wrap.c) */
h5t_ctx_t *h5t_ctx_new(hid_t under_vol_id, const h5t_config_t *cfg); /* takes a new H5I ref */
void       h5t_ctx_ref(h5t_ctx_t *ctx);
void       h5t_ctx_unref(h5t_ctx_t *ctx);
h5t_obj_t *h5t_obj_new(void *under, h5t_ctx_t *ctx);
void       h5t_obj_free(h5t_obj_t *o);
/* The wrapper wrap_object made last (HDF5 wrapping an object for H5VLwrap_register): how code
 * that registers an ID finds our wrapper of it (compare its under with the object registered). */
extern h5t_obj_t *h5t_last_wrapped;

/* The under object of a (possibly NULL) wrapper. */
static inline void *
h5t_under(const void *obj)
{
    return obj ? ((const h5t_obj_t *)obj)->under : NULL;
}

/* If the connector below returned an asynchronous request, wraps it in one of our objects so
 * that request callbacks reach us. The one helper for request wrapping. */
static inline void
h5t_req_wrap(void **req, h5t_ctx_t *ctx)
{
    if (req && *req) {
        h5t_obj_t *r = h5t_obj_new(*req, ctx);
        if (r)
            *req = r;
    }
}

/* Wraps a newly created/opened under object like `parent`'s; NULL stays NULL. */
static inline void *
h5t_wrap_new(void *under, const h5t_obj_t *parent, void **req)
{
    if (!under)
        return NULL;
    h5t_obj_t *o = h5t_obj_new(under, parent->ctx);
    h5t_req_wrap(req, parent->ctx);
    return o;
}

/* The shape of nearly every callback: call the connector below, wrap its request, return its
 * status; closes also release our wrapper once the object below is gone. */
#define H5T_FORWARD(o, req, call)                                                                          \
    do {                                                                                                   \
        herr_t ret_ = (call);                                                                              \
        h5t_req_wrap((req), (o)->ctx);                                                                     \
        return ret_;                                                                                       \
    } while (0)
#define H5T_FORWARD_CLOSE(o, req, call)                                                                    \
    do {                                                                                                   \
        h5t_ctx_t *ctx_ = (o)->ctx;                                                                        \
        herr_t     ret_ = (call);                                                                          \
        h5t_req_wrap((req), ctx_);                                                                         \
        if (ret_ >= 0)                                                                                     \
            h5t_obj_free(o);                                                                               \
        return ret_;                                                                                       \
    } while (0)

/* A lazy attribute or dataset (index_attr.c, index_dset.c: opened from the index's caches,
 * nothing open below yet, under == NULL) is made real before any callback needs the object
 * below: every callback that can receive one starts with H5T_LIVE. 0 on success (and for any
 * other object), -1. */
int h5t_index_materialise(h5t_obj_t *o);
int h5t_index_attr_materialise(h5t_obj_t *o);
int h5t_index_dset_materialise(h5t_obj_t *o);
/* What get_object hands HDF5 for a lazy attribute (index_attr.c); NULL for any other object. */
void *h5t_index_attr_sentinel(const h5t_obj_t *o);
#define H5T_LIVE(o, fail)                                                                                  \
    do {                                                                                                   \
        if ((o) && !((h5t_obj_t *)(o))->under && h5t_index_materialise((h5t_obj_t *)(o)) < 0)         \
            return (fail);                                                                                 \
    } while (0)

/* The address of a dataset's contiguous storage in its file (native below): HADDR_UNDEF for any
 * other layout, for external or unallocated storage, and when it cannot be told. One cheap
 * native call, where the creation property list would be a copy (dataset.c). */
haddr_t h5t_dset_contig_addr(void *under, hid_t vol, hid_t dxpl_id);

/* ---- info (info.c) */
extern const H5VL_info_class_t h5t_info_cls;
/* Our info from a FAPL; when the FAPL carries none (HDF5_VOL_CONNECTOR="h5turbo", or HDF5
 * probing plugins) the default: native underneath, configuration from the environment. */
h5t_info_t *h5t_info_from_fapl(hid_t fapl_id);
void        h5t_info_release(h5t_info_t *info);
/* A copy of fapl_id with the under connector set (caller closes it). */
hid_t       h5t_under_fapl(hid_t fapl_id, const h5t_info_t *info);

/* ---- the subclasses (one file each) */
extern const H5VL_wrap_class_t       h5t_wrap_cls;
extern const H5VL_attr_class_t       h5t_attr_cls;
extern const H5VL_dataset_class_t    h5t_dataset_cls;
extern const H5VL_datatype_class_t   h5t_datatype_cls;
extern const H5VL_file_class_t       h5t_file_cls;
extern const H5VL_group_class_t      h5t_group_cls;
extern const H5VL_link_class_t       h5t_link_cls;
extern const H5VL_object_class_t     h5t_object_cls;
extern const H5VL_introspect_class_t h5t_introspect_cls;
extern const H5VL_request_class_t    h5t_request_cls;
extern const H5VL_blob_class_t       h5t_blob_cls;
extern const H5VL_token_class_t      h5t_token_cls;
herr_t h5t_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req);

extern H5VL_class_t h5t_vol_class; /* assembled in connector.c */

/* Counters of the allocation pools, for tests and the malloc benchmark (H5TURBO_STATS=1 prints
 * them at library close). */
typedef struct h5t_vol_stats {
    size_t obj_malloc, obj_reused, obj_live;
    size_t wrap_malloc, wrap_reused, wrap_live;
    size_t ctx_live;
} h5t_vol_stats_t;
void h5t_vol_stats(h5t_vol_stats_t *out);

#endif
