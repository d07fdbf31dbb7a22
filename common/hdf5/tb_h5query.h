/* tb_h5query.h — the small questions the plugins ask HDF5 about datatypes and dataspaces on every
 * dataset and attribute they record or answer (size, class, equality, string kind, committed or
 * not, selection type, extent), and the types and spaces they hand out as answers, made by the
 * routines HDF5's own API calls wrap, where the library exports them: no API context pushed and
 * popped, no error stack cleared. Same results as the public calls, which they fall back on (a
 * library that hides its internals, an ID that is not of the kind asked). */
#ifndef TB_H5QUERY_H
#define TB_H5QUERY_H

#include <hdf5.h>
#include <stdbool.h>

size_t       tb_h5t_size(hid_t t);                                   /* H5Tget_size */
H5T_class_t  tb_h5t_class(hid_t t);                                  /* H5Tget_class */
htri_t       tb_h5t_equal(hid_t a, hid_t b);                         /* H5Tequal */
H5S_sel_type tb_h5s_select_type(hid_t s);                            /* H5Sget_select_type */
hssize_t     tb_h5s_npoints(hid_t s);                                /* H5Sget_simple_extent_npoints */
int          tb_h5s_dims(hid_t s, hsize_t *dims, hsize_t *maxdims); /* H5Sget_simple_extent_dims */
htri_t       tb_h5t_committed(hid_t t);                              /* H5Tcommitted */
htri_t       tb_h5t_is_vstr(hid_t t);                                /* H5Tis_variable_str */
H5S_class_t  tb_h5s_extent_type(hid_t s);                            /* H5Sget_simple_extent_type */
/* What tb_h5t_describe tells of a datatype: H5Tget_class (H5T_NO_CLASS when the ID is not a
 * datatype's), H5Tget_size, H5Tcommitted and H5Tis_variable_str, with one look-up of its ID; and
 * the library's object behind it (NULL where the public calls answered), for tb_h5t_equal_objs. */
typedef struct tb_h5t_desc {
    const void *obj;
    H5T_class_t cls;
    size_t      size;
    htri_t      named, vstr;
} tb_h5t_desc_t;
void tb_h5t_describe(hid_t t, tb_h5t_desc_t *d);
/* H5Tequal(a, b), given the library's objects behind them where known (a describe's obj: the
 * object lives as long as its ID), else NULL for each to be looked up. */
htri_t tb_h5t_equal_objs(hid_t a, const void *a_obj, hid_t b, const void *b_obj);
/* H5Tcopy, the copy made read-only (as native's H5Aget_type and H5Dget_type give theirs) when
 * `lock`; *locked_out says whether it was. */
hid_t tb_h5t_copy(hid_t t, bool lock, bool *locked_out);
/* H5Screate_simple, or H5Screate(H5S_SCALAR) for rank 0. */
hid_t tb_h5s_create_simple(int rank, const hsize_t *dims, const hsize_t *maxdims);
/* H5Scopy (its extent's version kept, as HDF5's copy keeps it). */
hid_t tb_h5s_copy(hid_t s);

#endif
