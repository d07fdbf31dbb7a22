/* under.c — small queries of the connector below (and of the HDF5 library) that more than one
 * subsystem needs, asked the cheapest way native HDF5 offers. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "tb_obj.h"

#include <dlfcn.h>
#include <string.h>

haddr_t
tb_dset_contig_addr(void *under, hid_t vol, hid_t dxpl_id)
{
    haddr_t                             off = HADDR_UNDEF;
    H5VL_native_dataset_optional_args_t na;
    na.get_offset.offset     = &off;
    H5VL_optional_args_t opt = {.op_type = H5VL_NATIVE_DATASET_GET_OFFSET, .args = &na};
    if (H5VLdataset_optional(under, vol, &opt, dxpl_id, NULL) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return HADDR_UNDEF;
    }
    return off;
}

herr_t
tb_native_info(void *under, const H5VL_loc_params_t *loc, hid_t vol, unsigned fields, H5O_native_info_t *ni,
               hid_t dxpl_id)
{
    H5VL_native_object_optional_args_t na = {.get_native_info = {.fields = fields, .ninfo = ni}};
    H5VL_optional_args_t               oa = {.op_type = H5VL_NATIVE_OBJECT_GET_NATIVE_INFO, .args = &na};
    return H5VLobject_optional(under, loc, vol, &oa, dxpl_id, NULL);
}

int
tb_dset_filtered(void *under, hid_t vol, hid_t dxpl_id)
{
    H5VL_loc_params_t self = {.obj_type = H5I_DATASET, .type = H5VL_OBJECT_BY_SELF};
    H5O_native_info_t ni;
    if (tb_native_info(under, &self, vol, H5O_NATIVE_INFO_HDR, &ni, dxpl_id) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return -1;
    }
    /* (a header message's type is its bit in `present`, a shared message's too) */
    return (ni.hdr.mesg.present & (uint64_t)H5O_SHMESG_PLINE_FLAG) != 0;
}

hid_t
tb_dset_dcpl(tb_obj_t *o, hid_t dxpl_id)
{
    if (o->dcpl >= 0 || !o->under)
        return o->dcpl;
    H5VL_dataset_get_args_t a;
    memset(&a, 0, sizeof(a));
    a.op_type                = H5VL_DATASET_GET_DCPL;
    a.args.get_dcpl.dcpl_id  = H5I_INVALID_HID;
    if (H5VLdataset_get(o->under, o->under_vol_id, &a, dxpl_id, NULL) < 0) {
        H5Eclear2(H5E_DEFAULT);
        return H5I_INVALID_HID;
    }
    return o->dcpl = a.args.get_dcpl.dcpl_id;
}

void
tb_quiet_on(tb_quiet_t *q)
{
    unsigned is_v2 = 1;
    q->saved       = 0;
    /* Asking for the v2 handler when the application installed a v1 one is itself an error
     * (and would be printed by that handler): ask which kind is installed first. */
    if (H5Eauto_is_v2(H5E_DEFAULT, &is_v2) < 0)
        return;
    /* (printing already off, as h5py keeps it: nothing to turn off, nor to restore) */
    if (is_v2) {
        if (H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data) >= 0 && q->func && H5Eset_auto2(H5E_DEFAULT, NULL, NULL) >= 0)
            q->saved = 2;
    }
#ifndef H5_NO_DEPRECATED_SYMBOLS
    else if (H5Eget_auto1(&q->func1, &q->data) >= 0 && q->func1 && H5Eset_auto1(NULL, NULL) >= 0)
        q->saved = 1;
#endif
}

void
tb_quiet_off(tb_quiet_t *q)
{
    if (q->saved == 2)
        H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
#ifndef H5_NO_DEPRECATED_SYMBOLS
    else if (q->saved == 1)
        H5Eset_auto1(q->func1, q->data);
#endif
}

bool
tb_dxpl_has_transform(hid_t dxpl_id)
{
    if (dxpl_id == H5P_DEFAULT || dxpl_id == H5P_DATASET_XFER_DEFAULT)
        return false;
    /* The query fails (HDF5 1.14: "data transform has not been set") or returns 0 when none is
     * set; HDF5 checked the list's class before the call reached the connector. Quiet: a C
     * program passing its own transfer list (a collective one under MPI) saw that error printed. */
    tb_quiet_t q;
    tb_quiet_on(&q);
    ssize_t n = H5Pget_data_transform(dxpl_id, NULL, 0);
    tb_quiet_off(&q);
    H5Eclear2(H5E_DEFAULT);
    return n > 0;
}

unsigned long
tb_fapl_driver_features(hid_t fapl_id)
{
    hid_t         saved = tb_err_save();
    hid_t         drv   = H5Pget_driver(fapl_id == H5P_DEFAULT ? H5P_FILE_ACCESS_DEFAULT : fapl_id);
    unsigned long flags = 0;
    if (drv < 0 || H5FDdriver_query(drv, &flags) < 0)
        flags = 0;
    tb_err_restore(saved);
    return flags;
}

bool
tb_fapl_uses_mpi(hid_t fapl_id)
{
    return (tb_fapl_driver_features(fapl_id) & H5FD_FEAT_HAS_MPI) != 0;
}

/* HDF5's internal query of a file's driver (exported by its shared libraries, the wheels' 1.14.6,
 * 2.0.0 and 2.2.0 among them; NULL where not): the file object of native below is HDF5's file. */
extern hid_t H5F_get_driver_id(const void *f) __attribute__((weak));

int
tb_file_fd_below(void *file_under, hid_t vol)
{
    hid_t saved = tb_err_save();
    /* The driver the file was opened with (the default one may be set by HDF5_DRIVER; a file open
     * already keeps its first open's): asked of the file itself, or (where HDF5 hides that query)
     * of a copy of its access list, 80k instructions an open. */
    bool sec2 = false;
    if (H5F_get_driver_id)
        sec2 = H5F_get_driver_id(file_under) == H5FD_SEC2;
    else {
        H5VL_file_get_args_t ga;
        memset(&ga, 0, sizeof(ga));
        ga.op_type = H5VL_FILE_GET_FAPL;
        if (H5VLfile_get(file_under, vol, &ga, H5P_DATASET_XFER_DEFAULT, NULL) >= 0) {
            sec2 = H5Pget_driver(ga.args.get_fapl.fapl_id) == H5FD_SEC2;
            H5Pclose(ga.args.get_fapl.fapl_id);
        }
    }
    void                            *handle = NULL;
    H5VL_native_file_optional_args_t na;
    na.get_vfd_handle.fapl_id     = H5P_FILE_ACCESS_DEFAULT;
    na.get_vfd_handle.file_handle = &handle;
    H5VL_optional_args_t opt      = {.op_type = H5VL_NATIVE_FILE_GET_VFD_HANDLE, .args = &na};
    int                  fd       = -1;
    if (sec2 && H5VLfile_optional(file_under, vol, &opt, H5P_DATASET_XFER_DEFAULT, NULL) >= 0 && handle)
        fd = *(int *)handle;
    tb_err_restore(saved);
    return fd;
}

int
tb_file_sec2_fd(tb_obj_t *file)
{
    if (file->ctx->sec2_fd == -2)
        file->ctx->sec2_fd = file->ctx->under_native ? tb_file_fd_below(file->under, file->under_vol_id) : -1;
    return file->ctx->sec2_fd;
}

bool
tb_hdf5_own_code(void (*fn)(void))
{
    /* dladdr searches the loaded objects (tens of thousands of instructions): the answers for the
     * last few callbacks are kept, as an iteration per entry (NeXus's) passes one callback
     * thousands of times. */
    enum { N = 4 };
    static _Thread_local struct {
        void (*fn)(void);
        bool own;
    } seen[N];
    static _Thread_local unsigned next;
    if (!fn)
        return false;
    for (unsigned k = 0; k < N; k++)
        if (seen[k].fn == fn)
            return seen[k].own;
    /* A global of the HDF5 library this plugin is bound to tells where that library lies. */
    Dl_info f, h;
    void   *addr;
    memcpy(&addr, &fn, sizeof(addr));
    bool own          = dladdr(addr, &f) && dladdr((const void *)&H5E_ATTR_g, &h) && f.dli_fbase == h.dli_fbase;
    seen[next % N].fn  = fn;
    seen[next % N].own = own;
    next++;
    return own;
}
