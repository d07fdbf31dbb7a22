/* wrap.c — our object wrappers and their shared contexts, drawn from free lists, and the VOL
 * wrap class (get_object, get/free_wrap_ctx, wrap/unwrap_object) HDF5 uses to wrap objects it
 * creates on our behalf (iteration callbacks, H5Oopen_by_token, references). */
#include "tb_vol.h"
#include "tb_pool.h"
#include "index.h"
#include "pipeline.h"

#include <stdint.h>
#include <stdlib.h>

/* Free lists: HDF5 asks for a wrap context on almost every API call, and iteration wraps one
 * object per callback; neither may cost a malloc once warm. */
static tb_objpool_t obj_pool  = TB_OBJPOOL_INIT(tb_obj_t, 4096);
static tb_objpool_t wrap_pool = TB_OBJPOOL_INIT(tb_wrap_ctx_t, 256);
static size_t        ctx_live;

tb_ctx_t *
tb_ctx_new(hid_t under_vol_id, const tb_config_t *cfg)
{
    tb_ctx_t *ctx = calloc(1, sizeof(*ctx));
    if (!ctx) {
        TB_PUSH("vol", TB_ERR_NOMEM, "cannot allocate a connector context");
        return NULL;
    }
    if (H5Iinc_ref(under_vol_id) < 0) {
        free(ctx);
        TB_PUSH("vol", TB_ERR_HDF5, "invalid under connector ID");
        return NULL;
    }
    ctx->refs         = 1;
    ctx->under_vol_id = under_vol_id;
    ctx->cfg          = *cfg;
    ctx_live++;
    return ctx;
}

void
tb_ctx_ref(tb_ctx_t *ctx)
{
    ctx->refs++;
}

void
tb_ctx_unref(tb_ctx_t *ctx)
{
    if (--ctx->refs > 0)
        return;
    tb_index_ctx_release(ctx);
    /* H5Idec_ref is a public API call and would clear the application's error stack. */
    hid_t saved = tb_err_save();
    H5Idec_ref(ctx->under_vol_id);
    tb_err_restore(saved);
    ctx_live--;
    free(ctx);
}

tb_obj_t *
tb_obj_new(void *under, tb_ctx_t *ctx)
{
    tb_obj_t *o = tb_objpool_get(&obj_pool);
    if (!o) {
        TB_PUSH("vol", TB_ERR_NOMEM, "cannot allocate an object wrapper");
        return NULL;
    }
    o->under        = under;
    o->under_vol_id = ctx->under_vol_id;
    o->ctx          = ctx;
    tb_ctx_ref(ctx);
    return o;
}

void
tb_obj_free(tb_obj_t *o)
{
    if (!o)
        return;
    tb_ctx_t *ctx = o->ctx;
    tb_index_obj_release(o);
    tb_pipe_release(o);
    tb_objpool_put(&obj_pool, o);
    tb_ctx_unref(ctx);
}

void
tb_vol_stats(tb_vol_stats_t *out)
{
    pthread_mutex_lock(&obj_pool.mu);
    out->obj_malloc = obj_pool.n_malloc;
    out->obj_reused = obj_pool.n_reused;
    out->obj_live   = obj_pool.n_live;
    pthread_mutex_unlock(&obj_pool.mu);
    pthread_mutex_lock(&wrap_pool.mu);
    out->wrap_malloc = wrap_pool.n_malloc;
    out->wrap_reused = wrap_pool.n_reused;
    out->wrap_live   = wrap_pool.n_live;
    pthread_mutex_unlock(&wrap_pool.mu);
    out->ctx_live = ctx_live;
}

/* ------------------------------------------------------------------ wrap class */
static void *
get_object(const void *obj)
{
    const tb_obj_t *o = obj;
    if (!o->under) {
        /* HDF5 asks for the native object of every attribute ID whenever it counts or lists open
         * attributes (H5Fget_obj_count/ids, strong close, and before natively opening any
         * attribute): a lazy attribute answers with its file's sentinel attribute, which tells
         * the same file (index_attr.c), and stays lazy. */
        void *s = tb_index_attr_sentinel(o);
        if (s)
            return s;
        TB_LIVE((tb_obj_t *)(uintptr_t)o, NULL);
    }
    return H5VLget_object(o->under, o->under_vol_id);
}

static herr_t
get_wrap_ctx(const void *obj, void **wrap_ctx_out)
{
    const tb_obj_t *o = obj;
    tb_wrap_ctx_t  *w = tb_objpool_get(&wrap_pool);
    if (!w) {
        TB_PUSH("vol", TB_ERR_NOMEM, "cannot allocate a wrap context");
        return -1;
    }
    /* HDF5 asks on every API call, a lazy attribute's too: it has nothing below yet, and the
     * connector below is native (the only one the index runs on), whose wrap context is none. */
    w->under_wrap_ctx = NULL;
    if (o->under && H5VLget_wrap_ctx(o->under, o->under_vol_id, &w->under_wrap_ctx) < 0) {
        tb_objpool_put(&wrap_pool, w);
        return -1;
    }
    w->ctx = o->ctx;
    tb_ctx_ref(o->ctx);
    *wrap_ctx_out = w;
    return 0;
}

tb_obj_t *tb_last_wrapped;

static void *
wrap_object(void *obj, H5I_type_t obj_type, void *wrap_ctx)
{
    tb_wrap_ctx_t *w     = wrap_ctx;
    void           *under = H5VLwrap_object(obj, obj_type, w->ctx->under_vol_id, w->under_wrap_ctx);
    if (!under)
        return NULL;
    return tb_last_wrapped = tb_obj_new(under, w->ctx);
}

static void *
unwrap_object(void *obj)
{
    tb_obj_t *o = obj;
    TB_LIVE(o, NULL);
    void *under = H5VLunwrap_object(o->under, o->under_vol_id);
    if (under)
        tb_obj_free(o);
    return under;
}

static herr_t
free_wrap_ctx(void *wrap_ctx)
{
    tb_wrap_ctx_t *w   = wrap_ctx;
    herr_t          ret = 0;
    if (w->under_wrap_ctx)
        ret = H5VLfree_wrap_ctx(w->under_wrap_ctx, w->ctx->under_vol_id);
    tb_ctx_unref(w->ctx);
    tb_objpool_put(&wrap_pool, w);
    return ret;
}

const H5VL_wrap_class_t tb_wrap_cls = {get_object, get_wrap_ctx, wrap_object, unwrap_object, free_wrap_ctx};
