/* tb_hdf5err.c — the one place h5turbo's status codes meet HDF5's error stack: our error class,
 * a major message per part of h5turbo (vol, index, pipeline, blosc, ...) and a minor message per
 * status, registered lazily and dropped at library close (H5atclose) so that a re-initialised
 * library gets new ones. */
#include "tb_hdf5err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define TB_MAX_PARTS 16

static hid_t cls_id = H5I_INVALID_HID;
/* Minor messages by tb_status_index(); the last one for a status outside the enumeration. */
static hid_t min_ids[TB_NSTATUS + 1];
/* Major messages, one per part name pushed so far (callbacks are serialised by HDF5). */
static struct {
    char  name[32];
    hid_t id;
} parts[TB_MAX_PARTS];
static int nparts;

static void
forget_class(void *ctx)
{
    (void)ctx;
    /* The library is closing its ID tables: our IDs die with them. */
    cls_id = H5I_INVALID_HID;
    nparts = 0;
}

static int
ensure_class(void)
{
    if (cls_id >= 0)
        return 0;
    cls_id = H5Eregister_class("h5turbo", "h5turbo", "1.0");
    if (cls_id < 0)
        return -1;
    for (int i = 0; i < TB_NSTATUS; i++)
        min_ids[i] = H5Ecreate_msg(cls_id, H5E_MINOR, tb_status_str((tb_status_t)-i));
    min_ids[TB_NSTATUS] = H5Ecreate_msg(cls_id, H5E_MINOR, tb_status_str((tb_status_t)1));
    nparts              = 0;
    H5atclose(forget_class, NULL);
    return 0;
}

/* The major message naming `part`, when it is registered already. */
static hid_t
known_part(const char *part)
{
    for (int i = 0; i < nparts; i++)
        if (strcmp(parts[i].name, part) == 0)
            return parts[i].id;
    return nparts == TB_MAX_PARTS ? parts[0].id : H5I_INVALID_HID;
}

/* Registers the major message naming `part`. */
static hid_t
new_part(const char *part)
{
    char text[64];
    snprintf(text, sizeof(text), "h5turbo %s", part);
    snprintf(parts[nparts].name, sizeof(parts[nparts].name), "%s", part);
    parts[nparts].id = H5Ecreate_msg(cls_id, H5E_MAJOR, text);
    return parts[nparts++].id;
}

void
tb_push_error(const char *file, const char *func, unsigned line, const char *part, tb_status_t st,
              const char *fmt, ...)
{
    char    msg[512];
    va_list ap;
    part    = part && *part ? part : "h5turbo";
    int off = snprintf(msg, sizeof(msg), "%s: ", part);
    if (off < 0)
        off = 0;
    va_start(ap, fmt);
    vsnprintf(msg + off, sizeof(msg) - (size_t)off, fmt, ap);
    va_end(ap);
    hid_t maj = cls_id >= 0 ? known_part(part) : H5I_INVALID_HID;
    if (maj < 0) {
        /* Registration calls public API functions, which clear the stack: keep what is there. */
        hid_t saved = H5Eget_current_stack();
        if (ensure_class() == 0 && (maj = known_part(part)) < 0)
            maj = new_part(part);
        if (saved >= 0)
            H5Eset_current_stack(saved);
        if (maj < 0)
            return;
    }
    H5Epush2(H5E_DEFAULT, file, func, line, cls_id, maj, min_ids[tb_status_index(st)], "%s", msg);
}

/* An empty stack (the common case: callbacks that save around bookkeeping after a success) is not
 * copied: restoring it is clearing what was pushed since. */
#define SAVED_EMPTY ((hid_t)0) /* (never an HDF5 ID) */

hid_t
tb_err_save(void)
{
    if (H5Eget_num(H5E_DEFAULT) == 0)
        return SAVED_EMPTY;
    return H5Eget_current_stack();
}

void
tb_err_drop(void)
{
    H5Eclear2(H5E_DEFAULT);
}

void
tb_err_restore(hid_t saved)
{
    if (saved == SAVED_EMPTY)
        H5Eclear2(H5E_DEFAULT);
    else if (saved >= 0)
        H5Eset_current_stack(saved);
}
