/* test_blosc_corrupt.c — corrupt and truncated frames are refused with TB_ERR_CORRUPT before
 * any block is decoded, and random damage never makes the decoder read or write out of bounds
 * (this test runs under ASan+UBSan in scripts/test). */
#include "tb_blosc_codec.h"
#include "tb_test.h"
#include "blosc_test_data.h"

#include <stdlib.h>
#include <string.h>

static void
put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

/* Decodes a damaged copy (exactly `n` bytes long, so overreads trip ASan) with both paths. */
static tb_status_t
decode(const uint8_t *frame, size_t n, size_t cap)
{
    uint8_t     *src = malloc(n ? n : 1), *out = malloc(cap ? cap : 1);
    tb_status_t st[2];
    ASSERT(src && out);
    memcpy(src, frame, n);
    for (unsigned t = 0; t < 2; t++) {
        size_t got = 0;
        st[t]      = tb_blosc_decompress(src, n, out, cap, &got, t ? 3 : 1);
        if (st[t] == TB_OK)
            ASSERT(got <= cap);
    }
    ASSERT_EQ(st[0], st[1]);
    free(src), free(out);
    return st[0];
}

static tb_status_t
decode_mutated(const uint8_t *frame, size_t n, size_t cap, size_t at, uint8_t value)
{
    uint8_t *copy = malloc(n);
    ASSERT(copy);
    memcpy(copy, frame, n);
    copy[at] = value;
    tb_status_t st = decode(copy, n, cap);
    free(copy);
    return st;
}

int
main(void)
{
    const size_t n = 1500000; /* several blocks for every codec at level 3 */
    uint8_t     *src = malloc(n), *frame = malloc(n + 16);
    ASSERT(src && frame);
    size_t checked = 0;
    for (unsigned comp = 0; comp <= TB_BLOSC_ZSTD; comp++) {
        if (!tb_blosc_compressor_available(comp))
            continue;
        tb_blosc_params_t p = {.typesize = 4, .clevel = 3, .shuffle = comp % 3, .compressor = comp};
        size_t             fn = 0;
        test_fill(src, n, 4, PATTERN_SMOOTH, comp);
        ASSERT_EQ(tb_blosc_compress(&p, src, n, frame, n + 16, &fn, 1), TB_OK);
        ASSERT_EQ(decode(frame, fn, n), TB_OK);
        ASSERT(!(frame[2] & 0x02)); /* a real compressed frame, with a block table */
        tb_blosc_frame_t info;
        ASSERT_EQ(tb_blosc_frame_info(frame, fn, n, &info, NULL, 0), TB_OK);
        ASSERT(info.nblocks >= 2); /* the block table has entries to damage */
        uint32_t nblocks = (uint32_t)info.nblocks;

        /* Truncated anywhere: refused by the size check, nothing decoded. */
        for (size_t cut = 0; cut < fn; cut += (cut < 64 ? 1 : 97))
            ASSERT_EQ(decode(frame, cut, n), TB_ERR_CORRUPT);
        /* Header fields, one at a time. */
        ASSERT_EQ(decode_mutated(frame, fn, n, 0, 3), TB_ERR_CORRUPT);          /* format version */
        ASSERT_EQ(decode_mutated(frame, fn, n, 2, frame[2] | 0x08), TB_ERR_CORRUPT); /* reserved flag */
        ASSERT_EQ(decode_mutated(frame, fn, n, 2, (frame[2] & 0x1f) | 0xe0), TB_ERR_CORRUPT); /* codec 7 */
        ASSERT_EQ(decode_mutated(frame, fn, n, 3, 0), TB_ERR_CORRUPT);          /* type size 0 */
        ASSERT_EQ(decode(frame, fn, n - 1), TB_ERR_CORRUPT);                   /* more than expected */
        uint8_t *copy = malloc(fn);
        ASSERT(copy);
        memcpy(copy, frame, fn);
        put32(copy + 8, 0); /* block size 0 */
        ASSERT_EQ(decode(copy, fn, n), TB_ERR_CORRUPT);
        memcpy(copy, frame, fn);
        put32(copy + 8, (uint32_t)n + 4); /* block larger than the data */
        ASSERT_EQ(decode(copy, fn, n), TB_ERR_CORRUPT);
        memcpy(copy, frame, fn);
        put32(copy + 12, (uint32_t)fn + 1); /* frame longer than the chunk */
        ASSERT_EQ(decode(copy, fn, n), TB_ERR_CORRUPT);
        for (uint32_t b = 0; b < nblocks; b++) {
            memcpy(copy, frame, fn);
            put32(copy + 16 + 4 * b, (uint32_t)fn); /* block offset past the end */
            ASSERT_EQ(decode(copy, fn, n), TB_ERR_CORRUPT);
            memcpy(copy, frame, fn);
            put32(copy + 16 + 4 * b, 4); /* block offset inside the header */
            ASSERT_EQ(decode(copy, fn, n), TB_ERR_CORRUPT);
        }
        /* A stream length pointing past the frame. */
        memcpy(copy, frame, fn);
        uint32_t first = copy[16] | copy[17] << 8 | copy[18] << 16 | (uint32_t)copy[19] << 24;
        put32(copy + first, (uint32_t)fn);
        ASSERT_EQ(decode(copy, fn, n), TB_ERR_CORRUPT);
        free(copy);

        /* Random damage in the data: an error or a frame of the right size, never a crash. */
        uint64_t s = comp;
        for (int i = 0; i < 150; i++) {
            size_t at = 16 + 4 * nblocks + test_rng(&s) % (fn - 16 - 4 * nblocks);
            tb_status_t st = decode_mutated(frame, fn, n, at, (uint8_t)test_rng(&s));
            ASSERT(st == TB_OK || st == TB_ERR_CORRUPT);
            checked++;
        }
    }

    /* Plain-copy frames: the size must match exactly. */
    tb_blosc_params_t p = {.typesize = 8, .clevel = 5, .shuffle = 1, .compressor = 0};
    uint8_t            one[8] = {1, 2, 3, 4, 5, 6, 7, 8}, f1[24];
    size_t             f1n = 0;
    ASSERT_EQ(tb_blosc_compress(&p, one, 8, f1, sizeof(f1), &f1n, 1), TB_OK);
    ASSERT_EQ(f1n, 24);
    ASSERT(f1[2] & 0x02);
    ASSERT_EQ(decode(f1, f1n, 8), TB_OK);
    ASSERT_EQ(decode(f1, f1n - 1, 8), TB_ERR_CORRUPT);
    put32(f1 + 4, 9);
    ASSERT_EQ(decode(f1, f1n, 16), TB_ERR_CORRUPT);

    /* The reason is spelled out for the HDF5 error stack. */
    char              why[256] = "";
    tb_blosc_frame_t info;
    ASSERT_EQ(tb_blosc_frame_info(frame, 10, n, &info, why, sizeof(why)), TB_ERR_CORRUPT);
    ASSERT(strstr(why, "shorter than a Blosc header") != NULL);
    printf("corrupt frames refused; %zu randomly damaged frames decoded safely\n", checked);
    free(src), free(frame);
    return 0;
}
