/* group.c — H5G callbacks. Opening a group of a read-only file the index knows hands out a lazy
 * group, and group info and creation property list queries may be answered from the link/object
 * index; everything else is forwarded to the connector below. */
#include "tb_callbacks.h"
#include "index.h"

static void *
group_create(void *obj, const H5VL_loc_params_t *loc, const char *name, hid_t lcpl_id, hid_t gcpl_id,
             hid_t gapl_id, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    if (tb_enter(o, NULL, TB_USE | TB_CHANGE, dxpl_id) < 0)
        return NULL;
    return tb_wrap_new(H5VLgroup_create(o->under, loc, o->under_vol_id, name, lcpl_id, gcpl_id, gapl_id, dxpl_id, req),
                       o, req);
}

static void *
group_open(void *obj, const H5VL_loc_params_t *loc, const char *name, hid_t gapl_id, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    tb_mpi_asked(o, 1);
    tb_obj_t *w = tb_index_open(o, loc, name, H5I_GROUP, gapl_id, NULL, dxpl_id, req);
    if (w)
        return w;
    if (tb_enter(o, NULL, TB_USE, dxpl_id) < 0)
        return NULL;
    w = tb_wrap_new(H5VLgroup_open(o->under, loc, o->under_vol_id, name, gapl_id, dxpl_id, req), o, req);
    tb_index_obj_opened(w, H5I_GROUP, o, loc, name);
    return w;
}

static herr_t
group_get(void *obj, H5VL_group_get_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    herr_t    ret;
    if (tb_index_group_get(o, args, req, &ret))
        return ret;
    if (!o->under && !req && tb_index_group_gcpl(o, args, &ret))
        return ret;
    /* (what native answers is kept for this group's lazy opens to come) */
    TB_FORWARD_THEN(o, TB_USE, dxpl_id, req, H5VLgroup_get(o->under, o->under_vol_id, args, dxpl_id, req),
                    tb_index_group_get_done(o, args));
}

static herr_t
group_specific(void *obj, H5VL_group_specific_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t                  *o = obj;
    H5VL_group_specific_args_t my;
    if (args->op_type == H5VL_GROUP_MOUNT || args->op_type == H5VL_GROUP_UNMOUNT)
        tb_hooks_mounted();
    /* Mounting names a child file object: hand the connector below its own object. */
    if (args->op_type == H5VL_GROUP_MOUNT) {
        my                       = *args;
        my.args.mount.child_file = tb_under(args->args.mount.child_file);
        args                     = &my;
    }
    TB_FORWARD(o, 0, dxpl_id, req, H5VLgroup_specific(o->under, o->under_vol_id, args, dxpl_id, req));
}

static herr_t
group_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj; /* (H5Gget_objinfo passes any location here: a file, group, dataset, type) */
#ifndef H5_NO_DEPRECATED_SYMBOLS
    herr_t ret;
    if (tb_enter(o, NULL, TB_DRAIN, dxpl_id) < 0)
        return -1;
    if (tb_index_objinfo(o, args, req, &ret))
        return ret;
    TB_FORWARD_THEN(o, TB_USE, dxpl_id, req, H5VLgroup_optional(o->under, o->under_vol_id, args, dxpl_id, req),
                    tb_index_objinfo_done(o, args));
#else
    TB_FORWARD(o, TB_USE, dxpl_id, req, H5VLgroup_optional(o->under, o->under_vol_id, args, dxpl_id, req));
#endif
}

static herr_t
group_close(void *obj, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    if (!o->under) { /* a lazy group: nothing open below */
        tb_obj_free(o);
        return 0;
    }
    TB_FORWARD_CLOSE(o, req, H5VLgroup_close(o->under, o->under_vol_id, dxpl_id, req));
}

const H5VL_group_class_t tb_group_cls = {group_create, group_open, group_get, group_specific, group_optional, group_close};
