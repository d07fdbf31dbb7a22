/* connector.c — the h5turbo VOL class and the two HDF5 plugin entry points, the only symbols
 * this module exports. The class table just points at the per-subclass tables in the other files. */
#include "h5t_vol.h"
#include "h5t_pool.h"
#include "index.h"

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
    if (getenv("H5TURBO_STATS")) {
        h5t_vol_stats_t s;
        h5t_vol_stats(&s);
        fprintf(stderr,
                "h5turbo stats: wrappers malloc=%zu reused=%zu live=%zu; wrap-ctx malloc=%zu reused=%zu live=%zu; "
                "contexts live=%zu\n",
                s.obj_malloc, s.obj_reused, s.obj_live, s.wrap_malloc, s.wrap_reused, s.wrap_live, s.ctx_live);
        h5t_index_print_stats(stderr);
    }
    return 0;
}

/* The subclass tables live in their own files; C cannot put them into a constant initializer
 * from another translation unit, so the class is assembled once, on first use. */
H5VL_class_t h5t_vol_class;

static void
assemble_class(void)
{
    h5t_vol_class.version        = H5VL_VERSION;
    h5t_vol_class.value          = (H5VL_class_value_t)H5TURBO_VOL_VALUE;
    h5t_vol_class.name           = H5TURBO_VOL_NAME;
    h5t_vol_class.conn_version   = H5TURBO_VOL_VERSION;
    h5t_vol_class.cap_flags      = 0; /* those of the connector below are added in get_cap_flags */
    h5t_vol_class.initialize     = vol_init;
    h5t_vol_class.terminate      = vol_term;
    h5t_vol_class.info_cls       = h5t_info_cls;
    h5t_vol_class.wrap_cls       = h5t_wrap_cls;
    h5t_vol_class.attr_cls       = h5t_attr_cls;
    h5t_vol_class.dataset_cls    = h5t_dataset_cls;
    h5t_vol_class.datatype_cls   = h5t_datatype_cls;
    h5t_vol_class.file_cls       = h5t_file_cls;
    h5t_vol_class.group_cls      = h5t_group_cls;
    h5t_vol_class.link_cls       = h5t_link_cls;
    h5t_vol_class.object_cls     = h5t_object_cls;
    h5t_vol_class.introspect_cls = h5t_introspect_cls;
    h5t_vol_class.request_cls    = h5t_request_cls;
    h5t_vol_class.blob_cls       = h5t_blob_cls;
    h5t_vol_class.token_cls      = h5t_token_cls;
    h5t_vol_class.optional       = h5t_optional;
}

H5T_EXPORT H5PL_type_t
H5PLget_plugin_type(void)
{
    return H5PL_TYPE_VOL;
}

H5T_EXPORT const void *
H5PLget_plugin_info(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, assemble_class);
    return &h5t_vol_class;
}
