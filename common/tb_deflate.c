/* tb_deflate.c — DEFLATE for the chunk pipeline. Codec contexts are expensive to create
 * (libdeflate compressors hold large match finders, ISA-L streams hash tables), so each thread
 * keeps its own, created on first use and freed when the thread exits. */
#include "tb_deflate.h"
#include "tb_threadpool.h"

#include <libdeflate.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#ifdef H5TURBO_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#define TB_DEFLATE_MAX_LEVEL 12 /* libdeflate's range; HDF5 uses 0..9 */

/* Everything one thread compresses and decompresses with. Owned by that thread only. */
typedef struct codec_ctx {
    struct libdeflate_compressor  *comp[TB_DEFLATE_MAX_LEVEL + 1];
    struct libdeflate_decompressor *decomp;
#ifdef H5TURBO_HAVE_ISAL
    struct isal_zstream *isal;
    uint8_t             *isal_level_buf;
    size_t               isal_level_buf_nbytes;
#endif
} codec_ctx_t;

static pthread_key_t  ctx_key;
static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;
static int            ctx_key_ok;
static atomic_int     force_libdeflate;
#ifdef H5TURBO_HAVE_ISAL
static pthread_once_t nlog2n_once = PTHREAD_ONCE_INIT;
#endif

static void
ctx_free(void *p)
{
    codec_ctx_t *c = p;
    if (!c)
        return;
    for (int l = 0; l <= TB_DEFLATE_MAX_LEVEL; l++)
        libdeflate_free_compressor(c->comp[l]);
    libdeflate_free_decompressor(c->decomp);
#ifdef H5TURBO_HAVE_ISAL
    free(c->isal);
    free(c->isal_level_buf);
#endif
    free(c);
}

static void
make_key(void)
{
    ctx_key_ok = pthread_key_create(&ctx_key, ctx_free) == 0;
}

static codec_ctx_t *
my_ctx(void)
{
    pthread_once(&ctx_once, make_key);
    if (!ctx_key_ok)
        return NULL;
    codec_ctx_t *c = pthread_getspecific(ctx_key);
    if (c)
        return c;
    c = calloc(1, sizeof(*c));
    if (c && pthread_setspecific(ctx_key, c) != 0) {
        free(c);
        c = NULL;
    }
    return c;
}

void
tb_deflate_force_libdeflate(int on)
{
    atomic_store(&force_libdeflate, on);
}

static int
use_isal(int level)
{
#ifdef H5TURBO_HAVE_ISAL
    return level >= 1 && level <= 3 && !atomic_load(&force_libdeflate);
#else
    (void)level;
    return 0;
#endif
}

const char *
tb_deflate_engine(int level)
{
    return use_isal(level) ? "isa-l" : "libdeflate";
}

size_t
tb_deflate_bound(size_t n)
{
    /* libdeflate's worst case is about 5 bytes per 64 KiB of stored blocks plus headers; ISA-L's
     * is similar. n/8 + 1 KiB covers both with room to spare. */
    return n + n / 8 + 1024;
}

#ifdef H5TURBO_HAVE_ISAL
/* Level buffers ISA-L needs per level (its "default" sizes, as igzip itself uses). */
static size_t
isal_level_buf_nbytes(int level)
{
    switch (level) {
        case 1: return ISAL_DEF_LVL1_DEFAULT;
        case 2: return ISAL_DEF_LVL2_DEFAULT;
        default: return ISAL_DEF_LVL3_DEFAULT;
    }
}

/* ISA-L's levels 1-3 end a DEFLATE block, with its own Huffman tables, each time their buffer of
 * intermediate tokens fills: 64 Ki tokens with the default level buffer, so a 256 KiB chunk is
 * coded in about four blocks. zlib's level 1 ends one every 16 Ki symbols. Where the byte
 * statistics change along the data (the byte plane of shuffled float32 detector frames that
 * holds the exponent's low bit and the top of the mantissa: locally a few dozen values, over the
 * frame most of 256) large blocks cost up to a third more bytes than zlib's; where they do not
 * (noise, sparse masks, gain codes) small blocks cost time and gain nothing. So the statistics
 * are sampled first, and only the parts that drift are coded in blocks of ADAPT_TOKENS tokens. */
#define ADAPT_TOKENS   (8 * 1024)
/* Unshuffled elements interleave their byte lanes, whose drifts a block must follow together:
 * shorter blocks (4 Ki tokens: unshuffled noisy uint16 frames 1.087x zlib-1's bytes in 8 Ki-token
 * blocks, see bench/pipeline/README.md). */
#define ADAPT_TOKENS_LANES (4 * 1024)
#define DRIFT_SEGMENTS 8    /* pieces of one lane whose histograms are compared */
#define DRIFT_SAMPLES  512  /* bytes sampled per piece */
#define DRIFT_BITS     0.5  /* entropy gained by local tables, bits per byte, that pays */

static float nlog2n[DRIFT_SAMPLES * DRIFT_SEGMENTS + 1]; /* nlog2n[k] = k * log2(k) */

static void
make_nlog2n(void)
{
    for (size_t k = 1; k < sizeof nlog2n / sizeof nlog2n[0]; k++)
        nlog2n[k] = (float)k * log2f((float)k);
}

/* Entropy in bits per sample of a histogram of `total` samples, with the Miller-Madow correction
 * for the bias of small samples ((K - 1) / 2N nats, K the symbols seen): it keeps a 512-sample
 * piece of uniform noise from looking narrower than the 4,096-sample whole. */
static double
sample_entropy(const uint32_t h[256], uint32_t total)
{
    double sum   = 0;
    int    kinds = 0;
    for (int k = 0; k < 256; k++)
        if (h[k]) {
            sum += nlog2n[h[k]];
            kinds++;
        }
    return log2((double)total) - sum / total + (kinds - 1) / (2.0 * total * 0.6931471805599453);
}

/* The histogram of DRIFT_SAMPLES bytes q[0], q[stride], q[2 * stride], ... */
static void
sample_histogram(const uint8_t *q, size_t stride, uint32_t h[256])
{
    /* Four tables so that runs of one value do not serialise on one counter. */
    uint16_t t[4][256] = {{0}};
    for (size_t i = 0; i < DRIFT_SAMPLES; i += 4) {
        t[0][q[(i + 0) * stride]]++;
        t[1][q[(i + 1) * stride]]++;
        t[2][q[(i + 2) * stride]]++;
        t[3][q[(i + 3) * stride]]++;
    }
    for (int k = 0; k < 256; k++)
        h[k] = (uint32_t)t[0][k] + t[1][k] + t[2][k] + t[3][k];
}

/* 1 when the bytes base[0], base[unit], ..., base[(nunits - 1) * unit] (one plane of shuffled
 * data, or one byte lane of unshuffled elements) have statistics that drift: the mean entropy of
 * DRIFT_SEGMENTS equal pieces is DRIFT_BITS below the entropy of their union. */
static int
lane_drifts(const uint8_t *base, size_t nunits, size_t unit)
{
    size_t seg = nunits / DRIFT_SEGMENTS;
    if (seg < 2 * DRIFT_SAMPLES)
        return 0;
    /* A first look over the whole lane: below 1 bit per byte (sparse masks, gain codes) local
     * tables can gain little, and most chunks of such data stop here. */
    uint32_t h[256];
    sample_histogram(base, (nunits / DRIFT_SAMPLES) * unit, h);
    if (sample_entropy(h, DRIFT_SAMPLES) < 1.0)
        return 0;
    uint32_t all[256] = {0};
    double   local    = 0;
    for (size_t g = 0; g < DRIFT_SEGMENTS; g++) {
        sample_histogram(base + g * seg * unit, (seg / DRIFT_SAMPLES) * unit, h);
        for (int k = 0; k < 256; k++)
            all[k] += h[k];
        local += sample_entropy(h, DRIFT_SAMPLES);
    }
    return sample_entropy(all, DRIFT_SAMPLES * DRIFT_SEGMENTS) - local / DRIFT_SEGMENTS > DRIFT_BITS;
}

static size_t
isal_level_req_nbytes(int level)
{
    switch (level) {
        case 1: return ISAL_DEF_LVL1_REQ;
        case 2: return ISAL_DEF_LVL2_REQ;
        default: return (ISAL_DEF_LVL3_REQ);
    }
}

/* Whether ISA-L codes bytes of this layout at `level`. Its level 3 codes bytes that are not byte
 * planes beyond 1.05x zlib's level 3 (gain-like uint8 frames: 1.12x, unshuffled uint16 frames
 * 1.05x; libdeflate's level 3: 0.91x and 1.00x, bench/pipeline/deflate_engines): those go to
 * libdeflate. */
static int
isal_codes(int level, const tb_deflate_layout_t *layout)
{
    return use_isal(level) && (level < 3 || (layout && layout->shuffled && layout->elem_nbytes > 1));
}

/* One isal_deflate call over src: a whole zlib stream (wrap), or a piece of raw DEFLATE that
 * ends in a sync flush (byte-aligned, not final) unless `last`. tokens: the block size in
 * tokens, 0 for ISA-L's default. */
static tb_status_t
isal_run(codec_ctx_t *c, int level, size_t tokens, int wrap, int last, const uint8_t *src, size_t n, uint8_t *dst,
         size_t cap, size_t *out)
{
    struct isal_zstream *s = c->isal;
    isal_deflate_init(s);
    s->level          = (uint32_t)level;
    s->level_buf      = c->isal_level_buf;
    s->level_buf_size = (uint32_t)(tokens ? isal_level_req_nbytes(level) + 4 * tokens : isal_level_buf_nbytes(level));
    s->gzip_flag      = wrap ? IGZIP_ZLIB : IGZIP_DEFLATE;
    s->end_of_stream  = (uint16_t)last;
    s->flush          = last ? NO_FLUSH : SYNC_FLUSH;
    s->next_in        = (uint8_t *)(uintptr_t)src;
    s->avail_in       = (uint32_t)n;
    s->next_out       = dst;
    s->avail_out      = (uint32_t)cap;
    if (isal_deflate(s) != COMP_OK || s->avail_in != 0 ||
        s->internal_state.state != (last ? ZSTATE_END : ZSTATE_NEW_HDR))
        return TB_ERR_CODEC;
    *out = s->total_out;
    return TB_OK;
}

/* c's ISA-L stream and level buffer, made for `level` on first use. */
static tb_status_t
isal_ready(codec_ctx_t *c, int level)
{
    size_t need = isal_level_buf_nbytes(level);
    if (!c->isal && !(c->isal = malloc(sizeof(*c->isal))))
        return TB_ERR_NOMEM;
    if (c->isal_level_buf_nbytes < need) {
        free(c->isal_level_buf);
        c->isal_level_buf_nbytes = 0;
        if (!(c->isal_level_buf = malloc(need)))
            return TB_ERR_NOMEM;
        c->isal_level_buf_nbytes = need;
    }
    return TB_OK;
}

/* The frame of a zlib stream made of raw DEFLATE pieces: its 2-byte header (deflate, 32 KiB
 * window, "fastest"), and the Adler-32 of all of src after the pieces. Each returns the bytes
 * written at o. */
static size_t
zlib_head(uint8_t *o)
{
    o[0] = 0x78;
    o[1] = 0x01; /* (0x78 * 256 + 0x01) % 31 == 0 */
    return 2;
}

static size_t
zlib_tail(uint8_t *o, const void *src, size_t n)
{
    uint32_t adler = isal_adler32(1, src, n);
    o[0]           = (uint8_t)(adler >> 24);
    o[1]           = (uint8_t)(adler >> 16);
    o[2]           = (uint8_t)(adler >> 8);
    o[3]           = (uint8_t)adler;
    return 4;
}

/* Shuffled bytes as runs of whole byte planes, each coded by a fresh stream (blocks of their own
 * size) into raw DEFLATE that ends byte-aligned on a sync flush, the runs concatenated in one zlib
 * stream: header, the pieces, Adler-32 of all of src (what pigz does to compress in parallel). A
 * piece does not match into the one before it; planes of shuffled data rarely repeat each other.
 * With `drifts` (one flag a plane, sampled): runs of planes that drift, coded in blocks of
 * ADAPT_TOKENS, and runs that do not. Without (planes too short to sample, or too many: compound
 * types, PyTables' 17-byte table rows): each plane has statistics of its own (a field's low bytes
 * noise, its high bytes zeros) that one Huffman table over the whole chunk, as ISA-L's 64 Ki-token
 * blocks make, codes badly (1.10x zlib-1's bytes on PyTables' rows; zlib's 16 Ki-symbol blocks
 * follow them in part), so runs of at least PIECE_MIN bytes (0.93x). */
#define PIECE_MIN 4096
static tb_status_t
isal_plane_runs(codec_ctx_t *c, int level, const uint8_t *in, size_t n, size_t es, const int *drifts, uint8_t *o,
                size_t cap, size_t *out)
{
    size_t plane = n / es;
    if (!drifts && plane * es < PIECE_MIN)
        return isal_run(c, level, 0, 1, 1, in, n, o, cap, out);
    if (cap < 6)
        return TB_ERR_CODEC;
    size_t used = zlib_head(o);
    for (size_t k = 0; k < es;) {
        size_t end = k + 1;
        if (drifts)
            while (end < es && drifts[end] == drifts[k])
                end++;
        else {
            while (end < es && (end - k) * plane < PIECE_MIN)
                end++;
            if (es - end > 0 && (es - end) * plane < PIECE_MIN)
                end = es; /* (a remainder shorter than a piece joins this one) */
        }
        size_t      from = k * plane, to = end == es ? n : end * plane, got = 0;
        tb_status_t st   = isal_run(c, level, drifts && drifts[k] ? ADAPT_TOKENS : 0, 0, end == es, in + from,
                                    to - from, o + used, cap - 4 - used, &got);
        if (st != TB_OK)
            return st;
        used += got;
        k = end;
    }
    *out = used + zlib_tail(o + used, in, n);
    return TB_OK;
}

static tb_status_t
isal_compress(codec_ctx_t *c, int level, const void *src, size_t n, const tb_deflate_layout_t *layout, void *dst,
              size_t cap, size_t *out)
{
    if (isal_ready(c, level) != TB_OK)
        return TB_ERR_NOMEM;
    if (n > UINT32_MAX || cap > UINT32_MAX)
        return TB_ERR_CODEC; /* ISA-L counts in 32 bits; the caller falls back */

    enum { max_lanes = 16 };
    size_t         es     = layout ? layout->elem_nbytes : 0;
    const uint8_t *in     = src;
    uint8_t       *o      = dst;
    int            drifts[max_lanes], any = 0;
    size_t         plane  = es ? n / es : 0;
    if (es > 1 && layout->shuffled && (es > max_lanes || plane < DRIFT_SEGMENTS * 2 * DRIFT_SAMPLES))
        return isal_plane_runs(c, level, in, n, es, NULL, o, cap, out);
    if (es == 0 || es > max_lanes)
        return isal_run(c, level, 0, 1, 1, in, n, o, cap, out);
    pthread_once(&nlog2n_once, make_nlog2n);
    for (size_t k = 0; k < es; k++) {
        drifts[k] = layout->shuffled ? lane_drifts(in + k * plane, plane, 1) : lane_drifts(in + k, n / es, es);
        any |= drifts[k];
    }
    if (!any)
        return isal_run(c, level, 0, 1, 1, in, n, o, cap, out);
    if (es == 1)
        return isal_run(c, level, ADAPT_TOKENS, 1, 1, in, n, o, cap, out);
    if (!layout->shuffled) /* (interleaved lanes: shorter blocks follow their drift) */
        return isal_run(c, level, ADAPT_TOKENS_LANES, 1, 1, in, n, o, cap, out);
    return isal_plane_runs(c, level, in, n, es, drifts, o, cap, out); /* (shuffled) */
}
#endif

static tb_status_t
libdeflate_level(codec_ctx_t *c, int level, const void *src, size_t n, void *dst, size_t cap, size_t *out)
{
    if (!c->comp[level] && !(c->comp[level] = libdeflate_alloc_compressor(level)))
        return TB_ERR_NOMEM;
    size_t got = libdeflate_zlib_compress(c->comp[level], src, n, dst, cap);
    if (got == 0)
        return TB_ERR_CODEC;
    *out = got;
    return TB_OK;
}

tb_status_t
tb_deflate_compress(int level, const void *src, size_t n, void *dst, size_t cap, size_t *out)
{
    return tb_deflate_compress_layout(level, src, n, NULL, dst, cap, out);
}

tb_status_t
tb_deflate_compress_layout(int level, const void *src, size_t n, const tb_deflate_layout_t *layout, void *dst,
                           size_t cap, size_t *out)
{
    if (level < 0 || level > TB_DEFLATE_MAX_LEVEL)
        return TB_ERR_ARG;
    codec_ctx_t *c = my_ctx();
    if (!c)
        return TB_ERR_NOMEM;
#ifdef H5TURBO_HAVE_ISAL
    if (isal_codes(level, layout)) {
        tb_status_t st = isal_compress(c, level, src, n, layout, dst, cap, out);
        if (st == TB_OK || st == TB_ERR_NOMEM)
            return st;
        /* Output did not fit ISA-L's way: libdeflate below may still make it. */
    }
#endif
    return libdeflate_level(c, level, src, n, dst, cap, out);
}

tb_status_t
tb_deflate_compress_unknown(int level, const void *src, size_t n, void *dst, size_t cap, size_t *out)
{
    if (level < 0 || level > TB_DEFLATE_MAX_LEVEL)
        return TB_ERR_ARG;
    codec_ctx_t *c = my_ctx();
    return c ? libdeflate_level(c, level, src, n, dst, cap, out) : TB_ERR_NOMEM;
}

#ifdef H5TURBO_HAVE_ISAL
/* Pieces of one parallel compression: runs of whole byte planes, each coded by the thread that
 * takes it, into its own buffer, as raw DEFLATE ending on a sync flush (the last one: final). */
typedef struct {
    int            level;
    const uint8_t *src;
    size_t         npieces;
    size_t        *from, *len, *cap, *got;
    uint8_t      **out;
    tb_status_t   *st;
} pieces_job_t;

static void
compress_piece(void *arg, size_t i)
{
    pieces_job_t  *j  = arg;
    codec_ctx_t   *c  = my_ctx();
    const uint8_t *in = j->src + j->from[i];
    if (!c || isal_ready(c, j->level) != TB_OK || !(j->out[i] = malloc(j->cap[i]))) {
        j->st[i] = TB_ERR_NOMEM;
        return;
    }
    pthread_once(&nlog2n_once, make_nlog2n);
    size_t tokens = lane_drifts(in, j->len[i], 1) ? ADAPT_TOKENS : 0;
    j->st[i] = isal_run(c, j->level, tokens, 0, i + 1 == j->npieces, in, j->len[i], j->out[i], j->cap[i], &j->got[i]);
}
#endif

tb_status_t
tb_deflate_compress_threads(int level, const void *src, size_t n, const tb_deflate_layout_t *layout,
                            unsigned threads, void *dst, size_t cap, size_t *out, unsigned *pieces_out)
{
    *pieces_out = 1;
#ifdef H5TURBO_HAVE_ISAL
    enum { max_pieces = 16, min_piece = 64 * 1024 };
    size_t es = layout && layout->shuffled ? layout->elem_nbytes : 0;
    size_t np = threads < max_pieces ? threads : max_pieces;
    if (np > es)
        np = es;
    if (np > n / min_piece)
        np = n / min_piece;
    if (np >= 2 && isal_codes(level, layout) && n <= UINT32_MAX && cap >= 6) {
        size_t       plane = n / es, from[max_pieces], len[max_pieces], pcap[max_pieces], got[max_pieces];
        uint8_t     *pout[max_pieces];
        tb_status_t  st[max_pieces];
        pieces_job_t job = {level, src, np, from, len, pcap, got, pout, st};
        for (size_t i = 0; i < np; i++) {
            size_t p0 = i * es / np, p1 = (i + 1) * es / np;
            from[i]   = p0 * plane;
            len[i]    = (i + 1 == np ? n : p1 * plane) - from[i];
            pcap[i]   = tb_deflate_bound(len[i]);
            pout[i]   = NULL;
            st[i]     = TB_ERR_CODEC;
        }
        tb_parallel_for(np, (unsigned)np, compress_piece, &job);
        uint8_t    *o    = dst;
        size_t      used = zlib_head(o);
        tb_status_t all  = TB_OK;
        for (size_t i = 0; i < np; i++) {
            if (all == TB_OK && st[i] != TB_OK)
                all = st[i];
            else if (all == TB_OK && got[i] > cap - 4 - used)
                all = TB_ERR_CODEC;
            else if (all == TB_OK) {
                memcpy(o + used, pout[i], got[i]);
                used += got[i];
            }
            free(pout[i]);
        }
        if (all == TB_OK) {
            *out        = used + zlib_tail(o + used, src, n);
            *pieces_out = (unsigned)np;
            return TB_OK;
        }
        if (all == TB_ERR_NOMEM)
            return all;
        /* (a piece did not fit: in one piece below it may) */
    }
#else
    (void)threads;
#endif
    return tb_deflate_compress_layout(level, src, n, layout, dst, cap, out);
}

tb_status_t
tb_deflate_decompress_sized(const void *src, size_t n, void *dst, size_t cap, size_t *out)
{
    codec_ctx_t *c = my_ctx();
    if (!c)
        return TB_ERR_NOMEM;
    if (!c->decomp && !(c->decomp = libdeflate_alloc_decompressor()))
        return TB_ERR_NOMEM;
    size_t                 in_used = 0, got = 0;
    enum libdeflate_result r       = libdeflate_zlib_decompress_ex(c->decomp, src, n, dst, cap, &in_used, &got);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE)
        return TB_ERR_ARG;
    if (r != LIBDEFLATE_SUCCESS)
        return TB_ERR_CORRUPT;
    *out = got;
    return TB_OK;
}

tb_status_t
tb_deflate_decompress(const void *src, size_t n, void *dst, size_t cap, size_t *out)
{
    tb_status_t st = tb_deflate_decompress_sized(src, n, dst, cap, out);
    return st == TB_ERR_ARG ? TB_ERR_CORRUPT : st;
}
