/* tb_common.h — small definitions every h5turbo module uses: visibility, status codes,
 * and the conventions for output parameters. Included by common/, vol/ and filter/. */
#ifndef TB_COMMON_H
#define TB_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Only the HDF5 plugin entry points leave a plugin; everything else is hidden. */
#define TB_EXPORT __attribute__((visibility("default")))

/* One error vocabulary inside h5turbo: 0 is success, negative values are failures.
 * These are converted once, at the HDF5 boundary, into messages on the HDF5 error stack. */
typedef enum tb_status {
    TB_OK            = 0,
    TB_ERR_NOMEM     = -1, /* an allocation failed */
    TB_ERR_ARG       = -2, /* a caller passed something invalid (option, size, NULL) */
    TB_ERR_CORRUPT   = -3, /* input bytes do not decode (corrupt chunk, bad sidecar) */
    TB_ERR_CHECKSUM  = -4, /* a checksum does not match */
    TB_ERR_IO        = -5, /* a system call failed */
    TB_ERR_UNSUPPORTED = -6, /* valid but not something h5turbo handles; caller forwards */
    TB_ERR_CODEC     = -7, /* a compression library reported failure */
    TB_ERR_HDF5      = -8, /* an HDF5 call failed (its own stack says why) */
    TB_ERR_BUSY      = -9  /* a resource is held elsewhere (a lock) and was not waited for */
} tb_status_t;
/* The number of statuses: they run from TB_OK down to -(TB_NSTATUS - 1). */
#define TB_NSTATUS 10

/* A short English description of a status, never NULL ("unknown h5turbo status" for a value
 * outside the enumeration). */
const char *tb_status_str(tb_status_t st);
/* Its index in [0, TB_NSTATUS) for tables indexed by status, or TB_NSTATUS when it is none. */
static inline unsigned
tb_status_index(tb_status_t st)
{
    return st <= 0 && st > -TB_NSTATUS ? (unsigned)-(int)st : (unsigned)TB_NSTATUS;
}

/* A hash of an HDF5 object token (16 bytes, H5O_token_t's size), for the tables of objects the
 * index and the pipeline keep by token. */
static inline uint32_t
tb_hash_token(const void *token)
{
    uint64_t a, b;
    memcpy(&a, token, 8);
    memcpy(&b, (const uint8_t *)token + 8, 8);
    return (uint32_t)(((a ^ (b * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull) >> 32);
}

#define TB_UNUSED(x) ((void)(x))

#endif
