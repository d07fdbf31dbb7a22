/* publish_thread.c — the sidecar publisher thread of MPI jobs (vol/index/index_publish.c), driven
 * by a serial program that poses as an MPI job: it defines OpenMPI's ompi_mpi_comm_world, which is
 * all the connector looks for (it opens files with sec2 only, so no MPI call is ever made).
 *   make DIR N   N small files DIR/f<i>.h5 (groups, datasets, attributes)
 *   read DIR N   each opened read-only, walked and closed (its sidecar queued), then each
 *                reopened at once (the open waits for the file's queued publication), walked again
 *   fork DIR     f0 read and closed, then a fork whose child reads f1 and exits normally while the
 *                parent waits for it
 * Each prints what it walked; publish_thread.sh checks the counts and the sidecars. */
#include "tb_test.h"

#include <hdf5.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What the connector takes for an MPI job (OpenMPI's world communicator symbol). */
__attribute__((visibility("default"))) int ompi_mpi_comm_world;

static void
make_one(const char *path, int k)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_H5(f);
    hsize_t n = 16;
    hid_t   sp = H5Screate_simple(1, &n, NULL), sc = H5Screate(H5S_SCALAR);
    ASSERT_H5(sp);
    ASSERT_H5(sc);
    for (int g = 0; g < 4; g++) {
        char name[32];
        snprintf(name, sizeof(name), "entry_%d", g);
        hid_t gr = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        ASSERT_H5(gr);
        int   v = k * 10 + g;
        hid_t a = H5Acreate2(gr, "version", H5T_NATIVE_INT, sc, H5P_DEFAULT, H5P_DEFAULT);
        ASSERT_H5(a);
        ASSERT_H5(H5Awrite(a, H5T_NATIVE_INT, &v));
        ASSERT_H5(H5Aclose(a));
        for (int d = 0; d < 3; d++) {
            int buf[16];
            for (int i = 0; i < 16; i++)
                buf[i] = v * 100 + d * 16 + i;
            snprintf(name, sizeof(name), "data_%d", d);
            hid_t ds = H5Dcreate2(gr, name, H5T_NATIVE_INT, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            ASSERT_H5(ds);
            ASSERT_H5(H5Dwrite(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
            ASSERT_H5(H5Dclose(ds));
        }
        ASSERT_H5(H5Gclose(gr));
    }
    H5Sclose(sp);
    H5Sclose(sc);
    ASSERT_H5(H5Fclose(f));
}

static herr_t
visit_cb(hid_t obj, const char *name, const H5O_info2_t *info, void *op_data)
{
    long *sum = op_data;
    (void)obj;
    (void)name;
    *sum += 1 + (long)info->num_attrs;
    return 0;
}

/* Walks a file read-only: objects plus attributes, and each group's "version". */
static long
walk(const char *path)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_H5(f);
    long sum = 0;
    ASSERT_H5(H5Ovisit3(f, H5_INDEX_NAME, H5_ITER_INC, visit_cb, &sum, H5O_INFO_BASIC | H5O_INFO_NUM_ATTRS));
    for (int g = 0; g < 4; g++) {
        char name[32];
        int  v = -1;
        snprintf(name, sizeof(name), "entry_%d", g);
        hid_t a = H5Aopen_by_name(f, name, "version", H5P_DEFAULT, H5P_DEFAULT);
        ASSERT_H5(a);
        ASSERT_H5(H5Aread(a, H5T_NATIVE_INT, &v));
        ASSERT_H5(H5Aclose(a));
        sum += v;
    }
    ASSERT_H5(H5Fclose(f));
    return sum;
}

int
main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *dir = argv[2];
    int         n   = argc > 3 ? atoi(argv[3]) : 2;
    char        path[4096];
    if (strcmp(argv[1], "make") == 0) {
        for (int k = 0; k < n; k++) {
            snprintf(path, sizeof(path), "%s/f%d.h5", dir, k);
            make_one(path, k);
        }
        return 0;
    }
    if (strcmp(argv[1], "read") == 0) {
        for (int k = 0; k < n; k++) {
            snprintf(path, sizeof(path), "%s/f%d.h5", dir, k);
            printf("f%d %ld\n", k, walk(path));
        }
        for (int k = 0; k < n; k++) { /* (each open waits for that file's queued publication) */
            snprintf(path, sizeof(path), "%s/f%d.h5", dir, k);
            printf("f%d again %ld\n", k, walk(path));
        }
        ASSERT_H5(H5close());
        return 0;
    }
    if (strcmp(argv[1], "fork") == 0) {
        snprintf(path, sizeof(path), "%s/f0.h5", dir);
        printf("f0 %ld\n", walk(path));
#ifdef __SANITIZE_THREAD__
        /* TSan cannot follow threads a forked child of a threaded process starts (it dies, or
         * reports a duplicate thread id): the other builds run the fork. */
        printf("fork: skipped under TSan\n");
        ASSERT_H5(H5close());
        return 0;
#endif
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0)
            return 2;
        if (pid == 0) {
            snprintf(path, sizeof(path), "%s/f1.h5", dir);
            printf("child f1 %ld\n", walk(path));
            exit(0); /* (HDF5's atexit closes the library: the child's queue is drained) */
        }
        int st = 0;
        if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "the child failed (status %d)\n", st);
            return 1;
        }
        ASSERT_H5(H5close());
        return 0;
    }
    return 2;
}
