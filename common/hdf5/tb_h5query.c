/* tb_h5query.c — HDF5's own routines behind H5Tget_size, H5Tget_class, H5Tequal, H5Tcommitted,
 * H5Tis_variable_str, H5Sget_select_type, the extent queries, H5Tcopy, H5Screate_simple and
 * H5Scopy, called directly where the library exports them (optional symbols of
 * common/bind/hdf5_symbols.txt: 1.14's and 2.x's libraries and wheels do, with the same
 * signatures), else the public calls. Each public call costs ~300-600 instructions of API entry
 * and exit around a few of work (~1,000 under HDF5 2.x); a first open makes several per dataset
 * and attribute it records, a second open's lazy objects one per type or space they hand out. */
#include "tb_h5query.h"

#include <stdbool.h>
#include <stddef.h>

/* (Declared as HDF5 declares them; each name reads the pointer the binding set, NULL when the
 * library does not export the routine.) */
extern void  *H5I_object_verify(hid_t id, H5I_type_t type) __attribute__((weak));
extern herr_t H5T_lock(void *dt, bool immutable) __attribute__((weak));

/* The object behind an ID of the kind asked, or NULL (the public call then answers, with its
 * error where there is one). */
static void *
object_of(hid_t id, H5I_type_t type)
{
    return H5I_object_verify ? H5I_object_verify(id, type) : NULL;
}

extern size_t       H5T_get_size(const void *dt) __attribute__((weak));
extern H5T_class_t  H5T_get_class(const void *dt, htri_t internal) __attribute__((weak));
extern int          H5T_cmp(const void *dt1, const void *dt2, bool superset) __attribute__((weak));
extern H5S_sel_type H5S_get_select_type(const void *space) __attribute__((weak));
extern hssize_t     H5S_get_simple_extent_npoints(const void *ds) __attribute__((weak));
extern int          H5S_get_simple_extent_dims(const void *ds, hsize_t dims[], hsize_t max_dims[]) __attribute__((weak));
extern void        *H5T_copy(const void *old_dt, int method) __attribute__((weak));
extern herr_t       H5T_close(void *dt) __attribute__((weak));
extern void        *H5S_create(H5S_class_t type) __attribute__((weak));
extern void        *H5S_create_simple(unsigned rank, const hsize_t dims[], const hsize_t maxdims[]) __attribute__((weak));
extern herr_t       H5S_close(void *ds) __attribute__((weak));
extern void        *H5S_copy(const void *src, bool share_selection, bool copy_max) __attribute__((weak));
extern hid_t        H5I_register(H5I_type_t type, const void *object, bool app_ref) __attribute__((weak));
extern htri_t       H5T_is_named(const void *dt) __attribute__((weak));
extern htri_t       H5T_is_variable_str(const void *dt) __attribute__((weak));
extern H5S_class_t  H5S_get_simple_extent_type(const void *ds) __attribute__((weak));
#define TB_H5T_COPY_TRANSIENT 0 /* (HDF5's H5T_copy_t) */
/* Returns routine(the object behind id, ...) where the library exports the routine and id is of
 * that kind; else goes on to the public call after it. */
#define TB_H5Q_VIA(routine, id, kind, ...)                             \
    do {                                                               \
        void *obj_ = routine ? object_of(id, kind) : NULL;             \
        if (obj_)                                                      \
            return routine(obj_, ##__VA_ARGS__);                       \
    } while (0)

size_t
tb_h5t_size(hid_t t)
{
    TB_H5Q_VIA(H5T_get_size, t, H5I_DATATYPE);
    return H5Tget_size(t);
}

H5T_class_t
tb_h5t_class(hid_t t)
{
    TB_H5Q_VIA(H5T_get_class, t, H5I_DATATYPE, false);
    return H5Tget_class(t);
}

htri_t
tb_h5t_equal_objs(hid_t a, const void *a_obj, hid_t b, const void *b_obj)
{
    if (H5T_cmp) {
        if (!a_obj)
            a_obj = object_of(a, H5I_DATATYPE);
        if (a_obj && !b_obj)
            b_obj = object_of(b, H5I_DATATYPE);
        if (a_obj && b_obj)
            return H5T_cmp(a_obj, b_obj, false) == 0;
    }
    return H5Tequal(a, b);
}

htri_t
tb_h5t_equal(hid_t a, hid_t b)
{
    return tb_h5t_equal_objs(a, NULL, b, NULL);
}

void
tb_h5t_describe(hid_t t, tb_h5t_desc_t *d)
{
    void *dt = H5T_get_class && H5T_get_size && H5T_is_named && H5T_is_variable_str ? object_of(t, H5I_DATATYPE) : NULL;
    d->obj   = dt;
    if (dt) {
        d->cls   = H5T_get_class(dt, false);
        d->size  = H5T_get_size(dt);
        d->named = H5T_is_named(dt);
        d->vstr  = H5T_is_variable_str(dt);
        return;
    }
    d->cls = H5Tget_class(t);
    if (d->cls == H5T_NO_CLASS) { /* (not a datatype: one error on the stack, as the public call's) */
        d->size  = 0;
        d->named = d->vstr = -1;
        return;
    }
    d->size  = H5Tget_size(t);
    d->named = H5Tcommitted(t);
    d->vstr  = H5Tis_variable_str(t);
}

H5S_sel_type
tb_h5s_select_type(hid_t s)
{
    TB_H5Q_VIA(H5S_get_select_type, s, H5I_DATASPACE);
    return H5Sget_select_type(s);
}

hssize_t
tb_h5s_npoints(hid_t s)
{
    TB_H5Q_VIA(H5S_get_simple_extent_npoints, s, H5I_DATASPACE);
    return H5Sget_simple_extent_npoints(s);
}

int
tb_h5s_dims(hid_t s, hsize_t *dims, hsize_t *maxdims)
{
    TB_H5Q_VIA(H5S_get_simple_extent_dims, s, H5I_DATASPACE, dims, maxdims);
    return H5Sget_simple_extent_dims(s, dims, maxdims);
}

htri_t
tb_h5t_committed(hid_t t)
{
    TB_H5Q_VIA(H5T_is_named, t, H5I_DATATYPE);
    return H5Tcommitted(t);
}

htri_t
tb_h5t_is_vstr(hid_t t)
{
    TB_H5Q_VIA(H5T_is_variable_str, t, H5I_DATATYPE);
    return H5Tis_variable_str(t);
}

H5S_class_t
tb_h5s_extent_type(hid_t s)
{
    TB_H5Q_VIA(H5S_get_simple_extent_type, s, H5I_DATASPACE);
    return H5Sget_simple_extent_type(s);
}

hid_t
tb_h5t_copy(hid_t t, bool lock, bool *locked_out)
{
    *locked_out = false;
    void *dt   = H5T_copy && H5T_close && H5T_lock && H5I_register ? object_of(t, H5I_DATATYPE) : NULL;
    void *copy = dt ? H5T_copy(dt, TB_H5T_COPY_TRANSIENT) : NULL;
    if (copy) {
        bool  locked = lock && H5T_lock(copy, false) >= 0;
        hid_t id     = H5I_register(H5I_DATATYPE, copy, true);
        if (id >= 0) {
            *locked_out = locked;
            return id;
        }
        (void)H5T_close(copy);
    }
    hid_t c = H5Tcopy(t);
    /* (H5T_lock has no public form) */
    void *dc    = c >= 0 && lock && H5T_lock ? object_of(c, H5I_DATATYPE) : NULL;
    *locked_out = dc && H5T_lock(dc, false) >= 0;
    return c;
}

hid_t
tb_h5s_create_simple(int rank, const hsize_t *dims, const hsize_t *maxdims)
{
    if (H5S_create && H5S_create_simple && H5S_close && H5I_register && rank >= 0 && rank <= H5S_MAX_RANK) {
        void *s = rank == 0 ? H5S_create(H5S_SCALAR) : H5S_create_simple((unsigned)rank, dims, maxdims);
        if (s) {
            hid_t id = H5I_register(H5I_DATASPACE, s, true);
            if (id >= 0)
                return id;
            (void)H5S_close(s);
        }
    }
    return rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims, maxdims);
}

hid_t
tb_h5s_copy(hid_t s)
{
    void *src  = H5S_copy && H5S_close && H5I_register ? object_of(s, H5I_DATASPACE) : NULL;
    void *copy = src ? H5S_copy(src, false, true) : NULL; /* (what H5Scopy asks) */
    if (copy) {
        hid_t id = H5I_register(H5I_DATASPACE, copy, true);
        if (id >= 0)
            return id;
        (void)H5S_close(copy);
    }
    return H5Scopy(s);
}
