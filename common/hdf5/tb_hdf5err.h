/* tb_hdf5err.h — the HDF5 boundary for errors: h5turbo's own error class on the HDF5 error
 * stack, and save/restore of the application's error stack around internal cleanup calls. */
#ifndef TB_HDF5ERR_H
#define TB_HDF5ERR_H

#include "tb_common.h"
#include <hdf5.h>

/* Pushes "h5turbo: <message>" onto the default HDF5 error stack under h5turbo's error class.
 * The major class names the part of h5turbo; the minor the status. Safe to call from any
 * callback of ours (it does not clear the stack). */
void tb_push_error(const char *file, const char *func, unsigned line, const char *part, tb_status_t st,
                    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#define TB_PUSH(part, st, ...) tb_push_error(__FILE__, __func__, __LINE__, (part), (st), __VA_ARGS__)

/* Public HDF5 API calls made inside a callback clear the application's error stack. Wrap such
 * calls (made during cleanup, after an error) in save/restore to keep what the caller needs to see. */
hid_t tb_err_save(void);
void  tb_err_restore(hid_t saved);

#endif
