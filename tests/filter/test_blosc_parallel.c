/* test_blosc_parallel.c — the block-parallel paths: frames compressed on several threads are
 * byte-identical to c-blosc's serial frames, decode in parallel to the input, and many caller
 * threads compressing and decoding at once (the VOL pipeline's use) interfere in nothing.
 * Labelled `threads`, so it also runs under TSan. */
#include "tb_blosc_codec.h"
#include "tb_test.h"
#include "tb_threadpool.h"
#include "blosc_test_data.h"

#include <blosc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Compresses with c-blosc serially and with us on 1..4 threads; all frames must be equal, all
 * must decode (ours in parallel, c-blosc's serial decoder) to the input. */
static void
check_parallel(unsigned comp, unsigned shuffle, unsigned clevel, unsigned typesize, size_t n, test_pattern_t pat)
{
    tb_blosc_params_t p = {.typesize = typesize, .clevel = clevel, .shuffle = shuffle, .compressor = comp};
    size_t   cap  = tb_blosc_max_compressed_nbytes(n);
    uint8_t *src  = malloc(n), *ref = malloc(cap), *ours = malloc(cap), *back = malloc(n);
    ASSERT(src && ref && ours && back);
    test_fill(src, n, typesize, pat, n + comp * 7 + shuffle);
    int ref_n = blosc_compress_ctx((int)clevel, (int)shuffle, typesize, n, src, ref, cap,
                                   tb_blosc_compressor_name(comp), 0, 1);
    ASSERT(ref_n > 0);
    static const unsigned thread_counts[] = {0, 2, 3};
    for (size_t ti = 0; ti < sizeof(thread_counts) / sizeof(thread_counts[0]); ti++) {
        unsigned threads = thread_counts[ti];
        size_t ours_n = 0, back_n = 0;
        ASSERT_EQ(tb_blosc_compress(&p, src, n, ours, cap, &ours_n, threads), TB_OK);
        /* c-blosc gives snappy less than its worst-case output room near the end of a frame and
         * then stores those streams raw; our runs have the room, so snappy frames may be smaller
         * (still decoded by c-blosc below). Every other codec must match exactly. */
        int same = ours_n == (size_t)ref_n && memcmp(ours, ref, ours_n) == 0;
        if (comp == TB_BLOSC_SNAPPY && !same && ours_n < (size_t)ref_n)
            same = 1;
        if (!same) {
            fprintf(stderr, "parallel frame differs: comp=%u sh=%u cl=%u ts=%u n=%zu pat=%d threads=%u (%zu vs %d)\n",
                    comp, shuffle, clevel, typesize, n, (int)pat, threads, ours_n, ref_n);
            exit(1);
        }
        memset(back, 0, n);
        ASSERT_EQ(blosc_decompress_ctx(ours, back, n, 1), (long long)n);
        ASSERT(memcmp(back, src, n) == 0);
        memset(back, 0, n);
        ASSERT_EQ(tb_blosc_decompress(ours, ours_n, back, n, &back_n, threads), TB_OK);
        ASSERT_EQ(back_n, n);
        ASSERT(memcmp(back, src, n) == 0);
    }
    free(src), free(ref), free(ours), free(back);
}

typedef struct caller {
    unsigned id;
    int      failures;
} caller_t;

/* One application thread: its own buffers, many chunks, nested parallelism on the shared pool. */
static void *
caller_main(void *arg)
{
    caller_t *c = arg;
    size_t    n = (size_t)1 << 20;
    uint8_t  *src = malloc(n), *cmp = malloc(n + 16), *back = malloc(n);
    if (!src || !cmp || !back) {
        c->failures++;
        return NULL;
    }
    for (unsigned round = 0; round < 6; round++) {
        unsigned           comp = (c->id + round) % 6;
        tb_blosc_params_t p = {.typesize = 1u << (round % 4), .clevel = 1 + (round % 5), .shuffle = round % 3,
                                .compressor = tb_blosc_compressor_available(comp) ? comp : 1};
        test_fill(src, n, p.typesize, PATTERN_SMOOTH, c->id * 100 + round);
        size_t cn = 0, bn = 0;
        if (tb_blosc_compress(&p, src, n, cmp, n + 16, &cn, 2) != TB_OK ||
            tb_blosc_decompress(cmp, cn, back, n, &bn, 2) != TB_OK || bn != n || memcmp(src, back, n) != 0)
            c->failures++;
    }
    free(src), free(cmp), free(back);
    return NULL;
}

int
main(void)
{
    /* A frame of two blocks, one with a short last block, one of many blocks. */
    static const size_t sizes[] = {(size_t)1 << 18, ((size_t)1 << 20) + 3 * 8, (size_t)3 << 20};
#if defined(__SANITIZE_THREAD__)
    /* Under TSan (10-20x slower) the interleavings matter, not the parameter table. */
    const size_t nsizes = 2;
#else
    const size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);
#endif
    size_t cases = 0;
    for (unsigned comp = 0; comp <= TB_BLOSC_ZSTD; comp++) {
        if (!tb_blosc_compressor_available(comp))
            continue;
        for (unsigned sh = 0; sh <= 2; sh++)
            for (unsigned ts = 1; ts <= 8; ts *= 2)
                for (size_t s = 0; s < nsizes; s++) {
                    /* Random data once per codec: the plain-copy fallback of a stitched frame. */
                    test_pattern_t pat = (s == 1 && sh == 1 && ts == 4) ? PATTERN_RANDOM : PATTERN_SMOOTH;
                    unsigned       clevel = (comp == TB_BLOSC_ZLIB || comp == TB_BLOSC_ZSTD ||
                                       comp == TB_BLOSC_LZ4HC) ? 1 + (unsigned)s : 5 + (unsigned)s;
                    check_parallel(comp, sh, clevel, ts, sizes[s], pat);
                    cases++;
                }
        /* Type sizes that do not split, and a short last block that is not a whole element. */
        check_parallel(comp, 1, 5, 24, (size_t)1 << 20, PATTERN_SMOOTH);
        check_parallel(comp, 2, 3, 3, ((size_t)1 << 20) + 3 * 333, PATTERN_SMOOTH);
        cases += 2;
    }
    /* Random settings, odd type sizes and lengths: where a block size rule could slip. */
    uint64_t rs = 12345;
#if defined(__SANITIZE_THREAD__)
    const int nrandom = 12;
#else
    const int nrandom = 120;
#endif
    for (int i = 0; i < nrandom; i++) {
        unsigned comp = (unsigned)(test_rng(&rs) % 6);
        if (!tb_blosc_compressor_available(comp))
            continue;
        unsigned ts      = 1 + (unsigned)(test_rng(&rs) % 40);
        unsigned sh      = (unsigned)(test_rng(&rs) % 3);
        int      slow    = comp == TB_BLOSC_LZ4HC || comp == TB_BLOSC_ZLIB || comp == TB_BLOSC_ZSTD;
        unsigned clevel  = 1 + (unsigned)(test_rng(&rs) % (slow ? 4 : 9));
        size_t   n       = ((size_t)128 << 10) + (size_t)(test_rng(&rs) % ((size_t)2 << 20));
        check_parallel(comp, sh, clevel, ts, n, (test_rng(&rs) % 8) ? PATTERN_SMOOTH : PATTERN_RANDOM);
        cases++;
    }
    /* Every frame of two blocks or more was spliced, none redone serially. */
    ASSERT_EQ(tb_blosc_parallel_fallbacks(), 0);
    printf("%zu parallel cases equal to c-blosc serial, decoded in parallel\n", cases);

    /* Reentrancy: several application threads at once, each nesting work into the pool. */
    enum { NCALLERS = 4 };
    pthread_t th[NCALLERS];
    caller_t  callers[NCALLERS];
    for (unsigned i = 0; i < NCALLERS; i++) {
        callers[i] = (caller_t){i, 0};
        ASSERT(pthread_create(&th[i], NULL, caller_main, &callers[i]) == 0);
    }
    for (unsigned i = 0; i < NCALLERS; i++) {
        pthread_join(th[i], NULL);
        ASSERT_EQ(callers[i].failures, 0);
    }
    /* The pool is persistent: after the first call, calls reuse its workers instead of creating
     * threads, however many chunks go through. */
    tb_blosc_params_t p = {.typesize = 4, .clevel = 5, .shuffle = 1, .compressor = 1};
    size_t   n = (size_t)2 << 20, cn;
    uint8_t *src = calloc(1, n), *cmp = malloc(n + 16);
    ASSERT(src && cmp);
    ASSERT_EQ(tb_blosc_compress(&p, src, n, cmp, n + 16, &cn, 4), TB_OK);
    unsigned workers = tb_threadpool_workers();
    ASSERT(workers >= 1);
    for (int i = 0; i < 20; i++)
        ASSERT_EQ(tb_blosc_compress(&p, src, n, cmp, n + 16, &cn, 4), TB_OK);
    ASSERT_EQ(tb_threadpool_workers(), workers);

    /* Serial fallback of the pool: with thread creation failing, a larger request still gets
     * its work done (on the caller). */
    tb_threadpool_fail_thread_creation(1);
    uint8_t *back = malloc(n);
    size_t   bn   = 0;
    ASSERT(back);
    ASSERT_EQ(tb_blosc_compress(&p, src, n, cmp, n + 16, &cn, workers + 8), TB_OK);
    ASSERT_EQ(tb_blosc_decompress(cmp, cn, back, n, &bn, workers + 8), TB_OK);
    ASSERT(bn == n && memcmp(src, back, n) == 0);
    tb_threadpool_fail_thread_creation(0);
    free(src), free(cmp), free(back);
    printf("%d callers ran concurrently; pool has %u workers\n", NCALLERS, tb_threadpool_workers());
    return 0;
}
