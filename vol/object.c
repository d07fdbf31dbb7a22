/* object.c — H5O callbacks, forwarded to the connector below. */
#include "h5t_vol.h"
#include "index.h"
#include "pipeline.h"

static void *
object_open(void *obj, const H5VL_loc_params_t *loc, H5I_type_t *opened_type, hid_t dxpl_id, void **req)
{
    h5t_obj_t *o = obj;
    H5T_LIVE(o, NULL);
    h5t_obj_t *w = h5t_index_open(o, loc, NULL, H5I_BADID, H5P_DEFAULT, opened_type, dxpl_id, req);
    if (w)
        return w;
    w = h5t_wrap_new(H5VLobject_open(o->under, loc, o->under_vol_id, opened_type, dxpl_id, req), o, req);
    h5t_index_obj_opened(w, o, loc, NULL);
    return w;
}

static herr_t
object_copy(void *src, const H5VL_loc_params_t *loc1, const char *src_name, void *dst, const H5VL_loc_params_t *loc2,
            const char *dst_name, hid_t ocpypl_id, hid_t lcpl_id, hid_t dxpl_id, void **req)
{
    (void)h5t_pipe_drain(NULL, dxpl_id); /* write-behind chunks first (pipeline.h) */
    h5t_obj_t *o = src;
    H5T_LIVE(src, -1);
    H5T_LIVE(dst, -1);
    h5t_index_modified();
    H5T_FORWARD(o, req, H5VLobject_copy(o->under, loc1, src_name, h5t_under(dst), loc2, dst_name, o->under_vol_id,
                                        ocpypl_id, lcpl_id, dxpl_id, req));
}

static herr_t
object_get(void *obj, const H5VL_loc_params_t *loc, H5VL_object_get_args_t *args, hid_t dxpl_id, void **req)
{
    (void)h5t_pipe_drain(NULL, dxpl_id); /* write-behind chunks first (pipeline.h) */
    h5t_obj_t *o = obj;
    herr_t     ret;
    /* The index answers H5Iget_name of a lazy attribute; anything else needs the real one. */
    if (h5t_index_object_get(o, loc, args, req, &ret))
        return ret;
    H5T_LIVE(o, -1);
    H5T_FORWARD(o, req, H5VLobject_get(o->under, loc, o->under_vol_id, args, dxpl_id, req));
}

static herr_t
object_specific(void *obj, const H5VL_loc_params_t *loc, H5VL_object_specific_args_t *args, hid_t dxpl_id,
                void **req)
{
    (void)h5t_pipe_drain(NULL, dxpl_id); /* write-behind chunks first (pipeline.h) */
    h5t_obj_t *o = obj;
    H5T_LIVE(o, -1);
    herr_t     ret;
    if (args->op_type == H5VL_OBJECT_CHANGE_REF_COUNT || args->op_type == H5VL_OBJECT_REFRESH)
        h5t_index_modified();
    else if (h5t_index_object_specific(o, loc, args, req, &ret))
        return ret;
    H5T_FORWARD(o, req, H5VLobject_specific(o->under, loc, o->under_vol_id, args, dxpl_id, req));
}

static herr_t
object_optional(void *obj, const H5VL_loc_params_t *loc, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    (void)h5t_pipe_drain(NULL, dxpl_id); /* write-behind chunks first (pipeline.h) */
    h5t_obj_t *o = obj;
    H5T_LIVE(o, -1);
    H5T_FORWARD(o, req, H5VLobject_optional(o->under, loc, o->under_vol_id, args, dxpl_id, req));
}

const H5VL_object_class_t h5t_object_cls = {object_open, object_copy, object_get, object_specific, object_optional};
