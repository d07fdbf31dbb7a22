/* wrap.c — the VOL wrap class (get_object, get/free_wrap_ctx, wrap/unwrap_object) HDF5 uses to
 * wrap objects it creates on our behalf (iteration callbacks, H5Oopen_by_token, references): a
 * wrap context is our context's tagged pointer, or (when the connector below has one of its own)
 * drawn from a free list. */
#include "tb_callbacks.h"
#include "tb_pool.h"
#include "index.h"

#include <stdint.h>
#include <stdlib.h>

/* A free list: HDF5 asks for a wrap context on almost every API call; it may not cost a malloc
 * once warm. */
static tb_objpool_t wrap_pool = TB_OBJPOOL_INIT(tb_wrap_ctx_t, 256);

void
tb_wrap_stats(size_t *malloc_out, size_t *reused_out, size_t *live_out)
{
    pthread_mutex_lock(&wrap_pool.mu);
    *malloc_out = wrap_pool.n_malloc;
    *reused_out = wrap_pool.n_reused;
    *live_out   = wrap_pool.n_live;
    pthread_mutex_unlock(&wrap_pool.mu);
}

/* ------------------------------------------------------------------ wrap class */
static void *
get_object(const void *obj)
{
    const tb_obj_t *o = obj;
    if (!o->under) {
        /* HDF5 asks for the native object of every ID whenever it counts or lists open objects
         * (H5Fget_obj_count/ids, strong close, and, for attributes, before natively opening any
         * attribute), to learn its file: a lazy object answers with a stand-in of its file, and
         * stays lazy (index_lazy.c). */
        void *s = tb_index_standin(o);
        if (s)
            return s;
        if (tb_enter((tb_obj_t *)(uintptr_t)o, NULL, TB_USE, H5P_DEFAULT) < 0)
            return NULL;
    }
    return H5VLget_object(o->under, o->under_vol_id);
}

/* A wrap context whose connector below has none (native: always) is our context's pointer with
 * its lowest bit set (contexts are malloc'd, so that bit is free): HDF5 asks for one on almost
 * every API call, and this one costs neither the free list nor its lock. */
static void *
tag_ctx(tb_ctx_t *ctx)
{
    return (void *)((uintptr_t)ctx | 1u);
}

/* The context a wrap context names, and the one of the connector below (NULL for a tagged one). */
static tb_ctx_t *
ctx_of(void *wrap_ctx, void **under_wrap_ctx_out)
{
    if ((uintptr_t)wrap_ctx & 1u) {
        *under_wrap_ctx_out = NULL;
        return (tb_ctx_t *)((uintptr_t)wrap_ctx & ~(uintptr_t)1u);
    }
    tb_wrap_ctx_t *w    = wrap_ctx;
    *under_wrap_ctx_out = w->under_wrap_ctx;
    return w->ctx;
}

static herr_t
get_wrap_ctx(const void *obj, void **wrap_ctx_out)
{
    const tb_obj_t *o = obj;
    /* HDF5 asks on every API call, a lazy attribute's too: it has nothing below yet, and the
     * connector below is native (the only one the index runs on), whose wrap context is none;
     * a native connector below is not asked at all (a few percent of a small call).
     * TB_NO_DUTIES: asking for a wrap context must not make a lazy object real. */
    void *under_wrap_ctx = NULL;
    if (o->under && !o->ctx->under_native && H5VLget_wrap_ctx(o->under, o->under_vol_id, &under_wrap_ctx) < 0)
        return -1;
    if (!under_wrap_ctx) {
        tb_ctx_ref(o->ctx);
        *wrap_ctx_out = tag_ctx(o->ctx);
        return 0;
    }
    tb_wrap_ctx_t *w = tb_objpool_get(&wrap_pool);
    if (!w) {
        (void)H5VLfree_wrap_ctx(under_wrap_ctx, o->under_vol_id);
        TB_PUSH("vol", TB_ERR_NOMEM, "cannot allocate a wrap context");
        return -1;
    }
    w->under_wrap_ctx = under_wrap_ctx;
    w->ctx            = o->ctx;
    tb_ctx_ref(o->ctx);
    *wrap_ctx_out = w;
    return 0;
}

static void *
wrap_object(void *obj, H5I_type_t obj_type, void *wrap_ctx)
{
    void     *under_wrap_ctx;
    tb_ctx_t *ctx   = ctx_of(wrap_ctx, &under_wrap_ctx);
    void     *under = H5VLwrap_object(obj, obj_type, ctx->under_vol_id, under_wrap_ctx);
    if (!under)
        return NULL;
    tb_obj_t *o = tb_obj_new(under, ctx);
    if (o)
        tb_hooks_obj_wrapped(o);
    return o;
}

static void *
unwrap_object(void *obj)
{
    tb_obj_t *o = obj;
    if (tb_enter(o, NULL, TB_USE, H5P_DEFAULT) < 0)
        return NULL;
    void *under = H5VLunwrap_object(o->under, o->under_vol_id);
    if (under)
        tb_obj_free(o);
    return under;
}

static herr_t
free_wrap_ctx(void *wrap_ctx)
{
    void     *under_wrap_ctx;
    tb_ctx_t *ctx = ctx_of(wrap_ctx, &under_wrap_ctx);
    herr_t    ret = 0;
    if (under_wrap_ctx)
        ret = H5VLfree_wrap_ctx(under_wrap_ctx, ctx->under_vol_id);
    tb_ctx_unref(ctx);
    if (!((uintptr_t)wrap_ctx & 1u))
        tb_objpool_put(&wrap_pool, wrap_ctx);
    return ret;
}

const H5VL_wrap_class_t tb_wrap_cls = {get_object, get_wrap_ctx, wrap_object, unwrap_object, free_wrap_ctx};
