/* connector.c — the h5turbo VOL class and the two HDF5 plugin entry points, the only symbols
 * this module exports. The class table just points at the per-subclass tables in the other files;
 * the subsystems' hook tables are registered here, once. */
#include "tb_bind.h"
#include "tb_callbacks.h"
#include "index.h"
#include "pipeline.h"

#include <H5PLextern.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>

static herr_t
vol_init(hid_t vipl_id)
{
    (void)vipl_id;
    return 0;
}

static herr_t
vol_term(void)
{
    tb_kept_close_all(); /* (H5atclose did, unless the connector ends before the library) */
    tb_index_drain_publications(); /* (before HDF5 may unload this plugin) */
    tb_below_forget();
    if (tb_config_process()->stats) {
        tb_vol_stats_t s;
        size_t         wm, wr, wl, fk, fr, ft;
        tb_vol_stats(&s);
        tb_wrap_stats(&wm, &wr, &wl);
        tb_kept_stats(&fk, &fr, &ft);
        FILE *out = tb_stats_stream();
        fprintf(out,
                "h5turbo stats: wrappers malloc=%zu reused=%zu live=%zu; wrap-ctx malloc=%zu reused=%zu live=%zu; "
                "contexts live=%zu; files kept=%zu reused=%zu trimmed=%zu\n",
                s.obj_malloc, s.obj_reused, s.obj_live, wm, wr, wl, s.ctx_live, fk, fr, ft);
        tb_index_print_stats(out);
        tb_stats_done(out);
    }
    return 0;
}

/* The subclass tables live in their own files; C cannot put them into a constant initializer
 * from another translation unit, so the class is assembled once, on first use. */
H5VL_class_t tb_vol_class;

static void
assemble_class(void)
{
    tb_vol_class.version        = H5VL_VERSION;
    tb_vol_class.value          = (H5VL_class_value_t)H5TURBO_VOL_VALUE;
    tb_vol_class.name           = H5TURBO_VOL_NAME;
    tb_vol_class.conn_version   = H5TURBO_VOL_VERSION;
    tb_vol_class.cap_flags      = 0; /* those of the connector below are added in get_cap_flags */
    tb_vol_class.initialize     = vol_init;
    tb_vol_class.terminate      = vol_term;
    tb_vol_class.info_cls       = tb_info_cls;
    tb_vol_class.wrap_cls       = tb_wrap_cls;
    tb_vol_class.attr_cls       = tb_attr_cls;
    tb_vol_class.dataset_cls    = tb_dataset_cls;
    tb_vol_class.datatype_cls   = tb_datatype_cls;
    tb_vol_class.file_cls       = tb_file_cls;
    tb_vol_class.group_cls      = tb_group_cls;
    tb_vol_class.link_cls       = tb_link_cls;
    tb_vol_class.object_cls     = tb_object_cls;
    tb_vol_class.introspect_cls = tb_introspect_cls;
    tb_vol_class.request_cls    = tb_request_cls;
    tb_vol_class.blob_cls       = tb_blob_cls;
    tb_vol_class.token_cls      = tb_token_cls;
    tb_vol_class.optional       = tb_optional;
    tb_hooks_register(&tb_index_hooks);
    tb_hooks_register(&tb_pipe_hooks);
}

/* Both entry points first bind the plugin to the HDF5 library calling them (the plugin links
 * none, common/bind); a library this build cannot serve gets H5PL_TYPE_ERROR / NULL, and HDF5
 * carries on without the connector. */
TB_EXPORT H5PL_type_t
H5PLget_plugin_type(void)
{
    if (tb_bind_caller(__builtin_return_address(0), "VOL connector h5turbo") < 0)
        return H5PL_TYPE_ERROR;
    return H5PL_TYPE_VOL;
}

TB_EXPORT const void *
H5PLget_plugin_info(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (tb_bind_caller(__builtin_return_address(0), "VOL connector h5turbo") < 0)
        return NULL;
    pthread_once(&once, assemble_class);
    return &tb_vol_class;
}
