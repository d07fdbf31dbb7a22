/* tb_shuffle.c — byte shuffle and unshuffle. Element sizes 2, 4 and 8 (nearly all real data)
 * run 16 elements at a time with SSE2 unpacks (unshuffle) and SSSE3 byte shuffles (shuffle,
 * chosen at run time); other sizes and the tail use plane-by-plane loops like HDF5's. */
#include "tb_shuffle.h"

#include <stdatomic.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#include <tmmintrin.h>
#define TB_SHUFFLE_X86 1
#endif

/* Plane-by-plane: sequential on the shuffled side. Elements [from, n) only. */
static void
shuffle_scalar(const uint8_t *s, uint8_t *d, size_t n, size_t es, size_t from)
{
    for (size_t b = 0; b < es; b++)
        for (size_t j = from; j < n; j++)
            d[b * n + j] = s[j * es + b];
}

static void
unshuffle_scalar(const uint8_t *s, uint8_t *d, size_t n, size_t es, size_t from)
{
    for (size_t b = 0; b < es; b++)
        for (size_t j = from; j < n; j++)
            d[j * es + b] = s[b * n + j];
}

#ifdef TB_SHUFFLE_X86
/* Unshuffle: 16 elements per step. Interleaving byte planes pairwise with unpacklo/hi doubles the
 * group width each round (bytes, then 2-byte, then 4-byte groups) until whole elements remain. */
static size_t
unshuffle_sse2(const uint8_t *s, uint8_t *d, size_t n, size_t es)
{
    size_t j = 0;
    if (es == 2) {
        for (; j + 16 <= n; j += 16) {
            __m128i p0 = _mm_loadu_si128((const __m128i *)(s + j));
            __m128i p1 = _mm_loadu_si128((const __m128i *)(s + n + j));
            _mm_storeu_si128((__m128i *)(d + 2 * j), _mm_unpacklo_epi8(p0, p1));
            _mm_storeu_si128((__m128i *)(d + 2 * j + 16), _mm_unpackhi_epi8(p0, p1));
        }
    }
    else if (es == 4) {
        for (; j + 16 <= n; j += 16) {
            __m128i p0  = _mm_loadu_si128((const __m128i *)(s + j));
            __m128i p1  = _mm_loadu_si128((const __m128i *)(s + n + j));
            __m128i p2  = _mm_loadu_si128((const __m128i *)(s + 2 * n + j));
            __m128i p3  = _mm_loadu_si128((const __m128i *)(s + 3 * n + j));
            __m128i a0  = _mm_unpacklo_epi8(p0, p1), a1 = _mm_unpackhi_epi8(p0, p1);
            __m128i b0  = _mm_unpacklo_epi8(p2, p3), b1 = _mm_unpackhi_epi8(p2, p3);
            uint8_t *o  = d + 4 * j;
            _mm_storeu_si128((__m128i *)(o), _mm_unpacklo_epi16(a0, b0));
            _mm_storeu_si128((__m128i *)(o + 16), _mm_unpackhi_epi16(a0, b0));
            _mm_storeu_si128((__m128i *)(o + 32), _mm_unpacklo_epi16(a1, b1));
            _mm_storeu_si128((__m128i *)(o + 48), _mm_unpackhi_epi16(a1, b1));
        }
    }
    else if (es == 8) {
        for (; j + 16 <= n; j += 16) {
            __m128i p[8], a[8], b[8];
            for (int k = 0; k < 8; k++)
                p[k] = _mm_loadu_si128((const __m128i *)(s + (size_t)k * n + j));
            /* bytes -> 2-byte groups: a[2m] elements 0-7, a[2m+1] elements 8-15, planes 2m,2m+1 */
            for (int m = 0; m < 4; m++) {
                a[2 * m]     = _mm_unpacklo_epi8(p[2 * m], p[2 * m + 1]);
                a[2 * m + 1] = _mm_unpackhi_epi8(p[2 * m], p[2 * m + 1]);
            }
            /* 2-byte -> 4-byte groups (planes 0-3 and 4-7), elements 0-3, 4-7, 8-11, 12-15 */
            for (int h = 0; h < 2; h++) {
                for (int q = 0; q < 2; q++) {
                    b[4 * h + 2 * q]     = _mm_unpacklo_epi16(a[4 * h + q], a[4 * h + 2 + q]);
                    b[4 * h + 2 * q + 1] = _mm_unpackhi_epi16(a[4 * h + q], a[4 * h + 2 + q]);
                }
            }
            /* b[0..3]: planes 0-3 of elements 0-3,4-7,8-11,12-15; b[4..7]: planes 4-7 of the same */
            uint8_t *o = d + 8 * j;
            for (int g = 0; g < 4; g++) {
                _mm_storeu_si128((__m128i *)(o + 32 * g), _mm_unpacklo_epi32(b[g], b[4 + g]));
                _mm_storeu_si128((__m128i *)(o + 32 * g + 16), _mm_unpackhi_epi32(b[g], b[4 + g]));
            }
        }
    }
    return j;
}

/* Shuffle: gather byte k of each element of a 16-byte vector together with SSSE3's pshufb, then
 * transpose the resulting groups across vectors with unpacks. 16 elements per step. */
__attribute__((target("ssse3"))) static size_t
shuffle_ssse3(const uint8_t *s, uint8_t *d, size_t n, size_t es)
{
    size_t j = 0;
    if (es == 2) {
        const __m128i m = _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
        for (; j + 16 <= n; j += 16) {
            __m128i v0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(s + 2 * j)), m);
            __m128i v1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(s + 2 * j + 16)), m);
            _mm_storeu_si128((__m128i *)(d + j), _mm_unpacklo_epi64(v0, v1));
            _mm_storeu_si128((__m128i *)(d + n + j), _mm_unpackhi_epi64(v0, v1));
        }
    }
    else if (es == 4) {
        const __m128i m = _mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
        for (; j + 16 <= n; j += 16) {
            const uint8_t *i  = s + 4 * j;
            __m128i        v0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(i)), m);
            __m128i        v1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(i + 16)), m);
            __m128i        v2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(i + 32)), m);
            __m128i        v3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(i + 48)), m);
            __m128i        t0 = _mm_unpacklo_epi32(v0, v1), t1 = _mm_unpacklo_epi32(v2, v3);
            __m128i        t2 = _mm_unpackhi_epi32(v0, v1), t3 = _mm_unpackhi_epi32(v2, v3);
            _mm_storeu_si128((__m128i *)(d + j), _mm_unpacklo_epi64(t0, t1));
            _mm_storeu_si128((__m128i *)(d + n + j), _mm_unpackhi_epi64(t0, t1));
            _mm_storeu_si128((__m128i *)(d + 2 * n + j), _mm_unpacklo_epi64(t2, t3));
            _mm_storeu_si128((__m128i *)(d + 3 * n + j), _mm_unpackhi_epi64(t2, t3));
        }
    }
    else if (es == 8) {
        /* Per vector (2 elements): 16-bit groups (byte k of element 0, byte k of element 1). */
        const __m128i m = _mm_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
        for (; j + 16 <= n; j += 16) {
            __m128i v[8], a[8], b[8];
            for (int k = 0; k < 8; k++)
                v[k] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(s + 8 * j + 16 * (size_t)k)), m);
            /* v[k] word w = plane w of elements 2k, 2k+1. Transpose the 8x8 matrix of words. */
            for (int k = 0; k < 4; k++) {
                a[2 * k]     = _mm_unpacklo_epi16(v[2 * k], v[2 * k + 1]); /* planes 0-3, elements 4k..4k+3 */
                a[2 * k + 1] = _mm_unpackhi_epi16(v[2 * k], v[2 * k + 1]); /* planes 4-7 */
            }
            for (int k = 0; k < 2; k++)
                for (int h = 0; h < 2; h++) {
                    /* planes (4h + 0,1) / (4h + 2,3), elements 8k..8k+7 */
                    b[4 * k + 2 * h]     = _mm_unpacklo_epi32(a[4 * k + h], a[4 * k + 2 + h]);
                    b[4 * k + 2 * h + 1] = _mm_unpackhi_epi32(a[4 * k + h], a[4 * k + 2 + h]);
                }
            for (int h = 0; h < 2; h++)
                for (int q = 0; q < 2; q++) {
                    int p0 = 4 * h + 2 * q; /* planes p0, p0+1 */
                    __m128i lo = b[2 * h + q], hi = b[4 + 2 * h + q];
                    _mm_storeu_si128((__m128i *)(d + (size_t)p0 * n + j), _mm_unpacklo_epi64(lo, hi));
                    _mm_storeu_si128((__m128i *)(d + (size_t)(p0 + 1) * n + j), _mm_unpackhi_epi64(lo, hi));
                }
        }
    }
    return j;
}

/* Asked by every thread; the answer never changes, so a relaxed atomic cache is enough. */
static int
have_ssse3(void)
{
    static atomic_int cached = -1;
    int               v      = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v < 0) {
        v = __builtin_cpu_supports("ssse3") ? 1 : 0;
        atomic_store_explicit(&cached, v, memory_order_relaxed);
    }
    return v;
}
#endif

void
tb_shuffle(const void *src, void *dst, size_t nbytes, size_t es)
{
    const uint8_t *s    = src;
    uint8_t       *d    = dst;
    size_t         n    = es ? nbytes / es : 0;
    size_t         done = 0;
    if (es <= 1 || n <= 1) {
        memcpy(dst, src, nbytes);
        return;
    }
#ifdef TB_SHUFFLE_X86
    if ((es == 2 || es == 4 || es == 8) && have_ssse3())
        done = shuffle_ssse3(s, d, n, es);
#endif
    shuffle_scalar(s, d, n, es, done);
    memcpy(d + n * es, s + n * es, nbytes - n * es);
}

void
tb_unshuffle(const void *src, void *dst, size_t nbytes, size_t es)
{
    const uint8_t *s    = src;
    uint8_t       *d    = dst;
    size_t         n    = es ? nbytes / es : 0;
    size_t         done = 0;
    if (es <= 1 || n <= 1) {
        memcpy(dst, src, nbytes);
        return;
    }
#ifdef TB_SHUFFLE_X86
    done = unshuffle_sse2(s, d, n, es);
#endif
    unshuffle_scalar(s, d, n, es, done);
    memcpy(d + n * es, s + n * es, nbytes - n * es);
}
