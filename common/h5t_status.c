/* h5t_status.c — text for h5turbo's internal status codes (see h5t_common.h). */
#include "h5t_common.h"

const char *
h5t_status_str(h5t_status_t st)
{
    switch (st) {
        case H5T_OK: return "success";
        case H5T_ERR_NOMEM: return "out of memory";
        case H5T_ERR_ARG: return "invalid argument";
        case H5T_ERR_CORRUPT: return "corrupt or truncated data";
        case H5T_ERR_CHECKSUM: return "checksum mismatch";
        case H5T_ERR_IO: return "I/O error";
        case H5T_ERR_UNSUPPORTED: return "not supported by h5turbo";
        case H5T_ERR_CODEC: return "compression library failure";
        case H5T_ERR_HDF5: return "HDF5 call failed";
    }
    return "unknown h5turbo status";
}
