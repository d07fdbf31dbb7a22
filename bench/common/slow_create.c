/* slow_create.c — LD_PRELOAD library that makes file creation under one folder slow, as on a
 * network file system (NFS, Lustre: a round trip to the server per create): open/openat with
 * O_CREAT or O_TMPFILE of a path inside TB_SLOW_CREATE_DIR first sleep TB_SLOW_CREATE_US
 * microseconds. bench/mpi's run.sh uses it (CREATE_US=...) on the sidecar cache folder, to see what
 * publishing sidecars costs a first run where that folder is a network one. */
#undef _FORTIFY_SOURCE /* the wrappers below define open() itself */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether a create of `path` (relative to dirfd) lands in the slow folder. */
static int
slow_here(int dirfd, const char *path)
{
    const char *dir = getenv("TB_SLOW_CREATE_DIR");
    if (!dir || !*dir || !path)
        return 0;
    char where[PATH_MAX];
    if (path[0] == '/')
        snprintf(where, sizeof(where), "%s", path);
    else if (dirfd == AT_FDCWD) {
        if (!getcwd(where, sizeof(where)))
            return 0;
    }
    else {
        char    link[64];
        ssize_t n;
        snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
        if ((n = readlink(link, where, sizeof(where) - 1)) < 0)
            return 0;
        where[n] = '\0';
    }
    return strncmp(where, dir, strlen(dir)) == 0;
}

static void
maybe_sleep(int dirfd, const char *path, int flags)
{
    const char *us = getenv("TB_SLOW_CREATE_US");
    if (us && (flags & O_CREAT || (flags & __O_TMPFILE) == __O_TMPFILE) && slow_here(dirfd, path))
        usleep((useconds_t)atoi(us));
}

/* The mode argument of an open that creates (absent otherwise). */
#define CREATES(flags) (((flags) & O_CREAT) || ((flags) & __O_TMPFILE) == __O_TMPFILE)

int
openat(int dirfd, const char *path, int flags, ...)
{
    static int (*real)(int, const char *, int, ...);
    va_list    ap;
    va_start(ap, flags);
    mode_t mode = CREATES(flags) ? (mode_t)va_arg(ap, int) : 0;
    va_end(ap);
    if (!real)
        real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
    maybe_sleep(dirfd, path, flags);
    return real(dirfd, path, flags, mode);
}

int
open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = CREATES(flags) ? (mode_t)va_arg(ap, int) : 0;
    va_end(ap);
    return openat(AT_FDCWD, path, flags, mode); /* (the one above) */
}
