/* mantid_load.c — the three loaders of the index benchmark, timed from H5Fopen to H5Fclose:
 *   a  H5Ovisit, reading the NX_class attribute of every group;
 *   b  LoadMD-like: for each experiment iterate logs, then H5Lexists + open + read value and time;
 *   c  NeXus-API pattern: one H5Literate of a group per entry returned (start index, stop at one).
 * Usage: mantid_load FILE a|b|c [bigcache]. Prints "wall_seconds cpu_seconds mallocs checksum"
 * (CPU time is the steadier measure on a shared machine). The malloc count comes from
 * bench/common's libtb_malloc_count.so when it is preloaded (else -1). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double checksum;
static hid_t  file;

static double
now(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
read_nx_class(hid_t loc, const char *name)
{
    hid_t a = H5Aopen_by_name(loc, name, "NX_class", H5P_DEFAULT, H5P_DEFAULT);
    if (a < 0)
        return;
    hid_t  t = H5Aget_type(a);
    size_t n = H5Tget_size(t);
    char   buf[256];
    if (n < sizeof(buf) && H5Aread(a, t, buf) >= 0) {
        buf[n] = 0;
        checksum += (double)n + buf[0];
    }
    H5Tclose(t);
    H5Aclose(a);
}

static herr_t
visit_cb(hid_t o, const char *name, const H5O_info2_t *info, void *op_data)
{
    (void)op_data;
    if (info->type == H5O_TYPE_GROUP)
        read_nx_class(o, name);
    return 0;
}

static herr_t
count_cb(hid_t o, const char *name, const H5O_info2_t *info, void *op_data)
{
    (void)o, (void)op_data;
    checksum += (double)strlen(name) + info->type;
    return 0;
}

typedef struct names {
    char **v;
    size_t n, cap;
} names_t;

static herr_t
collect_cb(hid_t g, const char *name, const H5L_info2_t *info, void *op_data)
{
    (void)g, (void)info;
    names_t *nm = op_data;
    if (nm->n == nm->cap) {
        nm->cap = nm->cap ? nm->cap * 2 : 64;
        nm->v   = realloc(nm->v, nm->cap * sizeof(char *));
    }
    nm->v[nm->n++] = strdup(name);
    return 0;
}

static void
read_dataset(const char *path)
{
    if (H5Lexists(file, path, H5P_DEFAULT) <= 0)
        return;
    hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
    if (d < 0)
        return;
    hid_t   s = H5Dget_space(d);
    hssize_t n = H5Sget_simple_extent_npoints(s);
    double  buf[64];
    if (n > 0 && n <= 64 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0)
        for (hssize_t i = 0; i < n; i++)
            checksum += buf[i];
    H5Sclose(s);
    H5Dclose(d);
}

static void
loader_b(void)
{
    char path[512];
    for (int e = 0;; e++) {
        snprintf(path, sizeof(path), "/MDEventWorkspace/experiment%d", e);
        if (H5Lexists(file, path, H5P_DEFAULT) <= 0)
            break;
        read_nx_class(file, path);
        snprintf(path, sizeof(path), "/MDEventWorkspace/experiment%d/logs", e);
        names_t nm = {0};
        hsize_t idx = 0;
        H5Literate2(file, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_cb, &nm); /* root: cheap */
        for (size_t i = 0; i < nm.n; i++)
            free(nm.v[i]);
        nm.n = 0;
        hid_t logs = H5Gopen2(file, path, H5P_DEFAULT);
        idx        = 0;
        H5Literate2(logs, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_cb, &nm);
        H5Gclose(logs);
        for (size_t i = 0; i < nm.n; i++) {
            char p[1024];
            if (snprintf(p, sizeof(p), "%s/%s/value", path, nm.v[i]) < (int)sizeof(p))
                read_dataset(p);
            if (snprintf(p, sizeof(p), "%s/%s/time", path, nm.v[i]) < (int)sizeof(p))
                read_dataset(p);
            free(nm.v[i]);
        }
        free(nm.v);
    }
}

/* NXgetnextentry: each call iterates from the current index and stops after one entry. */
typedef struct one {
    char   name[256];
    H5L_type_t type;
} one_t;

static herr_t
one_cb(hid_t g, const char *name, const H5L_info2_t *info, void *op_data)
{
    (void)g;
    one_t *o = op_data;
    snprintf(o->name, sizeof(o->name), "%s", name);
    o->type = info->type;
    return 1;
}

static void
nexus_walk(hid_t g, int depth)
{
    hsize_t n = 0;
    for (hsize_t k = 0;; k++) {
        one_t   o;
        hsize_t idx = k;
        H5G_info_t gi;
        if (H5Gget_info(g, &gi) < 0 || k >= gi.nlinks)
            break;
        if (H5Literate2(g, H5_INDEX_NAME, H5_ITER_INC, &idx, one_cb, &o) <= 0)
            break;
        n++;
        checksum += (double)strlen(o.name);
        /* Descend into the structure above the logs (the NeXus API reads class and recurses). */
        if (depth < 3 && o.type == H5L_TYPE_HARD) {
            H5O_info2_t oi;
            if (H5Oget_info_by_name3(g, o.name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) >= 0 &&
                oi.type == H5O_TYPE_GROUP) {
                hid_t c = H5Gopen2(g, o.name, H5P_DEFAULT);
                nexus_walk(c, depth + 1);
                H5Gclose(c);
            }
        }
    }
    checksum += (double)n;
}

int
main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    long (*mallocs)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "tb_bench_malloc_calls");
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (argc > 3 && strcmp(argv[3], "bigcache") == 0) {
        H5AC_cache_config_t c;
        c.version = H5AC__CURR_CACHE_CONFIG_VERSION;
        H5Pget_mdc_config(fapl, &c);
        c.set_initial_size = 1;
        c.initial_size     = 128 << 20; /* the largest HDF5 accepts */
        c.max_size         = 128 << 20;
        c.min_size         = 64 << 20;
        H5Pset_mdc_config(fapl, &c);
    }
    H5open();
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* the root group has no NX_class: not an error here */
    long   m0 = mallocs ? mallocs() : -1;
    double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    file      = H5Fopen(argv[1], H5F_ACC_RDONLY, fapl);
    if (file < 0)
        return 1;
    switch (argv[2][0]) {
        case 'a':
            H5Ovisit3(file, H5_INDEX_NAME, H5_ITER_INC, visit_cb, NULL, H5O_INFO_BASIC);
            break;
        case 'v': /* the visit alone, for the breakdown */
            H5Ovisit3(file, H5_INDEX_NAME, H5_ITER_INC, count_cb, NULL, H5O_INFO_BASIC);
            break;
        case 'b':
            loader_b();
            break;
        default: {
            hid_t root = H5Gopen2(file, "/", H5P_DEFAULT);
            nexus_walk(root, 0);
            H5Gclose(root);
            break;
        }
    }
    H5Fclose(file);
    double t1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_PROCESS_CPUTIME_ID);
    long   m1 = mallocs ? mallocs() : -1;
    H5Pclose(fapl);
    printf("%.6f %.6f %ld %.1f\n", t1 - t0, c1 - c0, mallocs ? m1 - m0 : -1L, checksum);
    return 0;
}
