/* blosc_test_data.h — deterministic test inputs for the Blosc codec tests: compressible ramps
 * with noise (detector-like), zeros, and random bytes that do not compress at all. */
#ifndef BLOSC_TEST_DATA_H
#define BLOSC_TEST_DATA_H

#include <stddef.h>
#include <stdint.h>

typedef enum { PATTERN_SMOOTH = 0, PATTERN_ZEROS, PATTERN_RANDOM, PATTERN_COUNT } test_pattern_t;

static inline uint64_t
test_rng(uint64_t *s)
{
    /* splitmix64: a fixed stream per seed, so failures reproduce. */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Fills n bytes: elements of `typesize` bytes whose low bytes vary slowly, as detector pixels do. */
static inline void
test_fill(uint8_t *buf, size_t n, unsigned typesize, test_pattern_t pat, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        switch (pat) {
            case PATTERN_ZEROS: buf[i] = 0; break;
            case PATTERN_RANDOM: buf[i] = (uint8_t)test_rng(&s); break;
            default: {
                size_t   elem = i / (typesize ? typesize : 1), byte = i % (typesize ? typesize : 1);
                uint64_t r    = test_rng(&s);
                /* A ramp with sparse noise: compressible, but not trivially. */
                uint64_t v    = 1000 + (elem % 512) * 3 + ((r & 15) == 0 ? (r >> 8) & 31 : 0);
                buf[i]        = byte < 8 ? (uint8_t)(v >> (8 * byte)) : 0;
            } break;
        }
    }
}

#endif
