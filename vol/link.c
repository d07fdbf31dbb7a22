/* link.c — H5L callbacks, forwarded to the connector below. Either location may be NULL
 * (H5L_SAME_LOC); hard-link creation names a target object that must be unwrapped. */
#include "h5t_vol.h"
#include "index.h"
#include "pipeline.h"

/* The under connector of a call that names two locations, either of which may be NULL. */
static const h5t_obj_t *
either(const void *a, const void *b)
{
    return a ? (const h5t_obj_t *)a : (const h5t_obj_t *)b;
}

static herr_t
link_create(H5VL_link_create_args_t *args, void *obj, const H5VL_loc_params_t *loc, hid_t lcpl_id, hid_t lapl_id,
            hid_t dxpl_id, void **req)
{
    H5VL_link_create_args_t my = *args;
    const h5t_obj_t        *o  = obj;
    H5T_LIVE(obj, -1);
    if (my.op_type == H5VL_LINK_CREATE_HARD) {
        H5T_LIVE(my.args.hard.curr_obj, -1);
        o                      = either(obj, my.args.hard.curr_obj);
        my.args.hard.curr_obj = h5t_under(my.args.hard.curr_obj);
    }
    if (!o) {
        H5T_PUSH("vol", H5T_ERR_ARG, "link creation with no location");
        return -1;
    }
    h5t_index_modified();
    H5T_FORWARD(o, req, H5VLlink_create(&my, h5t_under(obj), loc, o->under_vol_id, lcpl_id, lapl_id, dxpl_id, req));
}

static herr_t
link_copy(void *src, const H5VL_loc_params_t *loc1, void *dst, const H5VL_loc_params_t *loc2, hid_t lcpl_id,
          hid_t lapl_id, hid_t dxpl_id, void **req)
{
    (void)h5t_pipe_drain(NULL, dxpl_id); /* write-behind chunks first (pipeline.h) */
    const h5t_obj_t *o = either(src, dst);
    H5T_LIVE(src, -1);
    H5T_LIVE(dst, -1);
    h5t_index_modified();
    H5T_FORWARD(o, req, H5VLlink_copy(h5t_under(src), loc1, h5t_under(dst), loc2, o->under_vol_id, lcpl_id, lapl_id,
                                      dxpl_id, req));
}

static herr_t
link_move(void *src, const H5VL_loc_params_t *loc1, void *dst, const H5VL_loc_params_t *loc2, hid_t lcpl_id,
          hid_t lapl_id, hid_t dxpl_id, void **req)
{
    (void)h5t_pipe_drain(NULL, dxpl_id); /* write-behind chunks first (pipeline.h) */
    const h5t_obj_t *o = either(src, dst);
    H5T_LIVE(src, -1);
    H5T_LIVE(dst, -1);
    h5t_index_modified();
    H5T_FORWARD(o, req, H5VLlink_move(h5t_under(src), loc1, h5t_under(dst), loc2, o->under_vol_id, lcpl_id, lapl_id,
                                      dxpl_id, req));
}

static herr_t
link_get(void *obj, const H5VL_loc_params_t *loc, H5VL_link_get_args_t *args, hid_t dxpl_id, void **req)
{
    h5t_obj_t *o = obj;
    H5T_LIVE(o, -1);
    herr_t     ret;
    if (h5t_index_link_get(o, loc, args, req, &ret))
        return ret;
    H5T_FORWARD(o, req, H5VLlink_get(o->under, loc, o->under_vol_id, args, dxpl_id, req));
}

static herr_t
link_specific(void *obj, const H5VL_loc_params_t *loc, H5VL_link_specific_args_t *args, hid_t dxpl_id, void **req)
{
    (void)h5t_pipe_drain(NULL, dxpl_id); /* write-behind chunks first (pipeline.h) */
    h5t_obj_t *o = obj;
    H5T_LIVE(o, -1);
    herr_t     ret;
    if (args->op_type == H5VL_LINK_DELETE)
        h5t_index_modified();
    else if (h5t_index_link_specific(o, loc, args, req, &ret))
        return ret;
    H5T_FORWARD(o, req, H5VLlink_specific(o->under, loc, o->under_vol_id, args, dxpl_id, req));
}

static herr_t
link_optional(void *obj, const H5VL_loc_params_t *loc, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    h5t_obj_t *o = obj;
    H5T_LIVE(o, -1);
    H5T_FORWARD(o, req, H5VLlink_optional(o->under, loc, o->under_vol_id, args, dxpl_id, req));
}

const H5VL_link_class_t h5t_link_cls = {link_create, link_copy, link_move, link_get, link_specific, link_optional};
