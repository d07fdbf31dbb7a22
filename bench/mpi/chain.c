/* chain.c — the ChainReader pattern of issue #16 (MDAnalysis reading a trajectory split over M
 * H5MD files on N MPI ranks): `gen` writes M H5MD-like files; `read` has every rank open every
 * file (sec2, MPI-IO, or MPI-IO with collective metadata), walk it, read the small step/time
 * datasets and its own frames (or, with `frames`, only its frames), and prints the slowest rank's time
 * and a checksum of what was read. */
#include <hdf5.h>
#include <mpi.h>

#include "tb_mpi_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_OBSERVABLES 30
static const char *const particle_fields_g[] = {"position", "velocity", "force"};

static int nranks_g;


static void
file_name(char *out, size_t n, const char *dir, int i)
{
    snprintf(out, n, "%s/traj-%03d.h5md", dir, i);
}

static void
attr_str(hid_t obj, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1), s = H5Screate(H5S_SCALAR);
    CHECK(H5Tset_size(t, strlen(value) + 1));
    hid_t a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a);
    CHECK(H5Awrite(a, t, value));
    H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
}

static void
attr_int(hid_t obj, const char *name, int n, const int *v)
{
    hsize_t d = (hsize_t)n;
    hid_t   s = H5Screate_simple(1, &d, NULL);
    hid_t   a = H5Acreate2(obj, name, H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a);
    CHECK(H5Awrite(a, H5T_NATIVE_INT, v));
    H5Aclose(a);
    H5Sclose(s);
}

/* An H5MD time series: step (int), time (double) and value, one row per frame. */
static void
write_series(hid_t parent, const char *name, int frames, int first_frame, hsize_t row_nelems, int unit_attr)
{
    hid_t g = H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(g);
    hsize_t n     = (hsize_t)frames;
    hid_t   s1    = H5Screate_simple(1, &n, NULL);
    int    *steps = malloc(sizeof(int) * (size_t)frames);
    double *times = malloc(sizeof(double) * (size_t)frames);
    if (!steps || !times)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (int f = 0; f < frames; f++) {
        steps[f] = (first_frame + f) * 100;
        times[f] = (first_frame + f) * 0.5;
    }
    hid_t d = H5Dcreate2(g, "step", H5T_STD_I32LE, s1, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, steps));
    H5Dclose(d);
    d = H5Dcreate2(g, "time", H5T_IEEE_F64LE, s1, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, times));
    if (unit_attr)
        attr_str(d, "unit", "ps");
    H5Dclose(d);
    hsize_t dims[2]  = {n, row_nelems};
    hsize_t chunk[2] = {1, row_nelems};
    hid_t   s2       = H5Screate_simple(2, dims, NULL);
    hid_t   dcpl     = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(H5Pset_chunk(dcpl, 2, chunk));
    float *v = malloc(sizeof(float) * (size_t)frames * row_nelems);
    if (!v)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (size_t i = 0; i < (size_t)frames * row_nelems; i++)
        v[i] = (float)((i * 7 + (size_t)first_frame * 13) % 1000) * 0.25f;
    d = H5Dcreate2(g, "value", H5T_IEEE_F32LE, s2, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
    if (unit_attr)
        attr_str(d, "unit", "nm");
    H5Dclose(d);
    free(v);
    free(steps);
    free(times);
    H5Pclose(dcpl);
    H5Sclose(s2);
    H5Sclose(s1);
    H5Gclose(g);
}

static int
cmd_gen(const char *dir, int nfiles, int frames, int atoms)
{
    if (rank_g != 0)
        return 0;
    for (int i = 0; i < nfiles; i++) {
        char path[4096];
        file_name(path, sizeof(path), dir, i);
        hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(f);
        hid_t h5md = H5Gcreate2(f, "h5md", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        int   ver[2] = {1, 1};
        attr_int(h5md, "version", 2, ver);
        hid_t g = H5Gcreate2(h5md, "author", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        attr_str(g, "name", "h5turbo bench");
        H5Gclose(g);
        g = H5Gcreate2(h5md, "creator", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        attr_str(g, "name", "chain.c");
        attr_str(g, "version", "1.0");
        H5Gclose(g);
        H5Gclose(h5md);
        hid_t particles = H5Gcreate2(f, "particles", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        hid_t all       = H5Gcreate2(particles, "all", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        hid_t box       = H5Gcreate2(all, "box", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        int   three     = 3;
        attr_int(box, "dimension", 1, &three);
        attr_str(box, "boundary", "periodic");
        write_series(box, "edges", frames, i * frames, 3, 1);
        H5Gclose(box);
        for (size_t k = 0; k < sizeof(particle_fields_g) / sizeof(*particle_fields_g); k++)
            write_series(all, particle_fields_g[k], frames, i * frames, (hsize_t)atoms * 3, 1);
        H5Gclose(all);
        H5Gclose(particles);
        hid_t obs = H5Gcreate2(f, "observables", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        for (int k = 0; k < N_OBSERVABLES; k++) {
            char name[32];
            snprintf(name, sizeof(name), "obs_%02d", k);
            write_series(obs, name, frames, i * frames, 1, 0);
        }
        H5Gclose(obs);
        g = H5Gcreate2(f, "parameters", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        attr_str(g, "forcefield", "bench");
        attr_int(g, "frames", 1, &frames);
        H5Gclose(g);
        CHECK(H5Fclose(f));
    }
    printf("ok: %d files of %d frames x %d atoms in %s\n", nfiles, frames, atoms, dir);
    return 0;
}

/* What the walk saw, summed over every file a rank reads. */
typedef struct walk {
    long     objects, attrs;
    uint64_t checksum;
} walk_t;

static herr_t
visit_cb(hid_t obj, const char *name, const H5O_info2_t *info, void *op_data)
{
    walk_t *w = op_data;
    (void)obj;
    w->objects++;
    w->attrs += (long)info->num_attrs;
    for (const char *p = name; *p; p++)
        w->checksum = w->checksum * 131 + (unsigned char)*p;
    return 0;
}

static void
read_small(hid_t file, const char *path, hid_t type, size_t elem, walk_t *w)
{
    hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
    CHECK(d);
    hid_t    s = H5Dget_space(d);
    hssize_t n = H5Sget_simple_extent_npoints(s);
    CHECK(n);
    unsigned char *buf = malloc((size_t)n * elem);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 3);
    CHECK(H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    for (size_t i = 0; i < (size_t)n * elem; i++)
        w->checksum = w->checksum * 31 + buf[i];
    free(buf);
    H5Sclose(s);
    H5Dclose(d);
}

/* This rank's frames of position/value: frame f of the file when f % nranks == rank. */
static void
read_own_frames(hid_t file, walk_t *w)
{
    hid_t d = H5Dopen2(file, "/particles/all/position/value", H5P_DEFAULT);
    CHECK(d);
    hid_t   fs = H5Dget_space(d);
    hsize_t dims[2];
    CHECK(H5Sget_simple_extent_dims(fs, dims, NULL));
    hsize_t count[2] = {1, dims[1]};
    hid_t   ms       = H5Screate_simple(2, count, NULL);
    float  *row      = malloc(sizeof(float) * dims[1]);
    if (!row)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (hsize_t f = (hsize_t)rank_g; f < dims[0]; f += (hsize_t)nranks_g) {
        hsize_t start[2] = {f, 0};
        CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
        CHECK(H5Dread(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, row));
        uint64_t sum = 0;
        for (hsize_t i = 0; i < dims[1]; i++)
            sum += (uint64_t)(row[i] * 4.0f) * (i + 1);
        w->checksum += sum * (f + 1);
    }
    free(row);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
}

/* frames_only: each rank opens every file and reads its own frames, nothing else (a reader that
 * knows its paths: what an index built for all ranks costs where nobody walks). */
static int
cmd_read(const char *dir, int nfiles, const char *driver, int frames_only)
{
    int   mpio = strncmp(driver, "mpio", 4) == 0, coll_md = strcmp(driver, "mpio-collmd") == 0;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(fapl);
    if (mpio)
        CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    else if (strcmp(driver, "sec2") == 0)
        CHECK(H5Pset_fapl_sec2(fapl));
    else {
        if (rank_g == 0)
            fprintf(stderr, "unknown driver %s (sec2, mpio, mpio-collmd)\n", driver);
        return 2;
    }
    if (coll_md)
        CHECK(H5Pset_all_coll_metadata_ops(fapl, 1));
    walk_t w = {0, 0, 0};
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < nfiles; i++) {
        char path[4096];
        file_name(path, sizeof(path), dir, i);
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
        CHECK(f);
        if (!frames_only) {
            CHECK(H5Ovisit3(f, H5_INDEX_NAME, H5_ITER_INC, visit_cb, &w, H5O_INFO_BASIC | H5O_INFO_NUM_ATTRS));
            read_small(f, "/particles/all/position/step", H5T_NATIVE_INT, sizeof(int), &w);
            read_small(f, "/particles/all/position/time", H5T_NATIVE_DOUBLE, sizeof(double), &w);
            read_small(f, "/particles/all/box/edges/value", H5T_NATIVE_FLOAT, sizeof(float), &w);
            for (int k = 0; k < N_OBSERVABLES; k++) {
                char name[64];
                snprintf(name, sizeof(name), "/observables/obs_%02d/value", k);
                read_small(f, name, H5T_NATIVE_FLOAT, sizeof(float), &w);
            }
        }
        read_own_frames(f, &w);
        CHECK(H5Fclose(f));
    }
    double mine = MPI_Wtime() - t0, slowest = 0, total = 0;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    uint64_t sum = 0;
    long     objects = 0, attrs = 0;
    MPI_Reduce(&w.checksum, &sum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&w.objects, &objects, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&w.attrs, &attrs, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank_g == 0) {
        printf("result: driver=%s ranks=%d files=%d objects=%ld attrs=%ld checksum=%016" PRIx64 "\n", driver,
               nranks_g, nfiles, objects, attrs, sum);
        printf("time: slowest=%.4f mean=%.4f\n", slowest, total / nranks_g);
    }
    H5Pclose(fapl);
    return 0;
}

int
main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_g);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks_g);
    int rc = 2;
    if (argc == 6 && strcmp(argv[1], "gen") == 0)
        rc = cmd_gen(argv[2], atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
    else if ((argc == 5 || (argc == 6 && strcmp(argv[5], "frames") == 0)) && strcmp(argv[1], "read") == 0)
        rc = cmd_read(argv[2], atoi(argv[3]), argv[4], argc == 6);
    else if (rank_g == 0)
        fprintf(stderr, "usage: %s gen DIR FILES FRAMES ATOMS | read DIR FILES sec2|mpio|mpio-collmd [frames]\n",
                argv[0]);
    int any = 0;
    MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any;
}
