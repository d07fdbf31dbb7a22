/* below.h — calls to the connector below. When it is native, its own callbacks are called, as
 * HDF5's dispatch calls them, rather than HDF5's public wrappers (H5VLattr_get...): every call
 * below is made from inside one of our callbacks, inside the application's API call (its lock
 * held, its context pushed), where a wrapper only adds its cost (an ID lookup and, in HDF5 2.x, a
 * user-callback frame: ~200 instructions a call) and, when the call fails, prints the error stack
 * a first time and adds its own frames to the one the application's call prints (stock prints it
 * once). Included by tb_obj.h: the H5VL names below are these functions in all of vol/. */
#ifndef TB_BELOW_H
#define TB_BELOW_H

/* Native's connector ID and class, once a file has been opened above native (tb_below_native), or
 * H5I_INVALID_HID and NULL; forgotten when HDF5 closes its library. */
extern hid_t               tb_below_native_id;
extern const H5VL_class_t *tb_below_native_cls;

void tb_below_native(hid_t vol_id, const H5VL_class_t *cls);
void tb_below_forget(void);

/* The class to call for connector `vol`, or NULL for the public wrapper. */
static inline const H5VL_class_t *
tb_below_cls(hid_t vol)
{
    return vol == tb_below_native_id ? tb_below_native_cls : NULL;
}

/* One direct call: the callback `member` of c when there is one, else the wrapper (whose error
 * then says what is missing). */
#define TB_BELOW(vol, member, direct, wrapper)                                                       \
    do {                                                                                             \
        const H5VL_class_t *c_ = tb_below_cls(vol);                                                  \
        return c_ && c_->member ? c_->member direct : wrapper;                                       \
    } while (0)

static inline void *
tb_below_attr_open(void *o, const H5VL_loc_params_t *l, hid_t v, const char *n, hid_t ap, hid_t dx, void **r)
{
    TB_BELOW(v, attr_cls.open, (o, l, n, ap, dx, r), (H5VLattr_open)(o, l, v, n, ap, dx, r));
}
static inline herr_t
tb_below_attr_read(void *o, hid_t v, hid_t t, void *b, hid_t dx, void **r)
{
    TB_BELOW(v, attr_cls.read, (o, t, b, dx, r), (H5VLattr_read)(o, v, t, b, dx, r));
}
static inline herr_t
tb_below_attr_get(void *o, hid_t v, H5VL_attr_get_args_t *a, hid_t dx, void **r)
{
    TB_BELOW(v, attr_cls.get, (o, a, dx, r), (H5VLattr_get)(o, v, a, dx, r));
}
static inline herr_t
tb_below_attr_specific(void *o, const H5VL_loc_params_t *l, hid_t v, H5VL_attr_specific_args_t *a, hid_t dx,
                       void **r)
{
    TB_BELOW(v, attr_cls.specific, (o, l, a, dx, r), (H5VLattr_specific)(o, l, v, a, dx, r));
}
static inline herr_t
tb_below_attr_close(void *o, hid_t v, hid_t dx, void **r)
{
    TB_BELOW(v, attr_cls.close, (o, dx, r), (H5VLattr_close)(o, v, dx, r));
}
static inline void *
tb_below_dataset_open(void *o, const H5VL_loc_params_t *l, hid_t v, const char *n, hid_t ap, hid_t dx, void **r)
{
    TB_BELOW(v, dataset_cls.open, (o, l, n, ap, dx, r), (H5VLdataset_open)(o, l, v, n, ap, dx, r));
}
static inline herr_t
tb_below_dataset_read(size_t n, void *o[], hid_t v, hid_t mt[], hid_t ms[], hid_t fs[], hid_t dx, void *b[], void **r)
{
    TB_BELOW(v, dataset_cls.read, (n, o, mt, ms, fs, dx, b, r), (H5VLdataset_read)(n, o, v, mt, ms, fs, dx, b, r));
}
static inline herr_t
tb_below_dataset_write(size_t n, void *o[], hid_t v, hid_t mt[], hid_t ms[], hid_t fs[], hid_t dx, const void *b[],
                       void **r)
{
    TB_BELOW(v, dataset_cls.write, (n, o, mt, ms, fs, dx, b, r), (H5VLdataset_write)(n, o, v, mt, ms, fs, dx, b, r));
}
static inline herr_t
tb_below_dataset_get(void *o, hid_t v, H5VL_dataset_get_args_t *a, hid_t dx, void **r)
{
    TB_BELOW(v, dataset_cls.get, (o, a, dx, r), (H5VLdataset_get)(o, v, a, dx, r));
}
static inline herr_t
tb_below_dataset_close(void *o, hid_t v, hid_t dx, void **r)
{
    TB_BELOW(v, dataset_cls.close, (o, dx, r), (H5VLdataset_close)(o, v, dx, r));
}
static inline void *
tb_below_group_open(void *o, const H5VL_loc_params_t *l, hid_t v, const char *n, hid_t ap, hid_t dx, void **r)
{
    TB_BELOW(v, group_cls.open, (o, l, n, ap, dx, r), (H5VLgroup_open)(o, l, v, n, ap, dx, r));
}
static inline herr_t
tb_below_group_get(void *o, hid_t v, H5VL_group_get_args_t *a, hid_t dx, void **r)
{
    TB_BELOW(v, group_cls.get, (o, a, dx, r), (H5VLgroup_get)(o, v, a, dx, r));
}
static inline herr_t
tb_below_group_close(void *o, hid_t v, hid_t dx, void **r)
{
    TB_BELOW(v, group_cls.close, (o, dx, r), (H5VLgroup_close)(o, v, dx, r));
}
static inline herr_t
tb_below_datatype_get(void *o, hid_t v, H5VL_datatype_get_args_t *a, hid_t dx, void **r)
{
    TB_BELOW(v, datatype_cls.get, (o, a, dx, r), (H5VLdatatype_get)(o, v, a, dx, r));
}
static inline herr_t
tb_below_datatype_close(void *o, hid_t v, hid_t dx, void **r)
{
    TB_BELOW(v, datatype_cls.close, (o, dx, r), (H5VLdatatype_close)(o, v, dx, r));
}
static inline void *
tb_below_object_open(void *o, const H5VL_loc_params_t *l, hid_t v, H5I_type_t *t, hid_t dx, void **r)
{
    TB_BELOW(v, object_cls.open, (o, l, t, dx, r), (H5VLobject_open)(o, l, v, t, dx, r));
}
static inline herr_t
tb_below_object_get(void *o, const H5VL_loc_params_t *l, hid_t v, H5VL_object_get_args_t *a, hid_t dx, void **r)
{
    TB_BELOW(v, object_cls.get, (o, l, a, dx, r), (H5VLobject_get)(o, l, v, a, dx, r));
}
static inline herr_t
tb_below_object_specific(void *o, const H5VL_loc_params_t *l, hid_t v, H5VL_object_specific_args_t *a, hid_t dx,
                         void **r)
{
    TB_BELOW(v, object_cls.specific, (o, l, a, dx, r), (H5VLobject_specific)(o, l, v, a, dx, r));
}
static inline herr_t
tb_below_link_get(void *o, const H5VL_loc_params_t *l, hid_t v, H5VL_link_get_args_t *a, hid_t dx, void **r)
{
    TB_BELOW(v, link_cls.get, (o, l, a, dx, r), (H5VLlink_get)(o, l, v, a, dx, r));
}
static inline herr_t
tb_below_link_specific(void *o, const H5VL_loc_params_t *l, hid_t v, H5VL_link_specific_args_t *a, hid_t dx,
                       void **r)
{
    TB_BELOW(v, link_cls.specific, (o, l, a, dx, r), (H5VLlink_specific)(o, l, v, a, dx, r));
}
static inline herr_t
tb_below_file_get(void *o, hid_t v, H5VL_file_get_args_t *a, hid_t dx, void **r)
{
    TB_BELOW(v, file_cls.get, (o, a, dx, r), (H5VLfile_get)(o, v, a, dx, r));
}

#define H5VLattr_open(...)       tb_below_attr_open(__VA_ARGS__)
#define H5VLattr_read(...)       tb_below_attr_read(__VA_ARGS__)
#define H5VLattr_get(...)        tb_below_attr_get(__VA_ARGS__)
#define H5VLattr_specific(...)   tb_below_attr_specific(__VA_ARGS__)
#define H5VLattr_close(...)      tb_below_attr_close(__VA_ARGS__)
#define H5VLdataset_open(...)    tb_below_dataset_open(__VA_ARGS__)
#define H5VLdataset_read(...)    tb_below_dataset_read(__VA_ARGS__)
#define H5VLdataset_write(...)   tb_below_dataset_write(__VA_ARGS__)
#define H5VLdataset_get(...)     tb_below_dataset_get(__VA_ARGS__)
#define H5VLdataset_close(...)   tb_below_dataset_close(__VA_ARGS__)
#define H5VLgroup_open(...)      tb_below_group_open(__VA_ARGS__)
#define H5VLgroup_get(...)       tb_below_group_get(__VA_ARGS__)
#define H5VLgroup_close(...)     tb_below_group_close(__VA_ARGS__)
#define H5VLdatatype_get(...)    tb_below_datatype_get(__VA_ARGS__)
#define H5VLdatatype_close(...)  tb_below_datatype_close(__VA_ARGS__)
#define H5VLobject_open(...)     tb_below_object_open(__VA_ARGS__)
#define H5VLobject_get(...)      tb_below_object_get(__VA_ARGS__)
#define H5VLobject_specific(...) tb_below_object_specific(__VA_ARGS__)
#define H5VLlink_get(...)        tb_below_link_get(__VA_ARGS__)
#define H5VLlink_specific(...)   tb_below_link_specific(__VA_ARGS__)
#define H5VLfile_get(...)        tb_below_file_get(__VA_ARGS__)

#endif
