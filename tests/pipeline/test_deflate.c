/* test_deflate.c — tb_deflate writes zlib streams that zlib decodes, decodes zlib's own streams
 * at every level, with ISA-L and with libdeflate; streams with blocks adapted to the data's
 * layout (shuffled planes coded as separate pieces, or small blocks) are standard zlib streams
 * too, also coded in pieces on several threads, and on shuffled float32 detector frames and
 * PyTables-like table rows (17-byte records, short planes) no bigger than 1.05x zlib's at level 1;
 * and bad
 * input (truncated, flipped bytes, wrong Adler-32, output larger than expected) is an error,
 * never a crash or an overrun. */
#include "tb_deflate.h"
#include "tb_shuffle.h"
#include "tb_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Frames as h5py_xfel.py writes them: a ramp 0..4000 along the frame plus noise (sigma 30), as
 * float32 (elem_nbytes 4) or uint16 (2), or raw noise bytes (elem_nbytes 1). */
static void
detector_frame(uint8_t *b, size_t npix, size_t elem_nbytes)
{
    for (size_t i = 0; i < npix; i++) {
        double u1 = (rand() + 1.0) / (RAND_MAX + 2.0), u2 = (rand() + 1.0) / (RAND_MAX + 2.0);
        double v  = 4000.0 * (double)i / (double)npix + 30 * sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
        if (elem_nbytes == 4) {
            float f = (float)v;
            memcpy(b + 4 * i, &f, 4);
        }
        else if (elem_nbytes == 2) {
            uint16_t w = (uint16_t)(v < 0 ? 0 : v);
            memcpy(b + 2 * i, &w, 2);
        }
        else
            b[i] = (uint8_t)rand();
    }
}

/* tb_deflate_compress_layout's stream (with `threads` > 0: tb_deflate_compress_threads'), as zlib
 * and as we decode it. */
static size_t
check_threads(int level, const uint8_t *src, size_t n, const tb_deflate_layout_t *layout, unsigned threads,
              uint8_t *dst, uint8_t *back)
{
    size_t   out = 0, got = 0;
    unsigned pieces = 0;
    if (threads) {
        ASSERT_EQ(tb_deflate_compress_threads(level, src, n, layout, threads, dst, tb_deflate_bound(n), &out, &pieces),
                  TB_OK);
        ASSERT(pieces >= 1 && pieces <= threads);
    }
    else
        ASSERT_EQ(tb_deflate_compress_layout(level, src, n, layout, dst, tb_deflate_bound(n), &out), TB_OK);
    uLongf zn = (uLongf)n;
    ASSERT_EQ(uncompress(back, &zn, dst, (uLong)out), Z_OK);
    ASSERT(zn == n && memcmp(back, src, n) == 0);
    ASSERT_EQ(tb_deflate_decompress(dst, out, back, n, &got), TB_OK);
    ASSERT(got == n && memcmp(back, src, n) == 0);
    return out;
}

static size_t
check_layout(int level, const uint8_t *src, size_t n, const tb_deflate_layout_t *layout, uint8_t *dst, uint8_t *back)
{
    return check_threads(level, src, n, layout, 0, dst, back);
}

/* The size guard of issue 14: one frame coded as the pipeline codes it and by zlib at `level`,
 * the sizes added to *ours and *theirs. */
static void
guard_frame(int level, const uint8_t *src, size_t n, const tb_deflate_layout_t *layout, uint8_t *dst, uint8_t *back,
            size_t *ours, size_t *theirs)
{
    *ours += check_layout(level, src, n, layout, dst, back);
    uLongf zn = (uLongf)tb_deflate_bound(n);
    ASSERT_EQ(compress2(dst, &zn, src, (uLong)n, level), Z_OK);
    *theirs += zn;
}

/* Fails when the frames took more than 1.05x zlib's bytes. */
static void
guard_check(const char *what, size_t es, int level, size_t ours, size_t theirs)
{
    printf("elem %zu %s, level %d: %zu bytes, zlib %zu (%.3fx)\n", es, what, level, ours, theirs,
           (double)ours / (double)theirs);
    ASSERT((double)ours <= 1.05 * (double)theirs);
}

static void
test_layouts(void)
{
    size_t   npix = 512 * 128, max = npix * 8 + 7;
    uint8_t *raw = malloc(max), *src = malloc(max), *dst = malloc(tb_deflate_bound(max)), *back = malloc(max);
    ASSERT(raw && src && dst && back);
    for (int force = 0; force < 2; force++) {
        tb_deflate_force_libdeflate(force);
        /* Drifting planes (ramps) and flat ones (noise) in every combination the element sizes
         * make, plus sizes that leave trailing bytes after the planes, tiny ones and empty. */
        size_t sizes[] = {npix * 4, npix * 4 + 3, npix * 2 + 1, 40000, 4096, 7, 0};
        size_t elems[] = {4, 2, 1, 8, 3, 16, 17};
        for (size_t e = 0; e < sizeof elems / sizeof elems[0]; e++)
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
                size_t es = elems[e], n = sizes[k];
                detector_frame(raw, (n + 3) / 4, 4);
                for (int shuffled = 0; shuffled < 2; shuffled++) {
                    tb_deflate_layout_t layout = {es, shuffled};
                    if (shuffled)
                        tb_shuffle(raw, src, n, es);
                    else
                        memcpy(src, raw, n);
                    for (int level = 1; level <= 4; level++) {
                        check_layout(level, src, n, &layout, dst, back);
                        /* in pieces of planes on 2, 3 and 16 threads */
                        for (unsigned t = 2; t <= 16; t = t == 3 ? 16 : t + 1)
                            check_threads(level, src, n, &layout, t, dst, back);
                    }
                }
            }
        /* Element sizes past what the engine adapts to, and none, code as before. */
        tb_deflate_layout_t big = {64, 1}, none = {0, 0};
        check_layout(1, src, npix * 4, &big, dst, back);
        check_layout(1, src, npix * 4, &none, dst, back);
    }
    tb_deflate_force_libdeflate(0);
#ifdef H5TURBO_HAVE_ISAL
    /* The size guard of issue 14 on the frames that broke it (1.10x with ISA-L's single pass):
     * shuffled float32 and uint16 frames, one chunk per frame, against zlib's level 1. */
    for (size_t es = 2; es <= 4; es += 2) {
        size_t chunk = npix * es, ours = 0, theirs = 0;
        for (int frame = 0; frame < 8; frame++) {
            detector_frame(raw, npix, es);
            tb_shuffle(raw, src, chunk, es);
            tb_deflate_layout_t layout = {es, 1};
            guard_frame(1, src, chunk, &layout, dst, back, &ours, &theirs);
        }
        guard_check("shuffled", es, 1, ours, theirs);
    }
    /* Table rows as PyTables writes them (an int32 event code 0..999, a uint8 flag, a float64
     * time ramp, a float32 noise value: 17 bytes), 7,710 to a chunk, shuffled: 17 planes too short
     * to sample, each of its own statistics (1.10x zlib's with one stream over the chunk). */
    {
        size_t rows = 7710, es = 17, chunk = rows * es, ours = 0, theirs = 0;
        for (int c = 0; c < 8; c++) {
            for (size_t i = 0; i < rows; i++) {
                int32_t e = rand() % 1000;
                uint8_t flag = (uint8_t)(e % 3);
                double  t = (double)(c * rows + i) * 1e-3;
                double  u1 = (rand() + 1.0) / (RAND_MAX + 2.0), u2 = (rand() + 1.0) / (RAND_MAX + 2.0);
                float   x = (float)(sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2));
                uint8_t *r = raw + i * es;
                memcpy(r, &e, 4), r[4] = flag, memcpy(r + 5, &t, 8), memcpy(r + 13, &x, 4);
            }
            tb_shuffle(raw, src, chunk, es);
            tb_deflate_layout_t layout = {es, 1};
            guard_frame(1, src, chunk, &layout, dst, back, &ours, &theirs);
        }
        guard_check("table rows, shuffled", es, 1, ours, theirs);
    }
#endif
    /* The same guard at level 3 on gain-like uint8 frames (0, 1 or 2 at 88/10/2 %; 1.12x with
     * ISA-L's level 3) and unshuffled uint16 frames, against zlib's level 3. */
    for (size_t es = 1; es <= 2; es++) {
        size_t chunk = npix * es, ours = 0, theirs = 0;
        for (int frame = 0; frame < 8; frame++) {
            if (es == 1)
                for (size_t i = 0; i < npix; i++) {
                    int r  = rand() % 1000;
                    src[i] = (uint8_t)(r < 880 ? 0 : r < 980 ? 1 : 2);
                }
            else
                detector_frame(src, npix, es);
            tb_deflate_layout_t layout = {es, 0};
            guard_frame(3, src, chunk, &layout, dst, back, &ours, &theirs);
        }
        guard_check("unshuffled", es, 3, ours, theirs);
    }
    free(raw);
    free(src);
    free(dst);
    free(back);
}

static void
fill(uint8_t *b, size_t n, int kind)
{
    for (size_t i = 0; i < n; i++)
        b[i] = kind == 0 ? (uint8_t)(i % 7 == 0) : kind == 1 ? (uint8_t)rand() : (uint8_t)(i / 100);
}

int
main(void)
{
    size_t   n   = 300000;
    uint8_t *src = malloc(n), *dst = malloc(tb_deflate_bound(n)), *back = malloc(n + 16);
    ASSERT(src && dst && back);
    srand(3);
    for (int force = 0; force < 2; force++) {
        tb_deflate_force_libdeflate(force);
        for (int kind = 0; kind < 3; kind++) {
            fill(src, n, kind);
            for (int level = 0; level <= 9; level++) {
                size_t sizes[] = {0, 1, 5, 4096, n};
                for (size_t k = 0; k < 5; k++) {
                    size_t m = sizes[k], out = 0;
                    ASSERT_EQ(tb_deflate_compress(level, src, m, dst, tb_deflate_bound(m), &out), TB_OK);
                    /* zlib reads it */
                    uLongf zn = (uLongf)(n + 16);
                    ASSERT_EQ(uncompress(back, &zn, dst, (uLong)out), Z_OK);
                    ASSERT_EQ(zn, m);
                    ASSERT(memcmp(back, src, m) == 0);
                    /* and so do we */
                    size_t got = 0;
                    ASSERT_EQ(tb_deflate_decompress(dst, out, back, m, &got), TB_OK);
                    ASSERT_EQ(got, m);
                    ASSERT(memcmp(back, src, m) == 0);
                }
                /* zlib's stream, decoded by us */
                uLongf zcap = compressBound((uLong)n), zout = zcap;
                uint8_t *z = malloc(zcap);
                ASSERT_EQ(compress2(z, &zout, src, (uLong)n, level), Z_OK);
                size_t got = 0;
                ASSERT_EQ(tb_deflate_decompress(z, zout, back, n, &got), TB_OK);
                ASSERT(got == n && memcmp(back, src, n) == 0);
                /* trailing bytes after the stream are ignored, as zlib's inflate does */
                ASSERT_EQ(tb_deflate_decompress(z, zout < zcap ? zout + 1 : zout, back, n, &got), TB_OK);
                /* too small a destination, truncation, a wrong checksum: errors; the sized form
                 * tells too small a destination apart (the caller retries with more room) */
                ASSERT_EQ(tb_deflate_decompress(z, zout, back, n - 1, &got), TB_ERR_CORRUPT);
                ASSERT_EQ(tb_deflate_decompress_sized(z, zout, back, n - 1, &got), TB_ERR_ARG);
                ASSERT_EQ(tb_deflate_decompress_sized(z, zout, back, n, &got), TB_OK);
                ASSERT_EQ(tb_deflate_decompress_sized(z, zout / 2, back, n, &got), TB_ERR_CORRUPT);
                /* the form for bytes of unknown layout: a stream zlib reads */
                size_t uout = 0;
                uLongf un   = (uLongf)(n + 16);
                ASSERT_EQ(tb_deflate_compress_unknown(level, src, n, dst, tb_deflate_bound(n), &uout), TB_OK);
                ASSERT_EQ(uncompress(back, &un, dst, (uLong)uout), Z_OK);
                ASSERT(un == n && memcmp(back, src, n) == 0);
                ASSERT_EQ(tb_deflate_decompress(z, zout / 2, back, n, &got), TB_ERR_CORRUPT);
                z[zout - 1] ^= 1;
                ASSERT_EQ(tb_deflate_decompress(z, zout, back, n, &got), TB_ERR_CORRUPT);
                /* flipped bytes anywhere: an error or (rarely) other data, never a crash */
                for (size_t i = 0; i < zout; i += 1 + zout / 64) {
                    z[i] ^= 0x5a;
                    (void)tb_deflate_decompress(z, zout, back, n, &got);
                    z[i] ^= 0x5a;
                }
                free(z);
            }
        }
    }
    ASSERT_EQ(tb_deflate_compress(13, src, 10, dst, tb_deflate_bound(10), &n), TB_ERR_ARG);
#ifdef H5TURBO_HAVE_ISAL
    tb_deflate_force_libdeflate(0);
    ASSERT(strcmp(tb_deflate_engine(1), "isa-l") == 0);
#endif
    ASSERT(strcmp(tb_deflate_engine(6), "libdeflate") == 0);
    test_layouts();
    free(src);
    free(dst);
    free(back);
    return 0;
}
