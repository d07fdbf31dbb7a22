/* tb_status.c — text for h5turbo's internal status codes (see tb_common.h): the one place a
 * status becomes words, for our own messages and for HDF5's error stack alike. */
#include "tb_common.h"

const char *
tb_status_str(tb_status_t st)
{
    switch (st) {
        case TB_OK: return "success";
        case TB_ERR_NOMEM: return "out of memory";
        case TB_ERR_ARG: return "invalid argument";
        case TB_ERR_CORRUPT: return "corrupt or truncated data";
        case TB_ERR_CHECKSUM: return "checksum mismatch";
        case TB_ERR_IO: return "I/O error";
        case TB_ERR_UNSUPPORTED: return "not supported by h5turbo";
        case TB_ERR_CODEC: return "compression library failure";
        case TB_ERR_HDF5: return "HDF5 call failed";
        case TB_ERR_BUSY: return "resource busy";
    }
    return "unknown h5turbo status";
}
