/* tb_deflate.c — DEFLATE for the chunk pipeline. Codec contexts are expensive to create
 * (libdeflate compressors hold large match finders, ISA-L streams hash tables), so each thread
 * keeps its own, created on first use and freed when the thread exits. */
#include "tb_deflate.h"

#include <libdeflate.h>
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

static tb_status_t
isal_compress(codec_ctx_t *c, int level, const void *src, size_t n, void *dst, size_t cap, size_t *out)
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
    if (n > UINT32_MAX || cap > UINT32_MAX)
        return TB_ERR_CODEC; /* ISA-L counts in 32 bits; the caller falls back */
    struct isal_zstream *s = c->isal;
    isal_deflate_init(s);
    s->level          = (uint32_t)level;
    s->level_buf      = c->isal_level_buf;
    s->level_buf_size = (uint32_t)need;
    s->gzip_flag      = IGZIP_ZLIB;
    s->end_of_stream  = 1;
    s->flush          = NO_FLUSH;
    s->next_in        = (uint8_t *)(uintptr_t)src;
    s->avail_in       = (uint32_t)n;
    s->next_out       = dst;
    s->avail_out      = (uint32_t)cap;
    if (isal_deflate(s) != COMP_OK || s->internal_state.state != ZSTATE_END)
        return TB_ERR_CODEC;
    *out = s->total_out;
    return TB_OK;
}
#endif

tb_status_t
tb_deflate_compress(int level, const void *src, size_t n, void *dst, size_t cap, size_t *out)
{
    if (level < 0 || level > TB_DEFLATE_MAX_LEVEL)
        return TB_ERR_ARG;
    codec_ctx_t *c = my_ctx();
    if (!c)
        return TB_ERR_NOMEM;
#ifdef H5TURBO_HAVE_ISAL
    if (use_isal(level)) {
        tb_status_t st = isal_compress(c, level, src, n, dst, cap, out);
        if (st == TB_OK || st == TB_ERR_NOMEM)
            return st;
        /* Output did not fit ISA-L's way: libdeflate below may still make it. */
    }
#endif
    if (!c->comp[level] && !(c->comp[level] = libdeflate_alloc_compressor(level)))
        return TB_ERR_NOMEM;
    size_t got = libdeflate_zlib_compress(c->comp[level], src, n, dst, cap);
    if (got == 0)
        return TB_ERR_CODEC;
    *out = got;
    return TB_OK;
}

tb_status_t
tb_deflate_decompress(const void *src, size_t n, void *dst, size_t cap, size_t *out)
{
    codec_ctx_t *c = my_ctx();
    if (!c)
        return TB_ERR_NOMEM;
    if (!c->decomp && !(c->decomp = libdeflate_alloc_decompressor()))
        return TB_ERR_NOMEM;
    size_t                 in_used = 0, got = 0;
    enum libdeflate_result r       = libdeflate_zlib_decompress_ex(c->decomp, src, n, dst, cap, &in_used, &got);
    if (r != LIBDEFLATE_SUCCESS)
        return TB_ERR_CORRUPT;
    *out = got;
    return TB_OK;
}
