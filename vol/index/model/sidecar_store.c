/* sidecar_store.c — where sidecars live and whom they trust (tb_sidecar.h), in plain POSIX:
 * folders opened once and everything below them reached with *at() calls that never follow a
 * symlink, so nothing checked can be swapped before it is used.
 *
 * Trust model. Data sits in shared folders; a sidecar describes a file's links, attribute values
 * and small dataset contents, so it is as sensitive as the file and, when forged, can make a
 * program see data the file does not hold. Therefore:
 *  - by default sidecars live in the reader's own cache ($XDG_CACHE_HOME/h5turbo, else
 *    ~/.cache/h5turbo), a folder owned by the reader that nobody else may write (a base folder
 *    someone else can write is not used); nothing is added to the data's folder;
 *  - a shared place is opt-in (beside the file, or a configured folder). There only the data
 *    file's owner writes; anyone else writes to their own cache;
 *  - a sidecar is read only if it is a regular file reached without a symlink (O_NOFOLLOW,
 *    O_NONBLOCK, checked by fstat on the same descriptor), owned by the reader or by the data
 *    file's owner, not writable by group or others, and no larger than a sidecar of that file can
 *    be; its header must name the file's exact identity before the rest is read;
 *  - a sidecar's permissions are never wider than the data file's read bits (and its group is the
 *    file's group); in the reader's cache it is private (0600);
 *  - a first sidecar (no lock file, nothing at its name) is an unnamed file linked in at its
 *    name, which fails if the name was taken meanwhile; otherwise temp files are created
 *    exclusively under unpredictable names, lock files are opened without following symlinks and
 *    must be ours, the lock is never waited for beyond a bound; a writer records its temp's name
 *    in the lock file, so that the next one removes what a killed writer left without listing the
 *    folder (in the cache, folder listings happen only when its running total passes the bound);
 *  - every rejection is a silent miss (said with debug on, counted in the statistics). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tb_sidecar.h"
#include "index_model.h"
#include "sidecar_format.h"
#include "sidecar_pack.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#define SC_SUFFIX      ".h5turbo-index"
#define SC_LOCK_SUFFIX ".lock"
#define SC_TMP_INFIX   ".tmp."
/* The lock is tried without blocking, then again with growing pauses, for at most this long. */
#define SC_LOCK_WAIT_NS 400000000LL
/* A temp file is a dead writer's when its process is gone and it is older than this, or when it
 * is older than a day whatever its pid says (a pid can be reused, or belong to another host). */
#define SC_TMP_DEAD_AGE_S 10
#define SC_TMP_MAX_AGE_S  86400
/* Sidecars this large or larger are mapped for their decode where that is safe (read_at); below
 * it a copy costs less than the mapping's setup and unmapping (a 35 KB one: 8.5 us read, 28-34 us
 * mapped, populated and unmapped). */
#define SC_MAP_MIN (256 * 1024)

size_t tb_sc_tally[TB_SC_NOUTCOMES];

static const struct {
    const char *key, *phrase;
} outcomes[TB_SC_NOUTCOMES] = {
    [TB_SC_LOADED]        = {"loaded", "sidecar loaded"},
    [TB_SC_ABSENT]        = {"absent", "no sidecar"},
    [TB_SC_SYMLINK]       = {"symlink", "sidecar rejected (a symbolic link, not followed)"},
    [TB_SC_NOT_REGULAR]   = {"not_regular", "sidecar rejected (not a regular file)"},
    [TB_SC_FOREIGN_OWNER] = {"foreign_owner", "sidecar rejected (owned by neither you nor the file's owner)"},
    [TB_SC_WRITABLE]      = {"writable", "sidecar rejected (writable by group or others)"},
    [TB_SC_TOO_LARGE]     = {"too_large", "sidecar rejected (larger than a sidecar of this file can be)"},
    [TB_SC_CORRUPT]       = {"corrupt", "sidecar rejected (corrupt)"},
    [TB_SC_STALE]         = {"stale", "sidecar rejected (stale: another file or another version of it)"},
    [TB_SC_READ_ERROR]    = {"read_error", "sidecar rejected (cannot be read)"},
    [TB_SC_NO_MEMORY]     = {"no_memory", "sidecar not used (out of memory)"},
    [TB_SC_WRITTEN]       = {"written", "sidecar written"},
    [TB_SC_COVERED]       = {"covered", "sidecar kept (an existing one already covers this index)"},
    [TB_SC_YIELDED]       = {"yielded", "sidecar left to another rank of this MPI job (published since this open)"},
    [TB_SC_NO_DIR]        = {"no_dir", "no sidecar written (no usable folder; index kept in memory only)"},
    [TB_SC_LOCK_BUSY]     = {"lock_busy", "no sidecar written (lock held by another process; index kept in memory only)"},
    [TB_SC_LOCK_UNSAFE]   = {"lock_unsafe", "no sidecar written there (lock file is a symlink, not yours or not a "
                                             "regular file)"},
    [TB_SC_NO_LOCKING]    = {"no_locking", "no sidecar written there (no file locking)"},
    [TB_SC_WRITE_ERROR]   = {"write_error", "no sidecar written (cannot write there)"},
    [TB_SC_OVER_BUDGET]   = {"over_budget", "no sidecar written (larger than the cache's size bound)"},
    [TB_SC_TOO_RECENT]    = {"too_recent", "no sidecar used or written (file modified less than 2 s ago: versions "
                                            "cannot be told apart)"},
    [TB_SC_CHANGED]       = {"changed", "no sidecar written (file changed while open)"},
};

const char *
tb_sc_outcome_str(tb_sc_outcome_t o)
{
    return (unsigned)o < TB_SC_NOUTCOMES ? outcomes[o].phrase : "?";
}

const char *
tb_sc_outcome_key(tb_sc_outcome_t o)
{
    return (unsigned)o < TB_SC_NOUTCOMES ? outcomes[o].key : "?";
}

void
tb_sc_note(const tb_sc_policy_t *p, tb_sc_outcome_t o, const char *where)
{
    if ((unsigned)o < TB_SC_NOUTCOMES) /* (atomic: MPI jobs publish on a thread of their own) */
        __atomic_fetch_add(&tb_sc_tally[o], 1, __ATOMIC_RELAXED);
    if (p && p->debug)
        fprintf(stderr, "h5turbo index: %s: %s\n", tb_sc_outcome_str(o), where && *where ? where : "?");
}

static void
debug_say(const tb_sc_policy_t *p, const char *what, const char *path, int err)
{
    if (p && p->debug)
        fprintf(stderr, "h5turbo index: %s %s%s%s\n", what, path, err ? ": " : "", err ? strerror(err) : "");
}

/* ------------------------------------------------------------------ folders */

/* One place a sidecar may be: a folder held open, the name in it, and the path for messages. */
typedef struct loc {
    int            dirfd;
    tb_sc_where_t kind;
    char           name[NAME_MAX + 1];
    char           shown[PATH_MAX];
} loc_t;

/* A folder safe to keep our own files in: ours, and nobody else may write it. */
static int
stat_is_private_dir(const struct stat *st)
{
    return S_ISDIR(st->st_mode) && st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

static int
dir_is_private(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && stat_is_private_dir(&st);
}

/* The private folder opened last, kept open for the process's next sidecar: a lookup or a
 * publication then costs an fstat and a dup of it instead of two opens and two checks. Forgotten
 * when asked for another one (XDG_CACHE_HOME or HOME changed), when it was removed (no links
 * left) or is no longer private. */
static struct {
    pthread_mutex_t mu;
    int             fd;
    char            shown[PATH_MAX];
} kept_dir = {PTHREAD_MUTEX_INITIALIZER, -1, ""};

static int
kept_dir_get(const char *shown)
{
    int fd = -1;
    pthread_mutex_lock(&kept_dir.mu);
    if (kept_dir.fd >= 0 && strcmp(kept_dir.shown, shown) == 0) {
        struct stat st;
        if (fstat(kept_dir.fd, &st) == 0 && st.st_nlink > 0 && stat_is_private_dir(&st))
            fd = fcntl(kept_dir.fd, F_DUPFD_CLOEXEC, 0);
        if (fd < 0) {
            close(kept_dir.fd);
            kept_dir.fd = -1;
        }
    }
    pthread_mutex_unlock(&kept_dir.mu);
    return fd;
}

static void
kept_dir_put(int fd, const char *shown)
{
    pthread_mutex_lock(&kept_dir.mu);
    if (kept_dir.fd >= 0)
        close(kept_dir.fd);
    kept_dir.fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    snprintf(kept_dir.shown, sizeof(kept_dir.shown), "%s", shown);
    pthread_mutex_unlock(&kept_dir.mu);
}

/* Opens (creating it when asked) `sub` inside base, as a private folder: its descriptor, -1 when
 * it does not exist (and was not to be created), -2 when it is not safe to use. */
static int
open_private_sub(const tb_sc_policy_t *p, const char *base, const char *sub, int create, char *shown, size_t n)
{
    char want[PATH_MAX];
    if (snprintf(want, sizeof(want), "%s/%s", base, sub) >= (int)sizeof(want))
        return -2;
    int kfd = kept_dir_get(want);
    if (kfd >= 0) {
        snprintf(shown, n, "%s", want);
        return kfd;
    }
    int bfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    /* (another process may create it at the same time: EEXIST is as good) */
    if (bfd < 0 && errno == ENOENT && create && (mkdir(base, 0700) == 0 || errno == EEXIST))
        bfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (bfd < 0)
        return errno == ENOENT ? -1 : -2;
    if (!dir_is_private(bfd)) {
        debug_say(p, "not using cache base (not owned by you, or writable by others):", base, 0);
        close(bfd);
        return -2;
    }
    int fd = openat(bfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && create && (mkdirat(bfd, sub, 0700) == 0 || errno == EEXIST))
        fd = openat(bfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int err = errno;
    close(bfd);
    if (fd < 0)
        return err == ENOENT ? -1 : -2;
    if (!dir_is_private(fd)) {
        debug_say(p, "not using cache folder (not owned by you, or writable by others):", base, 0);
        close(fd);
        return -2;
    }
    snprintf(shown, n, "%s", want);
    kept_dir_put(fd, want);
    return fd;
}

/* The reader's cache folder: $XDG_CACHE_HOME/h5turbo, or ~/.cache/h5turbo when XDG_CACHE_HOME is
 * unset or not safe (someone else owns or may write it). -1 when there is none to use. */
static int
open_cache(const tb_sc_policy_t *p, int create, char *shown, size_t n)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0] == '/') {
        int fd = open_private_sub(p, xdg, "h5turbo", create, shown, n);
        if (fd != -2)
            return fd;
    }
    const char *home = getenv("HOME");
    char        pwbuf[4096];
    if (!home || home[0] != '/') {
        struct passwd pw, *res = NULL;
        if (getpwuid_r(geteuid(), &pw, pwbuf, sizeof(pwbuf), &res) != 0 || !res || !pw.pw_dir)
            return -1;
        home = pw.pw_dir;
    }
    char base[PATH_MAX];
    if (snprintf(base, sizeof(base), "%s/.cache", home) >= (int)sizeof(base))
        return -1;
    /* ~/.cache is made only inside an existing home. */
    struct stat hs;
    if (create && stat(home, &hs) != 0)
        create = 0;
    int fd = open_private_sub(p, base, "h5turbo", create, shown, n);
    return fd < 0 ? -1 : fd;
}

int
tb_sc_spill_open(void *policy)
{
    const tb_sc_policy_t *p = policy;
    char                  shown[PATH_MAX];
    int                   dirfd = open_cache(p, 1, shown, sizeof(shown));
    if (dirfd < 0)
        return -1;
    int fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {
        /* (No unnamed files there: a named one, gone from the folder at once.) */
        char name[64];
        for (int attempt = 0; attempt < 4 && fd < 0; attempt++) {
            uint64_t rnd = 0;
            if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
                rnd = (uint64_t)(uintptr_t)&rnd ^ (uint64_t)attempt * 0x9E3779B97F4A7C15ull;
            snprintf(name, sizeof(name), "spill.%ld.%016llx", (long)getpid(), (unsigned long long)rnd);
            fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
        }
        if (fd >= 0 && unlinkat(dirfd, name, 0) != 0) {
            close(fd);
            fd = -1;
        }
    }
    debug_say(p, fd >= 0 ? "index spills to an unnamed file in" : "index cannot spill to", shown,
              fd >= 0 ? 0 : errno);
    close(dirfd);
    return fd;
}

/* Fills l for f's sidecar at place `kind`; -1 when that place cannot be used. */
static int
loc_open(const tb_sc_policy_t *p, tb_sc_where_t kind, const tb_sc_file_t *f, int create, loc_t *l)
{
    char dir[PATH_MAX];
    l->kind  = kind;
    l->dirfd = -1;
    int r;
    if (kind == TB_SC_BESIDE) {
        const char *slash = strrchr(f->path, '/');
        if (!slash)
            return -1;
        size_t dlen = slash == f->path ? 1 : (size_t)(slash - f->path);
        if (dlen >= sizeof(dir))
            return -1;
        memcpy(dir, f->path, dlen);
        dir[dlen] = '\0';
        r         = snprintf(l->name, sizeof(l->name), ".%s%s", slash + 1, SC_SUFFIX);
        l->dirfd  = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    else {
        r = snprintf(l->name, sizeof(l->name), "%016llx-%016llx%s", (unsigned long long)f->id.dev,
                     (unsigned long long)f->id.ino, SC_SUFFIX);
        if (kind == TB_SC_DIR) {
            if (!p->dir || p->dir[0] != '/')
                return -1;
            snprintf(dir, sizeof(dir), "%s", p->dir);
            l->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        }
        else
            l->dirfd = open_cache(p, create, dir, sizeof(dir));
    }
    if (r < 0 || r >= (int)sizeof(l->name) - 40 || l->dirfd < 0) {
        /* (names leave room for the lock and temp suffixes) */
        if (l->dirfd >= 0)
            close(l->dirfd);
        l->dirfd = -1;
        return -1;
    }
    if (snprintf(l->shown, sizeof(l->shown), "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, l->name) >=
        (int)sizeof(l->shown)) {
        close(l->dirfd);
        l->dirfd = -1;
        return -1;
    }
    return 0;
}

static void
loc_close(loc_t *l)
{
    if (l->dirfd >= 0)
        close(l->dirfd);
    l->dirfd = -1;
}

/* ------------------------------------------------------------------ trusted reads */

/* No sidecar of a file can be larger than this: every record stands for at least ~16 bytes of
 * the file's own metadata and every string or value is a copy of bytes in the file. */
static uint64_t
size_bound(const tb_sc_file_t *f)
{
    uint64_t s = f->id.size;
    return s > (UINT64_MAX >> 5) ? UINT64_MAX : 16 * s + ((uint64_t)1 << 20);
}

/* Whom a sidecar at `st` may be trusted from, and whether it looks like one. */
static tb_sc_outcome_t
judge(const struct stat *st, const tb_sc_file_t *f)
{
    if (S_ISLNK(st->st_mode))
        return TB_SC_SYMLINK;
    if (!S_ISREG(st->st_mode))
        return TB_SC_NOT_REGULAR;
    if (st->st_uid != geteuid() && st->st_uid != f->uid)
        return TB_SC_FOREIGN_OWNER;
    if (st->st_mode & (S_IWGRP | S_IWOTH))
        return TB_SC_WRITABLE;
    if ((uint64_t)st->st_size > size_bound(f))
        return TB_SC_TOO_LARGE;
    if ((uint64_t)st->st_size < SC_HDR + SC_TRAILER)
        return TB_SC_CORRUPT;
    return TB_SC_LOADED;
}

/* A sidecar of SC_MAP_MIN bytes or more in the reader's own cache folder on a local file system
 * is mapped, not copied: the decoder reads the page cache's pages in place (copying a 4 MB
 * sidecar into fresh memory was a tenth of a second open's time: bench/index loader b). Safe
 * there: the folder is private and h5turbo never changes a sidecar in place (publication renames
 * a new file over the old one or links a new one in, gc and drop unlink), so a mapping keeps its
 * pages. On a network or parallel file system another machine's unlink can take them (a read of
 * the mapping then raises SIGBUS), and a sidecar in a shared place may be someone else's to
 * truncate: those are read into memory. The live mappings are listed so that tb_sc_release can
 * tell them from malloc'd buffers. */
#define SC_MAPS 8
static struct {
    void  *addr;
    size_t len;
} sc_maps[SC_MAPS];
static pthread_mutex_t sc_maps_mu = PTHREAD_MUTEX_INITIALIZER;

/* n bytes of fd mapped read-only (NULL: read it instead). */
static void *
map_sidecar(int fd, size_t n)
{
    void *p = NULL;
    pthread_mutex_lock(&sc_maps_mu);
    for (int i = 0; i < SC_MAPS; i++) {
        if (sc_maps[i].addr)
            continue;
        p = mmap(NULL, n, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
        if (p == MAP_FAILED)
            p = NULL;
        else
            sc_maps[i].addr = p, sc_maps[i].len = n;
        break;
    }
    pthread_mutex_unlock(&sc_maps_mu);
    return p;
}

/* The slot of mapping buf, or -1 (sc_maps_mu held). */
static int
map_slot(const void *buf)
{
    for (int i = 0; buf && i < SC_MAPS; i++)
        if (sc_maps[i].addr == buf)
            return i;
    return -1;
}

void
tb_sc_release(void *buf)
{
    pthread_mutex_lock(&sc_maps_mu);
    int i = map_slot(buf);
    if (i >= 0) {
        munmap(buf, sc_maps[i].len);
        sc_maps[i].addr = NULL;
    }
    pthread_mutex_unlock(&sc_maps_mu);
    if (i < 0)
        free(buf);
}

void *
tb_sc_own(void *buf, size_t n)
{
    pthread_mutex_lock(&sc_maps_mu);
    int i = map_slot(buf);
    pthread_mutex_unlock(&sc_maps_mu);
    if (i < 0)
        return buf;
    void *c = malloc(n ? n : 1);
    if (c)
        memcpy(c, buf, n);
    tb_sc_release(buf);
    return c;
}

/* Reads the sidecar at l when it is trusted and its header names exactly f. st_out (may be NULL)
 * gets the status of the file opened there, st_ino 0 when none was. */
static tb_sc_outcome_t
read_at(const loc_t *l, const tb_sc_file_t *f, void **buf_out, size_t *n_out, tb_ix_identity_t *id_out,
        struct stat *st_out)
{
    if (st_out)
        memset(st_out, 0, sizeof(*st_out));
    int fd = openat(l->dirfd, l->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR || errno == ENAMETOOLONG)
            return TB_SC_ABSENT;
        if (errno == ELOOP)
            return TB_SC_SYMLINK;
        struct stat st; /* unreadable: whose is it? */
        if (fstatat(l->dirfd, l->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && judge(&st, f) != TB_SC_LOADED)
            return judge(&st, f);
        return TB_SC_READ_ERROR;
    }
    struct stat      st;
    void            *buf = NULL;
    tb_sc_outcome_t o   = fstat(fd, &st) == 0 ? judge(&st, f) : TB_SC_READ_ERROR;
    if (o != TB_SC_READ_ERROR && st_out)
        *st_out = st;
    if (o != TB_SC_LOADED)
        goto done;
    /* The header first: a sidecar of another file or version costs one small read. */
    uint8_t           hdr[SC_HDR];
    tb_ix_identity_t id;
    uint64_t          total;
    int               r = tb_sc_pread_all(fd, hdr, sizeof(hdr), 0);
    if (r <= 0) {
        o = r < 0 ? TB_SC_READ_ERROR : TB_SC_CORRUPT;
        goto done;
    }
    if (tb_sidecar_peek(hdr, sizeof(hdr), &id, NULL, &total, NULL) < 0 || total != (uint64_t)st.st_size) {
        o = TB_SC_CORRUPT;
        goto done;
    }
    if (id_out)
        *id_out = id;
    if (memcmp(&id, &f->id, sizeof(id)) != 0) {
        o = TB_SC_STALE;
        goto done;
    }
    if (l->kind == TB_SC_CACHE && st.st_size >= SC_MAP_MIN && tb_sc_local_fs(fd))
        buf = map_sidecar(fd, (size_t)st.st_size);
    if (!buf) {
        if (!(buf = malloc((size_t)st.st_size))) {
            o = TB_SC_NO_MEMORY;
            goto done;
        }
        r = tb_sc_pread_all(fd, buf, (size_t)st.st_size, 0);
        if (r <= 0) {
            o = r < 0 ? TB_SC_READ_ERROR : TB_SC_CORRUPT;
            goto done;
        }
    }
    /* Recently used entries are the last to be evicted from the cache. */
    if (l->kind == TB_SC_CACHE) {
        const struct timespec ts[2] = {{.tv_nsec = UTIME_NOW}, {.tv_nsec = UTIME_OMIT}};
        (void)futimens(fd, ts);
    }
    *buf_out = buf;
    *n_out   = (size_t)st.st_size;
    buf      = NULL;
done:
    tb_sc_release(buf);
    close(fd);
    return o;
}

/* Whether n bytes are a sidecar of exactly f, as read_at asks of a sidecar's file. */
static tb_sc_outcome_t
judge_bytes(const tb_sc_file_t *f, const void *buf, size_t n, tb_ix_identity_t *id_out)
{
    tb_ix_identity_t id;
    uint64_t         total;
    if (n < SC_HDR + SC_TRAILER || tb_sidecar_peek(buf, n, &id, NULL, &total, NULL) < 0 || total != (uint64_t)n)
        return TB_SC_CORRUPT;
    if (id_out)
        *id_out = id;
    if ((uint64_t)n > size_bound(f))
        return TB_SC_TOO_LARGE;
    return memcmp(&id, &f->id, sizeof(id)) == 0 ? TB_SC_LOADED : TB_SC_STALE;
}

/* f's sidecar in a pack of the cache at l (sidecar_pack.h), where no file of its own is: as
 * read_at's outcomes; l->shown then names the pack. */
static tb_sc_outcome_t
read_packed(loc_t *l, const tb_sc_file_t *f, void **buf_out, size_t *n_out, tb_ix_identity_t *id_out)
{
    void  *buf = NULL;
    size_t n   = 0;
    int    r   = tb_sc_pack_find(l->dirfd, f->id.dev, f->id.ino, &buf, &n);
    if (r == 0)
        return TB_SC_ABSENT;
    char *slash = strrchr(l->shown, '/');
    if (slash)
        snprintf(slash + 1, sizeof(l->shown) - (size_t)(slash + 1 - l->shown), "%s (in a pack)",
                 l->name);
    if (r < 0)
        return TB_SC_READ_ERROR;
    tb_sc_outcome_t o = judge_bytes(f, buf, n, id_out);
    if (o == TB_SC_LOADED) {
        *buf_out = buf;
        *n_out   = n;
    }
    else
        free(buf);
    return o;
}

/* The places to look, in order: the configured one, then the reader's cache. */
static int
read_places(const tb_sc_policy_t *p, tb_sc_where_t out[2])
{
    int n = 0;
    if (p->where != TB_SC_CACHE)
        out[n++] = p->where;
    out[n++] = TB_SC_CACHE;
    return n;
}

tb_sc_outcome_t
tb_sc_load(const tb_sc_policy_t *p, const tb_sc_file_t *f, void **buf_out, size_t *n_out, tb_sc_found_t *found)
{
    tb_sc_where_t   places[2];
    int              np   = read_places(p, places);
    tb_sc_outcome_t best = TB_SC_ABSENT;
    for (int i = 0; i < np; i++) {
        loc_t l;
        if (loc_open(p, places[i], f, 0, &l) < 0)
            continue;
        tb_ix_identity_t id;
        memset(&id, 0, sizeof(id));
        id.size            = UINT64_MAX; /* (stays so when no header was read) */
        tb_sc_outcome_t o = read_at(&l, f, buf_out, n_out, &id, NULL);
        if (o == TB_SC_ABSENT && l.kind == TB_SC_CACHE)
            o = read_packed(&l, f, buf_out, n_out, &id);
        if (found && (o != TB_SC_ABSENT || best == TB_SC_ABSENT)) {
            snprintf(found->where, sizeof(found->where), "%s", l.shown);
            found->have_id = id.size != UINT64_MAX;
            found->id      = id;
        }
        if (o != TB_SC_LOADED)
            tb_sc_note(p, o, l.shown);
        loc_close(&l);
        if (o == TB_SC_LOADED)
            return o;
        if (best == TB_SC_ABSENT)
            best = o;
    }
    return best;
}

/* ------------------------------------------------------------------ temp files */

/* Parses "<name>.tmp.<pid>.<hex>": the pid, or -1 when `ent` is not a temp file of `name`. */
static long
temp_pid(const char *ent, const char *name)
{
    size_t n = strlen(name), k = strlen(SC_TMP_INFIX);
    if (strncmp(ent, name, n) != 0 || strncmp(ent + n, SC_TMP_INFIX, k) != 0)
        return -1;
    char *end;
    errno  = 0;
    long v = strtol(ent + n + k, &end, 10);
    return errno || end == ent + n + k || *end != '.' || v <= 0 ? -1 : v;
}

/* Whether the temp file `ent` (of writer pid) is a dead writer's and may go. */
static int
temp_is_dead(int dirfd, const char *ent, long pid, int any_age)
{
    struct stat st;
    if (fstatat(dirfd, ent, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return 0;
    time_t age  = time(NULL) - st.st_mtim.tv_sec;
    int    gone = kill((pid_t)pid, 0) < 0 && errno == ESRCH;
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
        return 0;
    return (gone && (any_age || age > SC_TMP_DEAD_AGE_S)) || age > SC_TMP_MAX_AGE_S;
}

/* Calls fn(dirfd, entry name, ctx) for every entry of the folder. */
static void
each_entry(int dirfd, void (*fn)(int, const char *, void *), void *ctx)
{
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    DIR *dir = fdopendir(fd);
    if (!dir) {
        close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(dir)))
        if (e->d_name[0] != '.' || (e->d_name[1] && (e->d_name[1] != '.' || e->d_name[2])))
            fn(dirfd, e->d_name, ctx);
    closedir(dir);
}

typedef struct sweep {
    const char *name;    /* the sidecar whose temps are swept */
    int         any_age; /* `drop`: a dead writer's temp goes whatever its age */
    int         removed, failed;
    void (*report)(const char *, int, void *);
    void       *report_ctx;
    const char *shown_dir;
} sweep_t;

static void
sweep_one(int dirfd, const char *ent, void *ctx)
{
    sweep_t    *s   = ctx;
    long        pid = temp_pid(ent, s->name);
    if (pid < 0 || !temp_is_dead(dirfd, ent, pid, s->any_age))
        return;
    int err = unlinkat(dirfd, ent, 0) == 0 ? 0 : errno;
    if (err == ENOENT)
        return;
    err ? s->failed++ : s->removed++;
    if (s->report) {
        char shown[PATH_MAX + NAME_MAX + 2];
        snprintf(shown, sizeof(shown), "%s/%s", s->shown_dir, ent);
        s->report(shown, err, s->report_ctx);
    }
}

/* The sidecar encoder's sink for a file: every byte written, EINTR retried. What it writes is
 * counted as read from the spill too (index_spill.h): the encoder counts its walks over the object
 * records, and this counts the rest (link names and targets, strings) by the bytes they become. */
typedef struct {
    int            fd;
    tb_ix_spill_t *spill;
} sink_t;

static int
to_fd(void *ctx, const void *bytes, size_t n)
{
    const sink_t *k    = ctx;
    int           fd   = k->fd;
    size_t        done = 0;
    tb_ix_spill_walked(k->spill, n);
    while (done < n) {
        ssize_t w = write(fd, (const char *)bytes + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        done += (size_t)w;
    }
    return 0;
}

/* Gives fd, a new file in l's folder, the mode and group for f and encodes d with f's identity
 * into it: TB_SC_WRITTEN with its size in *n_out, TB_SC_OVER_BUDGET for an encoding over
 * max_nbytes, else TB_SC_WRITE_ERROR (the caller closes fd and removes what has a name). */
static tb_sc_outcome_t
fill_sidecar(const loc_t *l, int fd, const tb_sc_file_t *f, const tb_ix_data_t *d, uint64_t max_nbytes,
             size_t *n_out)
{
    /* Never wider than the file's read bits, and in the file's group; private in the cache. */
    mode_t mode = S_IRUSR | S_IWUSR;
    if (l->kind != TB_SC_CACHE) {
        mode |= (mode_t)(f->mode & (S_IRGRP | S_IROTH));
        if ((mode & S_IRGRP) && fchown(fd, (uid_t)-1, (gid_t)f->gid) != 0)
            mode &= (mode_t)~S_IRGRP; /* not a member of the file's group: no group access */
    }
    *n_out         = 0;
    tb_status_t st = fchmod(fd, mode) == 0 ? tb_sidecar_encode_to(d, &f->id, f->path, max_nbytes, to_fd,
                                                                   &(sink_t){fd, d->spill}, n_out)
                                           : TB_ERR_IO;
    /* No fsync: a sidecar is a cache whose last 8 bytes are a checksum of the rest, so one whose
     * name reached the disk before its data (a crash) fails validation and is rebuilt; the fsync
     * cost 1-2 ms per published file, most of a first run's cost over stock (bench/mpi: 32 files). */
    return st == TB_ERR_UNSUPPORTED ? TB_SC_OVER_BUDGET : st == TB_OK ? TB_SC_WRITTEN : TB_SC_WRITE_ERROR;
}

/* Encodes d as a new temp file in l's folder (fill_sidecar), its name in tmp_out and recorded in
 * the lock file held (lock_fd); the temp is gone again unless TB_SC_WRITTEN. */
static tb_sc_outcome_t
write_temp(const loc_t *l, int lock_fd, const tb_sc_file_t *f, const tb_ix_data_t *d, uint64_t max_nbytes,
           char *tmp_out, size_t tmp_nbytes)
{
    int fd = -1;
    for (int attempt = 0; attempt < 4 && fd < 0; attempt++) {
        uint64_t rnd = 0;
        if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            rnd ^= (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)&ts ^ (uint64_t)attempt;
        }
        if (snprintf(tmp_out, tmp_nbytes, "%s%s%ld.%016llx", l->name, SC_TMP_INFIX, (long)getpid(),
                     (unsigned long long)rnd) >= (int)tmp_nbytes)
            return TB_SC_WRITE_ERROR;
        /* Recorded in the lock file before it exists: a writer killed from here on leaves its
         * name to the next one (sweep_recorded). */
        size_t tn = strlen(tmp_out);
        if (pwrite(lock_fd, tmp_out, tn, 0) != (ssize_t)tn || ftruncate(lock_fd, (off_t)tn) != 0)
            return TB_SC_WRITE_ERROR;
        fd = openat(l->dirfd, tmp_out, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
        if (fd < 0 && errno != EEXIST)
            return TB_SC_WRITE_ERROR;
    }
    if (fd < 0)
        return TB_SC_WRITE_ERROR;
    size_t          n;
    tb_sc_outcome_t o = fill_sidecar(l, fd, f, d, max_nbytes, &n);
    if (close(fd) != 0 && o == TB_SC_WRITTEN)
        o = TB_SC_WRITE_ERROR;
    if (o != TB_SC_WRITTEN)
        unlinkat(l->dirfd, tmp_out, 0);
    return o;
}

/* ------------------------------------------------------------------ locks */
/* Takes the lock of the file lname in dirfd (created if missing), waiting a bounded time;
 * TB_SC_WRITTEN with the locked descriptor in *fd_out. */
static tb_sc_outcome_t
lock_file(int dirfd, const char *lname, int *fd_out)
{
    /* Never follows a symlink (O_CREAT with O_NOFOLLOW fails on one, creating nothing) and never
     * blocks on a FIFO planted there. A lock file is never deleted: two writers could otherwise
     * hold "the" lock on two inodes. */
    int fd = openat(dirfd, lname, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0600);
    if (fd < 0)
        return errno == ELOOP ? TB_SC_LOCK_UNSAFE : TB_SC_WRITE_ERROR;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & (S_IWGRP | S_IWOTH))) {
        close(fd);
        return TB_SC_LOCK_UNSAFE;
    }
    long long waited = 0, pause = 1000000;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK || waited >= SC_LOCK_WAIT_NS) {
            int busy = errno == EWOULDBLOCK;
            close(fd);
            return busy ? TB_SC_LOCK_BUSY : TB_SC_NO_LOCKING; /* ENOLCK, EOPNOTSUPP */
        }
        struct timespec ts = {0, pause};
        nanosleep(&ts, NULL);
        waited += pause;
        pause = pause * 2 > 50000000 ? 50000000 : pause * 2;
    }
    *fd_out = fd;
    return TB_SC_WRITTEN;
}

/* The name of the lock file of the sidecar at l, in out; false when it does not fit. */
static bool
lock_name(const loc_t *l, char out[NAME_MAX + 1])
{
    return snprintf(out, NAME_MAX + 1, "%s%s", l->name, SC_LOCK_SUFFIX) < NAME_MAX + 1;
}

static tb_sc_outcome_t
lock_take(const loc_t *l, int *fd_out)
{
    char lname[NAME_MAX + 1];
    if (!lock_name(l, lname))
        return TB_SC_NO_DIR;
    return lock_file(l->dirfd, lname, fd_out);
}

/* ------------------------------------------------------------------ the cache's bound */
typedef struct entry {
    char     name[NAME_MAX + 1];
    uint64_t nbytes;
    int64_t  atime_ns;
} entry_t;

typedef struct scan {
    const tb_sc_policy_t *p;
    entry_t               *ents;
    size_t                 n, cap;
    tb_sc_cache_info_t   *info;
    int                    gc;    /* remove orphans while scanning */
    int                    temps; /* remove dead writers' temps while scanning */
    uid_t                  uid;   /* ours: only our files count */
} scan_t;

static int
ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Whether the sidecar `ent` describes a file that is still there (by the path it records). */
static int
orphaned(int dirfd, const char *ent)
{
    int fd = openat(dirfd, ent, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return 0;
    uint8_t           buf[SC_HDR + PATH_MAX + 8];
    ssize_t           r = pread(fd, buf, sizeof(buf), 0);
    tb_ix_identity_t id;
    const char       *path = NULL;
    close(fd);
    if (r < (ssize_t)SC_HDR || tb_sidecar_peek(buf, (size_t)r, &id, NULL, NULL, &path) < 0 || !path)
        return 1; /* not a sidecar this version can use */
    struct stat st;
    return stat(path, &st) != 0 || (uint64_t)st.st_dev != id.dev || (uint64_t)st.st_ino != id.ino;
}

static void
scan_one(int dirfd, const char *ent, void *ctx)
{
    scan_t     *s = ctx;
    struct stat st;
    if (fstatat(dirfd, ent, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) || st.st_uid != s->uid)
        return;
    const char *tmp = strstr(ent, SC_SUFFIX SC_TMP_INFIX);
    if (tmp) {
        char name[NAME_MAX + 1];
        snprintf(name, sizeof(name), "%.*s", (int)(tmp - ent + strlen(SC_SUFFIX)), ent);
        long pid = temp_pid(ent, name);
        if (s->temps && pid > 0 && temp_is_dead(dirfd, ent, pid, 0) && unlinkat(dirfd, ent, 0) == 0) {
            s->info->removed_temps++;
            return;
        }
        s->info->ntemps++;
        return;
    }
    if (ends_with(ent, SC_SUFFIX SC_LOCK_SUFFIX)) {
        s->info->nlocks++;
        return;
    }
    int pack = tb_sc_pack_named(ent); /* (counted, and evicted whole, as one sidecar) */
    if (!pack && !ends_with(ent, SC_SUFFIX))
        return; /* not ours (the cache folder may hold other things) */
    if (s->gc && !pack && orphaned(dirfd, ent) && unlinkat(dirfd, ent, 0) == 0) {
        s->info->removed_orphans++;
        s->info->freed_nbytes += (uint64_t)st.st_size;
        return;
    }
    if (pack)
        s->info->npacks++;
    else
        s->info->nsidecars++;
    s->info->nbytes += (uint64_t)st.st_size;
    if (!s->ents)
        return;
    if (s->n == s->cap) {
        size_t   cap = s->cap ? 2 * s->cap : 64;
        entry_t *e   = realloc(s->ents, cap * sizeof(*e));
        if (!e)
            return;
        s->ents = e;
        s->cap  = cap;
    }
    entry_t *e = &s->ents[s->n++];
    snprintf(e->name, sizeof(e->name), "%s", ent);
    e->nbytes   = (uint64_t)st.st_size;
    e->atime_ns = (int64_t)st.st_atim.tv_sec * 1000000000LL + st.st_atim.tv_nsec;
}

static int
cmp_atime(const void *a, const void *b)
{
    const entry_t *x = a, *y = b;
    return (x->atime_ns > y->atime_ns) - (x->atime_ns < y->atime_ns);
}

/* Scans the cache at dirfd, removing dead writers' temps (gc: also orphans), and evicts the least
 * recently used sidecars, never `keep`, until it holds at most max_nbytes. */
static void
cache_trim(const tb_sc_policy_t *p, int dirfd, uint64_t max_nbytes, const char *keep, int gc,
           tb_sc_cache_info_t *info)
{
    scan_t s = {.p = p, .info = info, .gc = gc, .temps = 1, .uid = geteuid()};
    s.ents   = malloc(64 * sizeof(*s.ents));
    s.cap    = s.ents ? 64 : 0;
    each_entry(dirfd, scan_one, &s);
    if (info->nbytes > max_nbytes && s.ents) {
        qsort(s.ents, s.n, sizeof(*s.ents), cmp_atime);
        for (size_t i = 0; i < s.n && info->nbytes > max_nbytes; i++) {
            if (keep && strcmp(s.ents[i].name, keep) == 0)
                continue;
            if (unlinkat(dirfd, s.ents[i].name, 0) == 0) {
                info->nbytes -= s.ents[i].nbytes;
                if (tb_sc_pack_named(s.ents[i].name))
                    info->npacks--;
                else
                    info->nsidecars--;
                info->evicted++;
                info->freed_nbytes += s.ents[i].nbytes;
            }
        }
    }
    free(s.ents);
}

/* The temp file a writer killed while publishing at l left behind: the lock file (locked by us)
 * names the temp its last holder was writing, cleared once renamed or removed (at the end of
 * publish_at, which also clears this record). Only a temp of this sidecar, in this folder,
 * regular and ours, is removed. */
static void
sweep_recorded(const loc_t *l, int lock_fd)
{
    char    name[NAME_MAX + 1];
    ssize_t n = pread(lock_fd, name, sizeof(name) - 1, 0);
    if (n <= 0)
        return;
    name[n] = '\0';
    struct stat st;
    if (strlen(name) == (size_t)n && !strchr(name, '/') && temp_pid(name, l->name) > 0 &&
        fstatat(l->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
        unlinkat(l->dirfd, name, 0);
}

/* The cache's running total: a small file in the cache folder holding the bytes of its sidecars
 * as last counted, updated under its own lock by each publication, so that the bound is kept
 * without listing and stat'ing the whole folder at every close (with 10,000 sidecars that was
 * 10,000 stats per file closed). The folder is listed again when the total passes the bound, when
 * the file is missing, unreadable or cleared (drop and gc clear it). Sidecars removed by others
 * make the total too large (an early listing); only h5turbo writes into the folder. */
#define SC_TOTAL       "h5turbo-cache-total"
#define SC_TOTAL_MAGIC "h5tbtot1"

static void
total_write(int fd, uint64_t total)
{
    uint8_t b[16];
    memcpy(b, SC_TOTAL_MAGIC, 8);
    for (int i = 0; i < 8; i++)
        b[8 + i] = (uint8_t)(total >> (8 * i));
    if (pwrite(fd, b, sizeof(b), 0) != (ssize_t)sizeof(b))
        (void)!ftruncate(fd, 0); /* (a torn total is read as none) */
}

/* A sidecar of `added` bytes replaced one of `removed` (0: none) in the cache at dirfd: the total
 * follows, and the least recently used sidecars but `keep` go when it passes the bound. */
static void
cache_account(const tb_sc_policy_t *p, int dirfd, const char *keep, uint64_t added, uint64_t removed)
{
    int      fd    = -1;
    uint64_t total = 0;
    int      known = 0;
    uint8_t  b[16];
    if (lock_file(dirfd, SC_TOTAL, &fd) == TB_SC_WRITTEN && pread(fd, b, sizeof(b), 0) == (ssize_t)sizeof(b) &&
        memcmp(b, SC_TOTAL_MAGIC, 8) == 0) {
        for (int i = 0; i < 8; i++)
            total |= (uint64_t)b[8 + i] << (8 * i);
        known = 1;
    }
    total = (total > removed ? total - removed : 0) + added;
    if (!known || total > p->cache_max_nbytes) {
        tb_sc_cache_info_t info;
        memset(&info, 0, sizeof(info));
        cache_trim(p, dirfd, p->cache_max_nbytes, keep, 0, &info);
        total = info.nbytes;
    }
    if (fd >= 0) {
        total_write(fd, total);
        close(fd); /* releases the lock */
    }
}

/* Forgets the cache's total (the next publication counts the folder again). */
static void
cache_forget_total(int dirfd)
{
    int fd;
    if (lock_file(dirfd, SC_TOTAL, &fd) == TB_SC_WRITTEN) {
        (void)!ftruncate(fd, 0);
        close(fd);
    }
}

/* ------------------------------------------------------------------ publishing */

/* Sidecars this process wrote as files of their own in the cache; past TB_SC_PACK_AFTER, small ones
 * go to the packs (publish_packed). */
#define TB_SC_PACK_AFTER 8
static unsigned long files_written;

/* Whether n bytes of a sidecar (of the right file) are sound and hold what `want` counts. */
static bool
covers_bytes(const void *buf, size_t n, const tb_sc_counts_t *want)
{
    tb_sc_counts_t have;
    return tb_sidecar_decode(buf, n, NULL, NULL) == TB_OK && tb_sidecar_peek(buf, n, NULL, &have, NULL, NULL) == TB_OK &&
           tb_sidecar_covers(&have, want);
}

/* Whether the sidecar at l is sound, names f and covers what `want` counts; seen (may be NULL)
 * gets the status of the file looked at (read_at). */
static bool
covered_at(const loc_t *l, const tb_sc_file_t *f, const tb_sc_counts_t *want, struct stat *seen)
{
    void *buf    = NULL;
    size_t n     = 0;
    bool  covers = read_at(l, f, &buf, &n, NULL, seen) == TB_SC_LOADED && covers_bytes(buf, n, want);
    tb_sc_release(buf);
    return covers;
}

/* Whether neither l's lock file (so no writer came before, and no dead writer's temp waits to be
 * swept) nor anything at its sidecar's name exists: where a sidecar may be published without a
 * lock. */
static bool
untaken(const loc_t *l)
{
    char        lname[NAME_MAX + 1];
    struct stat st;
    return lock_name(l, lname) && fstatat(l->dirfd, lname, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT &&
           fstatat(l->dirfd, l->name, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT;
}

/* The first publication at l, without a lock: where l is untaken, the sidecar is encoded into an
 * unnamed file of the folder (O_TMPFILE) and linked in at its name, which fails if anything took
 * the name meanwhile. No lock file, temp name or rename: two files fewer to create, each 50-100 us
 * of a first run's close (bench/mpi README); a writer killed meanwhile leaves nothing behind.
 * False, with nothing visible done, where the locked way must be taken (a lock or a name exists,
 * the file system has no O_TMPFILE, no /proc, the link lost a race); true with the outcome in *o
 * otherwise. */
static bool
publish_first(const tb_sc_policy_t *p, const loc_t *l, const tb_sc_file_t *f, const tb_ix_data_t *d,
              tb_sc_outcome_t *o)
{
    if (!untaken(l))
        return false;
    int fd = openat(l->dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC | O_NOCTTY, 0600);
    if (fd < 0)
        return false;
    size_t n = 0;
    *o       = fill_sidecar(l, fd, f, d, l->kind == TB_SC_CACHE ? p->cache_max_nbytes : UINT64_MAX, &n);
    bool linked = *o == TB_SC_WRITTEN && tb_sc_link_unnamed(fd, l->dirfd, l->name) == 0;
    close(fd);
    if (*o == TB_SC_WRITTEN && !linked)
        return false;
    if (linked && l->kind == TB_SC_CACHE) {
        cache_account(p, l->dirfd, l->name, (uint64_t)n, 0);
        __atomic_fetch_add(&files_written, 1, __ATOMIC_RELAXED);
    }
    return true;
}

/* The bound on one pack: all of them together take at most half the cache's. */
static uint64_t
pack_max(const tb_sc_policy_t *p)
{
    return p->cache_max_nbytes / (2 * TB_SC_PACK_SHARDS);
}

/* What a pack holds of a file decides as a sidecar at its name would: with yield, any sidecar of it
 * is left as it is; otherwise one that covers the index. */
typedef struct {
    const tb_sc_policy_t *p;
    const tb_sc_file_t   *f;
    tb_sc_counts_t        want;
} packed_t;

static int
packed_keeps(void *ctx, const void *had, size_t n)
{
    const packed_t *k = ctx;
    return judge_bytes(k->f, had, n, NULL) == TB_SC_LOADED && (k->p->yield || covers_bytes(had, n, &k->want));
}

/* A publication in the cache of a process that has published TB_SC_PACK_AFTER sidecars as files
 * already: a small sidecar of a file that has no file of its own (untaken: no lock file either, the
 * sign of one) is appended to a pack instead (sidecar_pack.h): creating a file per data file cost
 * 35-135 us on the ext4 of this project's VMs, more than reading a little of such a file. False
 * where it is to go to a file of its own. */
static bool
publish_packed(const tb_sc_policy_t *p, const loc_t *l, const tb_sc_file_t *f, const tb_ix_data_t *d,
               tb_sc_outcome_t *o)
{
    if (l->kind != TB_SC_CACHE || __atomic_load_n(&files_written, __ATOMIC_RELAXED) < TB_SC_PACK_AFTER || !untaken(l))
        return false;
    void    *buf = NULL;
    size_t   n   = 0;
    packed_t k   = {p, f, {0}};
    uint64_t added, removed;
    if (tb_sidecar_encode(d, &f->id, f->path, TB_SC_PACK_RECORD_MAX, &buf, &n) != TB_OK)
        return false;
    tb_sidecar_counts(d, &k.want);
    int r = tb_sc_pack_append(l->dirfd, f->id.dev, f->id.ino, buf, n, pack_max(p),
                              packed_keeps, &k, &added, &removed);
    free(buf);
    if (r < 0)
        return false;
    if (added || removed)
        cache_account(p, l->dirfd, NULL, added, removed);
    *o = r > 0 ? (p->yield ? TB_SC_YIELDED : TB_SC_COVERED) : TB_SC_WRITTEN;
    return true;
}

/* Whether anything is at l's sidecar name. (Not its lock's: a lock file stays after its writer,
 * also where the sidecar has gone since.) */
static bool
taken(const loc_t *l)
{
    struct stat st;
    return fstatat(l->dirfd, l->name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Publishes at l: a first sidecar linked in (publish_first); else nothing where p->yield finds
 * something at its name; else done if what is there covers d (looked at without the lock); else
 * lock, remove what a killed writer left, skip if covered by now, temp + rename; the cache kept
 * bounded. */
static tb_sc_outcome_t
publish_at(const tb_sc_policy_t *p, const loc_t *l, const tb_sc_file_t *f, const tb_ix_data_t *d)
{
    int             lfd = -1;
    tb_sc_outcome_t o;
    if (publish_packed(p, l, f, d, &o) || publish_first(p, l, f, d, &o))
        return o;
    if (p->yield && taken(l))
        return TB_SC_YIELDED; /* (publish_first, finding it there or losing its link to it, did nothing) */
    /* What is there may cover d already (another rank of an MPI job published it first, say):
     * looked at without the lock, as every reader does, so that such a publisher creates no lock
     * file. Under the lock it is looked at again only if the name holds another file by then
     * (sidecars are replaced by rename, never changed in place). */
    tb_sc_counts_t want;
    tb_sidecar_counts(d, &want);
    struct stat seen, now;
    if (covered_at(l, f, &want, &seen))
        return TB_SC_COVERED;
    if ((o = lock_take(l, &lfd)) != TB_SC_WRITTEN)
        return o;
    sweep_recorded(l, lfd);
    /* Another process may have published meanwhile: rebuild at most once. */
    int same = seen.st_ino && fstatat(l->dirfd, l->name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_ino == seen.st_ino &&
               now.st_dev == seen.st_dev && now.st_size == seen.st_size &&
               now.st_mtim.tv_sec == seen.st_mtim.tv_sec && now.st_mtim.tv_nsec == seen.st_mtim.tv_nsec;
    if (!same && covered_at(l, f, &want, NULL)) {
        o = TB_SC_COVERED;
        goto done;
    }
    char tmp[NAME_MAX + 1];
    if ((o = write_temp(l, lfd, f, d, l->kind == TB_SC_CACHE ? p->cache_max_nbytes : UINT64_MAX, tmp,
                        sizeof(tmp))) != TB_SC_WRITTEN)
        goto done;
    struct stat was;
    uint64_t    removed = fstatat(l->dirfd, l->name, &was, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(was.st_mode)
                              ? (uint64_t)was.st_size
                              : 0;
    if (renameat(l->dirfd, tmp, l->dirfd, l->name) != 0) {
        debug_say(p, "cannot publish", l->shown, errno);
        unlinkat(l->dirfd, tmp, 0);
        o = TB_SC_WRITE_ERROR;
        goto done;
    }
    if (l->kind == TB_SC_CACHE) {
        cache_account(p, l->dirfd, l->name,
                      fstatat(l->dirfd, l->name, &now, AT_SYMLINK_NOFOLLOW) == 0 ? (uint64_t)now.st_size : 0, removed);
        __atomic_fetch_add(&files_written, 1, __ATOMIC_RELAXED);
    }
done:
    (void)!ftruncate(lfd, 0); /* (the temp is renamed or removed) */
    close(lfd);               /* releases the lock */
    return o;
}

tb_sc_outcome_t
tb_sc_publish(const tb_sc_policy_t *p, const tb_sc_file_t *f, const struct tb_ix_data *d)
{
    loc_t            l;
    tb_sc_outcome_t o;
    /* A shared place takes sidecars from the data file's owner only; a folder that cannot be
     * written (read-only, full, no locking, a lock name taken by someone else) sends them to the
     * reader's cache. */
    if (p->where != TB_SC_CACHE && geteuid() == (uid_t)f->uid && loc_open(p, p->where, f, 0, &l) == 0) {
        o = publish_at(p, &l, f, d);
        tb_sc_note(p, o, l.shown);
        loc_close(&l);
        if (o != TB_SC_WRITE_ERROR && o != TB_SC_LOCK_UNSAFE && o != TB_SC_NO_LOCKING && o != TB_SC_NO_DIR)
            return o;
    }
    if (loc_open(p, TB_SC_CACHE, f, 1, &l) < 0) {
        tb_sc_note(p, TB_SC_NO_DIR, "the per-user cache");
        return TB_SC_NO_DIR;
    }
    o = publish_at(p, &l, f, d);
    tb_sc_note(p, o, l.shown);
    loc_close(&l);
    return o;
}

/* ------------------------------------------------------------------ maintenance */
tb_status_t
tb_sc_check(const void *buf, size_t n)
{
    return tb_sidecar_decode(buf, n, NULL, NULL);
}

int
tb_sc_drop(const tb_sc_policy_t *p, const tb_sc_file_t *f, void (*report)(const char *, int, void *),
            void *ctx)
{
    static const tb_sc_where_t kinds[] = {TB_SC_BESIDE, TB_SC_DIR, TB_SC_CACHE};
    int                         failed  = 0;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        loc_t l;
        if (loc_open(p, kinds[i], f, 0, &l) < 0)
            continue;
        int err = unlinkat(l.dirfd, l.name, 0) == 0 ? 0 : errno;
        if (err != ENOENT) {
            failed += err != 0;
            report(l.shown, err, ctx);
        }
        if (err == 0 && kinds[i] == TB_SC_CACHE)
            cache_forget_total(l.dirfd);
        void    *buf = NULL;
        size_t   n   = 0;
        uint64_t added, removed;
        if (kinds[i] == TB_SC_CACHE && tb_sc_pack_find(l.dirfd, f->id.dev, f->id.ino, &buf, &n) > 0) {
            /* (a record of nothing after it: the pack holds no sidecar of the file from then on) */
            err = tb_sc_pack_append(l.dirfd, f->id.dev, f->id.ino, NULL, 0, pack_max(p), NULL, NULL, &added,
                                    &removed) == 0
                      ? 0
                      : EIO;
            failed += err != 0;
            char shown[PATH_MAX + 16];
            snprintf(shown, sizeof(shown), "%s (in a pack)", l.shown);
            report(shown, err, ctx);
            free(buf);
        }
        char dir[PATH_MAX];
        snprintf(dir, sizeof(dir), "%.*s", (int)(strlen(l.shown) - strlen(l.name) - 1), l.shown);
        sweep_t s = {.name = l.name, .any_age = 1, .report = report, .report_ctx = ctx, .shown_dir = dir};
        each_entry(l.dirfd, sweep_one, &s);
        failed += s.failed;
        loc_close(&l);
    }
    return failed;
}

void
tb_sc_cache_info(const tb_sc_policy_t *p, tb_sc_cache_info_t *out)
{
    memset(out, 0, sizeof(*out));
    out->max_nbytes = p->cache_max_nbytes;
    int fd          = open_cache(p, 0, out->dir, sizeof(out->dir));
    if (fd < 0)
        return;
    out->usable = 1;
    scan_t s    = {.p = p, .info = out, .uid = geteuid()};
    each_entry(fd, scan_one, &s);
    close(fd);
}

int
tb_sc_gc(const tb_sc_policy_t *p, uint64_t max_nbytes, tb_sc_cache_info_t *out)
{
    memset(out, 0, sizeof(*out));
    out->max_nbytes = max_nbytes;
    int fd          = open_cache(p, 0, out->dir, sizeof(out->dir));
    if (fd < 0)
        return -1;
    out->usable = 1;
    cache_trim(p, fd, max_nbytes, NULL, 1, out);
    cache_forget_total(fd);
    close(fd);
    return 0;
}
