/* tb_bench_blosc.c — write/read throughput and compression ratio of one HDF5 filter setup on
 * detector-like data, through whatever Blosc plugin HDF5_PLUGIN_PATH holds (bench/blosc/run.sh
 * runs it for h5turbo's filter, the hdf5-blosc reference and DEFLATE, and prints the ratios).
 *   tb_bench_blosc WORKLOAD FILTER [FILE]   one result line: write MB/s, read MB/s, ratio
 *     WORKLOAD  agipd1 | agipd32 (AGIPD-like frames, chunk = 1 or 32 frames) | float (image stack)
 *     FILTER    blosc:CNAME:CLEVEL:SHUFFLE | deflate:LEVEL (with byte shuffle)
 *   tb_bench_blosc sweep CNAME              codec only: 1 vs all threads per chunk size */
#include "tb_blosc_codec.h"
#include "tb_config.h"

#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FRAME_Y 512
#define FRAME_X 128
#define REPS    3

static double
clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double
now(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

/* CPU seconds of all threads of the process: CPU/wall above 1 shows work ran in parallel even
 * when other processes keep the cores busy and wall-clock gains cannot show. */
static double
cpu_now(void)
{
    return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static uint32_t
rng(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* Roughly Gaussian noise (sum of uniforms), deterministic. */
static double
noise(uint64_t *s)
{
    return ((double)(rng(s) & 0xffff) + (double)(rng(s) & 0xffff) + (double)(rng(s) & 0xffff) - 98302.5) / 37837.0;
}

typedef struct dset {
    const char *name;
    hid_t       type;
    int         rank;
    hsize_t     dims[3], chunk[3];
    size_t      nbytes;
    void       *data;
} dset_t;

/* AGIPD-like: per pixel a pedestal (fixed per pixel) plus noise, rare photons; gain mostly 0;
 * a mask of bad pixels that does not change from frame to frame. */
static int
make_agipd(dset_t *d, unsigned nframes, unsigned chunk_frames)
{
    size_t    npix = (size_t)nframes * FRAME_Y * FRAME_X;
    uint16_t *adc  = malloc(npix * 2);
    uint8_t  *gain = malloc(npix);
    uint32_t *mask = malloc(npix * 4);
    if (!adc || !gain || !mask)
        return -1;
    uint64_t s = 42;
    for (size_t i = 0; i < npix; i++) {
        size_t pix   = i % (FRAME_Y * FRAME_X);
        double ped   = 5000.0 + (double)((pix * 2654435761u) % 400);
        int    hit   = (rng(&s) % 200) == 0;
        double v     = ped + 12.0 * noise(&s) + (hit ? 200.0 + (rng(&s) % 3000) : 0.0);
        adc[i]       = (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v);
        gain[i]      = hit && (rng(&s) % 8 == 0) ? 1 : 0;
        mask[i]      = ((pix * 40503u) % 997 == 0) ? 1u << (pix % 5) : 0;
    }
    hsize_t dims[3] = {nframes, FRAME_Y, FRAME_X}, chunk[3] = {chunk_frames, FRAME_Y, FRAME_X};
    d[0] = (dset_t){"data", H5T_STD_U16LE, 3, {0}, {0}, npix * 2, adc};
    d[1] = (dset_t){"gain", H5T_STD_U8LE, 3, {0}, {0}, npix, gain};
    d[2] = (dset_t){"mask", H5T_STD_U32LE, 3, {0}, {0}, npix * 4, mask};
    for (int k = 0; k < 3; k++) {
        memcpy(d[k].dims, dims, sizeof(dims));
        memcpy(d[k].chunk, chunk, sizeof(chunk));
    }
    return 3;
}

/* A float32 image stack: a smooth scene, noise at 1 % of the signal. */
static int
make_float(dset_t *d, unsigned nframes)
{
    const size_t ny = 512, nx = 512, n = (size_t)nframes * ny * nx;
    float       *img = malloc(n * 4);
    if (!img)
        return -1;
    uint64_t s = 7;
    for (size_t f = 0; f < nframes; f++)
        for (size_t y = 0; y < ny; y++)
            for (size_t x = 0; x < nx; x++) {
                double v = 1000.0 + 300.0 * sin((double)x / 40.0 + (double)f * 0.1) * cos((double)y / 55.0);
                img[(f * ny + y) * nx + x] = (float)(v + 10.0 * noise(&s));
            }
    d[0] = (dset_t){"images", H5T_IEEE_F32LE, 3, {nframes, ny, nx}, {4, ny, nx}, n * 4, img};
    return 1;
}

static hid_t
make_dcpl(const dset_t *d, const char *filter)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, d->rank, d->chunk);
    if (!strncmp(filter, "blosc:", 6)) {
        static const char *names[] = {"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"};
        char               cname[16];
        unsigned           clevel = 5, shuffle = 1, comp = 1;
        if (sscanf(filter + 6, "%15[^:]:%u:%u", cname, &clevel, &shuffle) != 3)
            return -1;
        for (unsigned c = 0; c < 6; c++)
            if (!strcmp(cname, names[c]))
                comp = c;
        unsigned cd[7] = {0, 0, 0, 0, clevel, shuffle, comp};
        H5Pset_filter(dcpl, 32001, H5Z_FLAG_OPTIONAL, 7, cd);
    } else {
        unsigned level = 1;
        sscanf(filter, "deflate:%u", &level);
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, level);
    }
    return dcpl;
}

static int
run_hdf5(const char *workload, const char *filter, const char *fname)
{
    dset_t d[3];
    int    nd = !strcmp(workload, "agipd1")    ? make_agipd(d, 96, 1)
                : !strcmp(workload, "agipd32") ? make_agipd(d, 96, 32)
                : !strcmp(workload, "float")   ? make_float(d, 48)
                                               : -1;
    if (nd < 0) {
        fprintf(stderr, "unknown workload %s\n", workload);
        return 2;
    }
    size_t raw = 0;
    void  *back[3];
    for (int k = 0; k < nd; k++) {
        raw += d[k].nbytes;
        back[k] = malloc(d[k].nbytes);
        if (!back[k])
            return 1;
    }
    double best_w = 1e30, best_r = 1e30, cpu_w = 0, cpu_r = 0;
    size_t stored = 0;
    for (int rep = 0; rep < REPS; rep++) {
        /* Write: create, write, close (chunks reach the filter by close at the latest). */
        double t0 = now(), c0 = cpu_now();
        hid_t  file = H5Fcreate(fname, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        for (int k = 0; k < nd; k++) {
            hid_t space = H5Screate_simple(d[k].rank, d[k].dims, NULL), dcpl = make_dcpl(&d[k], filter);
            hid_t ds    = H5Dcreate2(file, d[k].name, d[k].type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
            if (ds < 0 || H5Dwrite(ds, d[k].type, H5S_ALL, H5S_ALL, H5P_DEFAULT, d[k].data) < 0) {
                fprintf(stderr, "write failed\n");
                return 1;
            }
            H5Dclose(ds), H5Pclose(dcpl), H5Sclose(space);
        }
        if (H5Fclose(file) < 0)
            return 1;
        double t1 = now(), c1 = cpu_now();
        /* Read everything back (timed), then check it (not timed). */
        file   = H5Fopen(fname, H5F_ACC_RDONLY, H5P_DEFAULT);
        stored = 0;
        for (int k = 0; k < nd; k++) {
            hid_t ds = H5Dopen2(file, d[k].name, H5P_DEFAULT);
            if (ds < 0 || H5Dread(ds, d[k].type, H5S_ALL, H5S_ALL, H5P_DEFAULT, back[k]) < 0) {
                fprintf(stderr, "read failed\n");
                return 1;
            }
            stored += H5Dget_storage_size(ds);
            H5Dclose(ds);
        }
        H5Fclose(file);
        double t2 = now(), c2 = cpu_now();
        for (int k = 0; k < nd; k++)
            if (memcmp(back[k], d[k].data, d[k].nbytes) != 0) {
                fprintf(stderr, "read back differs\n");
                return 1;
            }
        if (t1 - t0 < best_w)
            best_w = t1 - t0, cpu_w = (c1 - c0) / (t1 - t0);
        if (t2 - t1 < best_r)
            best_r = t2 - t1, cpu_r = (c2 - c1) / (t2 - t1);
    }
    /* write MB/s, read MB/s, ratio, CPU/wall while writing, CPU/wall while reading */
    printf("%.1f %.1f %.3f %.2f %.2f\n", (double)raw / 1e6 / best_w, (double)raw / 1e6 / best_r,
           (double)raw / (double)stored, cpu_w, cpu_r);
    remove(fname);
    return 0;
}

/* Codec only, no HDF5: at which chunk size do threads start to pay? */
static int
run_sweep(const char *cname)
{
    unsigned comp = 1;
    for (unsigned c = 0; c < 6; c++)
        if (tb_blosc_compressor_name(c) && !strcmp(cname, tb_blosc_compressor_name(c)))
            comp = c;
    tb_blosc_params_t p = {.typesize = 2, .clevel = 5, .shuffle = 1, .compressor = comp};
    size_t   maxn = (size_t)8 << 20;
    dset_t   d[3];
    /* The AGIPD-like ADC frames (uint16), 8 MiB of them. */
    if (make_agipd(d, (unsigned)(maxn / (FRAME_Y * FRAME_X * 2)), 1) != 3)
        return 1;
    uint8_t *src = d[0].data, *cmp = malloc(maxn + 16), *back = malloc(maxn);
    unsigned all = tb_threads_from_env();
    printf("%10s %12s %12s %12s %12s %9s %9s\n", "chunk", "comp 1 thr", "comp all", "decomp 1", "decomp all",
           "c cpu+%", "d cpu+%");
    for (size_t n = (size_t)32 << 10; n <= maxn; n *= 2) {
        double best[4] = {1e30, 1e30, 1e30, 1e30}, cpu[4] = {1e30, 1e30, 1e30, 1e30};
        size_t iters   = ((size_t)16 << 20) / n;
        for (int rep = 0; rep < 3; rep++)
            for (int mode = 0; mode < 4; mode++) {
                unsigned th = (mode & 1) ? all : 1;
                size_t   cn = 0, bn = 0;
                tb_blosc_compress(&p, src, n, cmp, n + 16, &cn, th);
                double t0 = now(), c0 = cpu_now();
                for (size_t it = 0; it < iters; it++) {
                    if (mode < 2)
                        tb_blosc_compress(&p, src, n, cmp, n + 16, &cn, th);
                    else
                        tb_blosc_decompress(cmp, cn, back, n, &bn, th);
                }
                double dt = (now() - t0) / (double)iters, dc = (cpu_now() - c0) / (double)iters;
                best[mode] = dt < best[mode] ? dt : best[mode];
                cpu[mode]  = dc < cpu[mode] ? dc : cpu[mode];
            }
        /* CPU spent on threads beyond the serial CPU: the price of splitting a chunk, which
         * the wall-clock gain has to beat. */
        printf("%10zu %7.0f MB/s %7.0f MB/s %7.0f MB/s %7.0f MB/s %8.1f%% %8.1f%%\n", n, (double)n / 1e6 / best[0],
               (double)n / 1e6 / best[1], (double)n / 1e6 / best[2], (double)n / 1e6 / best[3],
               100.0 * (cpu[1] / cpu[0] - 1.0), 100.0 * (cpu[3] / cpu[2] - 1.0));
    }
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "sweep"))
        return run_sweep(argv[2]);
    if (argc < 3) {
        fprintf(stderr, "usage: %s agipd1|agipd32|float blosc:CNAME:CLEVEL:SHUFFLE|deflate:LEVEL [FILE]\n"
                        "       %s sweep CNAME\n", argv[0], argv[0]);
        return 2;
    }
    return run_hdf5(argv[1], argv[2], argc > 3 ? argv[3] : "tb_bench_blosc.h5");
}
