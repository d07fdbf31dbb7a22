/* pipe_test.h — what the pipeline's differential test programs share: the hash of what a call
 * returned (FNV-1a, from a seed the program picks) and the seeded generator of their random
 * datasets and calls, the same sequence stock and under h5turbo. */
#ifndef PIPE_TEST_H
#define PIPE_TEST_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t
fnv(const void *p, size_t n, uint64_t h)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t rstate;

/* The next number below n (0 when n is 0). */
static inline unsigned
rnd(unsigned n)
{
    rstate = rstate * 6364136223846793005ull + 1442695040888963407ull;
    return n ? (unsigned)((rstate >> 33) % n) : 0;
}

#endif
