/* h5t_common.h — small definitions every h5turbo module uses: visibility, status codes,
 * and the conventions for output parameters. Included by common/, vol/ and filter/. */
#ifndef H5T_COMMON_H
#define H5T_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Only the HDF5 plugin entry points leave a plugin; everything else is hidden. */
#define H5T_EXPORT __attribute__((visibility("default")))

/* One error vocabulary inside h5turbo: 0 is success, negative values are failures.
 * These are converted once, at the HDF5 boundary, into messages on the HDF5 error stack. */
typedef enum h5t_status {
    H5T_OK            = 0,
    H5T_ERR_NOMEM     = -1, /* an allocation failed */
    H5T_ERR_ARG       = -2, /* a caller passed something invalid (option, size, NULL) */
    H5T_ERR_CORRUPT   = -3, /* input bytes do not decode (corrupt chunk, bad sidecar) */
    H5T_ERR_CHECKSUM  = -4, /* a checksum does not match */
    H5T_ERR_IO        = -5, /* a system call failed */
    H5T_ERR_UNSUPPORTED = -6, /* valid but not something h5turbo handles; caller forwards */
    H5T_ERR_CODEC     = -7, /* a compression library reported failure */
    H5T_ERR_HDF5      = -8  /* an HDF5 call failed (its own stack says why) */
} h5t_status_t;

/* A short English description of a status, never NULL. */
const char *h5t_status_str(h5t_status_t st);

#define H5T_UNUSED(x) ((void)(x))

#endif
