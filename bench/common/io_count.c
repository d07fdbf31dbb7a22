/* io_count.c — LD_PRELOAD library counting read calls (pread/pread64/read/preadv) and bytes on
 * the descriptors of ONE data file (TB_IO_COUNT_FILE, matched by device and inode at open) and,
 * apart, on h5turbo sidecars (*.h5turbo-index); the benchmarks' "metadata reads" column. A
 * program reads the counts around one piece of work through tb_bench_io_count() (dlsym); at exit
 * "io_count: ..." goes to stderr, or is appended to the file named by TB_IO_COUNT_OUT. */
#undef _FORTIFY_SOURCE /* the wrappers below define open() itself */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FD 65536
enum { K_NONE = 0, K_DATA = 1, K_SIDECAR = 2 };

static _Atomic unsigned char kind[MAX_FD];
static atomic_long           counts[4]; /* data reads, data bytes, sidecar reads, sidecar bytes */
static atomic_int            target_state; /* 0 unknown, 1 known, 2 none */
static dev_t                 target_dev;
static ino_t                 target_ino;

/* what: 0 data-file read calls, 1 data-file bytes, 2 sidecar read calls, 3 sidecar bytes. */
__attribute__((visibility("default"))) long tb_bench_io_count(int what);

long
tb_bench_io_count(int what)
{
    return what >= 0 && what < 4 ? atomic_load(&counts[what]) : -1;
}

static void
find_target(void)
{
    if (atomic_load(&target_state) != 0)
        return;
    const char *p = getenv("TB_IO_COUNT_FILE");
    struct stat st;
    if (p && *p && stat(p, &st) == 0) {
        target_dev = st.st_dev;
        target_ino = st.st_ino;
        atomic_store(&target_state, 1);
    }
    else
        atomic_store(&target_state, 2);
}

static int
ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Classifies a descriptor just opened from path. */
static int
note_open(int fd, const char *path)
{
    if (fd < 0 || fd >= MAX_FD)
        return fd;
    unsigned char k = K_NONE;
    if (path && ends_with(path, ".h5turbo-index"))
        k = K_SIDECAR;
    else {
        find_target();
        struct stat st;
        if (atomic_load(&target_state) == 1 && fstat(fd, &st) == 0 && st.st_dev == target_dev &&
            st.st_ino == target_ino)
            k = K_DATA;
    }
    atomic_store(&kind[fd], k);
    return fd;
}

static void
note_read(int fd, ssize_t r)
{
    if (fd < 0 || fd >= MAX_FD)
        return;
    unsigned char k = atomic_load_explicit(&kind[fd], memory_order_relaxed);
    if (k == K_NONE)
        return;
    int base = k == K_DATA ? 0 : 2;
    atomic_fetch_add_explicit(&counts[base], 1, memory_order_relaxed);
    if (r > 0)
        atomic_fetch_add_explicit(&counts[base + 1], (long)r, memory_order_relaxed);
}

static void *
next(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

#define WANTS_MODE(flags) (((flags) & O_CREAT) || (((flags) & O_TMPFILE) == O_TMPFILE))

#define DEFINE_OPEN(fname)                                                                                 \
    __attribute__((visibility("default"))) int fname(const char *path, int flags, ...);                   \
    int fname(const char *path, int flags, ...)                                                            \
    {                                                                                                      \
        static int (*real)(const char *, int, ...);                                                        \
        if (!real)                                                                                         \
            real = (int (*)(const char *, int, ...))next(#fname);                                          \
        mode_t mode = 0;                                                                                   \
        if (WANTS_MODE(flags)) {                                                                           \
            va_list ap;                                                                                    \
            va_start(ap, flags);                                                                           \
            mode = (mode_t)va_arg(ap, int);                                                                \
            va_end(ap);                                                                                    \
        }                                                                                                  \
        return note_open(real(path, flags, mode), path);                                                   \
    }

#define DEFINE_OPENAT(fname)                                                                               \
    __attribute__((visibility("default"))) int fname(int dirfd, const char *path, int flags, ...);        \
    int fname(int dirfd, const char *path, int flags, ...)                                                 \
    {                                                                                                      \
        static int (*real)(int, const char *, int, ...);                                                   \
        if (!real)                                                                                         \
            real = (int (*)(int, const char *, int, ...))next(#fname);                                     \
        mode_t mode = 0;                                                                                   \
        if (WANTS_MODE(flags)) {                                                                           \
            va_list ap;                                                                                    \
            va_start(ap, flags);                                                                           \
            mode = (mode_t)va_arg(ap, int);                                                                \
            va_end(ap);                                                                                    \
        }                                                                                                  \
        return note_open(real(dirfd, path, flags, mode), path);                                            \
    }

/* The _2 forms are what _FORTIFY_SOURCE builds call for two-argument opens. */
#define DEFINE_OPEN2(fname)                                                                                \
    __attribute__((visibility("default"))) int fname(const char *path, int flags);                        \
    int fname(const char *path, int flags)                                                                 \
    {                                                                                                      \
        static int (*real)(const char *, int);                                                             \
        if (!real)                                                                                         \
            real = (int (*)(const char *, int))next(#fname);                                               \
        return note_open(real(path, flags), path);                                                         \
    }

#define DEFINE_OPENAT2(fname)                                                                              \
    __attribute__((visibility("default"))) int fname(int dirfd, const char *path, int flags);             \
    int fname(int dirfd, const char *path, int flags)                                                      \
    {                                                                                                      \
        static int (*real)(int, const char *, int);                                                        \
        if (!real)                                                                                         \
            real = (int (*)(int, const char *, int))next(#fname);                                          \
        return note_open(real(dirfd, path, flags), path);                                                  \
    }

DEFINE_OPEN(open)
DEFINE_OPEN(open64)
DEFINE_OPENAT(openat)
DEFINE_OPENAT(openat64)
DEFINE_OPEN2(__open_2)
DEFINE_OPEN2(__open64_2)
DEFINE_OPENAT2(__openat_2)
DEFINE_OPENAT2(__openat64_2)

__attribute__((visibility("default"))) int close(int fd);

int
close(int fd)
{
    static int (*real)(int);
    if (!real)
        real = (int (*)(int))next("close");
    if (fd >= 0 && fd < MAX_FD)
        atomic_store(&kind[fd], K_NONE);
    return real(fd);
}

#define DEFINE_PREAD(fname, off_type)                                                                      \
    __attribute__((visibility("default"))) ssize_t fname(int fd, void *buf, size_t n, off_type off);      \
    ssize_t fname(int fd, void *buf, size_t n, off_type off)                                               \
    {                                                                                                      \
        static ssize_t (*real)(int, void *, size_t, off_type);                                             \
        if (!real)                                                                                         \
            real = (ssize_t(*)(int, void *, size_t, off_type))next(#fname);                                \
        ssize_t r = real(fd, buf, n, off);                                                                 \
        note_read(fd, r);                                                                                  \
        return r;                                                                                          \
    }

DEFINE_PREAD(pread, off_t)
DEFINE_PREAD(pread64, off64_t)

#define DEFINE_PREADV(fname, off_type)                                                                     \
    __attribute__((visibility("default"))) ssize_t fname(int fd, const struct iovec *iov, int n,          \
                                                         off_type off);                                    \
    ssize_t fname(int fd, const struct iovec *iov, int n, off_type off)                                    \
    {                                                                                                      \
        static ssize_t (*real)(int, const struct iovec *, int, off_type);                                  \
        if (!real)                                                                                         \
            real = (ssize_t(*)(int, const struct iovec *, int, off_type))next(#fname);                     \
        ssize_t r = real(fd, iov, n, off);                                                                 \
        note_read(fd, r);                                                                                  \
        return r;                                                                                          \
    }

DEFINE_PREADV(preadv, off_t)
DEFINE_PREADV(preadv64, off64_t)

__attribute__((visibility("default"))) ssize_t read(int fd, void *buf, size_t n);

ssize_t
read(int fd, void *buf, size_t n)
{
    static ssize_t (*real)(int, void *, size_t);
    if (!real)
        real = (ssize_t(*)(int, void *, size_t))next("read");
    ssize_t r = real(fd, buf, n);
    note_read(fd, r);
    return r;
}

__attribute__((destructor)) static void
report(void)
{
    char line[160];
    int  len = snprintf(line, sizeof(line), "io_count: data_reads=%ld data_bytes=%ld sidecar_reads=%ld sidecar_bytes=%ld\n",
                        atomic_load(&counts[0]), atomic_load(&counts[1]), atomic_load(&counts[2]),
                        atomic_load(&counts[3]));
    const char *path = getenv("TB_IO_COUNT_OUT");
    if (path && *path) {
        int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
        if (fd >= 0) {
            (void)!write(fd, line, (size_t)len);
            close(fd);
        }
        return;
    }
    if (len > 0)
        (void)!write(2, line, (size_t)len);
}
