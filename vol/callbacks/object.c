/* object.c — H5O callbacks. Opening objects of read-only files and object queries (info, native
 * info, existence, visits) may be answered from the link/object index; everything else is forwarded
 * to the connector below. */
#include "tb_callbacks.h"
#include "index.h"

static void *
object_open(void *obj, const H5VL_loc_params_t *loc, H5I_type_t *opened_type, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    tb_mpi_asked(o, 1);
    tb_obj_t *w = tb_index_open(o, loc, NULL, H5I_BADID, H5P_DEFAULT, opened_type, dxpl_id, req);
    if (w)
        return w;
    if (tb_enter(o, NULL, TB_USE, dxpl_id) < 0)
        return NULL;
    w = tb_wrap_new(H5VLobject_open(o->under, loc, o->under_vol_id, opened_type, dxpl_id, req), o, req);
    tb_index_obj_opened(w, w && opened_type ? *opened_type : H5I_BADID, o, loc, NULL);
    return w;
}

static herr_t
object_copy(void *src, const H5VL_loc_params_t *loc1, const char *src_name, void *dst, const H5VL_loc_params_t *loc2,
            const char *dst_name, hid_t ocpypl_id, hid_t lcpl_id, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = src;
    if (tb_enter(src, dst, TB_USE | TB_DRAIN | TB_CHANGE, dxpl_id) < 0)
        return -1;
    TB_FORWARD(o, 0, dxpl_id, req,
               H5VLobject_copy(o->under, loc1, src_name, tb_under(dst), loc2, dst_name, o->under_vol_id, ocpypl_id,
                               lcpl_id, dxpl_id, req));
}

static herr_t
object_get(void *obj, const H5VL_loc_params_t *loc, H5VL_object_get_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    herr_t    ret;
    if (tb_enter(o, NULL, TB_DRAIN, dxpl_id) < 0)
        return -1;
    /* The index answers H5Iget_name, H5Iget_file_id and H5Oget_info of what it knows; anything
     * else needs the real object. */
    if (tb_index_object_get(o, loc, args, req, &ret))
        return ret;
    TB_FORWARD(o, TB_USE, dxpl_id, req, H5VLobject_get(o->under, loc, o->under_vol_id, args, dxpl_id, req));
}

static herr_t
object_specific(void *obj, const H5VL_loc_params_t *loc, H5VL_object_specific_args_t *args, hid_t dxpl_id,
                void **req)
{
    tb_obj_t *o       = obj;
    int       changes = args->op_type == H5VL_OBJECT_CHANGE_REF_COUNT || args->op_type == H5VL_OBJECT_REFRESH;
    herr_t    ret;
    if (args->op_type == H5VL_OBJECT_VISIT)
        tb_mpi_asked(o, TB_MPI_WALKED);
    if (tb_enter(o, NULL, TB_DRAIN | (changes ? TB_CHANGE : 0), dxpl_id) < 0)
        return -1;
    if (!changes && tb_index_object_specific(o, loc, args, req, &ret))
        return ret;
    if (args->op_type == H5VL_OBJECT_VISIT && !req) {
        tb_index_callback_location(o, loc);
        ret = tb_enter(o, NULL, TB_USE, dxpl_id) < 0
                  ? -1
                  : H5VLobject_specific(o->under, loc, o->under_vol_id, args, dxpl_id, req);
        tb_index_callback_location_end();
        return ret;
    }
    TB_FORWARD(o, TB_USE, dxpl_id, req, H5VLobject_specific(o->under, loc, o->under_vol_id, args, dxpl_id, req));
}

static herr_t
object_optional(void *obj, const H5VL_loc_params_t *loc, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    herr_t    ret;
    if (tb_enter(o, NULL, TB_DRAIN, dxpl_id) < 0)
        return -1;
    /* Native info (header and metadata sizes: the 1.8 info calls and h5py's visit ask it of
     * every object) is answered from the index when an earlier call reported it. */
    if (tb_index_native_info(o, loc, args, req, &ret))
        return ret;
    if (tb_enter(o, NULL, TB_USE, dxpl_id) < 0)
        return -1;
    ret = H5VLobject_optional(o->under, loc, o->under_vol_id, args, dxpl_id, req);
    tb_req_wrap(req, o->ctx);
    if (ret >= 0 && !(req && *req))
        tb_index_native_info_done(o, loc, args);
    return ret;
}

const H5VL_object_class_t tb_object_cls = {object_open, object_copy, object_get, object_specific, object_optional};
