/* tb_hdf5err.c — registers h5turbo's HDF5 error class lazily and pushes messages under it.
 * The class is dropped at library close (H5atclose) so a re-initialised library gets a new one. */
#include "tb_hdf5err.h"

#include <stdarg.h>
#include <stdio.h>

static hid_t cls_id = H5I_INVALID_HID;
static hid_t maj_id = H5I_INVALID_HID;
static hid_t min_ids[9];

static void
forget_class(void *ctx)
{
    (void)ctx;
    /* The library is closing its ID tables: our IDs die with them. */
    cls_id = H5I_INVALID_HID;
    maj_id = H5I_INVALID_HID;
    for (size_t i = 0; i < sizeof(min_ids) / sizeof(min_ids[0]); i++)
        min_ids[i] = H5I_INVALID_HID;
}

static int
ensure_class(void)
{
    if (cls_id >= 0)
        return 0;
    cls_id = H5Eregister_class("h5turbo", "h5turbo", "1.0");
    if (cls_id < 0)
        return -1;
    maj_id = H5Ecreate_msg(cls_id, H5E_MAJOR, "h5turbo");
    for (int s = 0; s >= -8; s--)
        min_ids[-s] = H5Ecreate_msg(cls_id, H5E_MINOR, tb_status_str((tb_status_t)s));
    H5atclose(forget_class, NULL);
    return 0;
}

void
tb_push_error(const char *file, const char *func, unsigned line, const char *part, tb_status_t st,
               const char *fmt, ...)
{
    char    msg[512];
    va_list ap;
    int     off = snprintf(msg, sizeof(msg), "%s: ", part ? part : "h5turbo");
    if (off < 0)
        off = 0;
    va_start(ap, fmt);
    vsnprintf(msg + off, sizeof(msg) - (size_t)off, fmt, ap);
    va_end(ap);
    /* Registration calls public API functions, which clear the stack: keep what is there. */
    if (cls_id < 0) {
        hid_t saved = H5Eget_current_stack();
        int   rc    = ensure_class();
        if (saved >= 0)
            H5Eset_current_stack(saved);
        if (rc < 0)
            return;
    }
    int idx = -(int)st;
    if (idx < 0 || idx > 8)
        idx = 0;
    H5Epush2(H5E_DEFAULT, file, func, line, cls_id, maj_id, min_ids[idx], "%s", msg);
}

hid_t
tb_err_save(void)
{
    return H5Eget_current_stack();
}

void
tb_err_restore(hid_t saved)
{
    if (saved >= 0)
        H5Eset_current_stack(saved);
}
