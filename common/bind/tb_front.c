/* tb_front.c — the plugin file HDF5 finds in the plugin folder (one for the VOL connector, one for
 * the Blosc filter, both built from this file): it asks the calling library for its version and
 * forwards the entry points to the build for that HDF5 (hdf5-1/ or hdf5-2/ beside it), one copy
 * of that build per calling library. It includes no HDF5 header and binds to no HDF5. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr, memfd_create */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define TB_FRONT_EXPORT __attribute__((visibility("default")))

/* H5PL_TYPE_ERROR (H5PLextern.h), the same in HDF5 1.14 and 2.x. */
#define TB_PLUGIN_TYPE_ERROR (-1)

/* HDF5 declares the type entry point as returning the enum H5PL_type_t, which has int's ABI. */
TB_FRONT_EXPORT int         H5PLget_plugin_type(void);
TB_FRONT_EXPORT const void *H5PLget_plugin_info(void);
TB_FRONT_EXPORT const void *h5turbo_front_caller(void);

/* The library's return address that the backend being entered on this thread should bind to:
 * the backend's binder finds this front as its caller and asks (common/bind/tb_bind.c). */
static __thread const void *current_caller;

const void *
h5turbo_front_caller(void)
{
    return current_caller;
}

/* One backend copy per calling HDF5 library, under `lock`. Backend copies are never unloaded. */
typedef struct {
    void *lib;  /* the calling library, by its dlopen handle */
    int   ok;   /* 0: refused (the reason was printed once) */
    int (*get_type)(void);
    const void *(*get_info)(void);
} served_t;

#define MAX_SERVED 16
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static served_t        served[MAX_SERVED];
static unsigned        nserved;
/* Backend files loaded once already (a second library needs a copy of its own). */
static char     loaded[4][PATH_MAX];
static unsigned nloaded;

/* The plugin's name, for messages: the front's file name. */
static const char *
front_path(void)
{
    Dl_info info;
    return dladdr((const void *)&h5turbo_front_caller, &info) && info.dli_fname ? info.dli_fname : "h5turbo plugin";
}

/* The HDF5 library holding `addr`, opened again (a reference we keep), or NULL. */
static void *
hdf5_at(const void *addr, char *path_out, size_t path_nbytes)
{
    Dl_info info;
    if (!addr || !dladdr(addr, &info) || !info.dli_fname || !info.dli_fname[0])
        return NULL;
    void *lib = dlopen(info.dli_fname, RTLD_NOLOAD | RTLD_LAZY);
    if (lib && !dlsym(lib, "H5get_libversion")) {
        dlclose(lib);
        lib = NULL;
    }
    if (lib)
        snprintf(path_out, path_nbytes, "%s", info.dli_fname);
    return lib;
}

/* Opens the backend at `path`; a second opening of the same file in this process would return
 * the copy already bound to another library, so that one loads a private copy of the file (a
 * memfd: a file of its own to the dynamic loader). */
static void *
open_backend(const char *path, char *why, size_t why_nbytes)
{
    int seen = 0;
    for (unsigned i = 0; i < nloaded; i++)
        seen |= strcmp(loaded[i], path) == 0;
    if (!seen) {
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h)
            snprintf(why, why_nbytes, "%s", dlerror());
        else if (nloaded < sizeof(loaded) / sizeof(loaded[0]))
            snprintf(loaded[nloaded++], sizeof(loaded[0]), "%s", path);
        return h;
    }
    int src = open(path, O_RDONLY | O_CLOEXEC);
    int dst = memfd_create("h5turbo-backend", MFD_CLOEXEC);
    if (src < 0 || dst < 0) {
        snprintf(why, why_nbytes, "cannot make a second copy of %s: %s", path, strerror(errno));
        if (src >= 0)
            close(src);
        if (dst >= 0)
            close(dst);
        return NULL;
    }
    char    buf[1 << 16];
    ssize_t n;
    while ((n = read(src, buf, sizeof(buf))) > 0)
        if (write(dst, buf, (size_t)n) != n) {
            n = -1;
            break;
        }
    close(src);
    void *h = NULL;
    if (n == 0) {
        char fdpath[64];
        snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", dst);
        h = dlopen(fdpath, RTLD_NOW | RTLD_LOCAL);
        if (!h)
            snprintf(why, why_nbytes, "%s", dlerror());
    } else
        snprintf(why, why_nbytes, "cannot copy %s", path);
    /* The descriptor stays open: the loader knows the copy by the name /proc/self/fd/N, and would
     * take a later copy opened under a reused N for this one. */
    if (!h)
        close(dst);
    return h;
}

/* The backend serving the library that holds `caller`, loaded on first use; NULL if none can. */
static served_t *
backend_for(const void *caller)
{
    char  path[PATH_MAX];
    void *lib = hdf5_at(caller, path, sizeof(path));
    if (!lib) /* not called by an HDF5 library: the one the process sees globally */
        lib = hdf5_at(dlsym(RTLD_DEFAULT, "H5get_libversion"), path, sizeof(path));
    if (!lib) {
        static int said;
        if (!said++)
            fprintf(stderr, "h5turbo: %s: no HDF5 library called it, and none is loaded globally\n", front_path());
        return NULL;
    }
    for (unsigned i = 0; i < nserved; i++)
        if (served[i].lib == lib) {
            dlclose(lib);
            return served[i].ok ? &served[i] : NULL;
        }
    if (nserved == MAX_SERVED)
        return NULL;
    served_t *s = &served[nserved++];
    s->lib      = lib;

    int (*get_version)(unsigned *, unsigned *, unsigned *);
    *(void **)&get_version = dlsym(lib, "H5get_libversion");
    unsigned v[3] = {0, 0, 0};
    get_version(&v[0], &v[1], &v[2]);
    /* The builds beside the front: hdf5-1/ (1.14) and hdf5-2/ (2.x), each with a file of the
     * front's own name. */
    const char *self = front_path();
    const char *base = strrchr(self, '/');
    char        backend[PATH_MAX], why[PATH_MAX + 128] = "";
    if (!base) {
        fprintf(stderr, "h5turbo: %s: cannot tell the folder it was loaded from\n", self);
        return NULL;
    }
    if (v[0] != 1 && v[0] != 2) {
        fprintf(stderr, "h5turbo: %s does not load into %s: h5turbo has builds for HDF5 1.14 and 2.x, not %u.%u.%u\n",
                self, path, v[0], v[1], v[2]);
        return NULL;
    }
    snprintf(backend, sizeof(backend), "%.*s/hdf5-%u%s", (int)(base - self), self, v[0], base);
    void *h = open_backend(backend, why, sizeof(why));
    if (h) {
        *(void **)&s->get_type = dlsym(h, "H5PLget_plugin_type");
        *(void **)&s->get_info = dlsym(h, "H5PLget_plugin_info");
    }
    if (!h || !s->get_type || !s->get_info) {
        fprintf(stderr, "h5turbo: %s does not load into %s (HDF5 %u.%u.%u): its build for HDF5 %u, %s, %s\n", self,
                path, v[0], v[1], v[2], v[0], backend, h ? "lacks the plugin entry points" : why);
        return NULL;
    }
    s->ok = 1;
    return s;
}

/* The backends found for the callers' return addresses, under `lock`. HDF5 asks a plugin file for
 * its type and info every time it searches the plugin folder for a filter it lacks (netCDF-C asks
 * of every variable whether zstd and bzip2 are there), and finding a caller's library (dladdr,
 * dlopen, dlsym) cost ~160k instructions a call; an address keeps its library for the process's
 * life (the backend keeps a reference to it), so it is found once. */
#define MAX_CALLERS 32
static struct {
    const void *addr;
    served_t   *s;
} callers[MAX_CALLERS];
static unsigned ncallers;

static served_t *
backend_of(const void *caller)
{
    for (unsigned i = 0; i < ncallers; i++)
        if (callers[i].addr == caller)
            return callers[i].s;
    served_t *s = backend_for(caller);
    if (s && ncallers < MAX_CALLERS) {
        callers[ncallers].addr = caller;
        callers[ncallers++].s  = s;
    }
    return s;
}

int
H5PLget_plugin_type(void)
{
    const void *caller = __builtin_return_address(0);
    pthread_mutex_lock(&lock);
    served_t *s    = backend_of(caller);
    int       type = TB_PLUGIN_TYPE_ERROR;
    if (s) {
        current_caller = caller;
        type           = s->get_type();
        current_caller = NULL;
    }
    pthread_mutex_unlock(&lock);
    return type;
}

const void *
H5PLget_plugin_info(void)
{
    const void *caller = __builtin_return_address(0);
    pthread_mutex_lock(&lock);
    served_t   *s    = backend_of(caller);
    const void *info = NULL;
    if (s) {
        current_caller = caller;
        info           = s->get_info();
        current_caller = NULL;
    }
    pthread_mutex_unlock(&lock);
    return info;
}
