/* link.c — H5L callbacks, forwarded to the connector below. Either location may be NULL
 * (H5L_SAME_LOC); hard-link creation names a target object that must be unwrapped. */
#include "tb_vol.h"
#include "index.h"
#include "pipeline.h"

/* The under connector of a call that names two locations, either of which may be NULL. */
static const tb_obj_t *
either(const void *a, const void *b)
{
    return a ? (const tb_obj_t *)a : (const tb_obj_t *)b;
}

static herr_t
link_create(H5VL_link_create_args_t *args, void *obj, const H5VL_loc_params_t *loc, hid_t lcpl_id, hid_t lapl_id,
            hid_t dxpl_id, void **req)
{
    H5VL_link_create_args_t my = *args;
    const tb_obj_t        *o  = obj;
    TB_LIVE(obj, -1);
    if (my.op_type == H5VL_LINK_CREATE_HARD) {
        TB_LIVE(my.args.hard.curr_obj, -1);
        o                      = either(obj, my.args.hard.curr_obj);
        my.args.hard.curr_obj = tb_under(my.args.hard.curr_obj);
    }
    if (!o) {
        TB_PUSH("vol", TB_ERR_ARG, "link creation with no location");
        return -1;
    }
    tb_index_modified();
    TB_FORWARD(o, req, H5VLlink_create(&my, tb_under(obj), loc, o->under_vol_id, lcpl_id, lapl_id, dxpl_id, req));
}

static herr_t
link_copy(void *src, const H5VL_loc_params_t *loc1, void *dst, const H5VL_loc_params_t *loc2, hid_t lcpl_id,
          hid_t lapl_id, hid_t dxpl_id, void **req)
{
    (void)tb_pipe_drain(NULL, dxpl_id); /* write-behind chunks first (pipeline.h) */
    const tb_obj_t *o = either(src, dst);
    TB_LIVE(src, -1);
    TB_LIVE(dst, -1);
    tb_index_modified();
    TB_FORWARD(o, req, H5VLlink_copy(tb_under(src), loc1, tb_under(dst), loc2, o->under_vol_id, lcpl_id, lapl_id,
                                      dxpl_id, req));
}

static herr_t
link_move(void *src, const H5VL_loc_params_t *loc1, void *dst, const H5VL_loc_params_t *loc2, hid_t lcpl_id,
          hid_t lapl_id, hid_t dxpl_id, void **req)
{
    (void)tb_pipe_drain(NULL, dxpl_id); /* write-behind chunks first (pipeline.h) */
    const tb_obj_t *o = either(src, dst);
    TB_LIVE(src, -1);
    TB_LIVE(dst, -1);
    tb_index_modified();
    TB_FORWARD(o, req, H5VLlink_move(tb_under(src), loc1, tb_under(dst), loc2, o->under_vol_id, lcpl_id, lapl_id,
                                      dxpl_id, req));
}

static herr_t
link_get(void *obj, const H5VL_loc_params_t *loc, H5VL_link_get_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    TB_LIVE(o, -1);
    herr_t     ret;
    if (tb_index_link_get(o, loc, args, req, &ret))
        return ret;
    TB_FORWARD(o, req, H5VLlink_get(o->under, loc, o->under_vol_id, args, dxpl_id, req));
}

static herr_t
link_specific(void *obj, const H5VL_loc_params_t *loc, H5VL_link_specific_args_t *args, hid_t dxpl_id, void **req)
{
    (void)tb_pipe_drain(NULL, dxpl_id); /* write-behind chunks first (pipeline.h) */
    tb_obj_t *o = obj;
    TB_LIVE(o, -1);
    herr_t     ret;
    if (args->op_type == H5VL_LINK_DELETE)
        tb_index_modified();
    else if (tb_index_link_specific(o, loc, args, req, &ret))
        return ret;
    TB_FORWARD(o, req, H5VLlink_specific(o->under, loc, o->under_vol_id, args, dxpl_id, req));
}

static herr_t
link_optional(void *obj, const H5VL_loc_params_t *loc, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    TB_LIVE(o, -1);
    TB_FORWARD(o, req, H5VLlink_optional(o->under, loc, o->under_vol_id, args, dxpl_id, req));
}

const H5VL_link_class_t tb_link_cls = {link_create, link_copy, link_move, link_get, link_specific, link_optional};
