/* datatype.c — H5T (committed datatype) callbacks. Opening a committed datatype of a read-only
 * file the index knows hands out a lazy datatype, whose binary form (what HDF5 builds the type
 * from) the index answers; everything else is forwarded to the connector below. */
#include "tb_callbacks.h"
#include "index.h"

static void *
datatype_commit(void *obj, const H5VL_loc_params_t *loc, const char *name, hid_t type_id, hid_t lcpl_id,
                hid_t tcpl_id, hid_t tapl_id, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    if (tb_enter(o, NULL, TB_USE | TB_CHANGE, dxpl_id) < 0)
        return NULL;
    return tb_wrap_new(H5VLdatatype_commit(o->under, loc, o->under_vol_id, name, type_id, lcpl_id, tcpl_id, tapl_id,
                                           dxpl_id, req),
                       o, req);
}

static void *
datatype_open(void *obj, const H5VL_loc_params_t *loc, const char *name, hid_t tapl_id, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    tb_mpi_asked(o, 1);
    tb_obj_t *w = tb_index_open(o, loc, name, H5I_DATATYPE, tapl_id, NULL, dxpl_id, req);
    if (w)
        return w;
    if (tb_enter(o, NULL, TB_USE, dxpl_id) < 0)
        return NULL;
    w = tb_wrap_new(H5VLdatatype_open(o->under, loc, o->under_vol_id, name, tapl_id, dxpl_id, req), o, req);
    tb_index_obj_opened(w, H5I_DATATYPE, o, loc, name);
    return w;
}

static herr_t
datatype_get(void *obj, H5VL_datatype_get_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    herr_t    ret;
    if (!o->under && !req && tb_index_dtype_get(o, args, &ret))
        return ret;
    /* (what native answers is kept for this datatype's lazy opens to come) */
    TB_FORWARD_THEN(o, TB_USE, dxpl_id, req, H5VLdatatype_get(o->under, o->under_vol_id, args, dxpl_id, req),
                    tb_index_dtype_get_done(o, args));
}

static herr_t
datatype_specific(void *obj, H5VL_datatype_specific_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    TB_FORWARD(o, TB_USE, dxpl_id, req, H5VLdatatype_specific(o->under, o->under_vol_id, args, dxpl_id, req));
}

static herr_t
datatype_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    TB_FORWARD(o, TB_USE, dxpl_id, req, H5VLdatatype_optional(o->under, o->under_vol_id, args, dxpl_id, req));
}

static herr_t
datatype_close(void *obj, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    if (!o->under) { /* a lazy datatype: nothing open below */
        tb_obj_free(o);
        return 0;
    }
    TB_FORWARD_CLOSE(o, req, H5VLdatatype_close(o->under, o->under_vol_id, dxpl_id, req));
}

const H5VL_datatype_class_t tb_datatype_cls = {datatype_commit,   datatype_open,     datatype_get,
                                                datatype_specific, datatype_optional, datatype_close};
