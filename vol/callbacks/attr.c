/* attr.c — H5A callbacks. Opening, reading and asking about small attributes of read-only files
 * may be answered from the index's attribute cache (lazy attributes); everything else is forwarded
 * to the connector below. */
#include "tb_callbacks.h"
#include "index.h"

static void *
attr_create(void *obj, const H5VL_loc_params_t *loc, const char *name, hid_t type_id, hid_t space_id,
            hid_t acpl_id, hid_t aapl_id, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    if (tb_enter(o, NULL, TB_USE | TB_CHANGE, dxpl_id) < 0)
        return NULL;
    void *a = tb_wrap_new(H5VLattr_create(o->under, loc, o->under_vol_id, name, type_id, space_id, acpl_id,
                                          aapl_id, dxpl_id, req),
                          o, req);
    tb_index_attr_opened(a, o, loc);
    return a;
}

static void *
attr_open(void *obj, const H5VL_loc_params_t *loc, const char *name, hid_t aapl_id, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj, *lazy;
    uint32_t  note;
    tb_mpi_asked(o, 1);
    if (tb_index_attr_open(o, loc, name, aapl_id, req, &lazy, &note) == TB_ANSWERED)
        return lazy;
    if (tb_enter(o, NULL, TB_USE, dxpl_id) < 0)
        return NULL;
    void *under = H5VLattr_open(o->under, loc, o->under_vol_id, name, aapl_id, dxpl_id, req);
    if (!under && !req)
        tb_index_attr_missing(o, loc, name); /* (what native's failure says, for the next open) */
    void *a = tb_wrap_new(under, o, req);
    tb_index_attr_opened(a, o, loc);
    if (!req)
        tb_index_attr_forwarded(a, name, note);
    return a;
}

static herr_t
attr_read(void *obj, hid_t mem_type_id, void *buf, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    herr_t    ret;
    if (!o->under && tb_index_attr_read(o, mem_type_id, buf, dxpl_id, &ret))
        return ret;
    /* (a small attribute's value is kept for its next opens) */
    TB_FORWARD_THEN(o, TB_USE, dxpl_id, req, H5VLattr_read(o->under, o->under_vol_id, mem_type_id, buf, dxpl_id, req),
                    tb_index_attr_read_done(o, mem_type_id, buf));
}

static herr_t
attr_write(void *obj, hid_t mem_type_id, const void *buf, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    TB_FORWARD(o, TB_USE | TB_CHANGE, dxpl_id, req,
               H5VLattr_write(o->under, o->under_vol_id, mem_type_id, buf, dxpl_id, req));
}

static herr_t
attr_get(void *obj, H5VL_attr_get_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    herr_t    ret;
    if (!o->under && tb_index_attr_get(o, args, &ret))
        return ret;
    TB_FORWARD_THEN(o, TB_USE, dxpl_id, req, H5VLattr_get(o->under, o->under_vol_id, args, dxpl_id, req),
                    tb_index_attr_got(o, args));
}

static herr_t
attr_specific(void *obj, const H5VL_loc_params_t *loc, H5VL_attr_specific_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    herr_t    ret;
    int changes = args->op_type == H5VL_ATTR_DELETE || args->op_type == H5VL_ATTR_DELETE_BY_IDX ||
                  args->op_type == H5VL_ATTR_RENAME;
    uint32_t note = 0;
    if (args->op_type == H5VL_ATTR_ITER || args->op_type == H5VL_ATTR_EXISTS)
        tb_mpi_asked(o, 1);
    if (!changes && args->op_type == H5VL_ATTR_EXISTS && tb_index_attr_exists(o, loc, args, req, &ret, &note))
        return ret;
    if (note) /* (native's answer is kept for the next opens) */
        TB_FORWARD_THEN(o, TB_USE, dxpl_id, req, H5VLattr_specific(o->under, loc, o->under_vol_id, args, dxpl_id, req),
                        tb_index_attr_exists_done(o, note, args));
    if (args->op_type == H5VL_ATTR_ITER && tb_index_attr_iterate(o, loc, args, req, &ret))
        return ret;
    tb_ix_attr_watch_t w;
    if (!req && tb_index_attr_watch(o, loc, args, &w)) { /* (native's iteration lists them) */
        tb_index_callback_location(o, loc);
        ret = tb_enter(o, NULL, TB_USE, dxpl_id) < 0
                  ? -1
                  : H5VLattr_specific(o->under, loc, o->under_vol_id, args, dxpl_id, req);
        tb_index_callback_location_end();
        tb_index_attr_watched(o, loc, &w, args, ret);
        return ret;
    }
    if (args->op_type == H5VL_ATTR_ITER && !req) {
        tb_index_callback_location(o, loc);
        ret = tb_enter(o, NULL, TB_USE, dxpl_id) < 0
                  ? -1
                  : H5VLattr_specific(o->under, loc, o->under_vol_id, args, dxpl_id, req);
        tb_index_callback_location_end();
        return ret;
    }
    TB_FORWARD(o, TB_USE | (changes ? TB_CHANGE : 0), dxpl_id, req,
               H5VLattr_specific(o->under, loc, o->under_vol_id, args, dxpl_id, req));
}

static herr_t
attr_optional(void *obj, H5VL_optional_args_t *args, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    TB_FORWARD(o, TB_USE, dxpl_id, req, H5VLattr_optional(o->under, o->under_vol_id, args, dxpl_id, req));
}

static herr_t
attr_close(void *obj, hid_t dxpl_id, void **req)
{
    tb_obj_t *o = obj;
    if (!o->under) { /* a lazy attribute: nothing open below */
        tb_obj_free(o);
        return 0;
    }
    if (!req)
        tb_index_attr_closing(o); /* (a value not read meanwhile, kept for the next opens) */
    TB_FORWARD_CLOSE(o, req, H5VLattr_close(o->under, o->under_vol_id, dxpl_id, req));
}

const H5VL_attr_class_t tb_attr_cls = {attr_create, attr_open, attr_read, attr_write,
                                        attr_get, attr_specific, attr_optional, attr_close};
