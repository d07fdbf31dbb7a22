/* tb_h5walk.h — the walk that fills a file's index through HDF5's public API, run on a file open
 * through the h5turbo connector: every object visited, its attribute list asked for (the index then
 * records the attributes and their small values) and every small dataset of a fixed-size type read
 * whole (the index captures its content). `h5turbo index build` runs it, and so does rank 0 of an
 * MPI-IO job's first open, building the index all ranks share (vol/index/index.c). Header-only:
 * each user compiles it against the HDF5 it calls (the command links libhdf5; the plugins bind to
 * the library that loads them). */
#ifndef TB_H5WALK_H
#define TB_H5WALK_H

#include <hdf5.h>
#include <stdlib.h>
#include <string.h>

typedef struct tb_h5walk {
    long   max_objects;                  /* the walk stops after this many objects; <= 0: all */
    size_t max_data_nbytes;              /* datasets of at most this many bytes are read whole */
    void (*each)(void *arg, long nobj); /* called after each object (progress); may be NULL */
    void  *arg;
    long   nobj; /* out: objects visited */
} tb_h5walk_t;

/* A small dataset of a fixed-size type, read whole in its own type. Errors are not the walk's. */
static inline void
tb_h5walk_read_small(hid_t loc, const char *name, size_t max_nbytes)
{
    H5E_BEGIN_TRY
    {
        hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
        hid_t t = d >= 0 ? H5Dget_type(d) : H5I_INVALID_HID;
        hid_t s = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
        if (t >= 0 && s >= 0 && H5Tdetect_class(t, H5T_VLEN) == 0 && H5Tis_variable_str(t) == 0 &&
            H5Tdetect_class(t, H5T_REFERENCE) == 0) {
            hssize_t npts = H5Sget_simple_extent_npoints(s);
            size_t   ts   = H5Tget_size(t);
            if (npts > 0 && ts > 0 && (size_t)npts <= max_nbytes / ts) {
                void *buf = malloc((size_t)npts * ts);
                if (buf)
                    H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
                free(buf);
            }
        }
        if (s >= 0)
            H5Sclose(s);
        if (t >= 0)
            H5Tclose(t);
        if (d >= 0)
            H5Dclose(d);
    }
    H5E_END_TRY
}

static inline herr_t
tb_h5walk_visit_cb(hid_t obj, const char *name, const H5O_info2_t *info, void *op_data)
{
    tb_h5walk_t *w = (tb_h5walk_t *)op_data;
    /* Asking for any attribute loads the object's attribute list (and small values). */
    H5E_BEGIN_TRY { H5Aexists_by_name(obj, name, "NX_class", H5P_DEFAULT); }
    H5E_END_TRY
    if (info->type == H5O_TYPE_DATASET && strcmp(name, ".") != 0)
        tb_h5walk_read_small(obj, name, w->max_data_nbytes);
    w->nobj++;
    if (w->each)
        w->each(w->arg, w->nobj);
    return w->max_objects > 0 && w->nobj >= w->max_objects ? 1 : 0;
}

/* Walks the file (or group) `loc`: 0 when every object was visited, 1 when the walk stopped at
 * max_objects, -1 when the visit failed. w->nobj says how many objects it visited. */
static inline int
tb_h5walk(hid_t loc, tb_h5walk_t *w)
{
    w->nobj  = 0;
    herr_t r = H5Ovisit3(loc, H5_INDEX_NAME, H5_ITER_NATIVE, tb_h5walk_visit_cb, w, H5O_INFO_BASIC);
    return r < 0 ? -1 : r > 0 ? 1 : 0;
}

#endif
