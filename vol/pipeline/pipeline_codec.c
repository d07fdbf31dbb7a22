/* pipeline_codec.c — runs a dataset's filter stages over one chunk, forwards (write) and
 * backwards (read), exactly as HDF5's filter pipeline would, with our codecs. Called on worker
 * threads: no HDF5 calls here, only common/ codecs and the Blosc codec. */
#include "pipeline_int.h"
#include "tb_deflate.h"
#include "tb_fletcher32.h"
#include "tb_shuffle.h"

#include <string.h>

tb_status_t
tb_pipe_stages_prepare(tb_pipe_dset_t *p)
{
    size_t n = p->chunk_nbytes, most = p->chunk_nbytes;
    int    known = 1;
    for (int i = 0; i < p->nstages; i++) {
        tb_pipe_stage_t *s = &p->stages[i];
        s->in_nbytes        = known ? n : 0;
        switch (s->kind) {
            case TB_STAGE_SHUFFLE:
                break;
            case TB_STAGE_FLETCHER32:
                n += TB_FLETCHER32_NBYTES;
                break;
            case TB_STAGE_DEFLATE:
                n     = tb_deflate_bound(n);
                known = 0;
                break;
            case TB_STAGE_BLOSC:
#ifdef TB_PIPE_HAVE_BLOSC
                if (n > (size_t)INT32_MAX - 64)
                    return TB_ERR_UNSUPPORTED;
                n     = tb_blosc_max_compressed_nbytes(n);
                known = 0;
                break;
#else
                return TB_ERR_UNSUPPORTED;
#endif
        }
        if (n > most)
            most = n;
    }
    /* Bounds only grow through the stages, so `most` holds the biggest intermediate; 64 bytes of
     * slack keep a checksum appended in place inside the buffer. */
    p->buf_nbytes = most + 64;
    return TB_OK;
}

static int
is_ours(const void *ptr, void *bufs[2])
{
    return ptr == bufs[0] || ptr == bufs[1];
}

tb_status_t
tb_pipe_encode(const tb_pipe_dset_t *p, const void *in, void *bufs[2], const void **out, size_t *out_nbytes,
                uint32_t *mask_out, unsigned inner_threads)
{
    const uint8_t *cur  = in;
    size_t         n    = p->chunk_nbytes;
    uint32_t       mask = 0;
    for (int i = 0; i < p->nstages; i++) {
        const tb_pipe_stage_t *s   = &p->stages[i];
        uint8_t                *dst = (cur == bufs[0]) ? bufs[1] : bufs[0];
        tb_status_t            st  = TB_OK;
        switch (s->kind) {
            case TB_STAGE_SHUFFLE:
                tb_shuffle(cur, dst, n, s->param);
                cur = dst;
                break;
            case TB_STAGE_DEFLATE: {
                /* The engine adapts its blocks to the bytes' layout: the dataset's elements as
                 * they are, or in planes when a byte shuffle came just before. */
                tb_deflate_layout_t layout = {p->type_nbytes, 0}, *lp = NULL;
                if (i == 0)
                    lp = &layout;
                else if (p->stages[i - 1].kind == TB_STAGE_SHUFFLE) {
                    layout.elem_nbytes = p->stages[i - 1].param;
                    layout.shuffled    = 1;
                    lp                 = &layout;
                }
                st  = tb_deflate_compress_layout((int)s->param, cur, n, lp, dst, p->buf_nbytes, &n);
                cur = dst;
                break;
            }
            case TB_STAGE_FLETCHER32:
                /* Appended in place when the data already sits in a buffer of ours. */
                if (!is_ours(cur, bufs)) {
                    memcpy(dst, cur, n);
                    cur = dst;
                }
                tb_fletcher32_append((uint8_t *)(uintptr_t)cur, n);
                n += TB_FLETCHER32_NBYTES;
                break;
            case TB_STAGE_BLOSC: {
#ifdef TB_PIPE_HAVE_BLOSC
                size_t m = 0;
                st       = tb_blosc_compress(&s->blosc, cur, n, dst, p->buf_nbytes, &m, inner_threads);
                /* hdf5-blosc (PyTables, hdf5plugin) compresses into a buffer of the input's size:
                 * a frame that does not fit fails the filter, and an optional one is then skipped,
                 * the chunk stored as it entered (the stage's bit in the mask). So here. */
                if (st == TB_OK && s->optional && m > n) {
                    mask |= 1u << i;
                    break;
                }
                n   = m;
                cur = dst;
#else
                (void)inner_threads;
                st = TB_ERR_UNSUPPORTED;
#endif
                break;
            }
        }
        if (st != TB_OK)
            return st;
    }
    *out        = cur;
    *out_nbytes = n;
    *mask_out   = mask;
    return TB_OK;
}

tb_status_t
tb_pipe_decode(const tb_pipe_dset_t *p, void *raw, size_t raw_nbytes, uint32_t mask, int edc, void *bufs[2],
                void *direct, const void **out, unsigned inner_threads)
{
    uint8_t *cur   = raw;
    size_t   n     = raw_nbytes;
    int      final = -1;
    for (int i = 0; i < p->nstages; i++)
        if (!(mask & (1u << i))) {
            final = i;
            break;
        }
    for (int i = p->nstages - 1; i >= 0; i--) {
        if (mask & (1u << i))
            continue;
        const tb_pipe_stage_t *s = &p->stages[i];
        uint8_t                *dst;
        size_t                  cap;
        if (i == final && direct && s->kind != TB_STAGE_FLETCHER32) {
            dst = direct;
            cap = p->chunk_nbytes;
        }
        else {
            dst = (cur == bufs[0]) ? bufs[1] : bufs[0];
            cap = p->buf_nbytes;
        }
        /* The size this stage must restore; unknown after a compressor, or when an earlier
         * (optional) filter was skipped for this chunk. */
        size_t want = mask ? 0 : s->in_nbytes;
        size_t got  = 0;
        switch (s->kind) {
            case TB_STAGE_FLETCHER32: {
                if (n < TB_FLETCHER32_NBYTES)
                    return TB_ERR_CORRUPT;
                if (edc) {
                    tb_status_t st = tb_fletcher32_verify(cur, n);
                    if (st != TB_OK)
                        return st;
                }
                n -= TB_FLETCHER32_NBYTES;
                continue;
            }
            case TB_STAGE_SHUFFLE:
                if (n > cap)
                    return TB_ERR_CORRUPT;
                tb_unshuffle(cur, dst, n, s->param);
                got = n;
                break;
            case TB_STAGE_DEFLATE:
                if (want > cap)
                    return TB_ERR_CORRUPT;
                if (tb_deflate_decompress(cur, n, dst, want ? want : cap, &got) != TB_OK)
                    return TB_ERR_CORRUPT;
                break;
            case TB_STAGE_BLOSC:
#ifdef TB_PIPE_HAVE_BLOSC
                if (want > cap)
                    return TB_ERR_CORRUPT;
                if (tb_blosc_decompress(cur, n, dst, want ? want : cap, &got, inner_threads) != TB_OK)
                    return TB_ERR_CORRUPT;
                break;
#else
                (void)inner_threads;
                return TB_ERR_UNSUPPORTED;
#endif
        }
        if (want && got != want)
            return TB_ERR_CORRUPT;
        n   = got;
        cur = dst;
    }
    if (n != p->chunk_nbytes)
        return TB_ERR_CORRUPT;
    *out = cur;
    return TB_OK;
}
