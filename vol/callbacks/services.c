/* services.c — the infrastructure subclasses: introspection, asynchronous requests, blobs,
 * tokens and the catch-all optional callback, forwarded to the connector below (tokens compared
 * here when native is below). */
#include <string.h>

#include "tb_callbacks.h"

/* ---------------------------------------------------------------- introspection */
static herr_t
get_conn_cls(void *obj, H5VL_get_conn_lvl_t lvl, const H5VL_class_t **cls_out)
{
    tb_obj_t *o = obj;
    if (lvl == H5VL_GET_CONN_LVL_CURR) {
        *cls_out = &tb_vol_class;
        return 0;
    }
    if (o->ctx->term_cls) { /* (a lazy object stays lazy: H5Oget_info1 asks this of every object) */
        *cls_out = o->ctx->term_cls;
        return 0;
    }
    if (tb_enter(o, NULL, TB_USE, H5P_DEFAULT) < 0)
        return -1;
    herr_t ret = H5VLintrospect_get_conn_cls(o->under, o->under_vol_id, lvl, cls_out);
    if (ret >= 0)
        o->ctx->term_cls = *cls_out;
    return ret;
}

static herr_t
get_cap_flags(const void *info_v, uint64_t *flags_out)
{
    const tb_info_t *info = info_v;
    herr_t            ret;
    /* No info (HDF5_VOL_CONNECTOR="h5turbo"): native is below. */
    if (info)
        ret = H5VLintrospect_get_cap_flags(info->under_vol_info, info->under_vol_id, flags_out);
    else
        ret = H5VLintrospect_get_cap_flags(NULL, H5VL_NATIVE, flags_out);
    if (ret >= 0)
        *flags_out |= tb_vol_class.cap_flags;
    return ret;
}

static herr_t
opt_query(void *obj, H5VL_subclass_t cls, int opt_type, uint64_t *flags_out)
{
    tb_obj_t *o = obj;
    if (tb_enter(o, NULL, TB_USE, H5P_DEFAULT) < 0)
        return -1;
    return H5VLintrospect_opt_query(o->under, o->under_vol_id, cls, opt_type, flags_out);
}

const H5VL_introspect_class_t tb_introspect_cls = {get_conn_cls, get_cap_flags, opt_query};

/* ---------------------------------------------------------------- requests
 * A request is our wrapper of the connector below's request: never lazy, never holding queued
 * chunks, changing nothing by itself (TB_NO_DUTIES in each). */
static herr_t
request_wait(void *obj, uint64_t timeout, H5VL_request_status_t *status)
{
    /* TB_NO_DUTIES: a request */
    tb_obj_t *o   = obj;
    herr_t     ret = H5VLrequest_wait(o->under, o->under_vol_id, timeout, status);
    if (ret >= 0 && *status != H5VL_REQUEST_STATUS_IN_PROGRESS)
        tb_obj_free(o);
    return ret;
}

static herr_t
request_notify(void *obj, H5VL_request_notify_t cb, void *ctx)
{
    /* TB_NO_DUTIES: a request */
    tb_obj_t *o   = obj;
    herr_t     ret = H5VLrequest_notify(o->under, o->under_vol_id, cb, ctx);
    if (ret >= 0)
        tb_obj_free(o);
    return ret;
}

static herr_t
request_cancel(void *obj, H5VL_request_status_t *status)
{
    /* TB_NO_DUTIES: a request */
    tb_obj_t *o   = obj;
    herr_t     ret = H5VLrequest_cancel(o->under, o->under_vol_id, status);
    if (ret >= 0)
        tb_obj_free(o);
    return ret;
}

static herr_t
request_specific(void *obj, H5VL_request_specific_args_t *args)
{
    /* TB_NO_DUTIES: a request */
    tb_obj_t *o = obj;
    return H5VLrequest_specific(o->under, o->under_vol_id, args);
}

static herr_t
request_optional(void *obj, H5VL_optional_args_t *args)
{
    /* TB_NO_DUTIES: a request */
    tb_obj_t *o = obj;
    return H5VLrequest_optional(o->under, o->under_vol_id, args);
}

static herr_t
request_free(void *obj)
{
    /* TB_NO_DUTIES: a request */
    tb_obj_t *o   = obj;
    herr_t     ret = H5VLrequest_free(o->under, o->under_vol_id);
    if (ret >= 0)
        tb_obj_free(o);
    return ret;
}

const H5VL_request_class_t tb_request_cls = {request_wait,     request_notify,   request_cancel,
                                               request_specific, request_optional, request_free};

/* ---------------------------------------------------------------- blobs */
static herr_t
blob_put(void *obj, const void *buf, size_t size, void *blob_id, void *ctx)
{
    tb_obj_t *o = obj;
    if (tb_enter(o, NULL, TB_USE, H5P_DEFAULT) < 0)
        return -1;
    return H5VLblob_put(o->under, o->under_vol_id, buf, size, blob_id, ctx);
}

static herr_t
blob_get(void *obj, const void *blob_id, void *buf, size_t size, void *ctx)
{
    tb_obj_t *o = obj;
    if (tb_enter(o, NULL, TB_USE, H5P_DEFAULT) < 0)
        return -1;
    return H5VLblob_get(o->under, o->under_vol_id, blob_id, buf, size, ctx);
}

static herr_t
blob_specific(void *obj, void *blob_id, H5VL_blob_specific_args_t *args)
{
    tb_obj_t *o = obj;
    if (tb_enter(o, NULL, TB_USE, H5P_DEFAULT) < 0)
        return -1;
    return H5VLblob_specific(o->under, o->under_vol_id, blob_id, args);
}

static herr_t
blob_optional(void *obj, void *blob_id, H5VL_optional_args_t *args)
{
    tb_obj_t *o = obj;
    if (tb_enter(o, NULL, TB_USE, H5P_DEFAULT) < 0)
        return -1;
    return H5VLblob_optional(o->under, o->under_vol_id, blob_id, args);
}

const H5VL_blob_class_t tb_blob_cls = {blob_put, blob_get, blob_specific, blob_optional};

/* ---------------------------------------------------------------- tokens */
static __attribute__((noinline)) herr_t
token_cmp_below(tb_obj_t *o, const H5O_token_t *t1, const H5O_token_t *t2, int *cmp_out)
{
    if (tb_enter(o, NULL, TB_USE, H5P_DEFAULT) < 0)
        return -1;
    return H5VLtoken_cmp(o->under, o->under_vol_id, t1, t2, cmp_out);
}

/* Native's comparison is a memcmp of the whole tokens (H5VL__native_token_cmp), done here when
 * native is below: tools compare tokens in loops (h5dump's table of objects seen, O(objects^2)
 * comparisons), where a forwarded call costs an ID look-up and an API context of its own, and a
 * lazy object (the index's) needs no real one to compare two values. The forwarding kept out of
 * line, so that this path saves no registers. */
static herr_t
token_cmp(void *obj, const H5O_token_t *t1, const H5O_token_t *t2, int *cmp_out)
{
    tb_obj_t *o = obj;
    if (!o->ctx->under_native)
        return token_cmp_below(o, t1, t2, cmp_out);
    *cmp_out = memcmp(t1, t2, sizeof(H5O_token_t));
    return 0;
}

static herr_t
token_to_str(void *obj, H5I_type_t type, const H5O_token_t *token, char **str_out)
{
    tb_obj_t *o = obj;
    if (tb_enter(o, NULL, TB_USE, H5P_DEFAULT) < 0)
        return -1;
    return H5VLtoken_to_str(o->under, type, o->under_vol_id, token, str_out);
}

static herr_t
token_from_str(void *obj, H5I_type_t type, const char *str, H5O_token_t *token_out)
{
    tb_obj_t *o = obj;
    if (tb_enter(o, NULL, TB_USE, H5P_DEFAULT) < 0)
        return -1;
    return H5VLtoken_from_str(o->under, type, o->under_vol_id, str, token_out);
}

const H5VL_token_class_t tb_token_cls = {token_cmp, token_to_str, token_from_str};

/* ---------------------------------------------------------------- catch-all */
herr_t
tb_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    TB_FORWARD(o, TB_USE, dxpl_id, req, H5VLoptional(o->under, o->under_vol_id, args, dxpl_id, req));
}
