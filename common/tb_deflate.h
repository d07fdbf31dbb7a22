/* tb_deflate.h — zlib-format DEFLATE streams for HDF5's deflate filter (filter 1), with
 * per-thread codec contexts: ISA-L igzip for levels 1-2 and for byte planes at level 3 (libdeflate
 * where ISA-L is missing), libdeflate for the rest and for all decompression. No HDF5 calls; any thread. */
#ifndef TB_DEFLATE_H
#define TB_DEFLATE_H

#include "tb_common.h"

/* A destination capacity that always suffices for compressing src_nbytes at any level. */
size_t tb_deflate_bound(size_t src_nbytes);

/* Compresses src into one zlib stream (header, DEFLATE data, Adler-32) at `level` (0..9, as
 * HDF5's cd_values[0]). dst_cap >= tb_deflate_bound(src_nbytes) never fails for lack of room.
 * TB_ERR_ARG for a bad level, TB_ERR_NOMEM when a context cannot be allocated,
 * TB_ERR_CODEC when the output does not fit. */
tb_status_t tb_deflate_compress(int level, const void *src, size_t src_nbytes, void *dst, size_t dst_cap,
                                  size_t *dst_nbytes_out);

/* How the bytes to compress are laid out, so that ISA-L (levels 1-3) can adapt its Huffman
 * blocks to byte statistics that change along the data, as zlib's small blocks do:
 * elem_nbytes-byte elements (1: unknown or bytes), and `shuffled` when HDF5's byte shuffle
 * already put them into elem_nbytes planes of src_nbytes / elem_nbytes bytes each (the rest
 * trailing). The output is one ordinary zlib stream either way; libdeflate ignores the layout. */
typedef struct tb_deflate_layout {
    size_t elem_nbytes;
    int    shuffled;
} tb_deflate_layout_t;

/* tb_deflate_compress with a layout; NULL: no adaptation (ISA-L codes the data in its default
 * blocks of up to 64 Ki symbols), which is what tb_deflate_compress does. */
tb_status_t tb_deflate_compress_layout(int level, const void *src, size_t src_nbytes,
                                         const tb_deflate_layout_t *layout, void *dst, size_t dst_cap,
                                         size_t *dst_nbytes_out);

/* tb_deflate_compress_layout on up to `threads` threads (the caller's included, through the
 * process's pool), for shuffled data of multi-byte elements at ISA-L's levels (1-3): runs of whole
 * byte planes of 64 KiB or more, each coded on its own into raw DEFLATE that ends on a sync flush,
 * joined in one zlib stream (header, pieces, Adler-32 of all of src: what pigz does). A piece does
 * not match into the one before it (planes of shuffled data rarely repeat each other). Anything
 * else, or threads <= 1: tb_deflate_compress_layout. *pieces_out: how many pieces were coded (1:
 * the whole in one). */
tb_status_t tb_deflate_compress_threads(int level, const void *src, size_t src_nbytes,
                                        const tb_deflate_layout_t *layout, unsigned threads, void *dst,
                                        size_t dst_cap, size_t *dst_nbytes_out, unsigned *pieces_out);

/* tb_deflate_compress for bytes whose layout is not known (another filter may have shuffled
 * them: HDF5's own filter pipeline does not say): libdeflate at every level, whose blocks adapt
 * to the data as zlib's do (ISA-L's default blocks lose up to a sixth on shuffled planes). */
tb_status_t tb_deflate_compress_unknown(int level, const void *src, size_t src_nbytes, void *dst, size_t dst_cap,
                                          size_t *dst_nbytes_out);
/* Decompresses one zlib stream (trailing bytes after it are ignored, as zlib's inflate does)
 * into dst. The output must fit in dst_cap; *dst_nbytes_out is its size. TB_ERR_CORRUPT for
 * bad data (including an Adler-32 mismatch) or output larger than dst_cap. */
tb_status_t tb_deflate_decompress(const void *src, size_t src_nbytes, void *dst, size_t dst_cap,
                                    size_t *dst_nbytes_out);
/* tb_deflate_decompress for an output of unknown size: TB_ERR_ARG (not TB_ERR_CORRUPT) when the
 * stream decodes but needs more than dst_cap bytes, so that the caller may retry with more. */
tb_status_t tb_deflate_decompress_sized(const void *src, size_t src_nbytes, void *dst, size_t dst_cap,
                                          size_t *dst_nbytes_out);

/* "isa-l" or "libdeflate": the engine tb_deflate_compress uses at `level`. */
const char *tb_deflate_engine(int level);

/* Test hook: 1 makes levels 1-3 use libdeflate even when ISA-L is built in. */
void tb_deflate_force_libdeflate(int on);

#endif
