/* tb_blosc_codec.h — Blosc 1 frames (the chunk format of HDF5 filter 32001, as written by
 * hdf5-blosc, PyTables and hdf5plugin), compressed and decompressed on h5turbo's thread pool.
 * Plain C, no HDF5 calls: the filter plugin and the VOL chunk pipeline both link this. */
#ifndef TB_BLOSC_CODEC_H
#define TB_BLOSC_CODEC_H

#include "tb_common.h"

#include <h5turbo.h> /* the public filter id and cd_values layout */

#include <stddef.h>

/* The registered HDF5 filter id, and the filter revision hdf5-blosc stores in cd_values[0]. */
#define TB_BLOSC_FILTER_ID       H5TURBO_BLOSC_FILTER_ID
#define TB_BLOSC_FILTER_REVISION 2
/* Number of cd_values slots the filter understands (hdf5-blosc's layout, see below). */
#define TB_BLOSC_CD_NELMTS H5TURBO_BLOSC_CD_NELMTS

/* Bytes a frame header takes, and so the most a frame can exceed its input: an input that does
 * not compress is stored as a header followed by a plain copy (a "memcpyed" frame). */
#define TB_BLOSC_HEADER_NBYTES 16

/* Compressor codes of cd_values[6] (the same numbers as c-blosc's BLOSC_BLOSCLZ ... BLOSC_ZSTD). */
typedef enum tb_blosc_compressor {
    TB_BLOSC_BLOSCLZ = 0,
    TB_BLOSC_LZ4     = 1,
    TB_BLOSC_LZ4HC   = 2,
    TB_BLOSC_SNAPPY  = 3,
    TB_BLOSC_ZLIB    = 4,
    TB_BLOSC_ZSTD    = 5
} tb_blosc_compressor_t;

/* Shuffle modes of cd_values[5]. */
typedef enum tb_blosc_shuffle {
    TB_BLOSC_NOSHUFFLE  = 0,
    TB_BLOSC_SHUFFLE    = 1, /* byte shuffle */
    TB_BLOSC_BITSHUFFLE = 2
} tb_blosc_shuffle_t;

/* What one chunk is compressed with. Obtain it from cd_values with tb_blosc_params_from_cd
 * (which applies hdf5-blosc's defaults) or fill it directly. */
typedef struct tb_blosc_params {
    unsigned typesize;      /* element size for the shuffle, 1..255 (larger values act as 1) */
    unsigned clevel;        /* 0 (store) .. 9 */
    unsigned shuffle;       /* tb_blosc_shuffle_t */
    unsigned compressor;    /* tb_blosc_compressor_t */
    size_t   chunk_nbytes;  /* cd_values[3]: uncompressed chunk size, 0 when unknown */
} tb_blosc_params_t;

/* Parses hdf5-blosc's cd_values:
 *   [0] filter revision, [1] Blosc format version, [2] type size, [3] chunk size in bytes,
 *   [4] compression level (default 5), [5] shuffle (default 1), [6] compressor (default 0).
 * Slots beyond cd_nelmts take the defaults. Returns TB_ERR_ARG for a value out of range (and
 * writes why into why, which may be NULL), TB_ERR_UNSUPPORTED for a compressor this c-blosc
 * build lacks. */
tb_status_t tb_blosc_params_from_cd(size_t cd_nelmts, const unsigned cd_values[], tb_blosc_params_t *p_out,
                                      char *why, size_t why_nbytes);

/* The destination capacity tb_blosc_compress needs for src_nbytes of input: the input plus one
 * header. Compression never fails for lack of compressibility; it stores a copy instead. */
size_t tb_blosc_max_compressed_nbytes(size_t src_nbytes);

/* Whether this c-blosc build can compress and decompress with `compressor`. */
int tb_blosc_compressor_available(unsigned compressor);

/* "blosclz", "lz4", ... or NULL for an unknown code. */
const char *tb_blosc_compressor_name(unsigned compressor);

/* Compresses src into one Blosc 1 frame in dst (format version 2, blocks split exactly as c-blosc's
 * default "forward compatible" mode does, so every c-blosc 1.x reader, hdf5-blosc, PyTables and
 * hdf5plugin decode it). dst_cap must be at least
 * tb_blosc_max_compressed_nbytes(src_nbytes) (else TB_ERR_ARG). src_nbytes must not exceed
 * INT32_MAX - 16 (else TB_ERR_UNSUPPORTED).
 *
 * threads: 0 = the process default (H5TURBO_THREADS, else BLOSC_NTHREADS, else the CPUs this
 * process may use), and inputs smaller than tb_blosc_parallel_min_nbytes() then run on the
 * caller alone; 1 = on the caller only (what a caller that already runs one chunk per worker
 * wants); n > 1 = up to n threads (caller included) whenever the frame has two blocks or more.
 * Blocks are compressed in parallel on common/'s persistent pool; no thread is created per call.
 * The frame is byte-for-byte what c-blosc's serial compressor writes, whatever `threads` is,
 * with one exception: near the end of a frame c-blosc gives snappy less output room than snappy
 * demands and stores those streams uncompressed; our parallel runs have the room, so a snappy
 * frame may come out smaller (still a valid frame). A frame that would exceed the input plus one
 * header becomes a plain copy, as in c-blosc; tiny (< 128 bytes) and clevel 0 inputs too.
 *
 * Thread safety: reentrant. Any number of threads may call this at once on different buffers. */
tb_status_t tb_blosc_compress(const tb_blosc_params_t *p, const void *src, size_t src_nbytes, void *dst,
                                size_t dst_cap, size_t *dst_nbytes_out, unsigned threads);

/* What a frame header says, after validation. */
typedef struct tb_blosc_frame {
    size_t   nbytes;     /* uncompressed size */
    size_t   cbytes;     /* frame size (bytes after it, if any, are ignored) */
    size_t   blocksize;  /* uncompressed bytes per block */
    size_t   nblocks;    /* blocks, the last one possibly short */
    unsigned typesize;
    unsigned flags;      /* header flags byte */
    unsigned compformat; /* compressor format code (flags >> 5) */
    int      memcpyed;   /* 1: stored as a plain copy */
} tb_blosc_frame_t;

/* Validates a frame header without decompressing: the header must fit in src_nbytes, name a
 * supported format, claim a frame no longer than src_nbytes, an uncompressed size no larger
 * than dst_cap (the size the caller expects), and a block table whose offsets all point inside
 * the frame. On failure returns TB_ERR_CORRUPT (or TB_ERR_UNSUPPORTED for a compressor this
 * build lacks) and writes a one-line reason into why (may be NULL). */
tb_status_t tb_blosc_frame_info(const void *src, size_t src_nbytes, size_t dst_cap, tb_blosc_frame_t *info_out,
                                  char *why, size_t why_nbytes);

/* Decompresses one frame of src_nbytes bytes into dst (dst_cap bytes). The header is validated
 * (tb_blosc_frame_info with dst_cap) before any block is touched; every block offset and
 * every compressed stream length is checked against the frame. A corrupt or truncated frame is
 * TB_ERR_CORRUPT, never a read outside src or a write outside dst[0, nbytes).
 * `threads` as for tb_blosc_compress: blocks are decoded in parallel on the pool. With
 * threads = 0, frames of blosclz, lz4 or snappy that compress less than 2:1 are decoded on the
 * caller (they decode at copy speed; splitting measured slower). Stream lengths and block data
 * are checked by c-blosc's own decoder (blosc_decompress_ctx, or blosc_getitem per block run).
 * Thread safety: reentrant. */
tb_status_t tb_blosc_decompress(const void *src, size_t src_nbytes, void *dst, size_t dst_cap,
                                  size_t *dst_nbytes_out, unsigned threads);

/* Below this many uncompressed bytes, threads = 0 runs a chunk on the caller alone: handing
 * blocks to workers costs more than it saves (bench/blosc/README.md). */
size_t tb_blosc_parallel_min_nbytes(void);

/* How many frames of two blocks or more the parallel compressor had to hand to the serial one
 * since the process started (a c-blosc that sizes blocks differently from 1.21). For tests. */
size_t tb_blosc_parallel_fallbacks(void);

#endif
