/* tb_hdf5err.h — the HDF5 boundary for errors: h5turbo's own error class on the HDF5 error
 * stack, and save/restore of the application's error stack around internal cleanup calls. */
#ifndef TB_HDF5ERR_H
#define TB_HDF5ERR_H

#include "tb_common.h"
#include <hdf5.h>

/* Pushes "<part>: <message>" onto the default HDF5 error stack under h5turbo's error class: the
 * major message names the part of h5turbo ("h5turbo index"), the minor the status ("out of
 * memory"; "unknown h5turbo status" for a value outside the enumeration, never "success"). Safe
 * to call from any callback of ours (what is on the stack stays). */
void tb_push_error(const char *file, const char *func, unsigned line, const char *part, tb_status_t st,
                    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

#define TB_PUSH(part, st, ...) tb_push_error(__FILE__, __func__, __LINE__, (part), (st), __VA_ARGS__)

/* Public HDF5 API calls made inside a callback clear the application's error stack. Wrap such
 * calls (made during cleanup, after an error) in save/restore to keep what the caller needs to see. */
hid_t tb_err_save(void);
void  tb_err_restore(hid_t saved);
/* After an application's call that succeeded (its API entry emptied the stack, and native pushed
 * nothing): what calls of h5turbo's own pushed since is dropped, with one call where save and
 * restore make two (every dataset or attribute a first open records makes a few such series). */
void tb_err_drop(void);

#endif
