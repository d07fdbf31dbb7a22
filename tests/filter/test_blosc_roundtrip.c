/* test_blosc_roundtrip.c — every compressor, shuffle mode, type size and awkward size round-trips
 * through tb_blosc_compress/decompress, and agrees with c-blosc itself both ways: our frames
 * equal c-blosc's serial frames byte for byte and decode with c-blosc; c-blosc's decode with ours. */
#include "tb_blosc_codec.h"
#include "tb_test.h"
#include "blosc_test_data.h"

#include <blosc.h>
#include <stdlib.h>
#include <string.h>

static size_t n_cases, n_memcpyed;

static void
check_one(unsigned comp, unsigned shuffle, unsigned clevel, unsigned typesize, size_t n, test_pattern_t pat)
{
    tb_blosc_params_t p = {.typesize = typesize, .clevel = clevel, .shuffle = shuffle, .compressor = comp};
    size_t   cap  = tb_blosc_max_compressed_nbytes(n);
    uint8_t *src  = malloc(n + 1);
    uint8_t *ours = malloc(cap);
    uint8_t *ref  = malloc(cap);
    uint8_t *back = malloc(n + 1);
    ASSERT(src && ours && ref && back);
    test_fill(src, n, typesize, pat, n * 31 + comp);

    size_t ours_n = 0, back_n = 0;
    ASSERT_EQ(tb_blosc_compress(&p, src, n, ours, cap, &ours_n, 1), TB_OK);
    ASSERT(ours_n <= cap);

    /* The independent implementation: c-blosc's own serial compressor, same settings. */
    int ref_n = blosc_compress_ctx((int)clevel, (int)shuffle, typesize > 255 ? 1 : typesize, n, src, ref, cap,
                                   tb_blosc_compressor_name(comp), 0, 1);
    ASSERT(ref_n > 0);
    if ((size_t)ref_n != ours_n || memcmp(ref, ours, ours_n) != 0) {
        fprintf(stderr, "frame differs from c-blosc: comp=%u shuffle=%u clevel=%u ts=%u n=%zu pat=%d (%zu vs %d)\n",
                comp, shuffle, clevel, typesize, n, (int)pat, ours_n, ref_n);
        exit(1);
    }
    if (ours[2] & 0x02)
        n_memcpyed++;

    /* c-blosc decodes ours. */
    memset(back, 0xA5, n + 1);
    ASSERT_EQ(blosc_decompress_ctx(ours, back, n + 1, 1), (long long)n);
    ASSERT(memcmp(back, src, n) == 0);

    /* We decode c-blosc's (and so ours), serially and on threads. */
    for (unsigned threads = 1; threads <= 3; threads += 2) {
        memset(back, 0xA5, n + 1);
        ASSERT_EQ(tb_blosc_decompress(ref, (size_t)ref_n, back, n + 1, &back_n, threads), TB_OK);
        ASSERT_EQ(back_n, n);
        ASSERT(memcmp(back, src, n) == 0);
        ASSERT_EQ(back[n], 0xA5); /* nothing written past the data */
    }
    /* The destination exactly the data size is enough. */
    ASSERT_EQ(tb_blosc_decompress(ours, ours_n, back, n, &back_n, 1), TB_OK);
    /* One byte too little is refused before decoding. */
    if (n > 0)
        ASSERT_EQ(tb_blosc_decompress(ours, ours_n, back, n - 1, &back_n, 1), TB_ERR_CORRUPT);
    n_cases++;
    free(src), free(ours), free(ref), free(back);
}

int
main(void)
{
    static const unsigned typesizes[] = {1, 2, 3, 4, 8, 16, 24, 255};
    static const size_t   sizes[]     = {0, 1, 7, 127, 128, 1000, 4099, 65536 + 24, 300000};
    static const unsigned clevels[]   = {0, 1, 5, 9};
    for (unsigned comp = 0; comp <= TB_BLOSC_ZSTD; comp++) {
        if (!tb_blosc_compressor_available(comp)) {
            fprintf(stderr, "note: compressor %s not in this c-blosc, skipped\n", tb_blosc_compressor_name(comp));
            continue;
        }
        for (unsigned sh = 0; sh <= 2; sh++)
            for (size_t t = 0; t < sizeof(typesizes) / sizeof(typesizes[0]); t++)
                for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
                    for (size_t c = 0; c < sizeof(clevels) / sizeof(clevels[0]); c++) {
                        /* Keep the slow high levels to the smaller inputs. */
                        if (clevels[c] == 9 && sizes[s] > 70000 && comp != TB_BLOSC_LZ4)
                            continue;
                        for (int pat = 0; pat < PATTERN_COUNT; pat++)
                            check_one(comp, sh, clevels[c], typesizes[t], sizes[s], (test_pattern_t)pat);
                    }
    }
    /* Type sizes above 255 act as 1, as in hdf5-blosc. */
    check_one(TB_BLOSC_LZ4, TB_BLOSC_SHUFFLE, 5, 300, 3000, PATTERN_SMOOTH);

    /* Parameters out of range are refused, not clamped. */
    tb_blosc_params_t bad = {.typesize = 4, .clevel = 10, .shuffle = 1, .compressor = 1};
    uint8_t            in[64] = {0}, out[128];
    size_t             out_n;
    ASSERT_EQ(tb_blosc_compress(&bad, in, sizeof(in), out, sizeof(out), &out_n, 1), TB_ERR_ARG);
    bad.clevel = 5, bad.shuffle = 3;
    ASSERT_EQ(tb_blosc_compress(&bad, in, sizeof(in), out, sizeof(out), &out_n, 1), TB_ERR_ARG);
    bad.shuffle = 1, bad.compressor = 6;
    ASSERT_EQ(tb_blosc_compress(&bad, in, sizeof(in), out, sizeof(out), &out_n, 1), TB_ERR_ARG);
    bad.compressor = 1;
    ASSERT_EQ(tb_blosc_compress(&bad, in, sizeof(in), out, sizeof(in) + 15, &out_n, 1), TB_ERR_ARG);

    /* cd_values: hdf5-blosc's defaults when slots 4-6 are absent. */
    unsigned           cd[7] = {2, 2, 4, 4000, 9, 2, 5};
    tb_blosc_params_t p;
    ASSERT_EQ(tb_blosc_params_from_cd(4, cd, &p, NULL, 0), TB_OK);
    ASSERT(p.typesize == 4 && p.chunk_nbytes == 4000 && p.clevel == 5 && p.shuffle == 1 && p.compressor == 0);
    ASSERT_EQ(tb_blosc_params_from_cd(7, cd, &p, NULL, 0), TB_OK);
    ASSERT(p.clevel == 9 && p.shuffle == 2 && p.compressor == 5);
    cd[6] = 9;
    char why[128] = "";
    ASSERT_EQ(tb_blosc_params_from_cd(7, cd, &p, why, sizeof(why)), TB_ERR_ARG);
    ASSERT(strstr(why, "compressor") != NULL);

    printf("%zu cases (%zu stored as plain copies), all equal to c-blosc\n", n_cases, n_memcpyed);
    return 0;
}
