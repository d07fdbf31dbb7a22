/* link.c — H5L callbacks. Link queries, existence checks and iteration may be answered from the
 * link/object index; everything else is forwarded to the connector below. Either location may be
 * NULL (H5L_SAME_LOC); hard-link creation names a target object that must be unwrapped. */
#include "tb_callbacks.h"
#include "index.h"

/* The wrapper of a call that names two locations, either of which may be NULL. */
static tb_obj_t *
either(void *a, void *b)
{
    return a ? (tb_obj_t *)a : (tb_obj_t *)b;
}

static herr_t
link_create(H5VL_link_create_args_t *args, void *obj, const H5VL_loc_params_t *loc, hid_t lcpl_id, hid_t lapl_id,
            hid_t dxpl_id, void **req)
{
    H5VL_link_create_args_t my     = *args;
    tb_obj_t               *target = my.op_type == H5VL_LINK_CREATE_HARD ? my.args.hard.curr_obj : NULL;
    tb_obj_t               *o      = either(obj, target);
    if (!o) {
        TB_PUSH("vol", TB_ERR_ARG, "link creation with no location");
        return -1;
    }
    if (tb_enter(obj, target, TB_USE | TB_CHANGE, dxpl_id) < 0)
        return -1;
    if (target)
        my.args.hard.curr_obj = target->under;
    TB_FORWARD(o, 0, dxpl_id, req,
               H5VLlink_create(&my, tb_under(obj), loc, o->under_vol_id, lcpl_id, lapl_id, dxpl_id, req));
}

static herr_t
link_copy(void *src, const H5VL_loc_params_t *loc1, void *dst, const H5VL_loc_params_t *loc2, hid_t lcpl_id,
          hid_t lapl_id, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = either(src, dst);
    if (tb_enter(src, dst, TB_USE | TB_DRAIN | TB_CHANGE, dxpl_id) < 0)
        return -1;
    TB_FORWARD(o, 0, dxpl_id, req,
               H5VLlink_copy(tb_under(src), loc1, tb_under(dst), loc2, o->under_vol_id, lcpl_id, lapl_id, dxpl_id, req));
}

static herr_t
link_move(void *src, const H5VL_loc_params_t *loc1, void *dst, const H5VL_loc_params_t *loc2, hid_t lcpl_id,
          hid_t lapl_id, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = either(src, dst);
    if (tb_enter(src, dst, TB_USE | TB_DRAIN | TB_CHANGE, dxpl_id) < 0)
        return -1;
    TB_FORWARD(o, 0, dxpl_id, req,
               H5VLlink_move(tb_under(src), loc1, tb_under(dst), loc2, o->under_vol_id, lcpl_id, lapl_id, dxpl_id, req));
}

static herr_t
link_get(void *obj, const H5VL_loc_params_t *loc, H5VL_link_get_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    herr_t    ret;
    if (tb_index_link_get(o, loc, args, req, &ret))
        return ret;
    TB_FORWARD(o, TB_USE, dxpl_id, req, H5VLlink_get(o->under, loc, o->under_vol_id, args, dxpl_id, req));
}

static herr_t
link_specific(void *obj, const H5VL_loc_params_t *loc, H5VL_link_specific_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o       = obj;
    int       changes = args->op_type == H5VL_LINK_DELETE;
    herr_t    ret;
    if (args->op_type == H5VL_LINK_ITER)
        tb_mpi_asked(o, args->args.iterate.recursive ? TB_MPI_WALKED : 1);
    if (tb_enter(o, NULL, TB_DRAIN | (changes ? TB_CHANGE : 0), dxpl_id) < 0)
        return -1;
    if (!changes && tb_index_link_specific(o, loc, args, req, &ret))
        return ret;
    TB_FORWARD(o, TB_USE, dxpl_id, req, H5VLlink_specific(o->under, loc, o->under_vol_id, args, dxpl_id, req));
}

static herr_t
link_optional(void *obj, const H5VL_loc_params_t *loc, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    TB_FORWARD(o, TB_USE, dxpl_id, req, H5VLlink_optional(o->under, loc, o->under_vol_id, args, dxpl_id, req));
}

const H5VL_link_class_t tb_link_cls = {link_create, link_copy, link_move, link_get, link_specific, link_optional};
