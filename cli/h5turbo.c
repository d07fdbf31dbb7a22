/* h5turbo.c — the h5turbo command: run a program with h5turbo active (`run`), print shell lines
 * that activate it (`env`), report versions and self-test the plugins (`info`). Installed in
 * <prefix>/bin next to <prefix>/lib/plugin; in a build tree it finds build/plugins. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <hdf5.h>
#include <blosc.h>
#include <libdeflate.h>

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tb_config.h"
#include "h5turbo_cli.h"

#define H5TURBO_VERSION_STR "0.1.0"
#define EXIT_USAGE 2 /* bad command line */
#define EXIT_SETUP 3 /* plugins missing or failing their self-test */

static const char *prog = "h5turbo";

static void
usage(FILE *out)
{
    fprintf(out,
            "usage: h5turbo COMMAND [OPTIONS]\n\n"
            "commands:\n"
            "  run [--threads N] [--index off|memory|persistent] [--write-behind] -- PROGRAM ARGS...\n"
            "        run an unmodified program with h5turbo active\n"
            "  env [--shell sh|fish]   print the lines that activate h5turbo in a shell\n"
            "  info                    versions, plugin directory, threads, and a self-test\n"
            "  index build|status|drop FILE... | status | gc [--max-size N]\n"
            "                          persistent link/object indexes: build ahead of time, check, remove;\n"
            "                          the per-user sidecar cache: show, clean\n"
            "  bench [--quick] [--out DIR] [--only SUITES]\n"
            "                          benchmark suite: stock HDF5 vs h5turbo, ratios, results.json, PNG plots\n"
            "  help                    this text; every command also takes --help\n\n"
            "exit codes: 0 success; 1 failure; 2 bad usage; 3 plugins missing or failing the self-test;\n"
            "`run` exits with the program's own status (127 if it cannot be started).\n");
}

/* The folder holding the plugins: $H5TURBO_PLUGIN_DIR, else next to this executable
 * (build tree: ../plugins; installed: ../lib/plugin). */
int
h5turbo_plugin_dir(char *out, size_t n)
{
    const char *e = getenv("H5TURBO_PLUGIN_DIR");
    if (e && *e) {
        snprintf(out, n, "%s", e);
        return 0;
    }
    char    exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (len <= 0)
        return -1;
    exe[len]    = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    static const char *candidates[] = {"/../plugins", "/../lib/plugin"};
    for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
        char        p[PATH_MAX + 32];
        struct stat st;
        snprintf(p, sizeof(p), "%s%s", exe, candidates[i]);
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            char real[PATH_MAX];
            if (realpath(p, real) && strlen(real) < n)
                memcpy(out, real, strlen(real) + 1);
            else if (strlen(p) < n)
                memcpy(out, p, strlen(p) + 1);
            else
                return -1;
            return 0;
        }
    }
    return -1;
}

/* The connector string for `run`/`env`: our options, stacked over a connector the user already
 * selected (HDF5_VOL_CONNECTOR="NAME INFO" becomes under_vol=NAME;under_info={INFO}). */
static void
connector_string(char *out, size_t n, const char *opts)
{
    const char *prev = getenv("HDF5_VOL_CONNECTOR");
    char        name[256] = "", info[4096] = "";
    if (prev && *prev) {
        while (*prev == ' ' || *prev == '\t')
            prev++;
        size_t nl = strcspn(prev, " \t");
        snprintf(name, sizeof(name), "%.*s", (int)nl, prev);
        const char *rest = prev + nl;
        while (*rest == ' ' || *rest == '\t')
            rest++;
        snprintf(info, sizeof(info), "%s", rest);
    }
    if (name[0] && strcmp(name, "h5turbo") != 0 && strcmp(name, "native") != 0)
        snprintf(out, n, "h5turbo under_vol=%s;under_info={%s}%s%s", name, info, *opts ? ";" : "", opts);
    else if (name[0] && strcmp(name, "h5turbo") == 0 && info[0])
        snprintf(out, n, "h5turbo %s%s%s", info, *opts ? ";" : "", opts);
    else
        snprintf(out, n, "h5turbo%s%s", *opts ? " " : "", opts);
}

static void
plugin_path(char *out, size_t n, const char *dir)
{
    const char *prev = getenv("HDF5_PLUGIN_PATH");
    /* Keep what the user had, after ours, unless it already names our folder. */
    if (prev && *prev && !strstr(prev, dir))
        snprintf(out, n, "%s:%s", dir, prev);
    else if (prev && *prev)
        snprintf(out, n, "%s", prev);
    else
        snprintf(out, n, "%s", dir);
}

/* The two variables that activate h5turbo: the connector string and the plugin path. */
static int
activation(const char *opts, char *conn, size_t conn_n, char *path, size_t path_n)
{
    char dir[PATH_MAX];
    if (h5turbo_plugin_dir(dir, sizeof(dir)) < 0) {
        fprintf(stderr, "%s: cannot find the plugin folder (set H5TURBO_PLUGIN_DIR)\n", prog);
        return -1;
    }
    connector_string(conn, conn_n, opts);
    plugin_path(path, path_n, dir);
    return 0;
}

static int
parse_run_opts(int argc, char **argv, int *i, char *opts, size_t n, int allow_shell, const char **shell)
{
    size_t len = 0;
    opts[0]    = '\0';
    for (; *i < argc; (*i)++) {
        const char *a = argv[*i];
        char        err[256];
        tb_config_t scratch;
        tb_config_defaults(&scratch);
        if (strcmp(a, "--") == 0) {
            (*i)++;
            return 0;
        }
        if (strcmp(a, "--threads") == 0 || strcmp(a, "--index") == 0) {
            if (*i + 1 >= argc) {
                fprintf(stderr, "%s: %s needs a value\n", prog, a);
                return -1;
            }
            const char *key = a + 2, *val = argv[++(*i)];
            if (tb_config_set(&scratch, key, strlen(key), val, strlen(val), err, sizeof(err)) < 0) {
                fprintf(stderr, "%s: %s\n", prog, err);
                return -1;
            }
            len += (size_t)snprintf(opts + len, len < n ? n - len : 0, "%s%s=%s", len ? ";" : "", key, val);
        }
        else if (strcmp(a, "--write-behind") == 0)
            len += (size_t)snprintf(opts + len, len < n ? n - len : 0, "%swrite_behind=1", len ? ";" : "");
        else if (allow_shell && strcmp(a, "--shell") == 0 && *i + 1 < argc) {
            *shell = argv[++(*i)];
            if (strcmp(*shell, "sh") != 0 && strcmp(*shell, "fish") != 0) {
                fprintf(stderr, "%s: --shell takes sh or fish, not '%s'\n", prog, *shell);
                return -1;
            }
        }
        else if (a[0] == '-') {
            fprintf(stderr, "%s: unknown option '%s'\n", prog, a);
            return -1;
        }
        else
            return 0;
    }
    return 0;
}

static int
cmd_run(int argc, char **argv)
{
    char opts[512], conn[8192], path[8192];
    int  i = 2;
    if (argc > 2 && strcmp(argv[2], "--help") == 0) {
        printf("usage: h5turbo run [--threads N] [--index off|memory|persistent] [--write-behind] -- PROGRAM ARGS...\n"
               "Runs PROGRAM with HDF5_PLUGIN_PATH extended by h5turbo's plugin folder and HDF5_VOL_CONNECTOR\n"
               "set to h5turbo (stacked over a connector already selected).\n");
        return 0;
    }
    if (parse_run_opts(argc, argv, &i, opts, sizeof(opts), 0, NULL) < 0)
        return EXIT_USAGE;
    if (i >= argc) {
        fprintf(stderr, "%s run: no program given (usage: h5turbo run [OPTIONS] -- PROGRAM ARGS...)\n", prog);
        return EXIT_USAGE;
    }
    if (activation(opts, conn, sizeof(conn), path, sizeof(path)) < 0)
        return EXIT_SETUP;
    /* These change only our own environment, which the program inherits through exec. */
    setenv("HDF5_PLUGIN_PATH", path, 1);
    setenv("HDF5_VOL_CONNECTOR", conn, 1);
    execvp(argv[i], argv + i);
    fprintf(stderr, "%s run: cannot start '%s': %s\n", prog, argv[i], strerror(errno));
    return 127;
}

static int
cmd_env(int argc, char **argv)
{
    char        opts[512], conn[8192], path[8192];
    const char *shell = "sh";
    int         i     = 2;
    if (argc > 2 && strcmp(argv[2], "--help") == 0) {
        printf("usage: h5turbo env [--shell sh|fish] [--threads N] [--index MODE] [--write-behind]\n"
               "Prints the lines that activate h5turbo; use as: eval \"$(h5turbo env)\"\n");
        return 0;
    }
    if (parse_run_opts(argc, argv, &i, opts, sizeof(opts), 1, &shell) < 0 || i < argc) {
        if (i < argc)
            fprintf(stderr, "%s env: unexpected argument '%s'\n", prog, argv[i]);
        return EXIT_USAGE;
    }
    if (activation(opts, conn, sizeof(conn), path, sizeof(path)) < 0)
        return EXIT_SETUP;
    if (strcmp(shell, "fish") == 0) {
        printf("set -gx HDF5_PLUGIN_PATH '%s';\n", path);
        printf("set -gx HDF5_VOL_CONNECTOR '%s';\n", conn);
    }
    else {
        printf("export HDF5_PLUGIN_PATH='%s'\n", path);
        printf("export HDF5_VOL_CONNECTOR='%s'\n", conn);
    }
    return 0;
}

/* Self-test: load the connector and the Blosc filter from the plugin folder, write and read a
 * file through both. Returns the number of failures. */
static int
self_test(const char *dir)
{
    int   failures = 0;
    char  file[PATH_MAX];
    const char *tmpdir = getenv("TMPDIR");
    snprintf(file, sizeof(file), "%s/h5turbo-selftest-%ld.h5", tmpdir && *tmpdir ? tmpdir : "/tmp", (long)getpid());
    H5PLprepend(dir);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t vol = H5VLregister_connector_by_name("h5turbo", H5P_DEFAULT);
    printf("self-test: connector h5turbo ...... %s\n", vol >= 0 ? "loads" : "FAILED to load");
    failures += vol < 0;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (vol >= 0 && H5Pset_vol(fapl, vol, NULL) < 0)
        failures++;
    int   data[256], back[256] = {0};
    for (int k = 0; k < 256; k++)
        data[k] = k * 7;
    hid_t f = vol >= 0 ? H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, fapl) : H5I_INVALID_HID;
    int   roundtrip = 0;
    htri_t blosc_ok = 0;
    if (f >= 0) {
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 1, (hsize_t[]){64});
        H5Pset_filter(dcpl, 32001, H5Z_FLAG_MANDATORY, 0, NULL);
        hid_t s = H5Screate_simple(1, (hsize_t[]){256}, NULL);
        hid_t d = H5Dcreate2(f, "blosc", H5T_NATIVE_INT, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        blosc_ok = H5Zfilter_avail(32001);
        roundtrip = d >= 0 && H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0 &&
                    H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0 &&
                    memcmp(data, back, sizeof(data)) == 0;
        if (d >= 0)
            H5Dclose(d);
        H5Sclose(s);
        H5Pclose(dcpl);
        H5Fclose(f);
        unlink(file);
    }
    printf("self-test: Blosc filter 32001 ...... %s\n", blosc_ok > 0 ? "loads" : "FAILED to load");
    printf("self-test: write+read through both . %s\n", roundtrip ? "ok" : "FAILED");
    failures += blosc_ok <= 0;
    failures += !roundtrip;
    H5Pclose(fapl);
    if (vol >= 0)
        H5VLclose(vol);
    return failures;
}

/* Which builds of the plugins the self-test loaded: the objects mapped from the plugin folder's
 * hdf5-<major>/ subfolders (the front plugin picks one by the calling library's version). */
typedef struct loaded_builds {
    const char *dir;
    char        names[512];
} loaded_builds_t;

static int
note_build(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    loaded_builds_t *b   = arg;
    size_t           len = strlen(b->dir);
    const char      *p   = info->dlpi_name;
    if (p && strncmp(p, b->dir, len) == 0 && strncmp(p + len, "/hdf5-", 6) == 0) {
        size_t used = strlen(b->names);
        snprintf(b->names + used, sizeof(b->names) - used, "%s%s", used ? ", " : "", p + len + 1);
    }
    return 0;
}

/* The HDF5 the plugins bound to: they bind to the library that calls their entry point, which
 * for this command is the one it links (found by dladdr of one of its functions), and the build
 * the front chose for it. Printed after the self-test, once the plugins are loaded. */
static void
print_bound_library(const char *dir)
{
    Dl_info  info;
    unsigned maj, min, rel;
    H5get_libversion(&maj, &min, &rel);
    const char *lib = dladdr((const void *)&H5get_libversion, &info) && info.dli_fname ? info.dli_fname : "?";
    char        real[PATH_MAX];
    if (realpath(lib, real))
        lib = real;
    loaded_builds_t builds = {.dir = dir, .names = ""};
    dl_iterate_phdr(note_build, &builds);
    printf("plugins bound to: HDF5 %u.%u.%u, %s (builds loaded: %s)\n", maj, min, rel, lib,
           builds.names[0] ? builds.names : "none");
}

static int
cmd_info(int argc, char **argv)
{
    char     dir[PATH_MAX];
    unsigned maj, min, rel;
    if (argc > 2 && strcmp(argv[2], "--help") == 0) {
        printf("usage: h5turbo info\nPrints versions, the plugin folder, threads and CPU affinity, and runs a\n"
               "self-test that loads the connector and the Blosc filter (exit 3 if either fails).\n");
        return 0;
    }
    H5get_libversion(&maj, &min, &rel);
    printf("h5turbo %s\n", H5TURBO_VERSION_STR);
    printf("HDF5: built with %d.%d.%d, running with %u.%u.%u\n", H5_VERS_MAJOR, H5_VERS_MINOR, H5_VERS_RELEASE, maj,
           min, rel);
    printf("c-blosc: %s\n", blosc_get_version_string());
    printf("libdeflate: %s\n", LIBDEFLATE_VERSION_STRING);
    cpu_set_t set;
    CPU_ZERO(&set);
    sched_getaffinity(0, sizeof(set), &set);
    printf("CPUs in affinity mask: %d; codec threads: %u (H5TURBO_THREADS, else BLOSC_NTHREADS, else CPUs)\n",
           CPU_COUNT(&set), tb_threads_from_env());
    if (h5turbo_plugin_dir(dir, sizeof(dir)) < 0) {
        printf("plugin folder: NOT FOUND (set H5TURBO_PLUGIN_DIR)\n");
        return EXIT_SETUP;
    }
    printf("plugin folder: %s\n", dir);
    int failures = self_test(dir);
    print_bound_library(dir);
    printf("%s\n", failures ? "self-test FAILED" : "self-test passed");
    return failures ? EXIT_SETUP : 0;
}

/* The benchmark driver is a Python program (it draws the plots) in the source tree's bench/;
 * it runs the benchmark executables of the build tree this command was built in. */
static int
cmd_bench(int argc, char **argv)
{
    char        py[PATH_MAX], script[PATH_MAX];
    const char *src = H5TURBO_SOURCE_DIR, *build = H5TURBO_BUILD_DIR;
    if (argc > 2 && strcmp(argv[2], "--help") == 0) {
        printf("usage: h5turbo bench [--quick] [--out DIR] [--only SUITES] [--reps N]\n"
               "Runs the benchmark suites (overhead, blosc, pipeline, index) stock and with h5turbo in the same\n"
               "run, prints min/median/max and speedups, writes DIR/results.json and DIR/<suite>.png.\n");
        return 0;
    }
    snprintf(script, sizeof(script), "%s/bench/h5turbo_bench.py", src);
    snprintf(py, sizeof(py), "%s/.venv/bin/python", src);
    if (access(script, R_OK) != 0) {
        fprintf(stderr, "%s bench: %s not found (bench runs from a source and build tree)\n", prog, script);
        return EXIT_SETUP;
    }
    if (access(py, X_OK) != 0)
        snprintf(py, sizeof(py), "python3");
    char **args = calloc((size_t)argc + 4, sizeof(char *));
    if (!args)
        return 1;
    int k     = 0;
    args[k++] = py;
    args[k++] = script;
    args[k++] = "--build";
    args[k++] = (char *)build;
    for (int i = 2; i < argc; i++)
        args[k++] = argv[i];
    execvp(py, args);
    fprintf(stderr, "%s bench: cannot start %s: %s\n", prog, py, strerror(errno));
    free(args);
    return 127;
}

int
main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : 0;
    }
    if (strcmp(argv[1], "run") == 0)
        return cmd_run(argc, argv);
    if (strcmp(argv[1], "env") == 0)
        return cmd_env(argc, argv);
    if (strcmp(argv[1], "info") == 0)
        return cmd_info(argc, argv);
    if (strcmp(argv[1], "bench") == 0)
        return cmd_bench(argc, argv);
    if (strcmp(argv[1], "index") == 0)
        return h5turbo_cmd_index(argc, argv);
    fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[1]);
    usage(stderr);
    return EXIT_USAGE;
}
