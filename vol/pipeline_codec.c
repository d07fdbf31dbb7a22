/* pipeline_codec.c — runs a dataset's filter stages over one chunk, forwards (write) and
 * backwards (read), exactly as HDF5's filter pipeline would, with our codecs. Called on worker
 * threads: no HDF5 calls here, only common/ codecs and the Blosc codec. */
#include "pipeline_int.h"
#include "h5t_deflate.h"
#include "h5t_fletcher32.h"
#include "h5t_shuffle.h"

#include <string.h>

h5t_status_t
h5t_pipe_stages_prepare(h5t_pipe_dset_t *p)
{
    size_t n = p->chunk_nbytes, most = p->chunk_nbytes;
    int    known = 1;
    for (int i = 0; i < p->nstages; i++) {
        h5t_pipe_stage_t *s = &p->stages[i];
        s->in_nbytes        = known ? n : 0;
        switch (s->kind) {
            case H5T_STAGE_SHUFFLE:
                break;
            case H5T_STAGE_FLETCHER32:
                n += H5T_FLETCHER32_NBYTES;
                break;
            case H5T_STAGE_DEFLATE:
                n     = h5t_deflate_bound(n);
                known = 0;
                break;
            case H5T_STAGE_BLOSC:
#ifdef H5T_PIPE_HAVE_BLOSC
                if (n > (size_t)INT32_MAX - 64)
                    return H5T_ERR_UNSUPPORTED;
                n     = h5t_blosc_max_compressed_nbytes(n);
                known = 0;
                break;
#else
                return H5T_ERR_UNSUPPORTED;
#endif
        }
        if (n > most)
            most = n;
    }
    /* Bounds only grow through the stages, so `most` holds the biggest intermediate; 64 bytes of
     * slack keep a checksum appended in place inside the buffer. */
    p->buf_nbytes = most + 64;
    return H5T_OK;
}

static int
is_ours(const void *ptr, void *bufs[2])
{
    return ptr == bufs[0] || ptr == bufs[1];
}

h5t_status_t
h5t_pipe_encode(const h5t_pipe_dset_t *p, const void *in, void *bufs[2], const void **out, size_t *out_nbytes,
                unsigned inner_threads)
{
    const uint8_t *cur = in;
    size_t         n   = p->chunk_nbytes;
    for (int i = 0; i < p->nstages; i++) {
        const h5t_pipe_stage_t *s   = &p->stages[i];
        uint8_t                *dst = (cur == bufs[0]) ? bufs[1] : bufs[0];
        h5t_status_t            st  = H5T_OK;
        switch (s->kind) {
            case H5T_STAGE_SHUFFLE:
                h5t_shuffle(cur, dst, n, s->param);
                cur = dst;
                break;
            case H5T_STAGE_DEFLATE:
                st  = h5t_deflate_compress((int)s->param, cur, n, dst, p->buf_nbytes, &n);
                cur = dst;
                break;
            case H5T_STAGE_FLETCHER32:
                /* Appended in place when the data already sits in a buffer of ours. */
                if (!is_ours(cur, bufs)) {
                    memcpy(dst, cur, n);
                    cur = dst;
                }
                h5t_fletcher32_append((uint8_t *)(uintptr_t)cur, n);
                n += H5T_FLETCHER32_NBYTES;
                break;
            case H5T_STAGE_BLOSC:
#ifdef H5T_PIPE_HAVE_BLOSC
                st  = h5t_blosc_compress(&s->blosc, cur, n, dst, p->buf_nbytes, &n, inner_threads);
                cur = dst;
#else
                (void)inner_threads;
                st = H5T_ERR_UNSUPPORTED;
#endif
                break;
        }
        if (st != H5T_OK)
            return st;
    }
    *out        = cur;
    *out_nbytes = n;
    return H5T_OK;
}

h5t_status_t
h5t_pipe_decode(const h5t_pipe_dset_t *p, void *raw, size_t raw_nbytes, uint32_t mask, int edc, void *bufs[2],
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
        const h5t_pipe_stage_t *s = &p->stages[i];
        uint8_t                *dst;
        size_t                  cap;
        if (i == final && direct && s->kind != H5T_STAGE_FLETCHER32) {
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
            case H5T_STAGE_FLETCHER32: {
                if (n < H5T_FLETCHER32_NBYTES)
                    return H5T_ERR_CORRUPT;
                if (edc) {
                    h5t_status_t st = h5t_fletcher32_verify(cur, n);
                    if (st != H5T_OK)
                        return st;
                }
                n -= H5T_FLETCHER32_NBYTES;
                continue;
            }
            case H5T_STAGE_SHUFFLE:
                if (n > cap)
                    return H5T_ERR_CORRUPT;
                h5t_unshuffle(cur, dst, n, s->param);
                got = n;
                break;
            case H5T_STAGE_DEFLATE:
                if (want > cap)
                    return H5T_ERR_CORRUPT;
                if (h5t_deflate_decompress(cur, n, dst, want ? want : cap, &got) != H5T_OK)
                    return H5T_ERR_CORRUPT;
                break;
            case H5T_STAGE_BLOSC:
#ifdef H5T_PIPE_HAVE_BLOSC
                if (want > cap)
                    return H5T_ERR_CORRUPT;
                if (h5t_blosc_decompress(cur, n, dst, want ? want : cap, &got, inner_threads) != H5T_OK)
                    return H5T_ERR_CORRUPT;
                break;
#else
                (void)inner_threads;
                return H5T_ERR_UNSUPPORTED;
#endif
        }
        if (want && got != want)
            return H5T_ERR_CORRUPT;
        n   = got;
        cur = dst;
    }
    if (n != p->chunk_nbytes)
        return H5T_ERR_CORRUPT;
    *out = cur;
    return H5T_OK;
}
