/* tb_blosc_codec.c — Blosc 1 frames compressed and decompressed block-parallel on h5turbo's
 * pool. c-blosc does the per-block work through its reentrant single-threaded calls; this file
 * splits a chunk into block runs, runs them on the pool, and stitches one frame out of them. */
#include "tb_blosc_codec.h"
#include "tb_pool.h"
#include "tb_threadpool.h"
#include "tb_config.h"

#include <blosc.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Frame layout (Blosc format version 2, the one c-blosc 1.x writes):
 *   byte 0  format version (2)     byte 1  compressor format version (1)
 *   byte 2  flags: 0x01 byte shuffle, 0x02 memcpyed, 0x04 bit shuffle, 0x08 reserved (must be 0),
 *           0x10 blocks not split per byte of the type, bits 5-7 compressor format
 *   byte 3  type size
 *   4..7    uncompressed size    8..11 block size    12..15 frame size (all little endian)
 * then, unless memcpyed, one int32 offset per block (from the frame start) and the blocks. Each
 * block is one or `typesize` streams, each an int32 length and the compressed bytes (a stream
 * whose length equals its uncompressed size is stored raw). Blocks are independent, which is
 * what lets us compress and decode them on several threads. */
#define FLAG_SHUFFLE    0x01u
#define FLAG_MEMCPYED   0x02u
#define FLAG_BITSHUFFLE 0x04u
#define FLAG_RESERVED   0x08u
#define FLAG_DONT_SPLIT 0x10u

/* c-blosc's limits, restated so the checks below read on their own. */
#define FRAME_VERSION     2u
#define MIN_SPLIT_NBYTES  128u  /* c-blosc stores anything smaller as a plain copy */
#define MAX_SPLITS        16u
#define L1_NBYTES         (32u * 1024u)
#define MAX_FRAME_NBYTES  ((size_t)INT32_MAX - TB_BLOSC_HEADER_NBYTES)

/* Default size below which a chunk is not worth splitting across threads. Blosc's authors advise
 * 128-512 KiB. Below two blocks (c-blosc's block size is 64 KiB-1 MiB) there is nothing to split;
 * from two blocks on, splitting costs 5-13 % more CPU in all and returns up to the thread count
 * in wall time (`tb_bench_blosc sweep`, bench/blosc/README.md). */
#define PARALLEL_MIN_NBYTES ((size_t)256 * 1024)

/* Set once if the linked c-blosc chooses block sizes differently from the 1.21 rule we mirror
 * (an older or newer release): its sub-frames cannot be spliced, so later calls go straight to
 * the serial compressor instead of compressing twice. Monotonic; never reset. */
static atomic_int splice_unsupported;

/* Parallel attempts that had to be redone serially, for tests and benchmarks. */
static atomic_size_t n_fallbacks;

/* c-blosc, loaded at the first Blosc chunk or filter option this process meets, not with the
 * plugins: it brings the C++ runtime and its codec libraries, 1.3 MB of resident memory in every
 * process that loads h5turbo (an h5ls of a small file: 6.4 MB stock, 8.4 MB with h5turbo before).
 * Found as any library the plugins need (their RPATH, then the system's). Its calls below go
 * through these pointers, typed from blosc.h's own declarations. */
static struct {
    __typeof__(&blosc_compress_ctx)         compress_ctx;
    __typeof__(&blosc_decompress_ctx)       decompress_ctx;
    __typeof__(&blosc_getitem)              getitem;
    __typeof__(&blosc_compname_to_compcode) compname_to_compcode;
    __typeof__(&blosc_get_version_string)   get_version_string;
    __typeof__(&blosc_list_compressors)     list_compressors;
} cb;
static pthread_once_t cb_once = PTHREAD_ONCE_INIT;
static int            cb_loaded;

static void
cb_load(void)
{
    void *h = dlopen("libblosc.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        h = dlopen("libblosc.so", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    *(void **)&cb.compress_ctx         = dlsym(h, "blosc_compress_ctx");
    *(void **)&cb.decompress_ctx       = dlsym(h, "blosc_decompress_ctx");
    *(void **)&cb.getitem              = dlsym(h, "blosc_getitem");
    *(void **)&cb.compname_to_compcode = dlsym(h, "blosc_compname_to_compcode");
    *(void **)&cb.get_version_string   = dlsym(h, "blosc_get_version_string");
    *(void **)&cb.list_compressors     = dlsym(h, "blosc_list_compressors");
    cb_loaded = cb.compress_ctx && cb.decompress_ctx && cb.getitem && cb.compname_to_compcode &&
                cb.get_version_string && cb.list_compressors;
}

/* Whether c-blosc is there (loading it the first time). */
static int
cblosc(void)
{
    pthread_once(&cb_once, cb_load);
    return cb_loaded;
}
#define blosc_compress_ctx         (*cb.compress_ctx)
#define blosc_decompress_ctx       (*cb.decompress_ctx)
#define blosc_getitem              (*cb.getitem)
#define blosc_compname_to_compcode (*cb.compname_to_compcode)
#define blosc_get_version_string   (*cb.get_version_string)
#define blosc_list_compressors     (*cb.list_compressors)

size_t
tb_blosc_parallel_fallbacks(void)
{
    return atomic_load(&n_fallbacks);
}

static const char *const compressor_names[] = {"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"};

/* Compressor format codes (header bits 5-7) per compressor: lz4hc writes lz4 streams. */
static const unsigned compressor_format[] = {0, 1, 1, 2, 3, 4};

static void
say(char *why, size_t why_nbytes, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
say(char *why, size_t why_nbytes, const char *fmt, ...)
{
    if (!why || why_nbytes == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, why_nbytes, fmt, ap);
    va_end(ap);
}

static uint32_t
get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void
put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

const char *
tb_blosc_compressor_name(unsigned compressor)
{
    return compressor < sizeof(compressor_names) / sizeof(compressor_names[0]) ? compressor_names[compressor]
                                                                              : NULL;
}

int
tb_blosc_compressor_available(unsigned compressor)
{
    const char *name = tb_blosc_compressor_name(compressor);
    /* c-blosc answers from a constant table: no lock, no state. */
    return name != NULL && cblosc() && blosc_compname_to_compcode(name) == (int)compressor;
}

size_t
tb_blosc_max_compressed_nbytes(size_t src_nbytes)
{
    return src_nbytes + TB_BLOSC_HEADER_NBYTES;
}

size_t
tb_blosc_parallel_min_nbytes(void)
{
    return PARALLEL_MIN_NBYTES;
}

tb_status_t
tb_blosc_params_from_cd(size_t cd_nelmts, const unsigned cd_values[], tb_blosc_params_t *p_out, char *why,
                         size_t why_nbytes)
{
    /* hdf5-blosc's defaults for the optional slots: level 5, byte shuffle, blosclz. */
    tb_blosc_params_t p = {.typesize = 1, .clevel = 5, .shuffle = TB_BLOSC_SHUFFLE,
                            .compressor = TB_BLOSC_BLOSCLZ, .chunk_nbytes = 0};
    if (cd_nelmts > 0 && !cd_values) {
        say(why, why_nbytes, "cd_values missing");
        return TB_ERR_ARG;
    }
    if (cd_nelmts >= 3)
        p.typesize = cd_values[2];
    if (cd_nelmts >= 4)
        p.chunk_nbytes = cd_values[3];
    if (cd_nelmts >= 5)
        p.clevel = cd_values[4];
    if (cd_nelmts >= 6)
        p.shuffle = cd_values[5];
    if (cd_nelmts >= 7)
        p.compressor = cd_values[6];
    /* Type sizes above 255 are shuffled as bytes, as c-blosc and hdf5-blosc's set_local do. */
    if (p.typesize == 0 || p.typesize > 255)
        p.typesize = 1;
    if (p.clevel > 9) {
        say(why, why_nbytes, "compression level %u out of range 0..9 (cd_values[4])", p.clevel);
        return TB_ERR_ARG;
    }
    if (p.shuffle > TB_BLOSC_BITSHUFFLE) {
        say(why, why_nbytes, "shuffle mode %u is not 0 (none), 1 (byte) or 2 (bit) (cd_values[5])", p.shuffle);
        return TB_ERR_ARG;
    }
    if (!tb_blosc_compressor_name(p.compressor)) {
        say(why, why_nbytes, "unknown compressor code %u (cd_values[6])", p.compressor);
        return TB_ERR_ARG;
    }
    if (!tb_blosc_compressor_available(p.compressor)) {
        if (!cblosc())
            say(why, why_nbytes, "c-blosc (libblosc.so.1) could not be loaded beside the plugins or from the system");
        else
            say(why, why_nbytes, "this c-blosc (%s) lacks the '%s' compressor; it has %s", blosc_get_version_string(),
                compressor_names[p.compressor], blosc_list_compressors());
        return TB_ERR_UNSUPPORTED;
    }
    *p_out = p;
    return TB_OK;
}

/* ------------------------------------------------------------------------------------------
 * Compression */

/* Whether c-blosc (default "forward compatible" split mode) stores a block as one stream per byte
 * of the type. Readers before the split flag assume exactly this rule, so we never deviate. */
static int
splits_blocks(unsigned compressor, unsigned typesize, size_t blocksize)
{
    return compressor != TB_BLOSC_ZSTD && typesize <= MAX_SPLITS && blocksize / typesize >= MIN_SPLIT_NBYTES;
}

/* The block size c-blosc 1.21 chooses for a buffer when none is forced. We choose the same so a
 * frame from the parallel path equals c-blosc's serial frame, and the tuning (bigger blocks for
 * high levels and for the slow, high-ratio codecs) carries over. */
static size_t
pick_blocksize(const tb_blosc_params_t *p, size_t nbytes)
{
    unsigned ts = p->typesize;
    int      high_ratio =
        p->compressor == TB_BLOSC_LZ4HC || p->compressor == TB_BLOSC_ZLIB || p->compressor == TB_BLOSC_ZSTD;
    if (nbytes < ts)
        return 1;
    size_t bs = nbytes;
    if (nbytes >= L1_NBYTES) {
        bs = high_ratio ? 2 * L1_NBYTES : L1_NBYTES;
        static const unsigned num[10] = {1, 1, 1, 2, 4, 4, 8, 8, 8, 8};
        static const unsigned den[10] = {4, 2, 1, 1, 1, 1, 1, 1, 1, 1};
        bs = bs * num[p->clevel] / den[p->clevel];
        if (p->clevel == 9 && high_ratio)
            bs *= 2;
    }
    if (p->clevel > 0 && splits_blocks(p->compressor, ts, bs)) {
        if (bs > ((size_t)1 << 18))
            bs = (size_t)1 << 18;
        bs *= ts;
        if (bs < ((size_t)1 << 16))
            bs = (size_t)1 << 16;
        if (bs > ((size_t)1 << 20))
            bs = (size_t)1 << 20;
    }
    if (bs > nbytes)
        bs = nbytes;
    if (bs > ts)
        bs = bs / ts * ts;
    return bs;
}

/* c-blosc takes a forced block size and, for splitting codecs, multiplies it by the type size:
 * this is the value to force so that its final choice is exactly `blocksize`. The result is
 * checked against every sub-frame header, so a c-blosc that chooses otherwise only costs the
 * parallel path (we fall back to one serial call), never a wrong frame. */
static size_t
forced_blocksize_for(const tb_blosc_params_t *p, size_t blocksize)
{
    if (p->clevel > 0 && splits_blocks(p->compressor, p->typesize, blocksize))
        return blocksize / p->typesize;
    return blocksize;
}

/* One run of consecutive blocks, compressed by one c-blosc call into a scratch sub-frame. */
typedef struct compress_run {
    size_t   first_block; /* index of the run's first block in the whole frame */
    size_t   nblocks;     /* blocks in the run (the last run also holds the short block) */
    size_t   src_off;     /* input offset of the run */
    size_t   src_nbytes;  /* input bytes of the run */
    uint8_t *out;         /* scratch sub-frame, written only by the thread running the run */
    size_t   out_cap;
    int      rc;          /* c-blosc's return, read by the caller after the pool's barrier */
} compress_run_t;

typedef struct compress_job {
    const tb_blosc_params_t *p;
    const uint8_t            *src;
    const char               *compname;
    size_t                    forced_blocksize;
    compress_run_t           *runs;
} compress_job_t;

static void
compress_run(void *arg, size_t i)
{
    compress_job_t *job = arg;
    compress_run_t *r   = &job->runs[i];
    /* One internal thread: c-blosc's context API would otherwise create threads per call. */
    r->rc = blosc_compress_ctx((int)job->p->clevel, (int)job->p->shuffle, job->p->typesize, r->src_nbytes,
                               job->src + r->src_off, r->out, r->out_cap, job->compname, job->forced_blocksize, 1);
}

/* Worst-case size of a sub-frame for `nbytes` of input in blocks of `blocksize`: header, offsets,
 * and per stream a length word plus snappy's worst expansion (32 + n/6), the only codec c-blosc
 * lets grow past the raw size. With this much room c-blosc never falls back to a plain copy. */
static size_t
run_capacity(size_t nbytes, size_t nblocks)
{
    return TB_BLOSC_HEADER_NBYTES + nbytes + nbytes / 6 + nblocks * (4 + MAX_SPLITS * (4 + 32)) + 64;
}

static tb_status_t
compress_serial(const tb_blosc_params_t *p, const void *src, size_t src_nbytes, void *dst,
                size_t *dst_nbytes_out)
{
    /* Destination exactly input + header: c-blosc then stores a plain copy when the frame would
     * be larger, the behaviour every Blosc reader expects. */
    int rc = blosc_compress_ctx((int)p->clevel, (int)p->shuffle, p->typesize, src_nbytes, src, dst,
                                tb_blosc_max_compressed_nbytes(src_nbytes), compressor_names[p->compressor], 0, 1);
    if (rc <= 0)
        return TB_ERR_CODEC;
    *dst_nbytes_out = (size_t)rc;
    return TB_OK;
}

/* Checks a sub-frame c-blosc wrote for a run and returns the offset of its block data, or 0 when
 * it is not a frame we can splice (then the caller compresses serially). */
static size_t
run_payload_offset(const compress_run_t *r, size_t blocksize, const uint8_t *ref_header)
{
    const uint8_t *h = r->out;
    if (r->rc < (int)TB_BLOSC_HEADER_NBYTES || (size_t)r->rc > r->out_cap)
        return 0;
    if (h[0] != FRAME_VERSION || (h[2] & FLAG_MEMCPYED) || get_le32(h + 4) != r->src_nbytes ||
        get_le32(h + 8) != blocksize || get_le32(h + 12) != (uint32_t)r->rc)
        return 0;
    /* Every run must agree on versions, flags and type size: they become the one header. */
    if (h[1] != ref_header[1] || h[2] != ref_header[2] || h[3] != ref_header[3])
        return 0;
    size_t table = TB_BLOSC_HEADER_NBYTES + 4 * r->nblocks;
    if ((size_t)r->rc < table)
        return 0;
    size_t prev = table;
    for (size_t k = 0; k < r->nblocks; k++) {
        size_t off = get_le32(h + TB_BLOSC_HEADER_NBYTES + 4 * k);
        if (off < prev || off > (size_t)r->rc)
            return 0;
        prev = off;
    }
    return table;
}

static tb_status_t
compress_parallel(const tb_blosc_params_t *p, const uint8_t *src, size_t nbytes, uint8_t *dst,
                  size_t *dst_nbytes_out, unsigned threads, int *fallback_out)
{
    size_t blocksize = pick_blocksize(p, nbytes);
    *fallback_out    = 1;
    if (blocksize == 0)
        return TB_OK;
    size_t nfull   = nbytes / blocksize;
    size_t nblocks = nfull + (nbytes % blocksize ? 1 : 0);
    /* A short last block is only compressed like c-blosc's when its run also holds a full
     * block (c-blosc must see it as the leftover of a longer buffer), so two full blocks are
     * the minimum to split anything. */
    if (nfull < 2 || blocksize < MIN_SPLIT_NBYTES)
        return TB_OK;

    /* A few runs per thread balance uneven blocks without much per-call overhead. */
    size_t nruns = (size_t)threads * 4;
    if (nruns > nfull)
        nruns = nfull;
    compress_run_t *runs = tb_buf_get(nruns * sizeof(*runs));
    if (!runs)
        return TB_ERR_NOMEM;
    size_t scratch_nbytes = 0;
    for (size_t i = 0; i < nruns; i++) {
        compress_run_t *r = &runs[i];
        r->first_block    = nfull * i / nruns;
        size_t end        = (i + 1 == nruns) ? nblocks : nfull * (i + 1) / nruns;
        r->nblocks        = end - r->first_block;
        r->src_off        = r->first_block * blocksize;
        r->src_nbytes     = (i + 1 == nruns) ? nbytes - r->src_off : r->nblocks * blocksize;
        r->out_cap        = run_capacity(r->src_nbytes, r->nblocks);
        r->rc             = -1;
        scratch_nbytes += r->out_cap;
        /* c-blosc keeps the destination size in an int32. */
        if (r->out_cap > (size_t)INT32_MAX) {
            tb_buf_put(runs);
            return TB_OK;
        }
    }
    uint8_t *scratch = tb_buf_get(scratch_nbytes);
    if (!scratch) {
        tb_buf_put(runs);
        return TB_ERR_NOMEM;
    }
    size_t off = 0;
    for (size_t i = 0; i < nruns; i++) {
        runs[i].out = scratch + off;
        off += runs[i].out_cap;
    }

    compress_job_t job = {p, src, compressor_names[p->compressor], forced_blocksize_for(p, blocksize), runs};
    tb_parallel_for(nruns, threads, compress_run, &job);

    /* Splice: one header, one offset table, the runs' block data back to back. */
    size_t table_end = TB_BLOSC_HEADER_NBYTES + 4 * nblocks;
    size_t total     = table_end;
    size_t payload_off[64];
    size_t *poff = nruns <= 64 ? payload_off : tb_buf_get(nruns * sizeof(size_t));
    tb_status_t st = TB_OK;
    if (!poff) {
        st = TB_ERR_NOMEM;
        goto done;
    }
    for (size_t i = 0; i < nruns; i++) {
        poff[i] = run_payload_offset(&runs[i], blocksize, runs[0].out);
        if (poff[i] == 0) {
            if (runs[i].rc >= (int)TB_BLOSC_HEADER_NBYTES && get_le32(runs[i].out + 8) != blocksize)
                atomic_store(&splice_unsupported, 1);
            goto done; /* fallback: compress serially */
        }
        total += (size_t)runs[i].rc - poff[i];
    }
    *fallback_out = 0;
    const uint8_t *h0 = runs[0].out;
    if (total > nbytes + TB_BLOSC_HEADER_NBYTES) {
        /* The data does not compress: the same plain copy c-blosc would store. */
        memcpy(dst, h0, 4);
        dst[2] = (uint8_t)(h0[2] | FLAG_MEMCPYED);
        put_le32(dst + 4, (uint32_t)nbytes);
        put_le32(dst + 8, (uint32_t)blocksize);
        put_le32(dst + 12, (uint32_t)(nbytes + TB_BLOSC_HEADER_NBYTES));
        memcpy(dst + TB_BLOSC_HEADER_NBYTES, src, nbytes);
        *dst_nbytes_out = nbytes + TB_BLOSC_HEADER_NBYTES;
        goto done;
    }
    memcpy(dst, h0, 4);
    put_le32(dst + 4, (uint32_t)nbytes);
    put_le32(dst + 8, (uint32_t)blocksize);
    put_le32(dst + 12, (uint32_t)total);
    size_t at = table_end;
    for (size_t i = 0; i < nruns; i++) {
        const compress_run_t *r = &runs[i];
        for (size_t k = 0; k < r->nblocks; k++) {
            size_t sub_off = get_le32(r->out + TB_BLOSC_HEADER_NBYTES + 4 * k);
            put_le32(dst + TB_BLOSC_HEADER_NBYTES + 4 * (r->first_block + k), (uint32_t)(at + sub_off - poff[i]));
        }
        size_t len = (size_t)r->rc - poff[i];
        memcpy(dst + at, r->out + poff[i], len);
        at += len;
    }
    *dst_nbytes_out = total;
done:
    if (poff && poff != payload_off)
        tb_buf_put(poff);
    tb_buf_put(scratch);
    tb_buf_put(runs);
    return st;
}

tb_status_t
tb_blosc_compress(const tb_blosc_params_t *p_in, const void *src, size_t src_nbytes, void *dst, size_t dst_cap,
                   size_t *dst_nbytes_out, unsigned threads)
{
    if (!p_in || (!src && src_nbytes) || !dst || !dst_nbytes_out)
        return TB_ERR_ARG;
    tb_blosc_params_t p = *p_in;
    if (p.typesize == 0 || p.typesize > 255)
        p.typesize = 1;
    if (p.clevel > 9 || p.shuffle > TB_BLOSC_BITSHUFFLE || !tb_blosc_compressor_name(p.compressor))
        return TB_ERR_ARG;
    if (!tb_blosc_compressor_available(p.compressor))
        return TB_ERR_UNSUPPORTED;
    if (src_nbytes > MAX_FRAME_NBYTES)
        return TB_ERR_UNSUPPORTED;
    if (dst_cap < tb_blosc_max_compressed_nbytes(src_nbytes))
        return TB_ERR_ARG;

    unsigned want = threads ? threads : tb_threads_from_env();
    int      go_parallel = want > 1 && (threads > 1 || src_nbytes >= PARALLEL_MIN_NBYTES);
    if (go_parallel && p.clevel > 0 && src_nbytes >= MIN_SPLIT_NBYTES && !atomic_load(&splice_unsupported)) {
        int          fallback = 1;
        tb_status_t st = compress_parallel(&p, src, src_nbytes, dst, dst_nbytes_out, want, &fallback);
        if (st != TB_OK || !fallback)
            return st;
        /* Frames too small to split are not attempts; anything else that falls back is. */
        if (pick_blocksize(&p, src_nbytes) * 2 <= src_nbytes)
            atomic_fetch_add(&n_fallbacks, 1);
    }
    return compress_serial(&p, src, src_nbytes, dst, dst_nbytes_out);
}

/* ------------------------------------------------------------------------------------------
 * Decompression */

tb_status_t
tb_blosc_frame_info(const void *src_v, size_t src_nbytes, size_t dst_cap, tb_blosc_frame_t *info_out, char *why,
                     size_t why_nbytes)
{
    const uint8_t    *src = src_v;
    tb_blosc_frame_t f;
    memset(&f, 0, sizeof(f));
    if (!src || src_nbytes < TB_BLOSC_HEADER_NBYTES) {
        say(why, why_nbytes, "chunk of %zu bytes is shorter than a Blosc header (16 bytes)", src_nbytes);
        return TB_ERR_CORRUPT;
    }
    if (src[0] != FRAME_VERSION) {
        say(why, why_nbytes, "Blosc format version %u, expected %u", src[0], FRAME_VERSION);
        return TB_ERR_CORRUPT;
    }
    f.flags      = src[2];
    f.typesize   = src[3];
    f.nbytes     = get_le32(src + 4);
    f.blocksize  = get_le32(src + 8);
    f.cbytes     = get_le32(src + 12);
    f.compformat = f.flags >> 5;
    f.memcpyed   = (f.flags & FLAG_MEMCPYED) != 0;
    if (f.flags & FLAG_RESERVED) {
        say(why, why_nbytes, "reserved header flag 0x08 set (flags 0x%02x)", f.flags);
        return TB_ERR_CORRUPT;
    }
    if (f.cbytes < TB_BLOSC_HEADER_NBYTES || f.cbytes > src_nbytes) {
        say(why, why_nbytes, "header claims a %zu-byte frame, chunk holds %zu bytes", f.cbytes, src_nbytes);
        return TB_ERR_CORRUPT;
    }
    if (f.nbytes > MAX_FRAME_NBYTES) {
        say(why, why_nbytes, "header claims %zu uncompressed bytes, beyond Blosc's limit", f.nbytes);
        return TB_ERR_CORRUPT;
    }
    if (f.nbytes > dst_cap) {
        say(why, why_nbytes, "header claims %zu uncompressed bytes, more than the %zu expected", f.nbytes, dst_cap);
        return TB_ERR_CORRUPT;
    }
    if (f.typesize == 0) {
        say(why, why_nbytes, "header type size is 0");
        return TB_ERR_CORRUPT;
    }
    if (f.memcpyed) {
        if (f.cbytes != f.nbytes + TB_BLOSC_HEADER_NBYTES) {
            say(why, why_nbytes, "plain-copy frame of %zu bytes for %zu bytes of data", f.cbytes, f.nbytes);
            return TB_ERR_CORRUPT;
        }
        f.nblocks = 0;
        *info_out = f;
        return TB_OK;
    }
    if (f.nbytes == 0) {
        *info_out = f;
        return TB_OK;
    }
    /* Format 0 blosclz, 1 lz4/lz4hc, 2 snappy, 3 zlib, 4 zstd: find a compressor writing it. */
    int have = 0;
    for (unsigned c = 0; c < sizeof(compressor_format) / sizeof(compressor_format[0]); c++)
        if (compressor_format[c] == f.compformat && tb_blosc_compressor_available(c))
            have = 1;
    if (f.compformat > 4) {
        say(why, why_nbytes, "unknown compressor format %u in header", f.compformat);
        return TB_ERR_CORRUPT;
    }
    if (!have) {
        say(why, why_nbytes, "this c-blosc lacks the decoder for compressor format %u", f.compformat);
        return TB_ERR_UNSUPPORTED;
    }
    if (src[1] != 1) {
        say(why, why_nbytes, "compressor format version %u, expected 1", src[1]);
        return TB_ERR_CORRUPT;
    }
    if (f.blocksize == 0 || f.blocksize > f.nbytes) {
        say(why, why_nbytes, "block size %zu for %zu bytes of data", f.blocksize, f.nbytes);
        return TB_ERR_CORRUPT;
    }
    f.nblocks    = f.nbytes / f.blocksize + (f.nbytes % f.blocksize ? 1 : 0);
    size_t table = TB_BLOSC_HEADER_NBYTES + 4 * f.nblocks;
    /* Every block needs its offset and at least one 4-byte stream length. */
    if (f.nblocks > (f.cbytes - TB_BLOSC_HEADER_NBYTES) / 8) {
        say(why, why_nbytes, "%zu blocks cannot fit in a %zu-byte frame", f.nblocks, f.cbytes);
        return TB_ERR_CORRUPT;
    }
    for (size_t k = 0; k < f.nblocks; k++) {
        size_t off = get_le32(src + TB_BLOSC_HEADER_NBYTES + 4 * k);
        if (off < table || off > f.cbytes - 4) {
            say(why, why_nbytes, "block %zu starts at %zu, outside the frame's data [%zu, %zu)", k, off, table,
                f.cbytes);
            return TB_ERR_CORRUPT;
        }
    }
    *info_out = f;
    return TB_OK;
}

/* One run of consecutive blocks decoded by one c-blosc call straight into the destination. */
typedef struct decompress_job {
    const uint8_t *src;
    uint8_t       *dst;
    size_t         nbytes, blocksize, typesize, nblocks, nruns;
    int           *rc; /* per run: 0 ok, -1 failed; each written by one thread, read after the barrier */
} decompress_job_t;

static void
decompress_run(void *arg, size_t i)
{
    decompress_job_t *job   = arg;
    size_t            first = job->nblocks * i / job->nruns;
    size_t            end   = job->nblocks * (i + 1) / job->nruns;
    size_t            start_nbytes = first * job->blocksize;
    size_t            stop_nbytes  = end * job->blocksize;
    if (stop_nbytes > job->nbytes)
        stop_nbytes = job->nbytes;
    /* blosc_getitem decodes just the blocks covering the items asked for, with a context of its
     * own (no lock, no thread), validating each stream against the frame size in the header,
     * which tb_blosc_frame_info has checked against the real buffer. */
    int want = (int)((stop_nbytes - start_nbytes) / job->typesize);
    int got  = blosc_getitem(job->src, (int)(start_nbytes / job->typesize), want, job->dst + start_nbytes);
    job->rc[i] = (got == (int)(stop_nbytes - start_nbytes)) ? 0 : -1;
}

tb_status_t
tb_blosc_decompress(const void *src_v, size_t src_nbytes, void *dst_v, size_t dst_cap, size_t *dst_nbytes_out,
                     unsigned threads)
{
    const uint8_t    *src = src_v;
    uint8_t          *dst = dst_v;
    tb_blosc_frame_t f;
    if (!src || !dst_nbytes_out || (!dst && dst_cap))
        return TB_ERR_ARG;
    tb_status_t st = tb_blosc_frame_info(src, src_nbytes, dst_cap, &f, NULL, 0);
    if (st != TB_OK)
        return st;
    if (f.nbytes == 0) {
        *dst_nbytes_out = 0;
        return TB_OK;
    }
    if (f.memcpyed) {
        memcpy(dst, src + TB_BLOSC_HEADER_NBYTES, f.nbytes);
        *dst_nbytes_out = f.nbytes;
        return TB_OK;
    }
    if (!cblosc())
        return TB_ERR_UNSUPPORTED;

    unsigned want = threads ? threads : tb_threads_from_env();
    /* Decoding by items needs whole items per block, which c-blosc's own frames always have;
     * anything else is left to its serial decoder. */
    int go_parallel = want > 1 && f.nblocks >= 2 && (threads > 1 || f.nbytes >= PARALLEL_MIN_NBYTES) &&
                      f.nbytes % f.typesize == 0 && f.blocksize % f.typesize == 0;
    /* Decoding by items costs one extra copy of the output per block. The fast decoders
     * (blosclz, lz4, snappy) on data that barely compresses run at copy speed already, and
     * there the split measured slower than one thread (float32 images, lz4, ratio 1.3: 0.74x
     * on 2 cores; detector frames, ratio 5.4: 1.49x). So with the process default they split
     * only frames that compress at least 2:1; zlib and zstd always pay. */
    int fast_decoder = f.compformat == 0 || f.compformat == 1 || f.compformat == 2;
    if (threads == 0 && fast_decoder && f.cbytes * 2 > f.nbytes)
        go_parallel = 0;
    if (go_parallel) {
        size_t nruns = (size_t)want * 2;
        if (nruns > f.nblocks)
            nruns = f.nblocks;
        int  rc_local[64];
        int *rc = nruns <= 64 ? rc_local : tb_buf_get(nruns * sizeof(int));
        if (!rc)
            return TB_ERR_NOMEM;
        decompress_job_t job = {src, dst, f.nbytes, f.blocksize, f.typesize, f.nblocks, nruns, rc};
        tb_parallel_for(nruns, want, decompress_run, &job);
        st = TB_OK;
        for (size_t i = 0; i < nruns; i++)
            if (rc[i] != 0)
                st = TB_ERR_CORRUPT;
        if (rc != rc_local)
            tb_buf_put(rc);
        if (st == TB_OK)
            *dst_nbytes_out = f.nbytes;
        return st;
    }
    /* The context call with one thread: reentrant, no global lock, no thread creation. */
    int got = blosc_decompress_ctx(src, dst, f.nbytes, 1);
    if (got < 0 || (size_t)got != f.nbytes)
        return TB_ERR_CORRUPT;
    *dst_nbytes_out = f.nbytes;
    return TB_OK;
}
