/* tb_shuffle.h — HDF5's byte shuffle (filter 2), bit-exact: byte k of every element goes to
 * plane k; trailing bytes that do not make a whole element are copied unchanged at the end, and
 * 1-byte elements or buffers of one element are copied as they are. No HDF5 calls. */
#ifndef TB_SHUFFLE_H
#define TB_SHUFFLE_H

#include "tb_common.h"

/* dst[0, nbytes) = shuffle of src[0, nbytes) with elements of elem_nbytes. src and dst must not
 * overlap. */
void tb_shuffle(const void *src, void *dst, size_t nbytes, size_t elem_nbytes);

/* The inverse of tb_shuffle. */
void tb_unshuffle(const void *src, void *dst, size_t nbytes, size_t elem_nbytes);

#endif
