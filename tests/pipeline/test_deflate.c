/* test_deflate.c — tb_deflate writes zlib streams that zlib decodes, decodes zlib's own streams
 * at every level, with ISA-L and with libdeflate; and bad input (truncated, flipped bytes, wrong
 * Adler-32, output larger than expected) is an error, never a crash or an overrun. */
#include "tb_deflate.h"
#include "tb_test.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

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
                /* too small a destination, truncation, a wrong checksum: errors */
                ASSERT_EQ(tb_deflate_decompress(z, zout, back, n - 1, &got), TB_ERR_CORRUPT);
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
    free(src);
    free(dst);
    free(back);
    return 0;
}
