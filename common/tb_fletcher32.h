/* tb_fletcher32.h — HDF5's Fletcher-32 checksum (filter 3), bit-exact: 16-bit words read
 * big-endian, sums folded with end-around carry, the 32-bit result appended little-endian.
 * Pure C, no HDF5 calls: safe on any thread. */
#ifndef TB_FLETCHER32_H
#define TB_FLETCHER32_H

#include "tb_common.h"

/* Bytes the filter appends to a chunk. */
#define TB_FLETCHER32_NBYTES 4

/* The checksum HDF5's H5_checksum_fletcher32 computes over data[0, nbytes). */
uint32_t tb_fletcher32(const void *data, size_t nbytes);

/* Appends the checksum of buf[0, nbytes) at buf + nbytes (the caller provides 4 more bytes). */
void tb_fletcher32_append(void *buf, size_t nbytes);

/* Checks a filtered chunk of nbytes (payload plus 4 checksum bytes) as HDF5's filter does on
 * read: the stored value must equal the checksum, or its byte-swapped form (written by HDF5
 * before 1.6.3 on little-endian hosts). TB_OK, TB_ERR_CHECKSUM on mismatch, TB_ERR_CORRUPT
 * when nbytes < 4. */
tb_status_t tb_fletcher32_verify(const void *buf, size_t nbytes);

#endif
