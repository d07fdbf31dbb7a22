/* index_cmd.c — `h5turbo index build|status|drop FILE...`: builds persistent link/object indexes
 * ahead of time (through h5turbo's own connector, linked into this program: every object, its
 * attributes and the contents of its small datasets), says whether a file's sidecar is valid and
 * why not, and removes sidecars (never their lock files). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "h5turbo_cli.h"
#include "index.h"
#include "index_int.h"

#include <H5PLextern.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static hid_t conn_id = H5I_INVALID_HID;

/* Our connector, registered from the class compiled into this program, so that its index
 * statistics are the ones this process can read. */
static hid_t
our_fapl(void)
{
    if (conn_id < 0) {
        conn_id = H5VLregister_connector((const H5VL_class_t *)H5PLget_plugin_info(), H5P_DEFAULT);
        if (conn_id < 0)
            return H5I_INVALID_HID;
    }
    void *info = NULL;
    if (H5VLconnector_str_to_info("index=persistent", conn_id, &info) < 0)
        return H5I_INVALID_HID;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_vol(fapl, conn_id, info);
    H5VLfree_connector_info(conn_id, info);
    return fapl;
}

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct walk {
    long   nobj;
    double t0, last;
    int    tty;
    const char *name;
} walk_t;

/* A small dataset of a fixed-size type is read whole in its own type: the connector captures
 * its content into the index (within its `index_data` budget). Errors are not the build's. */
static void
preload_dataset(hid_t file, const char *name)
{
    char path[4096];
    if (snprintf(path, sizeof(path), "/%s", name) >= (int)sizeof(path))
        return;
    H5E_BEGIN_TRY
    {
        hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
        hid_t t = d >= 0 ? H5Dget_type(d) : H5I_INVALID_HID;
        hid_t s = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
        if (t >= 0 && s >= 0 && H5Tdetect_class(t, H5T_VLEN) == 0 && H5Tis_variable_str(t) == 0 &&
            H5Tdetect_class(t, H5T_REFERENCE) == 0) {
            hssize_t n  = H5Sget_simple_extent_npoints(s);
            size_t   ts = H5Tget_size(t);
            if (n > 0 && ts > 0 && (size_t)n <= H5T_IX_DSET_MAX_VALUE / ts) {
                void *buf = malloc((size_t)n * ts);
                if (buf)
                    H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
                free(buf);
            }
        }
        if (s >= 0)
            H5Sclose(s);
        if (t >= 0)
            H5Tclose(t);
        if (d >= 0)
            H5Dclose(d);
    }
    H5E_END_TRY
}

static herr_t
visit_cb(hid_t obj, const char *name, const H5O_info2_t *info, void *op_data)
{
    walk_t *w = op_data;
    /* Asking for any attribute loads the object's attribute list (and small values) into the
     * index; datasets also get their contents read. */
    H5E_BEGIN_TRY { H5Aexists_by_name(obj, name, "NX_class", H5P_DEFAULT); }
    H5E_END_TRY
    if (info->type == H5O_TYPE_DATASET && strcmp(name, ".") != 0)
        preload_dataset(obj, name);
    w->nobj++;
    if (w->tty && (w->nobj & 1023) == 0) {
        double t = now_s();
        if (t - w->last > 0.1) {
            w->last = t;
            fprintf(stderr, "\r%s: %ld objects, %.0f objects/s   ", w->name, w->nobj, w->nobj / (t - w->t0));
        }
    }
    return 0;
}

/* What `status` found, and the text saying why. */
typedef enum { SC_VALID = 0, SC_MISSING, SC_CORRUPT, SC_STALE } sc_state_t;

static sc_state_t
sidecar_state(const char *file, char *why, size_t n)
{
    void  *buf = NULL;
    size_t len = 0;
    if (h5t_sidecar_read_file(file, &buf, &len) < 0) {
        snprintf(why, n, "no sidecar");
        return SC_MISSING;
    }
    h5t_ix_identity_t sid;
    h5t_status_t      st = h5t_sidecar_decode(buf, len, &sid, NULL);
    free(buf);
    if (st < 0) {
        snprintf(why, n, "sidecar unreadable (%s)", h5t_status_str(st));
        return SC_CORRUPT;
    }
    struct stat s;
    if (stat(file, &s) < 0) {
        snprintf(why, n, "cannot stat the file: %s", strerror(errno));
        return SC_STALE;
    }
    int64_t mtime = (int64_t)s.st_mtim.tv_sec * 1000000000LL + s.st_mtim.tv_nsec;
    if ((uint64_t)s.st_dev != sid.dev || (uint64_t)s.st_ino != sid.ino) {
        snprintf(why, n, "stale: sidecar describes another file (device/inode differ)");
        return SC_STALE;
    }
    if ((uint64_t)s.st_size != sid.size || mtime != sid.mtime_ns) {
        snprintf(why, n, "stale: file changed since the sidecar was written (size or mtime differ)");
        return SC_STALE;
    }
    /* The in-file fingerprint (EOA, root token) is checked by the connector itself on open. */
    h5t_index_stats_t before, after;
    h5t_index_get_stats(&before);
    hid_t fapl = our_fapl(), f = H5I_INVALID_HID;
    if (fapl >= 0) {
        H5E_BEGIN_TRY { f = H5Fopen(file, H5F_ACC_RDONLY, fapl); }
        H5E_END_TRY
        H5Pclose(fapl);
    }
    if (f < 0) {
        snprintf(why, n, "the file cannot be opened as HDF5");
        return SC_STALE;
    }
    h5t_index_get_stats(&after);
    H5Fclose(f);
    if (after.sidecar_loads == before.sidecar_loads) {
        snprintf(why, n, "stale: the file's fingerprint (end of allocation, root group) differs");
        return SC_STALE;
    }
    snprintf(why, n, "valid");
    return SC_VALID;
}

static int
index_build(const char *file)
{
    char why[256];
    if (sidecar_state(file, why, sizeof(why)) == SC_VALID) {
        printf("%s: sidecar already valid\n", file);
        return 0;
    }
    hid_t fapl = our_fapl();
    hid_t f    = H5I_INVALID_HID;
    if (fapl >= 0) {
        H5E_BEGIN_TRY { f = H5Fopen(file, H5F_ACC_RDONLY, fapl); }
        H5E_END_TRY
        H5Pclose(fapl);
    }
    if (f < 0) {
        fprintf(stderr, "h5turbo index build: %s: cannot open as HDF5\n", file);
        return 1;
    }
    walk_t w = {0, now_s(), 0, isatty(2), file};
    w.last   = w.t0;
    herr_t r = H5Ovisit3(f, H5_INDEX_NAME, H5_ITER_NATIVE, visit_cb, &w, H5O_INFO_BASIC);
    H5Fclose(f); /* the connector publishes the sidecar at the last close */
    double dt = now_s() - w.t0;
    if (w.tty)
        fprintf(stderr, "\r%*s\r", 60, "");
    if (r < 0) {
        fprintf(stderr, "h5turbo index build: %s: walking the file failed\n", file);
        return 1;
    }
    sc_state_t st = sidecar_state(file, why, sizeof(why));
    if (st == SC_VALID) {
        printf("%s: indexed %ld objects in %.2f s (%.0f objects/s); sidecar valid\n", file, w.nobj, dt,
               dt > 0 ? w.nobj / dt : 0.0);
        return 0;
    }
    struct stat s;
    if (stat(file, &s) == 0 && time(NULL) - s.st_mtim.tv_sec < 3)
        snprintf(why, sizeof(why), "the file was modified less than 2 s ago (too recent to tell versions apart)");
    printf("%s: indexed %ld objects, but no sidecar was written: %s\n", file, w.nobj, why);
    return 1;
}

static int
index_drop(const char *file)
{
    /* Beside the file, and the per-user cache copy; the lock files stay (a process may be
     * waiting on one). */
    int   removed = 0, failed = 0;
    char *paths[2] = {h5t_sidecar_path(file, 0), h5t_sidecar_cache_path(file)};
    for (int k = 0; k < 2; k++) {
        if (!paths[k])
            continue;
        if (unlink(paths[k]) == 0)
            removed++;
        else if (errno != ENOENT) {
            fprintf(stderr, "h5turbo index drop: %s: %s\n", paths[k], strerror(errno));
            failed = 1;
        }
        free(paths[k]);
    }
    printf("%s: %s\n", file, removed ? "sidecar removed" : "no sidecar");
    return failed;
}

int
h5turbo_cmd_index(int argc, char **argv)
{
    if (argc < 4 || strcmp(argv[2], "--help") == 0) {
        FILE *out = argc < 4 && !(argc == 3 && strcmp(argv[2], "--help") == 0) ? stderr : stdout;
        fprintf(out, "usage: h5turbo index build|status|drop FILE...\n"
                     "  build   walk each file through h5turbo and write its persistent index (sidecar)\n"
                     "  status  say whether each file's sidecar is valid, and why not\n"
                     "  drop    remove the sidecars (their lock files are kept)\n"
                     "exit: 0 when every file is done/valid, 1 otherwise, 2 on bad usage\n");
        return out == stdout ? 0 : 2;
    }
    /* This program registers its own copy of the connector; a connector named in the environment
     * would be loaded by HDF5 as well, and its copy would keep the statistics. */
    unsetenv("HDF5_VOL_CONNECTOR");
    const char *verb = argv[2];
    int (*op)(const char *) = NULL;
    if (strcmp(verb, "build") == 0)
        op = index_build;
    else if (strcmp(verb, "drop") == 0)
        op = index_drop;
    else if (strcmp(verb, "status") != 0) {
        fprintf(stderr, "h5turbo index: unknown action '%s' (build, status, drop)\n", verb);
        return 2;
    }
    int failures = 0;
    for (int i = 3; i < argc; i++) {
        /* The connector names sidecars after the resolved path; so must we. */
        char *real = realpath(argv[i], NULL);
        if (!real) {
            fprintf(stderr, "h5turbo index %s: %s: %s\n", verb, argv[i], strerror(errno));
            failures++;
            continue;
        }
        if (op)
            failures += op(real) != 0;
        else {
            char       why[256];
            sc_state_t st = sidecar_state(real, why, sizeof(why));
            printf("%s: %s\n", real, why);
            failures += st != SC_VALID;
        }
        free(real);
    }
    if (conn_id >= 0)
        H5VLunregister_connector(conn_id);
    return failures ? 1 : 0;
}
