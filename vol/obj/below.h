/* below.h — calls to the connector below. When it is native, its own callbacks are called, as
 * HDF5's dispatch calls them, rather than HDF5's public wrappers (H5VLattr_get...): every call
 * below is made from inside one of our callbacks, inside the application's API call (its lock
 * held, its context pushed), where a wrapper only adds its cost (an ID lookup and, in HDF5 2.x, a
 * user-callback frame: ~200 instructions a call) and, when the call fails, prints the error stack
 * a first time and adds its own frames to the one the application's call prints (stock prints it
 * once). Included by tb_obj.h: the H5VL names below are these functions in all of vol/. */
#ifndef TB_BELOW_H
#define TB_BELOW_H

/* Native's connector ID and class, once a file is opened, created or asked about above native
 * (tb_below_learn, with the ID below), or H5I_INVALID_HID and NULL; forgotten when HDF5 closes its
 * library. */
extern hid_t               tb_below_native_id;
extern const H5VL_class_t *tb_below_native_cls;

void tb_below_learn(hid_t vol_id);
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

static inline void *
tb_below_attr_create(void *o, const H5VL_loc_params_t *l, hid_t v, const char *n, hid_t t, hid_t sp, hid_t cp,
                     hid_t ap, hid_t dx, void **r)
{
    TB_BELOW(v, attr_cls.create, (o, l, n, t, sp, cp, ap, dx, r), (H5VLattr_create)(o, l, v, n, t, sp, cp, ap, dx, r));
}
static inline herr_t
tb_below_attr_write(void *o, hid_t v, hid_t t, const void *b, hid_t dx, void **r)
{
    TB_BELOW(v, attr_cls.write, (o, t, b, dx, r), (H5VLattr_write)(o, v, t, b, dx, r));
}
static inline herr_t
tb_below_attr_optional(void *o, hid_t v, H5VL_optional_args_t *a, hid_t dx, void **r)
{
    TB_BELOW(v, attr_cls.optional, (o, a, dx, r), (H5VLattr_optional)(o, v, a, dx, r));
}
static inline void *
tb_below_dataset_create(void *o, const H5VL_loc_params_t *l, hid_t v, const char *n, hid_t lc, hid_t t, hid_t sp,
                        hid_t cp, hid_t ap, hid_t dx, void **r)
{
    TB_BELOW(v, dataset_cls.create, (o, l, n, lc, t, sp, cp, ap, dx, r),
             (H5VLdataset_create)(o, l, v, n, lc, t, sp, cp, ap, dx, r));
}
static inline herr_t
tb_below_dataset_specific(void *o, hid_t v, H5VL_dataset_specific_args_t *a, hid_t dx, void **r)
{
    TB_BELOW(v, dataset_cls.specific, (o, a, dx, r), (H5VLdataset_specific)(o, v, a, dx, r));
}
static inline herr_t
tb_below_dataset_optional(void *o, hid_t v, H5VL_optional_args_t *a, hid_t dx, void **r)
{
    TB_BELOW(v, dataset_cls.optional, (o, a, dx, r), (H5VLdataset_optional)(o, v, a, dx, r));
}
static inline void *
tb_below_datatype_commit(void *o, const H5VL_loc_params_t *l, hid_t v, const char *n, hid_t t, hid_t lc, hid_t cp,
                         hid_t ap, hid_t dx, void **r)
{
    TB_BELOW(v, datatype_cls.commit, (o, l, n, t, lc, cp, ap, dx, r),
             (H5VLdatatype_commit)(o, l, v, n, t, lc, cp, ap, dx, r));
}
static inline void *
tb_below_datatype_open(void *o, const H5VL_loc_params_t *l, hid_t v, const char *n, hid_t ap, hid_t dx, void **r)
{
    TB_BELOW(v, datatype_cls.open, (o, l, n, ap, dx, r), (H5VLdatatype_open)(o, l, v, n, ap, dx, r));
}
static inline herr_t
tb_below_datatype_specific(void *o, hid_t v, H5VL_datatype_specific_args_t *a, hid_t dx, void **r)
{
    TB_BELOW(v, datatype_cls.specific, (o, a, dx, r), (H5VLdatatype_specific)(o, v, a, dx, r));
}
static inline herr_t
tb_below_datatype_optional(void *o, hid_t v, H5VL_optional_args_t *a, hid_t dx, void **r)
{
    TB_BELOW(v, datatype_cls.optional, (o, a, dx, r), (H5VLdatatype_optional)(o, v, a, dx, r));
}
static inline herr_t
tb_below_file_specific(void *o, hid_t v, H5VL_file_specific_args_t *a, hid_t dx, void **r)
{
    TB_BELOW(v, file_cls.specific, (o, a, dx, r), (H5VLfile_specific)(o, v, a, dx, r));
}
static inline herr_t
tb_below_file_optional(void *o, hid_t v, H5VL_optional_args_t *a, hid_t dx, void **r)
{
    TB_BELOW(v, file_cls.optional, (o, a, dx, r), (H5VLfile_optional)(o, v, a, dx, r));
}
static inline herr_t
tb_below_file_close(void *o, hid_t v, hid_t dx, void **r)
{
    TB_BELOW(v, file_cls.close, (o, dx, r), (H5VLfile_close)(o, v, dx, r));
}
/* (HDF5's H5VLfile_open/_create take the connector from the access list: `vol` is the caller's) */
static inline void *
tb_below_file_open(hid_t v, const char *n, unsigned f, hid_t ap, hid_t dx, void **r)
{
    TB_BELOW(v, file_cls.open, (n, f, ap, dx, r), H5VLfile_open(n, f, ap, dx, r));
}
static inline void *
tb_below_file_create(hid_t v, const char *n, unsigned f, hid_t cp, hid_t ap, hid_t dx, void **r)
{
    TB_BELOW(v, file_cls.create, (n, f, cp, ap, dx, r), H5VLfile_create(n, f, cp, ap, dx, r));
}
static inline void *
tb_below_group_create(void *o, const H5VL_loc_params_t *l, hid_t v, const char *n, hid_t lc, hid_t cp, hid_t ap,
                      hid_t dx, void **r)
{
    TB_BELOW(v, group_cls.create, (o, l, n, lc, cp, ap, dx, r), (H5VLgroup_create)(o, l, v, n, lc, cp, ap, dx, r));
}
static inline herr_t
tb_below_group_specific(void *o, hid_t v, H5VL_group_specific_args_t *a, hid_t dx, void **r)
{
    TB_BELOW(v, group_cls.specific, (o, a, dx, r), (H5VLgroup_specific)(o, v, a, dx, r));
}
static inline herr_t
tb_below_group_optional(void *o, hid_t v, H5VL_optional_args_t *a, hid_t dx, void **r)
{
    TB_BELOW(v, group_cls.optional, (o, a, dx, r), (H5VLgroup_optional)(o, v, a, dx, r));
}
static inline herr_t
tb_below_link_create(H5VL_link_create_args_t *a, void *o, const H5VL_loc_params_t *l, hid_t v, hid_t lc, hid_t ap,
                     hid_t dx, void **r)
{
    TB_BELOW(v, link_cls.create, (a, o, l, lc, ap, dx, r), (H5VLlink_create)(a, o, l, v, lc, ap, dx, r));
}
static inline herr_t
tb_below_link_copy(void *s, const H5VL_loc_params_t *l1, void *d, const H5VL_loc_params_t *l2, hid_t v, hid_t lc,
                   hid_t ap, hid_t dx, void **r)
{
    TB_BELOW(v, link_cls.copy, (s, l1, d, l2, lc, ap, dx, r), (H5VLlink_copy)(s, l1, d, l2, v, lc, ap, dx, r));
}
static inline herr_t
tb_below_link_move(void *s, const H5VL_loc_params_t *l1, void *d, const H5VL_loc_params_t *l2, hid_t v, hid_t lc,
                   hid_t ap, hid_t dx, void **r)
{
    TB_BELOW(v, link_cls.move, (s, l1, d, l2, lc, ap, dx, r), (H5VLlink_move)(s, l1, d, l2, v, lc, ap, dx, r));
}
static inline herr_t
tb_below_link_optional(void *o, const H5VL_loc_params_t *l, hid_t v, H5VL_optional_args_t *a, hid_t dx, void **r)
{
    TB_BELOW(v, link_cls.optional, (o, l, a, dx, r), (H5VLlink_optional)(o, l, v, a, dx, r));
}
static inline herr_t
tb_below_object_copy(void *s, const H5VL_loc_params_t *l1, const char *sn, void *d, const H5VL_loc_params_t *l2,
                     const char *dn, hid_t v, hid_t op, hid_t lc, hid_t dx, void **r)
{
    TB_BELOW(v, object_cls.copy, (s, l1, sn, d, l2, dn, op, lc, dx, r),
             (H5VLobject_copy)(s, l1, sn, d, l2, dn, v, op, lc, dx, r));
}
static inline herr_t
tb_below_object_optional(void *o, const H5VL_loc_params_t *l, hid_t v, H5VL_optional_args_t *a, hid_t dx, void **r)
{
    TB_BELOW(v, object_cls.optional, (o, l, a, dx, r), (H5VLobject_optional)(o, l, v, a, dx, r));
}
static inline herr_t
tb_below_blob_put(void *o, hid_t v, const void *b, size_t n, void *id, void *c)
{
    TB_BELOW(v, blob_cls.put, (o, b, n, id, c), (H5VLblob_put)(o, v, b, n, id, c));
}
static inline herr_t
tb_below_blob_get(void *o, hid_t v, const void *id, void *b, size_t n, void *c)
{
    TB_BELOW(v, blob_cls.get, (o, id, b, n, c), (H5VLblob_get)(o, v, id, b, n, c));
}
static inline herr_t
tb_below_blob_specific(void *o, hid_t v, void *id, H5VL_blob_specific_args_t *a)
{
    TB_BELOW(v, blob_cls.specific, (o, id, a), (H5VLblob_specific)(o, v, id, a));
}
static inline herr_t
tb_below_blob_optional(void *o, hid_t v, void *id, H5VL_optional_args_t *a)
{
    TB_BELOW(v, blob_cls.optional, (o, id, a), (H5VLblob_optional)(o, v, id, a));
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
#define H5VLattr_create(...)       tb_below_attr_create(__VA_ARGS__)
#define H5VLattr_write(...)        tb_below_attr_write(__VA_ARGS__)
#define H5VLattr_optional(...)     tb_below_attr_optional(__VA_ARGS__)
#define H5VLdataset_create(...)    tb_below_dataset_create(__VA_ARGS__)
#define H5VLdataset_specific(...)  tb_below_dataset_specific(__VA_ARGS__)
#define H5VLdataset_optional(...)  tb_below_dataset_optional(__VA_ARGS__)
#define H5VLdatatype_commit(...)   tb_below_datatype_commit(__VA_ARGS__)
#define H5VLdatatype_open(...)     tb_below_datatype_open(__VA_ARGS__)
#define H5VLdatatype_specific(...) tb_below_datatype_specific(__VA_ARGS__)
#define H5VLdatatype_optional(...) tb_below_datatype_optional(__VA_ARGS__)
#define H5VLfile_specific(...)     tb_below_file_specific(__VA_ARGS__)
#define H5VLfile_optional(...)     tb_below_file_optional(__VA_ARGS__)
#define H5VLfile_close(...)        tb_below_file_close(__VA_ARGS__)
#define H5VLgroup_create(...)      tb_below_group_create(__VA_ARGS__)
#define H5VLgroup_specific(...)    tb_below_group_specific(__VA_ARGS__)
#define H5VLgroup_optional(...)    tb_below_group_optional(__VA_ARGS__)
#define H5VLlink_create(...)       tb_below_link_create(__VA_ARGS__)
#define H5VLlink_copy(...)         tb_below_link_copy(__VA_ARGS__)
#define H5VLlink_move(...)         tb_below_link_move(__VA_ARGS__)
#define H5VLlink_optional(...)     tb_below_link_optional(__VA_ARGS__)
#define H5VLobject_copy(...)       tb_below_object_copy(__VA_ARGS__)
#define H5VLobject_optional(...)   tb_below_object_optional(__VA_ARGS__)
#define H5VLblob_put(...)          tb_below_blob_put(__VA_ARGS__)
#define H5VLblob_get(...)          tb_below_blob_get(__VA_ARGS__)
#define H5VLblob_specific(...)     tb_below_blob_specific(__VA_ARGS__)
#define H5VLblob_optional(...)     tb_below_blob_optional(__VA_ARGS__)

#endif
