/* test_fletcher32.c — tb_fletcher32 gives the bits of HDF5's H5_checksum_fletcher32 (the
 * reference below is a transcription of its algorithm: 360-word blocks, folded sums) on every
 * length and on data that stresses the folding (all 0xff, all zero, random), and verification
 * accepts the stored and the pre-1.6.3 byte-swapped forms and rejects any flipped bit. */
#include "tb_fletcher32.h"
#include "tb_test.h"

#include <stdlib.h>
#include <string.h>

static uint32_t
reference(const uint8_t *data, size_t n)
{
    size_t   len  = n / 2;
    uint32_t sum1 = 0, sum2 = 0;
    while (len) {
        size_t tlen = len > 360 ? 360 : len;
        len -= tlen;
        do {
            sum1 += (uint32_t)(((uint16_t)data[0]) << 8) | ((uint16_t)data[1]);
            data += 2;
            sum2 += sum1;
        } while (--tlen);
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    if (n % 2) {
        sum1 += (uint32_t)(((uint16_t)*data) << 8);
        sum2 += sum1;
        sum1 = (sum1 & 0xffff) + (sum1 >> 16);
        sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    }
    sum1 = (sum1 & 0xffff) + (sum1 >> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >> 16);
    return (sum2 << 16) | sum1;
}

int
main(void)
{
    size_t   max = (size_t)3 << 20;
    uint8_t *buf = malloc(max + 4);
    ASSERT(buf);
    srand(7);
    /* Patterns: zeros, 0xff (sums hit multiples of 65535), random, mostly zero. */
    for (int pat = 0; pat < 4; pat++) {
        for (size_t i = 0; i < max; i++)
            buf[i] = pat == 0 ? 0 : pat == 1 ? 0xff : pat == 2 ? (uint8_t)rand() : (uint8_t)(rand() % 97 == 0);
        static const size_t lens[] = {1, 2, 3, 4, 5, 7, 8, 719, 720, 721, 722, 1440, 4096, 65535, 65536,
                                      65537, 131071, (size_t)1 << 21, ((size_t)1 << 21) + 3, (size_t)3 << 20};
        for (size_t k = 0; k < sizeof(lens) / sizeof(*lens); k++)
            ASSERT_EQ(tb_fletcher32(buf, lens[k]), reference(buf, lens[k]));
        for (size_t n = 1; n < 3000; n += 7)
            ASSERT_EQ(tb_fletcher32(buf + 1, n), reference(buf + 1, n));
    }
    /* Multiples of 65535 in the word sums without all-zero data: words 0xffff then zeros. */
    memset(buf, 0, 4096);
    buf[0] = buf[1] = 0xff;
    ASSERT_EQ(tb_fletcher32(buf, 4096), reference(buf, 4096));

    /* Append and verify. */
    for (size_t i = 0; i < 1000; i++)
        buf[i] = (uint8_t)(i * 31);
    tb_fletcher32_append(buf, 1000);
    uint32_t c = reference(buf, 1000);
    ASSERT_EQ(buf[1000], c & 0xff);
    ASSERT_EQ(buf[1003], c >> 24);
    ASSERT_EQ(tb_fletcher32_verify(buf, 1004), TB_OK);
    /* The byte-swapped form HDF5 still accepts. */
    uint8_t t = buf[1000];
    buf[1000] = buf[1001];
    buf[1001] = t;
    t         = buf[1002];
    buf[1002] = buf[1003];
    buf[1003] = t;
    ASSERT_EQ(tb_fletcher32_verify(buf, 1004), TB_OK);
    tb_fletcher32_append(buf, 1000);
    for (size_t bit = 0; bit < 1004 * 8; bit += 13) {
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        ASSERT_EQ(tb_fletcher32_verify(buf, 1004), TB_ERR_CHECKSUM);
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
    ASSERT_EQ(tb_fletcher32_verify(buf, 3), TB_ERR_CORRUPT);
    free(buf);
    return 0;
}
