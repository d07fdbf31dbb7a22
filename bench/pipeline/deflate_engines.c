/* deflate_engines.c — how fast and how small the DEFLATE engines are on detector-like data:
 * zlib (what stock HDF5 uses), libdeflate, and ISA-L igzip through tb_deflate, both in its plain
 * single pass and with its blocks adapted to the data's layout (what the pipeline calls).
 * Part 1: one chunk per frame of several kinds of data, byte-shuffled (as HDF5's shuffle filter
 * leaves it) or not, sizes relative to zlib's. Part 2: gain-like data at chunk sizes from 256 B
 * to 1 MiB (picks tb_deflate's ISA-L cut-off). Times are medians of 7 interleaved rounds.
 * Usage: deflate_engines [LEVEL] */
#include "tb_deflate.h"
#include "tb_shuffle.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define NY      512
#define NX      128
#define NFRAMES 32
#define ROUNDS  7

static double
now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static uint64_t rng = 12345;

static double
uniform(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static double
normal(void)
{
    return sqrt(-2 * log(uniform())) * cos(6.283185307179586 * uniform());
}

/* The kinds of frames: what h5py_xfel.py writes (a ramp 0..4000 along the frame plus noise of
 * sigma 30, as float32 corrected data and as uint16 raw data) and agipd.c's gain and mask. */
enum { KIND_F32, KIND_U16, KIND_GAIN, KIND_MASK, NKINDS };
static const char  *kind_name[NKINDS]   = {"float32 ramp+noise", "uint16 ramp+noise", "uint8 gain", "uint32 mask"};
static const size_t kind_nbytes[NKINDS] = {4, 2, 1, 4};

static void
make_frames(int kind, uint8_t *out)
{
    size_t npix = (size_t)NY * NX;
    for (size_t f = 0; f < NFRAMES; f++)
        for (size_t i = 0; i < npix; i++) {
            double   v = 4000.0 * (double)i / (double)(npix - 1) + 30 * normal();
            size_t   at = (f * npix + i) * kind_nbytes[kind];
            float    fv = (float)v;
            uint16_t uv = (uint16_t)(v < 0 ? 0 : v);
            uint32_t r  = (uint32_t)(uniform() * 1000);
            uint8_t  g  = (uint8_t)(r < 880 ? 0 : r < 980 ? 1 : 2);
            uint32_t m  = f == 0 ? ((r % 100 == 0) ? 1u << (r % 11) : 0) : ((uint32_t *)out)[i];
            switch (kind) {
                case KIND_F32: memcpy(out + at, &fv, 4); break;
                case KIND_U16: memcpy(out + at, &uv, 2); break;
                case KIND_GAIN: out[at] = g; break;
                default: memcpy(out + at, &m, 4); break; /* the same mask in every frame */
            }
        }
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

enum { ENG_ZLIB, ENG_LIBDEFLATE, ENG_ISAL, ENG_ISAL_ADAPT, NENGINES };

/* Compresses nframes chunks of `chunk` bytes with one engine; returns the bytes it made. */
static size_t
run_engine(int engine, int level, const uint8_t *src, size_t chunk, size_t nframes, const tb_deflate_layout_t *layout,
           uint8_t *dst)
{
    size_t total = 0;
    tb_deflate_force_libdeflate(engine == ENG_LIBDEFLATE);
    for (size_t f = 0; f < nframes; f++) {
        size_t got = 0;
        if (engine == ENG_ZLIB) {
            uLongf out = (uLongf)tb_deflate_bound(chunk);
            compress2(dst, &out, src + f * chunk, (uLong)chunk, level);
            got = out;
        }
        else
            tb_deflate_compress_layout(level, src + f * chunk, chunk, engine == ENG_ISAL_ADAPT ? layout : NULL, dst,
                                       tb_deflate_bound(chunk), &got);
        total += got;
    }
    tb_deflate_force_libdeflate(0);
    return total;
}

static void
kinds_table(int level)
{
    size_t   max = (size_t)NY * NX * 4 * NFRAMES;
    uint8_t *raw = malloc(max), *shuf = malloc(max), *dst = malloc(tb_deflate_bound(max));
    printf("level %d, %d frames of %dx%d, one chunk per frame: bytes relative to zlib, MB/s\n", level, NFRAMES, NY, NX);
    printf("%-20s %-9s %10s %9s %9s %9s %9s %9s %9s %9s\n", "data", "shuffle", "zlib B", "zlib", "libdefl",
           "tb", "tb adapt", "libdefl", "tb", "tb adapt");
    for (int kind = 0; kind < NKINDS; kind++) {
        size_t es = kind_nbytes[kind], chunk = (size_t)NY * NX * es;
        make_frames(kind, raw);
        for (int shuffled = 1; shuffled >= (es > 1 ? 0 : 1); shuffled--) {
            const uint8_t *src = raw;
            if (shuffled && es > 1) {
                for (size_t f = 0; f < NFRAMES; f++)
                    tb_shuffle(raw + f * chunk, shuf + f * chunk, chunk, es);
                src = shuf;
            }
            tb_deflate_layout_t layout = {es, shuffled && es > 1};
            double              t[NENGINES][ROUNDS];
            size_t              bytes[NENGINES];
            for (int r = 0; r < ROUNDS; r++)
                for (int e = 0; e < NENGINES; e++) {
                    double t0 = now();
                    bytes[e]  = run_engine(e, level, src, chunk, NFRAMES, &layout, dst);
                    t[e][r]   = now() - t0;
                }
            double mbs[NENGINES];
            for (int e = 0; e < NENGINES; e++) {
                qsort(t[e], ROUNDS, sizeof(double), cmp_double);
                mbs[e] = (double)(chunk * NFRAMES) / 1e6 / t[e][ROUNDS / 2];
            }
            printf("%-20s %-9s %10zu %8.0f  %8.3fx %8.3fx %8.3fx %8.0f  %8.0f  %8.0f\n", kind_name[kind],
                   es == 1 ? "-" : shuffled ? "yes" : "no", bytes[ENG_ZLIB], mbs[ENG_ZLIB],
                   (double)bytes[ENG_LIBDEFLATE] / (double)bytes[ENG_ZLIB],
                   (double)bytes[ENG_ISAL] / (double)bytes[ENG_ZLIB],
                   (double)bytes[ENG_ISAL_ADAPT] / (double)bytes[ENG_ZLIB], mbs[ENG_LIBDEFLATE], mbs[ENG_ISAL],
                   mbs[ENG_ISAL_ADAPT]);
        }
    }
    printf("(ratios: sizes; last three columns: speeds; tb: tb_deflate at this level with no layout (ISA-L for 1-2, "
           "else libdeflate), one pass; tb adapt: with the data's layout, as the pipeline calls it)\n\n");
    free(raw);
    free(shuf);
    free(dst);
}

static void
sizes_table(int level)
{
    size_t   max = (size_t)1 << 20;
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
}

int
main(int argc, char **argv)
{
    int level = argc > 1 ? atoi(argv[1]) : 1;
    kinds_table(level);
    sizes_table(level);
    return 0;
}
