/* index_cmd.c — `h5turbo index build|status|drop|gc`: builds persistent link/object indexes ahead
 * of time (through the h5turbo connector loaded from the plugin folder: every object, its
 * attributes and the contents of its small datasets), says whether a file's sidecar is valid and
 * trusted and why not, removes sidecars (never their lock files), and keeps the per-user cache
 * within its bound. Sidecars are found and judged by the code the connector uses (tb_sidecar.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "h5turbo_cli.h"
#include "tb_config.h"
#include "tb_h5walk.h"
#include "tb_sidecar.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static hid_t          conn_id = H5I_INVALID_HID;
static tb_config_t    cfg;    /* from the environment, as the connector would see it */
static tb_sc_policy_t policy; /* where sidecars go, from cfg */

/* The h5turbo connector, loaded by HDF5 from our plugin folder like any program would. */
static hid_t
our_fapl(void)
{
    if (conn_id < 0) {
        char dir[4096];
        if (h5turbo_plugin_dir(dir, sizeof(dir)) < 0 || H5PLprepend(dir) < 0)
            return H5I_INVALID_HID;
        conn_id = H5VLregister_connector_by_name("h5turbo", H5P_DEFAULT);
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

/* The data file as the connector describes it: fstat identity, owner and mode, and (with_hdf5)
 * the in-file fingerprint read through stock HDF5. 0, or -1 with the reason in why. */
static int
describe_file(const char *real, int with_hdf5, tb_sc_file_t *f, char *why, size_t n)
{
    memset(f, 0, sizeof(*f));
    f->path = real;
    int fd  = open(real, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, n, "not a regular file that can be read: %s", fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    f->id.dev      = (uint64_t)st.st_dev;
    f->id.ino      = (uint64_t)st.st_ino;
    f->id.size     = (uint64_t)st.st_size;
    f->id.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    f->id.ctime_ns = (int64_t)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec;
    f->uid         = (uint32_t)st.st_uid;
    f->gid         = (uint32_t)st.st_gid;
    f->mode        = (uint32_t)st.st_mode;
    if (!with_hdf5)
        return 0;
    hid_t       h = H5I_INVALID_HID;
    haddr_t     eoa = HADDR_UNDEF;
    H5O_info2_t oi;
    int         ok = 0;
    H5E_BEGIN_TRY
    {
        h  = H5Fopen(real, H5F_ACC_RDONLY, H5P_DEFAULT);
        ok = h >= 0 && H5Fget_eoa(h, &eoa) >= 0 && H5Oget_info3(h, &oi, H5O_INFO_BASIC) >= 0;
        if (h >= 0)
            H5Fclose(h);
    }
    H5E_END_TRY
    if (!ok) {
        snprintf(why, n, "the file cannot be opened as HDF5");
        return -1;
    }
    f->id.eoa = (uint64_t)eoa;
    memcpy(f->id.root_token, &oi.token, sizeof(f->id.root_token));
    return 0;
}

/* What `status` found, and the text saying why. */
typedef enum { SC_VALID = 0, SC_MISSING, SC_INVALID } sc_state_t;

static sc_state_t
sidecar_state(const char *file, char *why, size_t n, char *where, size_t where_n)
{
    tb_sc_file_t f;
    where[0] = '\0';
    if (describe_file(file, 1, &f, why, n) < 0)
        return SC_INVALID;
    void            *buf = NULL;
    size_t           len = 0;
    tb_sc_found_t   found;
    tb_sc_outcome_t o = tb_sc_load(&policy, &f, &buf, &len, &found);
    if (o == TB_SC_ABSENT) {
        snprintf(why, n, "no sidecar");
        return SC_MISSING;
    }
    snprintf(where, where_n, "%s", found.where);
    if (o == TB_SC_LOADED) {
        tb_status_t st = tb_sc_check(buf, len);
        tb_sc_release(buf);
        if (st == TB_OK) {
            snprintf(why, n, "valid");
            return SC_VALID;
        }
        snprintf(why, n, "sidecar rejected (%s)", tb_status_str(st));
        return SC_INVALID;
    }
    if (o == TB_SC_STALE && found.have_id) {
        const tb_ix_identity_t *s = &found.id;
        if (s->dev != f.id.dev || s->ino != f.id.ino)
            snprintf(why, n, "stale: the sidecar describes another file (device/inode differ)");
        else if (s->size != f.id.size || s->mtime_ns != f.id.mtime_ns || s->ctime_ns != f.id.ctime_ns)
            snprintf(why, n, "stale: the file changed since the sidecar was written (size, mtime or ctime differ)");
        else
            snprintf(why, n, "stale: the file's fingerprint (end of allocation, root group) differs");
        return SC_INVALID;
    }
    snprintf(why, n, "%s", tb_sc_outcome_str(o));
    return SC_INVALID;
}

typedef struct walk {
    double      t0, last;
    int         tty;
    const char *name;
} walk_t;

/* Progress on a terminal, at most every 0.1 s. */
static void
walk_progress(void *arg, long nobj)
{
    walk_t *w = arg;
    if (!w->tty || (nobj & 1023) != 0)
        return;
    double t = now_s();
    if (t - w->last > 0.1) {
        w->last = t;
        fprintf(stderr, "\r%s: %ld objects, %.0f objects/s   ", w->name, nobj, nobj / (t - w->t0));
    }
}

static int
index_build(const char *file)
{
    char why[256], where[4096];
    if (sidecar_state(file, why, sizeof(why), where, sizeof(where)) == SC_VALID) {
        printf("%s: sidecar already valid (%s)\n", file, where);
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
    walk_t      w  = {now_s(), 0, isatty(2), file};
    tb_h5walk_t hw = {0, TB_INDEX_DSET_MAX_NBYTES, walk_progress, &w, 0};
    w.last         = w.t0;
    int r          = tb_h5walk(f, &hw);
    H5Fclose(f); /* the connector publishes the sidecar at the last close */
    double dt = now_s() - w.t0;
    if (w.tty)
        fprintf(stderr, "\r%*s\r", 60, "");
    if (r < 0) {
        fprintf(stderr, "h5turbo index build: %s: walking the file failed\n", file);
        return 1;
    }
    if (sidecar_state(file, why, sizeof(why), where, sizeof(where)) == SC_VALID) {
        printf("%s: indexed %ld objects in %.2f s (%.0f objects/s); sidecar valid (%s)\n", file, hw.nobj, dt,
               dt > 0 ? hw.nobj / dt : 0.0, where);
        return 0;
    }
    struct stat s;
    if (stat(file, &s) == 0 && time(NULL) - (s.st_mtim.tv_sec > s.st_ctim.tv_sec ? s.st_mtim : s.st_ctim).tv_sec < 3)
        snprintf(why, sizeof(why), "%s", tb_sc_outcome_str(TB_SC_TOO_RECENT));
    printf("%s: indexed %ld objects, but no valid sidecar: %s (H5TURBO_DEBUG=1 says what the connector did)\n",
           file, hw.nobj, why);
    return 1;
}

static void
drop_report(const char *path, int err, void *ctx)
{
    int *removed = ctx;
    if (err)
        fprintf(stderr, "h5turbo index drop: cannot remove %s: %s\n", path, strerror(err));
    else {
        printf("removed %s\n", path);
        (*removed)++;
    }
}

static int
index_drop(const char *file)
{
    tb_sc_file_t f;
    char          why[256];
    if (describe_file(file, 0, &f, why, sizeof(why)) < 0) {
        fprintf(stderr, "h5turbo index drop: %s: %s\n", file, why);
        return 1;
    }
    int removed = 0;
    int failed  = tb_sc_drop(&policy, &f, drop_report, &removed);
    if (failed)
        printf("%s: %d file(s) could not be removed (see above)\n", file, failed);
    else
        printf("%s: %s\n", file, removed ? "sidecar removed" : "no sidecar");
    return failed ? 1 : 0;
}

static int
index_status(const char *file)
{
    char       why[256], where[4096];
    sc_state_t st = sidecar_state(file, why, sizeof(why), where, sizeof(where));
    printf("%s: %s\n", file, why);
    if (where[0])
        printf("  sidecar: %s\n", where);
    return st == SC_VALID ? 0 : 1;
}

static void
print_cache(const tb_sc_cache_info_t *c)
{
    if (!c->usable) {
        printf("cache: none usable (%s)\n",
               c->dir[0] ? c->dir : "$XDG_CACHE_HOME/h5turbo or ~/.cache/h5turbo: missing, or not private");
        return;
    }
    printf("cache: %s: %llu sidecars, %llu packs of small ones, %.1f MiB of %.1f MiB; %llu lock files, %llu temp "
           "files\n",
           c->dir, (unsigned long long)c->nsidecars, (unsigned long long)c->npacks, (double)c->nbytes / 1048576.0,
           (double)c->max_nbytes / 1048576.0, (unsigned long long)c->nlocks, (unsigned long long)c->ntemps);
}

static int
index_gc(int argc, char **argv)
{
    uint64_t max = policy.cache_max_nbytes;
    for (int i = 3; i < argc; i++) {
        size_t v;
        if (strcmp(argv[i], "--max-size") == 0 && i + 1 < argc &&
            tb_parse_size(argv[i + 1], strlen(argv[i + 1]), &v) == TB_OK) {
            max = v;
            i++;
            continue;
        }
        fprintf(stderr, "h5turbo index gc: unknown argument '%s' (--max-size N[K|M|G])\n", argv[i]);
        return 2;
    }
    tb_sc_cache_info_t c;
    if (tb_sc_gc(&policy, max, &c) < 0) {
        print_cache(&c);
        return 1;
    }
    printf("removed: %llu sidecars of files that are gone or replaced, %llu temp files of dead writers; "
           "evicted %llu least recently used; %.1f MiB freed\n",
           (unsigned long long)c.removed_orphans, (unsigned long long)c.removed_temps,
           (unsigned long long)c.evicted, (double)c.freed_nbytes / 1048576.0);
    print_cache(&c);
    return 0;
}

static void
index_usage(FILE *out)
{
    fprintf(out,
            "usage: h5turbo index build|status|drop FILE...\n"
            "       h5turbo index status          (the per-user cache)\n"
            "       h5turbo index gc [--max-size N]\n"
            "  build   walk each file through h5turbo and write its persistent index (sidecar)\n"
            "  status  say whether each file's sidecar is valid and trusted, and why not; without\n"
            "          files, what the per-user cache holds\n"
            "  drop    remove each file's sidecars and dead writers' temp files (lock files stay)\n"
            "  gc      remove cache entries of files that are gone, dead writers' temp files, and\n"
            "          the least recently used entries beyond the bound (default: index_cache_max)\n"
            "Sidecars go where H5TURBO_INDEX_DIR says: cache (default), beside, or a folder.\n"
            "exit: 0 when every file is done/valid, 1 otherwise, 2 on bad usage\n");
}

int
h5turbo_cmd_index(int argc, char **argv)
{
    if (argc < 3 || strcmp(argv[2], "--help") == 0) {
        FILE *out = argc < 3 ? stderr : stdout;
        index_usage(out);
        return out == stdout ? 0 : 2;
    }
    /* This program registers its own copy of the connector; a connector named in the environment
     * would be loaded by HDF5 as well, and its copy would keep the statistics. */
    unsetenv("HDF5_VOL_CONNECTOR");
    tb_config_defaults(&cfg);
    policy.where            = cfg.index_where == TB_INDEX_BESIDE   ? TB_SC_BESIDE
                              : cfg.index_where == TB_INDEX_IN_DIR ? TB_SC_DIR
                                                                    : TB_SC_CACHE;
    policy.dir              = cfg.index_dir;
    policy.cache_max_nbytes = cfg.index_cache_max_nbytes;
    policy.debug            = cfg.debug;

    const char *verb = argv[2];
    int (*op)(const char *) = NULL;
    if (strcmp(verb, "build") == 0)
        op = index_build;
    else if (strcmp(verb, "drop") == 0)
        op = index_drop;
    else if (strcmp(verb, "status") == 0)
        op = index_status;
    else if (strcmp(verb, "gc") == 0)
        return index_gc(argc, argv);
    else {
        fprintf(stderr, "h5turbo index: unknown action '%s' (build, status, drop, gc)\n", verb);
        return 2;
    }
    if (argc < 4) {
        if (op != index_status) {
            index_usage(stderr);
            return 2;
        }
        tb_sc_cache_info_t c;
        tb_sc_cache_info(&policy, &c);
        print_cache(&c);
        return 0;
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
        failures += op(real) != 0;
        free(real);
    }
    if (conn_id >= 0)
        H5VLclose(conn_id);
    return failures ? 1 : 0;
}
