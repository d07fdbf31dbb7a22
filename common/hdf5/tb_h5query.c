/* tb_h5query.c — HDF5's own routines behind H5Tget_size, H5Tget_class, H5Tequal,
 * H5Sget_select_type and the extent queries, called directly where the library exports them
 * (optional symbols of common/bind/hdf5_symbols.txt, bound for HDF5 1.x), else the public calls.
 * Each public call costs ~300-600 instructions of API entry and exit around a few of work; a first
 * open makes several per dataset and attribute it records. */
#include "tb_h5query.h"

#include <stdbool.h>
#include <stddef.h>

#if H5_VERS_MAJOR == 1
#define TB_H5Q_INTERNALS 1
#else
#define TB_H5Q_INTERNALS 0
#endif

#if TB_H5Q_INTERNALS
/* (Declared as HDF5 declares them; each name reads the pointer the binding set, NULL when the
 * library does not export the routine.) */
extern void        *H5I_object_verify(hid_t id, H5I_type_t type) __attribute__((weak));
extern size_t       H5T_get_size(const void *dt) __attribute__((weak));
extern H5T_class_t  H5T_get_class(const void *dt, htri_t internal) __attribute__((weak));
extern int          H5T_cmp(const void *dt1, const void *dt2, bool superset) __attribute__((weak));
extern H5S_sel_type H5S_get_select_type(const void *space) __attribute__((weak));
extern hssize_t     H5S_get_simple_extent_npoints(const void *ds) __attribute__((weak));
extern int          H5S_get_simple_extent_dims(const void *ds, hsize_t dims[], hsize_t max_dims[]) __attribute__((weak));

/* The object behind an ID of the kind asked, or NULL (the public call then answers, with its
 * error where there is one). */
static void *
object_of(hid_t id, H5I_type_t type)
{
    return H5I_object_verify ? H5I_object_verify(id, type) : NULL;
}
#endif

size_t
tb_h5t_size(hid_t t)
{
#if TB_H5Q_INTERNALS
    void *dt = H5T_get_size ? object_of(t, H5I_DATATYPE) : NULL;
    if (dt)
        return H5T_get_size(dt);
#endif
    return H5Tget_size(t);
}

H5T_class_t
tb_h5t_class(hid_t t)
{
#if TB_H5Q_INTERNALS
    void *dt = H5T_get_class ? object_of(t, H5I_DATATYPE) : NULL;
    if (dt)
        return H5T_get_class(dt, false);
#endif
    return H5Tget_class(t);
}

htri_t
tb_h5t_equal(hid_t a, hid_t b)
{
#if TB_H5Q_INTERNALS
    void *da = H5T_cmp ? object_of(a, H5I_DATATYPE) : NULL, *db = da ? object_of(b, H5I_DATATYPE) : NULL;
    if (db)
        return H5T_cmp(da, db, false) == 0;
#endif
    return H5Tequal(a, b);
}

H5S_sel_type
tb_h5s_select_type(hid_t s)
{
#if TB_H5Q_INTERNALS
    void *ds = H5S_get_select_type ? object_of(s, H5I_DATASPACE) : NULL;
    if (ds)
        return H5S_get_select_type(ds);
#endif
    return H5Sget_select_type(s);
}

hssize_t
tb_h5s_npoints(hid_t s)
{
#if TB_H5Q_INTERNALS
    void *ds = H5S_get_simple_extent_npoints ? object_of(s, H5I_DATASPACE) : NULL;
    if (ds)
        return H5S_get_simple_extent_npoints(ds);
#endif
    return H5Sget_simple_extent_npoints(s);
}

int
tb_h5s_dims(hid_t s, hsize_t *dims, hsize_t *maxdims)
{
#if TB_H5Q_INTERNALS
    void *ds = H5S_get_simple_extent_dims ? object_of(s, H5I_DATASPACE) : NULL;
    if (ds)
        return H5S_get_simple_extent_dims(ds, dims, maxdims);
#endif
    return H5Sget_simple_extent_dims(s, dims, maxdims);
}
