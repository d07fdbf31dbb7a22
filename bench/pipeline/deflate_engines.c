/* deflate_engines.c — how fast and how small the DEFLATE engines are on detector-like data
 * (shuffled uint32 mask frames and uint8 gain frames) at several chunk sizes: zlib (what stock
 * HDF5 uses), libdeflate and ISA-L igzip through tb_deflate. Picks tb_deflate's ISA-L cut-off.
 * Usage: deflate_engines [LEVEL] */
#include "tb_deflate.h"
#include "tb_shuffle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

static double
now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int
main(int argc, char **argv)
{
    int      level = argc > 1 ? atoi(argv[1]) : 1;
    size_t   max   = (size_t)1 << 20;
    uint8_t *raw = malloc(max), *src = malloc(max), *dst = malloc(tb_deflate_bound(max));
    uint64_t s   = 12345;
    for (size_t i = 0; i < max; i++) {
        s      = s * 6364136223846793005ull + 1442695040888963407ull;
        raw[i] = (uint8_t)(((s >> 40) % 1000) < 880 ? 0 : ((s >> 40) % 1000) < 980 ? 1 : 2);
    }
    tb_shuffle(raw, src, max, 1);
    printf("level %d: MB/s and compressed bytes per engine, gain-like data\n", level);
    printf("%10s %12s %12s %12s %10s %10s %10s\n", "chunk", "zlib MB/s", "libdefl MB/s", "isa-l MB/s", "zlib B",
           "libdefl B", "isa-l B");
    for (size_t n = 256; n <= max; n *= 4) {
        size_t reps = (max * 16) / n, zb = 0, lb = 0, ib = 0;
        double t0   = now();
        for (size_t r = 0; r < reps; r++) {
            uLongf out = (uLongf)tb_deflate_bound(n);
            compress2(dst, &out, src, (uLong)n, level);
            zb = out;
        }
        double t1 = now();
        tb_deflate_force_libdeflate(1);
        for (size_t r = 0; r < reps; r++)
            tb_deflate_compress(level, src, n, dst, tb_deflate_bound(n), &lb);
        double t2 = now();
        tb_deflate_force_libdeflate(0);
        for (size_t r = 0; r < reps; r++)
            tb_deflate_compress(level, src, n, dst, tb_deflate_bound(n), &ib);
        double t3 = now();
        double mb = (double)(n * reps) / 1e6;
        printf("%10zu %12.0f %12.0f %12.0f %10zu %10zu %10zu\n", n, mb / (t1 - t0), mb / (t2 - t1), mb / (t3 - t2), zb,
               lb, ib);
    }
    free(raw);
    free(src);
    free(dst);
    return 0;
}
