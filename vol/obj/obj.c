/* obj.c — our object wrappers and their shared contexts, drawn from free lists (HDF5 wraps one
 * object per iteration callback; neither may cost a malloc once warm). Releasing one runs the
 * subsystems' release hooks. */
#include "tb_obj.h"
#include "tb_pool.h"

#include <stdlib.h>

static tb_objpool_t obj_pool = TB_OBJPOOL_INIT(tb_obj_t, 4096);
static size_t       ctx_live;

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
    H5VL_class_value_t val;
    ctx->refs         = 1;
    ctx->under_vol_id = under_vol_id;
    ctx->cfg          = *cfg;
    ctx->sec2_fd      = -2;
    ctx->keep_fapl    = H5I_INVALID_HID;
    ctx->md_asked     = -2;
    ctx->under_native = H5VLget_value(under_vol_id, &val) >= 0 && val == H5_VOL_NATIVE;
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
    tb_hooks_ctx_release(ctx);
    /* H5Idec_ref is a public API call and would clear the application's error stack. */
    hid_t saved = tb_err_save();
    if (ctx->keep_fapl >= 0)
        H5Pclose(ctx->keep_fapl);
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
    o->dcpl         = H5I_INVALID_HID;
    tb_ctx_ref(ctx);
    return o;
}

void
tb_obj_free(tb_obj_t *o)
{
    if (!o)
        return;
    tb_ctx_t *ctx = o->ctx;
    tb_hooks_obj_release(o);
    if (o->dcpl >= 0) {
        hid_t saved = tb_err_save();
        H5Pclose(o->dcpl);
        tb_err_restore(saved);
    }
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
    out->ctx_live = ctx_live;
}
