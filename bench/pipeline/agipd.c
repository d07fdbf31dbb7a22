/* agipd.c — the AGIPD-like benchmark of the chunk pipeline: frames of 512x128 pixels, a gain
 * dataset (uint8, mostly 0, some 1 and 2) and a mask dataset (uint32, sparse bits, the same for
 * every frame), deflate level 1 + shuffle + fletcher32, one chunk per frame.
 *
 *   agipd write FILE NFRAMES BLOCK [CHUNK_FRAMES]  H5Dwrite, BLOCK frames per call (stock or
 *                                       h5turbo: the environment decides), CHUNK_FRAMES frames per
 *                                       chunk (default 1)
 *   agipd read FILE BLOCK [CACHE_MIB]   H5Dread of both datasets, BLOCK frames per call; with
 *                                       CACHE_MIB, a chunk cache of that size (H5Pset_chunk_cache)
 *   agipd readrows FILE NFRAMES [CACHE_MIB]  the first NFRAMES frames row by row (one H5Dread of
 *                                       128 pixels per row and dataset)
 *   agipd readx FILE MODE BLOCK         reads as processing steps do, BLOCK frames per call:
 *                                       MODE u32 (both into uint32: gain widened), f32 (both into
 *                                       float32), roi (frames[:, 0:64, :]), stride4 (every 4th
 *                                       frame), points (64 pixels of every frame), multi (both
 *                                       datasets in one H5Dread_multi), union (two regions of
 *                                       interest of every frame, an H5S_SELECT_OR union), spots
 *                                       (16 boxes of 8x8 pixels of every frame, OR'ed), memsel
 *                                       (roi into every other 128-element block of a buffer),
 *                                       chan3 (whole frames into every third element of a buffer)
 *   agipd modules FILE NFRAMES [MULTI]  16 module datasets as AGIPD's raw data has them
 *                                       ("module00"..."module15": uint16 frames, a baseline and
 *                                       noise), frame by frame: an H5Dwrite per module, or with
 *                                       MULTI 1 one H5Dwrite_multi of the 16 modules' frame
 *   agipd readmodules FILE BLOCK MULTI  BLOCK frames of every module per step, as extra-data
 *                                       reads a train: MULTI 1 one H5Dread_multi of the 16
 *                                       datasets, 0 an H5Dread each
 *   agipd writex FILE NFRAMES BLOCK     like write, from float32 buffers (converted to the file's
 *                                       uint8 / uint32)
 *   agipd ref FILE NFRAMES BLOCK THREADS  what the European XFEL fix did by hand: shuffle + zlib
 *                                       level 1 in a pool of THREADS threads, H5Dwrite_chunk,
 *                                       no fletcher32 (run it without h5turbo)
 *
 * AGIPD_FILTER=deflate4 writes shuffle + DEFLATE level 4 (h5py's default level) instead, and
 * AGIPD_FILTER=blosc-lz4 Blosc (filter 32001: LZ4, level 5, byte shuffle), both + fletcher32.
 * Prints "seconds=<s> bytes=<stored chunk bytes> sum=<checksum of the data> app_cpu=<s>", the last
 * the CPU time of the application's thread over the timed part (for the serial fraction). */
#define H5_USE_114_API_DEFAULT 1
#include <hdf5.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define NY      512
#define NX      128
#define NPIX    (NY * NX)
#define NDISTINCT 64 /* distinct gain frames, cycled: generation stays out of the timing */

#define CHECK(x)                                                                                           \
    do {                                                                                                   \
        if ((x) < 0) {                                                                                     \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x);                                 \
            exit(2);                                                                                       \
        }                                                                                                  \
    } while (0)

static uint8_t  gain[NDISTINCT][NPIX];
static uint32_t mask[NPIX];

static double
now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double
thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void
generate(void)
{
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (int f = 0; f < NDISTINCT; f++)
        for (int i = 0; i < NPIX; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            unsigned r = (unsigned)(s >> 40) % 1000;
            /* ~88% high gain (0), ~10% medium (1), ~2% low (2) */
            gain[f][i] = r < 880 ? 0 : r < 980 ? 1 : 2;
        }
    for (int i = 0; i < NPIX; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        unsigned r = (unsigned)(s >> 40);
        mask[i]    = (r % 100 == 0) ? (1u << (r % 11)) : 0; /* ~1% bad pixels, one bit each */
    }
}

static hsize_t chunk_frames = 1; /* frames per chunk (write: optional last argument) */

static hid_t
create_dset(hid_t file, const char *name, hid_t type, hsize_t nframes, int fletcher)
{
    hsize_t dims[3] = {nframes, NY, NX}, chunk[3] = {chunk_frames, NY, NX};
    hid_t   sp = H5Screate_simple(3, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(H5Pset_chunk(dcpl, 3, chunk));
    const char *filter = getenv("AGIPD_FILTER");
    if (filter && strcmp(filter, "blosc-lz4") == 0) {
        /* hdf5-blosc's (and hdf5plugin's) options: 4 slots its set_local fills, then level 5,
         * byte shuffle, LZ4 (compressor code 1). */
        const unsigned cd[7] = {0, 0, 0, 0, 5, 1, 1};
        CHECK(H5Pset_filter(dcpl, 32001, H5Z_FLAG_OPTIONAL, 7, cd));
    }
    else {
        CHECK(H5Pset_shuffle(dcpl));
        CHECK(H5Pset_deflate(dcpl, filter && strcmp(filter, "deflate4") == 0 ? 4 : 1));
    }
    if (fletcher)
        CHECK(H5Pset_fletcher32(dcpl));
    hid_t d = H5Dcreate2(file, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(d);
    H5Pclose(dcpl);
    H5Sclose(sp);
    return d;
}

static hsize_t
stored_bytes(hid_t d)
{
    return H5Dget_storage_size(d);
}

static int
do_write(const char *path, int nframes, int block, int from_float)
{
    uint8_t  *gbuf = malloc((size_t)block * NPIX);
    uint32_t *mbuf = malloc((size_t)block * NPIX * 4);
    float    *gf   = malloc((size_t)block * NPIX * 4);
    float    *mf   = malloc((size_t)block * NPIX * 4);
    for (int b = 0; b < block; b++) {
        memcpy(mbuf + (size_t)b * NPIX, mask, sizeof(mask));
        for (int i = 0; i < NPIX; i++)
            mf[(size_t)b * NPIX + (size_t)i] = (float)mask[i];
    }
    hid_t  gmt = from_float ? H5T_NATIVE_FLOAT : H5T_NATIVE_UINT8, mmt = from_float ? H5T_NATIVE_FLOAT : H5T_NATIVE_UINT32;
    void  *gsrc = from_float ? (void *)gf : (void *)gbuf, *msrc = from_float ? (void *)mf : (void *)mbuf;
    double c0   = thread_cpu();
    double t0   = now();
    hid_t  file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(file);
    hid_t dg = create_dset(file, "gain", H5T_NATIVE_UINT8, (hsize_t)nframes, 1);
    hid_t dm = create_dset(file, "mask", H5T_NATIVE_UINT32, (hsize_t)nframes, 1);
    hid_t fs = H5Dget_space(dg);
    for (int f = 0; f < nframes; f += block) {
        int n = nframes - f < block ? nframes - f : block;
        for (int b = 0; b < n; b++) {
            if (from_float) /* the caller's own data preparation: not HDF5's work */
                for (int i = 0; i < NPIX; i++)
                    gf[(size_t)b * NPIX + (size_t)i] = gain[(f + b) % NDISTINCT][i];
            else
                memcpy(gbuf + (size_t)b * NPIX, gain[(f + b) % NDISTINCT], NPIX);
        }
        hsize_t start[3] = {(hsize_t)f, 0, 0}, count[3] = {(hsize_t)n, NY, NX};
        CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
        hid_t ms = H5Screate_simple(3, count, NULL);
        CHECK(H5Dwrite(dg, gmt, ms, fs, H5P_DEFAULT, gsrc));
        CHECK(H5Dwrite(dm, mmt, ms, fs, H5P_DEFAULT, msrc));
        H5Sclose(ms);
    }
    hsize_t bytes = stored_bytes(dg) + stored_bytes(dm);
    H5Sclose(fs);
    H5Dclose(dg);
    H5Dclose(dm);
    CHECK(H5Fclose(file));
    double t1 = now();
    printf("seconds=%.4f bytes=%llu sum=0 app_cpu=%.4f\n", t1 - t0, (unsigned long long)bytes, thread_cpu() - c0);
    free(gf);
    free(mf);
    free(gbuf);
    free(mbuf);
    return 0;
}

/* The datasets' access list: HDF5's default chunk cache, or one of cache_mib MiB (what a reader
 * of multi-frame chunks sets, so that a mask chunk of 8 frames, 2 MiB, fits). */
static hid_t
access_list(int cache_mib)
{
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    CHECK(dapl);
    if (cache_mib > 0)
        CHECK(H5Pset_chunk_cache(dapl, 12421, (size_t)cache_mib << 20, 1.0));
    return dapl;
}

static int
do_read(const char *path, int block, int cache_mib)
{
    double c0   = thread_cpu();
    double t0   = now();
    hid_t  file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(file);
    hid_t   dapl = access_list(cache_mib);
    hid_t   dg = H5Dopen2(file, "gain", dapl), dm = H5Dopen2(file, "mask", dapl);
    H5Pclose(dapl);
    hid_t   fs = H5Dget_space(dg);
    hsize_t dims[3];
    H5Sget_simple_extent_dims(fs, dims, NULL);
    int       nframes = (int)dims[0];
    uint8_t  *gbuf    = malloc((size_t)block * NPIX);
    uint32_t *mbuf    = malloc((size_t)block * NPIX * 4);
    uint64_t  sum     = 0;
    for (int f = 0; f < nframes; f += block) {
        int     n        = nframes - f < block ? nframes - f : block;
        hsize_t start[3] = {(hsize_t)f, 0, 0}, count[3] = {(hsize_t)n, NY, NX};
        CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
        hid_t ms = H5Screate_simple(3, count, NULL);
        CHECK(H5Dread(dg, H5T_NATIVE_UINT8, ms, fs, H5P_DEFAULT, gbuf));
        CHECK(H5Dread(dm, H5T_NATIVE_UINT32, ms, fs, H5P_DEFAULT, mbuf));
        H5Sclose(ms);
        /* Sampled checksum: proves the data, costs little. */
        for (size_t i = 0; i < (size_t)n * NPIX; i += 61)
            sum = sum * 31 + gbuf[i] + mbuf[i];
    }
    H5Sclose(fs);
    H5Dclose(dg);
    H5Dclose(dm);
    CHECK(H5Fclose(file));
    double t1 = now();
    printf("seconds=%.4f bytes=0 sum=%llu app_cpu=%.4f\n", t1 - t0, (unsigned long long)sum, thread_cpu() - c0);
    free(gbuf);
    free(mbuf);
    return 0;
}

/* Row by row: each row of the first nframes frames of both datasets, one H5Dread per row. */
static int
do_readrows(const char *path, int nframes, int cache_mib)
{
    double c0   = thread_cpu();
    double t0   = now();
    hid_t  file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(file);
    hid_t dapl = access_list(cache_mib);
    hid_t dg = H5Dopen2(file, "gain", dapl), dm = H5Dopen2(file, "mask", dapl);
    H5Pclose(dapl);
    hid_t    fs       = H5Dget_space(dg);
    hsize_t  count[3] = {1, 1, NX};
    hid_t    ms       = H5Screate_simple(3, count, NULL);
    uint8_t  grow[NX];
    uint32_t mrow[NX];
    uint64_t sum = 0;
    for (int f = 0; f < nframes; f++)
        for (int y = 0; y < NY; y++) {
            hsize_t start[3] = {(hsize_t)f, (hsize_t)y, 0};
            CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
            CHECK(H5Dread(dg, H5T_NATIVE_UINT8, ms, fs, H5P_DEFAULT, grow));
            CHECK(H5Dread(dm, H5T_NATIVE_UINT32, ms, fs, H5P_DEFAULT, mrow));
            for (int x = 0; x < NX; x += 7)
                sum = sum * 31 + grow[x] + mrow[x];
        }
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(dg);
    H5Dclose(dm);
    CHECK(H5Fclose(file));
    double t1 = now();
    printf("seconds=%.4f bytes=0 sum=%llu app_cpu=%.4f\n", t1 - t0, (unsigned long long)sum, thread_cpu() - c0);
    return 0;
}

/* Reads as processing steps do (see the header); the checksum covers what was read, as doubles
 * for the float reads. */
static int
do_readx(const char *path, const char *mode, int block)
{
    int u32 = !strcmp(mode, "u32"), f32 = !strcmp(mode, "f32"), roi = !strcmp(mode, "roi");
    int stride4 = !strcmp(mode, "stride4"), points = !strcmp(mode, "points"), multi = !strcmp(mode, "multi");
    int un = !strcmp(mode, "union"), spots = !strcmp(mode, "spots"), memsel = !strcmp(mode, "memsel");
    int chan3 = !strcmp(mode, "chan3");
    roi = roi || memsel;
    if (!u32 && !f32 && !roi && !stride4 && !points && !multi && !un && !spots && !chan3) {
        fprintf(stderr, "readx: unknown mode %s\n", mode);
        return 2;
    }
    enum { PPF = 64, ROI_NY = 64 }; /* points per frame; rows of the region of interest */
    double c0   = thread_cpu();
    double t0   = now();
    hid_t  file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(file);
    hid_t   dg = H5Dopen2(file, "gain", H5P_DEFAULT), dm = H5Dopen2(file, "mask", H5P_DEFAULT);
    hid_t   fs = H5Dget_space(dg);
    hsize_t dims[3];
    H5Sget_simple_extent_dims(fs, dims, NULL);
    int     nframes = (int)dims[0];
    hid_t   gt = u32 ? H5T_NATIVE_UINT32 : f32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_UINT8;
    hid_t   mt = f32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_UINT32;
    size_t  ges = H5Tget_size(gt), mes = H5Tget_size(mt);
    size_t   mult = chan3 ? 3 : 1; /* chan3: every third element of the buffer */
    uint8_t *gbuf = malloc(mult * block * NPIX * ges), *mbuf = malloc(mult * block * NPIX * mes);
    hsize_t *pts  = malloc((size_t)block * PPF * 3 * sizeof(hsize_t));
    uint64_t sum  = 0;
    int      step = stride4 ? 4 : 1;
    for (int f = 0; f < nframes; f += block * step) {
        int     n        = (nframes - f + step - 1) / step < block ? (nframes - f + step - 1) / step : block;
        hsize_t start[3] = {(hsize_t)f, 0, 0}, count[3] = {(hsize_t)n, roi ? ROI_NY : NY, NX};
        hsize_t stride[3] = {(hsize_t)step, 1, 1};
        size_t  nelem;
        if (points) {
            for (int b = 0; b < n; b++)
                for (int k = 0; k < PPF; k++) {
                    hsize_t *p = pts + ((size_t)b * PPF + (size_t)k) * 3;
                    p[0]       = (hsize_t)(f + b);
                    p[1]       = (hsize_t)((k * 197 + b * 31) % NY);
                    p[2]       = (hsize_t)((k * 61 + b * 7) % NX);
                }
            nelem = (size_t)n * PPF;
            CHECK(H5Sselect_elements(fs, H5S_SELECT_SET, nelem, pts));
        }
        else if (un) {
            /* Two regions of interest of every frame: rows 0-31 whole, and rows 256-319 of
             * columns 32-95 (an H5S_SELECT_OR union: not one box). */
            hsize_t c1[3] = {(hsize_t)n, 32, NX}, s2[3] = {(hsize_t)f, 256, 32}, c2[3] = {(hsize_t)n, 64, 64};
            CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, c1, NULL));
            CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_OR, s2, NULL, c2, NULL));
            nelem = (size_t)H5Sget_select_npoints(fs);
        }
        else if (spots) {
            /* 16 boxes of 8x8 pixels in every frame, OR'ed (a sparse union: 1/64 of the frame). */
            for (int k = 0; k < 16; k++) {
                hsize_t s1[3] = {(hsize_t)f, (hsize_t)(32 * k + 5), (hsize_t)((k * 37) % (NX - 8))};
                hsize_t c1[3] = {(hsize_t)n, 8, 8};
                CHECK(H5Sselect_hyperslab(fs, k ? H5S_SELECT_OR : H5S_SELECT_SET, s1, NULL, c1, NULL));
            }
            nelem = (size_t)H5Sget_select_npoints(fs);
        }
        else {
            CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, stride, count, NULL));
            nelem = (size_t)(count[0] * count[1] * count[2]);
        }
        /* memsel: the region of interest into every other 128-element block of a buffer twice
         * its size (a memory selection that is not one box), checked element by element below. */
        hid_t ms = H5Screate_simple(1, (hsize_t[]){memsel ? 2 * nelem : mult * nelem}, NULL);
        if (memsel)
            CHECK(H5Sselect_hyperslab(ms, H5S_SELECT_SET, (hsize_t[]){0}, (hsize_t[]){2 * NX},
                                      (hsize_t[]){nelem / NX}, (hsize_t[]){NX}));
        if (chan3) /* the frames into every third element: one channel of three interleaved */
            CHECK(H5Sselect_hyperslab(ms, H5S_SELECT_SET, (hsize_t[]){1}, (hsize_t[]){3}, (hsize_t[]){nelem}, NULL));
        if (multi) {
            hid_t ds[2] = {dg, dm}, mts[2] = {gt, mt}, mss[2] = {ms, ms}, fss[2] = {fs, fs};
            void *bufs[2] = {gbuf, mbuf};
            CHECK(H5Dread_multi(2, ds, mts, mss, fss, H5P_DEFAULT, bufs));
        }
        else {
            CHECK(H5Dread(dg, gt, ms, fs, H5P_DEFAULT, gbuf));
            CHECK(H5Dread(dm, mt, ms, fs, H5P_DEFAULT, mbuf));
        }
        H5Sclose(ms);
        for (size_t k = 0; k < nelem; k += 61) {
            size_t i = memsel ? k / NX * 2 * NX + k % NX : chan3 ? 3 * k + 1 : k;
            double g, m;
            if (f32) {
                g = ((float *)gbuf)[i];
                m = ((float *)mbuf)[i];
            }
            else {
                g = u32 ? ((uint32_t *)gbuf)[i] : gbuf[i];
                m = ((uint32_t *)mbuf)[i];
            }
            sum = sum * 31 + (uint64_t)g + (uint64_t)m;
        }
    }
    H5Sclose(fs);
    H5Dclose(dg);
    H5Dclose(dm);
    CHECK(H5Fclose(file));
    double t1 = now();
    printf("seconds=%.4f bytes=0 sum=%llu app_cpu=%.4f\n", t1 - t0, (unsigned long long)sum, thread_cpu() - c0);
    free(gbuf);
    free(mbuf);
    free(pts);
    return 0;
}

/* ---- 16 modules of raw frames (modules, readmodules) */
#define NMOD 16

static int
do_modules(const char *path, int nframes, int multi)
{
    /* Raw-like uint16 frames: a per-pixel baseline near 5000 plus noise of ~9 bits (DEFLATE keeps
     * about 60 %: decoding costs what real detector data costs); 8 distinct frames cycled. */
    enum { NRAW = 8 };
    uint16_t *raw = malloc((size_t)NRAW * NPIX * 2);
    uint64_t  s   = 12345;
    for (size_t i = 0; i < (size_t)NRAW * NPIX; i++) {
        s      = s * 6364136223846793005ull + 1442695040888963407ull;
        raw[i] = (uint16_t)(5000 + (i % NPIX) % 97 + ((s >> 40) & 511));
    }
    double t0   = now();
    hid_t  file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(file);
    hid_t ms = H5Screate_simple(3, (hsize_t[]){1, NY, NX}, NULL), d[NMOD], mts[NMOD], mss[NMOD], fss[NMOD];
    hid_t fs = H5Screate_simple(3, (hsize_t[]){(hsize_t)nframes, NY, NX}, NULL);
    for (int m = 0; m < NMOD; m++) {
        char name[16];
        snprintf(name, sizeof(name), "module%02d", m);
        d[m]   = create_dset(file, name, H5T_NATIVE_UINT16, (hsize_t)nframes, 1);
        mts[m] = H5T_NATIVE_UINT16;
        mss[m] = ms;
        fss[m] = fs;
    }
    for (int f = 0; f < nframes; f++) {
        const void *bufs[NMOD];
        for (int m = 0; m < NMOD; m++)
            bufs[m] = raw + (size_t)((f + m) % NRAW) * NPIX;
        CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, (hsize_t[]){(hsize_t)f, 0, 0}, NULL, (hsize_t[]){1, NY, NX},
                                  NULL));
        if (multi)
            CHECK(H5Dwrite_multi(NMOD, d, mts, mss, fss, H5P_DEFAULT, bufs));
        else
            for (int m = 0; m < NMOD; m++)
                CHECK(H5Dwrite(d[m], H5T_NATIVE_UINT16, ms, fs, H5P_DEFAULT, bufs[m]));
    }
    for (int m = 0; m < NMOD; m++)
        H5Dclose(d[m]);
    H5Sclose(fs);
    H5Sclose(ms);
    CHECK(H5Fclose(file));
    printf("seconds=%.4f bytes=0 sum=0 app_cpu=0\n", now() - t0);
    free(raw);
    return 0;
}

static int
do_readmodules(const char *path, int block, int multi)
{
    double c0   = thread_cpu();
    double t0   = now();
    hid_t  file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(file);
    hid_t d[NMOD], mts[NMOD], fss[NMOD], mss[NMOD];
    void *bufs[NMOD];
    for (int m = 0; m < NMOD; m++) {
        char name[16];
        snprintf(name, sizeof(name), "module%02d", m);
        CHECK(d[m] = H5Dopen2(file, name, H5P_DEFAULT));
        mts[m]  = H5T_NATIVE_UINT16;
        bufs[m] = malloc((size_t)block * NPIX * 2);
    }
    hid_t   fs = H5Dget_space(d[0]);
    hsize_t dims[3];
    H5Sget_simple_extent_dims(fs, dims, NULL);
    uint64_t sum = 0;
    for (hsize_t f = 0; f < dims[0]; f += (hsize_t)block) {
        hsize_t n = dims[0] - f < (hsize_t)block ? dims[0] - f : (hsize_t)block;
        CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, (hsize_t[]){f, 0, 0}, NULL, (hsize_t[]){n, NY, NX}, NULL));
        hid_t ms = H5Screate_simple(3, (hsize_t[]){n, NY, NX}, NULL);
        for (int m = 0; m < NMOD; m++) {
            fss[m] = fs;
            mss[m] = ms;
            if (!multi)
                CHECK(H5Dread(d[m], H5T_NATIVE_UINT16, ms, fs, H5P_DEFAULT, bufs[m]));
        }
        if (multi)
            CHECK(H5Dread_multi(NMOD, d, mts, mss, fss, H5P_DEFAULT, bufs));
        H5Sclose(ms);
        for (int m = 0; m < NMOD; m++)
            for (size_t i = 0; i < (size_t)n * NPIX; i += 61)
                sum = sum * 31 + ((uint16_t *)bufs[m])[i];
    }
    H5Sclose(fs);
    for (int m = 0; m < NMOD; m++) {
        H5Dclose(d[m]);
        free(bufs[m]);
    }
    CHECK(H5Fclose(file));
    printf("seconds=%.4f bytes=0 sum=%llu app_cpu=%.4f\n", now() - t0, (unsigned long long)sum, thread_cpu() - c0);
    return 0;
}

/* ---- the hand-written reference: a small persistent thread pool, shuffle + zlib level 1 */
typedef struct ref_job {
    const uint8_t *src[64];   /* frame data */
    size_t         es;        /* element size */
    int            n;         /* frames in this batch */
    uint8_t       *out[64];   /* compressed frames */
    uLongf         out_n[64];
    uint8_t       *tmp[64];   /* shuffle scratch */
} ref_job_t;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t  go, done;
    ref_job_t      *job;
    int             next, finished, generation, stop, nthreads;
} rp = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0, 0, 0, 0};

static void
ref_one(ref_job_t *j, int i)
{
    size_t         n = NPIX, es = j->es;
    const uint8_t *in = j->src[i];
    /* Shuffle as HDF5 defines it (a no-op for 1-byte elements), with the element size a
     * constant in the loop so the compiler can do its best: the reference is not a straw man. */
    if (es == 4) {
        uint8_t *t = j->tmp[i];
        for (size_t e = 0; e < n; e++) {
            t[e]         = in[4 * e];
            t[n + e]     = in[4 * e + 1];
            t[2 * n + e] = in[4 * e + 2];
            t[3 * n + e] = in[4 * e + 3];
        }
        in = t;
    }
    j->out_n[i] = compressBound((uLong)(n * es));
    if (compress2(j->out[i], &j->out_n[i], in, (uLong)(n * es), 1) != Z_OK)
        exit(3);
}

static void *
ref_worker(void *arg)
{
    (void)arg;
    int seen = 0;
    pthread_mutex_lock(&rp.mu);
    for (;;) {
        while (!rp.stop && rp.generation == seen)
            pthread_cond_wait(&rp.go, &rp.mu);
        if (rp.stop)
            break;
        seen = rp.generation;
        while (rp.next < rp.job->n) {
            int i = rp.next++;
            pthread_mutex_unlock(&rp.mu);
            ref_one(rp.job, i);
            pthread_mutex_lock(&rp.mu);
            if (++rp.finished == rp.job->n)
                pthread_cond_broadcast(&rp.done);
        }
    }
    pthread_mutex_unlock(&rp.mu);
    return NULL;
}

static void
ref_run(ref_job_t *j)
{
    pthread_mutex_lock(&rp.mu);
    rp.job      = j;
    rp.next     = 0;
    rp.finished = 0;
    rp.generation++;
    pthread_cond_broadcast(&rp.go);
    while (rp.finished < j->n)
        pthread_cond_wait(&rp.done, &rp.mu);
    pthread_mutex_unlock(&rp.mu);
}

static int
do_ref(const char *path, int nframes, int block, int nthreads)
{
    if (block > 64)
        block = 64;
    pthread_t th[64];
    rp.nthreads = nthreads;
    for (int t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, ref_worker, NULL);
    ref_job_t jg, jm;
    jg.es = 1;
    jm.es = 4;
    for (int i = 0; i < 64; i++) {
        jg.out[i] = malloc(compressBound(NPIX));
        jg.tmp[i] = malloc(NPIX);
        jm.out[i] = malloc(compressBound(NPIX * 4));
        jm.tmp[i] = malloc(NPIX * 4);
        jm.src[i] = (const uint8_t *)mask;
    }
    double t0   = now();
    hid_t  file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t  dg   = create_dset(file, "gain", H5T_NATIVE_UINT8, (hsize_t)nframes, 0);
    hid_t  dm   = create_dset(file, "mask", H5T_NATIVE_UINT32, (hsize_t)nframes, 0);
    for (int f = 0; f < nframes; f += block) {
        int n = nframes - f < block ? nframes - f : block;
        jg.n = jm.n = n;
        for (int b = 0; b < n; b++)
            jg.src[b] = gain[(f + b) % NDISTINCT];
        ref_run(&jg);
        ref_run(&jm);
        for (int b = 0; b < n; b++) {
            hsize_t off[3] = {(hsize_t)(f + b), 0, 0};
            CHECK(H5Dwrite_chunk(dg, H5P_DEFAULT, 0, off, jg.out_n[b], jg.out[b]));
            CHECK(H5Dwrite_chunk(dm, H5P_DEFAULT, 0, off, jm.out_n[b], jm.out[b]));
        }
    }
    hsize_t bytes = stored_bytes(dg) + stored_bytes(dm);
    H5Dclose(dg);
    H5Dclose(dm);
    CHECK(H5Fclose(file));
    double t1 = now();
    printf("seconds=%.4f bytes=%llu sum=0\n", t1 - t0, (unsigned long long)bytes);
    pthread_mutex_lock(&rp.mu);
    rp.stop = 1;
    pthread_cond_broadcast(&rp.go);
    pthread_mutex_unlock(&rp.mu);
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    return 0;
}

int
main(int argc, char **argv)
{
    generate();
    if ((argc == 5 || argc == 6) && !strcmp(argv[1], "write")) {
        if (argc == 6)
            chunk_frames = (hsize_t)atoi(argv[5]);
        return do_write(argv[2], atoi(argv[3]), atoi(argv[4]), 0);
    }
    if (argc == 5 && !strcmp(argv[1], "writex"))
        return do_write(argv[2], atoi(argv[3]), atoi(argv[4]), 1);
    if (argc >= 4 && !strcmp(argv[1], "readrows"))
        return do_readrows(argv[2], atoi(argv[3]), argc >= 5 ? atoi(argv[4]) : 0);
    if ((argc == 4 || argc == 5) && !strcmp(argv[1], "modules"))
        return do_modules(argv[2], atoi(argv[3]), argc == 5 && atoi(argv[4]));
    if (argc == 5 && !strcmp(argv[1], "readmodules"))
        return do_readmodules(argv[2], atoi(argv[3]), atoi(argv[4]));
    if (argc == 5 && !strcmp(argv[1], "readx"))
        return do_readx(argv[2], argv[3], atoi(argv[4]));
    if ((argc == 4 || argc == 5) && !strcmp(argv[1], "read"))
        return do_read(argv[2], atoi(argv[3]), argc == 5 ? atoi(argv[4]) : 0);
    if (argc == 6 && !strcmp(argv[1], "ref"))
        return do_ref(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
    fprintf(stderr, "usage: agipd write|writex FILE NFRAMES BLOCK | read FILE BLOCK [CACHE_MIB] | readrows FILE NFRAMES "
                    "[CACHE_MIB] | readx FILE MODE BLOCK | modules FILE NFRAMES [MULTI] | readmodules FILE BLOCK MULTI | "
                    "ref FILE NFRAMES BLOCK THREADS\n");
    return 2;
}
