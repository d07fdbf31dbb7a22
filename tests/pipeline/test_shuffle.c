/* test_shuffle.c — tb_shuffle/tb_unshuffle match HDF5's shuffle filter byte for byte (byte
 * planes, trailing partial element copied as is, 1-byte elements and one-element buffers left
 * unchanged) for every element size 1..20, and unshuffle inverts shuffle. */
#include "tb_shuffle.h"
#include "tb_test.h"

#include <stdlib.h>
#include <string.h>

/* HDF5's algorithm, transcribed: plane i collects byte i of each element. */
static void
reference(const uint8_t *src, uint8_t *dst, size_t nbytes, size_t es)
{
    size_t n = nbytes / es;
    if (es <= 1 || n <= 1) {
        memcpy(dst, src, nbytes);
        return;
    }
    uint8_t *d = dst;
    for (size_t i = 0; i < es; i++)
        for (size_t j = 0; j < n; j++)
            *d++ = src[j * es + i];
    memcpy(d, src + n * es, nbytes % es);
}

int
main(void)
{
    size_t   max = 70000;
    uint8_t *src = malloc(max), *a = malloc(max), *b = malloc(max), *c = malloc(max);
    ASSERT(src && a && b && c);
    for (size_t i = 0; i < max; i++)
        src[i] = (uint8_t)(i * 2654435761u >> 11);
    static const size_t lens[] = {0, 1, 2, 3, 15, 16, 17, 64, 1000, 4099, 65536, 69997};
    for (size_t es = 1; es <= 20; es++)
        for (size_t k = 0; k < sizeof(lens) / sizeof(*lens); k++) {
            size_t n = lens[k];
            memset(a, 0, max);
            memset(b, 1, max);
            reference(src, a, n, es);
            tb_shuffle(src, b, n, es);
            ASSERT(memcmp(a, b, n) == 0);
            tb_unshuffle(b, c, n, es);
            ASSERT(memcmp(src, c, n) == 0);
        }
    free(src);
    free(a);
    free(b);
    free(c);
    return 0;
}
