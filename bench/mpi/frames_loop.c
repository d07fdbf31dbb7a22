/* frames_loop.c — one process reading a little of each of many files (issue #16's frames-by-path
 * pattern without MPI): `gen DIR M` writes M H5MD-like files, `read DIR M` opens each with the
 * POSIX driver, opens /particles/all/position/value by path, reads 32 frames one by one and closes
 * it; prints the loop's wall seconds and a checksum. frames_loop.sh times stock vs h5turbo. */
#include <hdf5.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FRAMES 64
#define ATOMS  100
#define READS  32

#define CHECK(x)                                                                                            \
    do {                                                                                                    \
        if ((x) < 0) {                                                                                      \
            fprintf(stderr, "frames_loop: %s failed (line %d)\n", #x, __LINE__);                         \
            exit(1);                                                                                        \
        }                                                                                                   \
    } while (0)

static void
file_name(char *out, size_t n, const char *dir, int i)
{
    snprintf(out, n, "%s/traj-%03d.h5md", dir, i);
}

/* An H5MD time series `name` in parent: step, time and value (frames x row), value chunked a frame
 * per chunk, unfiltered (as H5MD writers that append frame by frame make it). */
static void
series(hid_t parent, const char *name, hsize_t row, int seed)
{
    hid_t g = H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(g);
    hsize_t n = FRAMES, dims[2] = {FRAMES, row}, chunk[2] = {1, row};
    int     step[FRAMES];
    double  t[FRAMES];
    float  *v = malloc(sizeof(float) * FRAMES * row);
    if (!v)
        exit(1);
    for (int f = 0; f < FRAMES; f++) {
        step[f] = f * 10;
        t[f]    = f * 0.5;
    }
    for (hsize_t k = 0; k < FRAMES * row; k++)
        v[k] = (float)((k * 7 + (hsize_t)seed) % 1000) * 0.25f;
    hid_t s1 = H5Screate_simple(1, &n, NULL), s2 = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(H5Pset_chunk(dcpl, 2, chunk));
    hid_t d = H5Dcreate2(g, "step", H5T_STD_I32LE, s1, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, step));
    H5Dclose(d);
    d = H5Dcreate2(g, "time", H5T_IEEE_F64LE, s1, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, t));
    H5Dclose(d);
    d = H5Dcreate2(g, "value", H5T_IEEE_F32LE, s2, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(s1);
    H5Sclose(s2);
    H5Gclose(g);
    free(v);
}

static int
cmd_gen(const char *dir, int m)
{
    for (int i = 0; i < m; i++) {
        char path[4096];
        file_name(path, sizeof(path), dir, i);
        hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(f);
        hid_t h = H5Gcreate2(f, "h5md", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        hid_t p = H5Gcreate2(f, "particles", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        hid_t a = H5Gcreate2(p, "all", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        hid_t o = H5Gcreate2(f, "observables", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(h);
        CHECK(a);
        CHECK(o);
        series(a, "position", 3 * ATOMS, i);
        series(a, "velocity", 3 * ATOMS, i + 1);
        series(a, "force", 3 * ATOMS, i + 2);
        for (int k = 0; k < 8; k++) {
            char name[32];
            snprintf(name, sizeof(name), "obs_%02d", k);
            series(o, name, 1, k);
        }
        H5Gclose(o);
        H5Gclose(a);
        H5Gclose(p);
        H5Gclose(h);
        CHECK(H5Fclose(f));
    }
    printf("ok: %d files of %d frames x %d atoms in %s\n", m, FRAMES, ATOMS, dir);
    return 0;
}

static int
cmd_read(const char *dir, int m)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(H5Pset_fapl_sec2(fapl));
    float           row[3 * ATOMS];
    double          sum = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < m; i++) {
        char path[4096];
        file_name(path, sizeof(path), dir, i);
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
        CHECK(f);
        hid_t d = H5Dopen2(f, "/particles/all/position/value", H5P_DEFAULT);
        CHECK(d);
        hid_t   fs = H5Dget_space(d);
        hsize_t dims[2];
        CHECK(H5Sget_simple_extent_dims(fs, dims, NULL));
        if (dims[1] > 3 * ATOMS)
            exit(1);
        hsize_t cnt[2] = {1, dims[1]};
        hid_t   ms     = H5Screate_simple(2, cnt, NULL);
        for (hsize_t fr = 0; fr < READS && fr < dims[0]; fr++) {
            hsize_t st[2] = {fr, 0};
            CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, NULL, cnt, NULL));
            CHECK(H5Dread(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, row));
            for (hsize_t k = 0; k < dims[1]; k++)
                sum += row[k] * (double)(fr + 1);
        }
        H5Sclose(ms);
        H5Sclose(fs);
        H5Dclose(d);
        CHECK(H5Fclose(f));
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("%.6f %.1f\n", (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), sum);
    H5Pclose(fapl);
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "gen") == 0)
        return cmd_gen(argv[2], atoi(argv[3]));
    if (argc == 4 && strcmp(argv[1], "read") == 0)
        return cmd_read(argv[2], atoi(argv[3]));
    fprintf(stderr, "usage: %s gen|read DIR FILES\n", argv[0]);
    return 2;
}
