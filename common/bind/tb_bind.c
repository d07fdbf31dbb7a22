/* tb_bind.c — finds the HDF5 library that called a plugin's entry point and sets every pointer
 * of hdf5_symbols.txt (the trampolines' targets, the globals, the optional internals) from it.
 * One plugin instance serves one library; the version check happens here, before HDF5 sees us. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "tb_bind.h"

#include <hdf5.h>

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The pointers: tb_bind_fn_X is what the trampoline X jumps through (tb_bind_tramp.S); the
 * globals and optional functions are declared by hdf5.h and tb_bind_vars.h as tb_bound_X. */
#define TB_BIND_FN(name) extern void *tb_bind_fn_##name; void *tb_bind_fn_##name;
#define TB_BIND_VAR(type, name) type *tb_bound_##name;
#define TB_BIND_OPT(name, ret, args) ret(*tb_bound_##name) args;
#include "tb_bind_list.h"
#undef TB_BIND_FN
#undef TB_BIND_VAR
#undef TB_BIND_OPT

typedef enum { KIND_FN, KIND_VAR, KIND_OPT } kind_t;

typedef struct {
    const char *name;
    void       *slot;   /* the pointer to set: a function or object pointer, set with memcpy */
    size_t      nbytes; /* its size */
    kind_t      kind;
} entry_t;

static const entry_t table[] = {
#define TB_BIND_FN(name) {#name, &tb_bind_fn_##name, sizeof(tb_bind_fn_##name), KIND_FN},
#define TB_BIND_VAR(type, name) {#name, &tb_bound_##name, sizeof(tb_bound_##name), KIND_VAR},
#define TB_BIND_OPT(name, ret, args) {#name, &tb_bound_##name, sizeof(tb_bound_##name), KIND_OPT},
#include "tb_bind_list.h"
};
#define TABLE_LEN (sizeof(table) / sizeof(table[0]))

/* Versions this build serves: the headers' major version, and for 1.x the same minor (1.14's
 * releases keep one ABI; 2.x releases keep theirs across minors, and a symbol a newer minor added
 * is reported missing rather than called). */
static bool
version_served(unsigned major, unsigned minor)
{
    if (major != H5_VERS_MAJOR)
        return false;
    return major >= 2 || minor == H5_VERS_MINOR;
}

/* State, under `lock`: the library bound (its dlopen handle, kept open for the process) and the
 * libraries refused, so that each reason is printed once although HDF5 retries plugins often. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void           *bound;
static char            bound_path[PATH_MAX];
static unsigned        bound_version[3];
#define MAX_REFUSED 16
static void    *refused[MAX_REFUSED];
static unsigned nrefused;

static bool
refused_before(void *lib)
{
    for (unsigned i = 0; i < nrefused; i++)
        if (refused[i] == lib)
            return true;
    return false;
}

static void
refuse(void *lib, const char *what, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Prints why `what` does not load into `lib`, the first time only. */
static void
refuse(void *lib, const char *what, const char *fmt, ...)
{
    if (refused_before(lib))
        return;
    if (nrefused < MAX_REFUSED)
        refused[nrefused++] = lib;
    char    msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "h5turbo: the %s does not load into this HDF5: %s\n", what, msg);
}

/* The library holding `addr`, opened again (it is loaded already: this takes a reference, which
 * we keep), and its path; NULL when `addr` is in no library that exports HDF5's API. When `addr`
 * is in h5turbo's front plugin, *front_out is set to its h5turbo_front_caller. */
static void *
library_at(const void *addr, char *path_out, size_t path_nbytes, const void *(**front_out)(void))
{
    Dl_info info;
    if (!addr || !dladdr(addr, &info) || !info.dli_fname || !info.dli_fname[0])
        return NULL;
    void *lib = dlopen(info.dli_fname, RTLD_NOLOAD | RTLD_LAZY);
    if (!lib)
        return NULL;
    if (!dlsym(lib, "H5get_libversion")) {
        /* Called through h5turbo's front plugin (tb_front.c), which loaded this build for the
         * library that called it: bind to that one. */
        const void *(*front_caller)(void);
        *(void **)&front_caller = dlsym(lib, "h5turbo_front_caller");
        dlclose(lib);
        const void *through = front_caller ? front_caller() : NULL;
        *front_out          = front_caller;
        const void *(*again)(void) = NULL;
        return through && through != addr ? library_at(through, path_out, path_nbytes, &again) : NULL;
    }
    snprintf(path_out, path_nbytes, "%s", info.dli_fname);
    return lib;
}

/* Binds to `lib` (at `path`), with `lock` held; 0 when bound. */
static int
bind_locked(void *lib, const char *path, const char *what)
{
    if (bound == lib)
        return 0;
    herr_t (*get_version)(unsigned *, unsigned *, unsigned *);
    *(void **)&get_version = dlsym(lib, "H5get_libversion");
    unsigned v[3] = {0, 0, 0};
    if (get_version(&v[0], &v[1], &v[2]) < 0) {
        refuse(lib, what, "H5get_libversion() of %s failed", path);
        return -1;
    }
    if (bound) {
        refuse(lib, what,
               "it is bound to %s (HDF5 %u.%u.%u) already, and this process has a second HDF5 library, "
               "%s (HDF5 %u.%u.%u); one copy of the plugin serves one library, so files opened through the "
               "second run without h5turbo",
               bound_path, bound_version[0], bound_version[1], bound_version[2], path, v[0], v[1], v[2]);
        return -1;
    }
    if (!version_served(v[0], v[1])) {
        refuse(lib, what, "%s is HDF5 %u.%u.%u, and this build of h5turbo is for HDF5 %u.%u", path, v[0], v[1],
               v[2], (unsigned)H5_VERS_MAJOR, (unsigned)H5_VERS_MINOR);
        return -1;
    }

    /* All or nothing: resolve everything first, set the pointers only if every needed one exists. */
    void  *found[TABLE_LEN];
    char   missing[512] = "";
    size_t nmissing     = 0;
    for (size_t i = 0; i < TABLE_LEN; i++) {
        /* A global is wherever the library's own references to it lead, which the dynamic linker
         * resolves in the global scope first: a program linked to this libhdf5 that reads
         * H5T_NATIVE_INT_g holds a copy of it (a copy relocation), and the library then uses that
         * copy, not its own storage. So: the global scope's definition if any, else the library's. */
        found[i] = table[i].kind == KIND_VAR ? dlsym(RTLD_DEFAULT, table[i].name) : NULL;
        if (!found[i])
            found[i] = dlsym(lib, table[i].name);
        if (!found[i] && table[i].kind != KIND_OPT && nmissing++ < 8) {
            size_t len = strlen(missing);
            snprintf(missing + len, sizeof(missing) - len, "%s%s", len ? ", " : "", table[i].name);
        }
    }
    if (nmissing) {
        refuse(lib, what, "%s (HDF5 %u.%u.%u) lacks %zu function(s) or global(s) h5turbo uses: %s%s", path, v[0],
               v[1], v[2], nmissing, missing, nmissing > 8 ? ", ..." : "");
        return -1;
    }
    for (size_t i = 0; i < TABLE_LEN; i++)
        memcpy(table[i].slot, &found[i], table[i].nbytes);
    bound = lib;
    snprintf(bound_path, sizeof(bound_path), "%s", path);
    memcpy(bound_version, v, sizeof(v));
    return 0;
}

/* The callers that found the bound library, under `lock`: a return address (and, through the
 * front, the address the front was called from). HDF5 calls the entry points every time it
 * searches the plugin folder for a filter it lacks, and finding a caller's library (dladdr,
 * dlopen, dlsym) cost ~180k instructions a call; an address keeps its library while the binding
 * holds a reference to it, so each caller is found once. */
#define MAX_KNOWN 16
static struct {
    const void *addr;
    const void *(*front)(void); /* NULL: addr is in the library itself */
    const void *through;
} known[MAX_KNOWN];
static unsigned nknown;

static bool
known_locked(const void *addr)
{
    for (unsigned i = 0; bound && i < nknown; i++)
        if (known[i].addr == addr && (known[i].front ? known[i].front() : NULL) == known[i].through)
            return true;
    return false;
}

int
tb_bind_caller(const void *caller_addr, const char *what)
{
    pthread_mutex_lock(&lock);
    bool seen = known_locked(caller_addr);
    pthread_mutex_unlock(&lock);
    if (seen)
        return 0;
    char  path[PATH_MAX];
    const void *(*front)(void) = NULL;
    void *lib = library_at(caller_addr, path, sizeof(path), &front);
    if (!lib) { /* not called by an HDF5 library: take the one the process sees globally */
        const void *(*unused)(void) = NULL;
        lib = library_at(dlsym(RTLD_DEFAULT, "H5get_libversion"), path, sizeof(path), &unused);
    }

    pthread_mutex_lock(&lock);
    int ret = -1;
    if (!lib)
        refuse(NULL, what, "no HDF5 library called it, and none is loaded globally");
    else if (lib == bound) {
        dlclose(lib); /* the reference library_at took; the binding keeps its own */
        ret = 0;
    } else
        ret = bind_locked(lib, path, what); /* on success the reference is the binding's */
    if (ret == 0 && nknown < MAX_KNOWN) {
        known[nknown].addr    = caller_addr;
        known[nknown].front   = front;
        known[nknown].through = front ? front() : NULL;
        nknown++;
    }
    pthread_mutex_unlock(&lock);
    return ret;
}

const char *
tb_bind_library(unsigned *major_out, unsigned *minor_out, unsigned *release_out)
{
    pthread_mutex_lock(&lock);
    const char *path = bound ? bound_path : NULL;
    if (bound) {
        if (major_out)
            *major_out = bound_version[0];
        if (minor_out)
            *minor_out = bound_version[1];
        if (release_out)
            *release_out = bound_version[2];
    }
    pthread_mutex_unlock(&lock);
    return path;
}
