/* sidecar_pack.c — the packs of small sidecars (sidecar_pack.h): append-only files of the reader's
 * private cache folder, each record one sidecar behind a checked frame, appended with one write
 * (atomic among processes on a local file system) and found through a table of the records this
 * process has walked, extended by what was appended since. The sidecar bytes themselves are checked
 * by the store as any sidecar's are (identity, checksums). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "sidecar_pack.h"
#include "index_model.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

/* A pack larger than this is not read (nothing appends past TB_SC_PACK_MAX but a race of two
 * appends at its end). */
#define PACK_READ_MAX (2 * TB_SC_PACK_MAX + 2 * (TB_SC_PACK_RECORD_MAX + TB_SC_PACK_FRAME))

/* ------------------------------------------------------------------ frames */
static uint32_t
get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t
get64(const uint8_t *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void
put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void
put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* magic (8) | dev (8) | ino (8) | len (4) | check (4): the low half of the frame's first 28 bytes'
 * checksum. */
static void
frame_make(uint8_t f[TB_SC_PACK_FRAME], uint64_t dev, uint64_t ino, uint32_t len)
{
    memcpy(f, TB_SC_PACK_MAGIC, 8);
    put64(f + 8, dev);
    put64(f + 16, ino);
    put32(f + 24, len);
    put32(f + 28, (uint32_t)tb_sidecar_checksum(f, 28));
}

static int
frame_sound(const uint8_t *f)
{
    return memcmp(f, TB_SC_PACK_MAGIC, 8) == 0 && get32(f + 28) == (uint32_t)tb_sidecar_checksum(f, 28) &&
           get32(f + 24) <= TB_SC_PACK_RECORD_MAX;
}

size_t
tb_sc_pack_scan(const uint8_t *buf, size_t n, uint64_t base,
                void (*record)(void *ctx, uint64_t dev, uint64_t ino, uint64_t off, uint32_t len), void *ctx)
{
    size_t p = 0;
    while (n - p >= 8) {
        const uint8_t *f = buf + p;
        if (memcmp(f, TB_SC_PACK_MAGIC, 8) != 0 || (n - p >= TB_SC_PACK_FRAME && !frame_sound(f))) {
            /* (the next magic after this one; past the end, all but what may begin one) */
            const uint8_t *m = memmem(f + 1, n - p - 1, TB_SC_PACK_MAGIC, 8);
            if (!m)
                return n - 7;
            p = (size_t)(m - buf);
            continue;
        }
        if (n - p < TB_SC_PACK_FRAME)
            break; /* (a frame still being appended) */
        uint32_t len = get32(f + 24);
        if (n - p - TB_SC_PACK_FRAME < len)
            break; /* (still being appended) */
        record(ctx, get64(f + 8), get64(f + 16), base + p + TB_SC_PACK_FRAME, len);
        p += TB_SC_PACK_FRAME + len;
    }
    return p;
}

int
tb_sc_local_fs(int fd)
{
    struct statfs s;
    if (fstatfs(fd, &s) != 0)
        return 0;
    switch ((unsigned long)s.f_type) {
    case 0xEF53UL:     /* ext2, ext3, ext4 */
    case 0x58465342UL: /* xfs */
    case 0x9123683EUL: /* btrfs */
    case 0x01021994UL: /* tmpfs */
    case 0x2FC12FC1UL: /* zfs */
    case 0x794C7630UL: /* overlayfs (containers) */
        return 1;
    default:
        return 0;
    }
}

int
tb_sc_pack_named(const char *name)
{
    return strncmp(name, TB_SC_PACK_PREFIX, sizeof(TB_SC_PACK_PREFIX) - 1) == 0;
}

/* ------------------------------------------------------------------ what this process walked */
typedef struct {
    uint64_t dev, ino, off;
    uint32_t len, used;
} slot_t;

/* One shard's pack as this process last saw it: its identity, how much of it was walked, the
 * latest record of each file found there, and the pack kept open (a look-up or an append then
 * costs a stat of the name and of the descriptor and a read of the head, where opening the pack
 * each time also cost an open, a close and, to append, a file-system query). */
typedef struct {
    dev_t    dev;
    ino_t    ino;
    uint8_t  id[8];  /* its head's: a pack made again can have the inode of the one before */
    uint64_t walked; /* (0: not even its head) */
    slot_t  *slots;
    size_t   mask, n; /* (slots: mask + 1 of them, n used) */
    int      fd1;     /* the pack's descriptor + 1 (0: none kept) */
    int      local;   /* (whether it lies on a local file system: tb_sc_local_fs) */
    time_t   touched; /* (the second of CLOCK_MONOTONIC its times were set last) */
} shard_t;

static pthread_mutex_t pack_mu = PTHREAD_MUTEX_INITIALIZER;
static dev_t           pack_dir_dev; /* the cache folder the shards were seen in */
static ino_t           pack_dir_ino;
static shard_t         shards[TB_SC_PACK_SHARDS];

static size_t
hash_of(uint64_t dev, uint64_t ino)
{
    uint64_t h = (ino ^ (dev * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
    return (size_t)(h ^ (h >> 31));
}

/* (the hash's top bits: its low ones place the file in its shard's table) */
static unsigned
shard_of(uint64_t dev, uint64_t ino)
{
    return (unsigned)((uint64_t)hash_of(dev, ino) >> 58) % TB_SC_PACK_SHARDS;
}

/* Whether descriptor fd is open on file (dev, ino); its stat in *st. */
static bool
fd_is(int fd, dev_t dev, ino_t ino, struct stat *st)
{
    return fstat(fd, st) == 0 && st->st_dev == dev && st->st_ino == ino;
}

/* Closes the pack s keeps open, where that descriptor is still the pack's (a program may have
 * closed it and opened something else at its number). */
static void
shard_close(shard_t *s)
{
    struct stat st;
    if (s->fd1 && fd_is(s->fd1 - 1, s->dev, s->ino, &st))
        close(s->fd1 - 1);
    s->fd1 = 0;
}

/* What s knows of its pack, forgotten: walked from its head next time. */
static void
shard_clear(shard_t *s)
{
    int fd1 = s->fd1, local = s->local;
    free(s->slots);
    memset(s, 0, sizeof(*s));
    s->fd1   = fd1;
    s->local = local;
}

static void
shard_forget(shard_t *s)
{
    shard_close(s);
    shard_clear(s);
}

static slot_t *
slot_find(shard_t *s, uint64_t dev, uint64_t ino)
{
    if (!s->slots)
        return NULL;
    for (size_t i = hash_of(dev, ino) & s->mask;; i = (i + 1) & s->mask) {
        slot_t *x = &s->slots[i];
        if (!x->used)
            return NULL;
        if (x->dev == dev && x->ino == ino)
            return x;
    }
}

/* Records (dev, ino)'s latest record; 0, or -1 out of memory. */
static int
slot_put(shard_t *s, uint64_t dev, uint64_t ino, uint64_t off, uint32_t len)
{
    slot_t *x = slot_find(s, dev, ino);
    if (!x) {
        if (!s->slots || 2 * (s->n + 1) > s->mask + 1) {
            size_t  cap   = s->slots ? 2 * (s->mask + 1) : 64;
            slot_t *slots = calloc(cap, sizeof(*slots));
            if (!slots)
                return -1;
            for (size_t k = 0; s->slots && k <= s->mask; k++) {
                if (!s->slots[k].used)
                    continue;
                size_t i = hash_of(s->slots[k].dev, s->slots[k].ino) & (cap - 1);
                while (slots[i].used)
                    i = (i + 1) & (cap - 1);
                slots[i] = s->slots[k];
            }
            free(s->slots);
            s->slots = slots;
            s->mask  = cap - 1;
        }
        size_t i = hash_of(dev, ino) & s->mask;
        while (s->slots[i].used)
            i = (i + 1) & s->mask;
        x       = &s->slots[i];
        x->dev  = dev;
        x->ino  = ino;
        x->used = 1;
        s->n++;
    }
    x->off = off;
    x->len = len;
    return 0;
}

typedef struct {
    shard_t *s;
    int      failed;
} walk_t;

static void
walk_record(void *ctx, uint64_t dev, uint64_t ino, uint64_t off, uint32_t len)
{
    walk_t *w = ctx;
    w->failed |= slot_put(w->s, dev, ino, off, len);
}

int
tb_sc_pread_all(int fd, void *buf, size_t n, off_t off)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, off + (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            return 0; /* shorter than it said */
        got += (size_t)r;
    }
    return 1;
}

int
tb_sc_link_unnamed(int fd, int dirfd, const char *name)
{
    /* (by its /proc name: linkat's AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH) */
    char proc[64];
    if (snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd) >= (int)sizeof(proc)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return linkat(AT_FDCWD, proc, dirfd, name, AT_SYMLINK_FOLLOW) == 0 ? 0 : -1;
}

/* Shard k's pack's name in the cache folder. */
static void
shard_name(unsigned k, char name[sizeof(TB_SC_PACK_PREFIX) + 8])
{
    snprintf(name, sizeof(TB_SC_PACK_PREFIX) + 8, TB_SC_PACK_PREFIX "%02x", k);
}

/* Makes shard k's pack at `name` in dirfd: its head written into an unnamed file, linked in at the
 * name (which fails where another process made one meanwhile: that one is used). Its descriptor
 * (appending), *created 1; or -1. */
static int
shard_make(int dirfd, const char *name, int flags, int *created)
{
    uint8_t head[TB_SC_PACK_HEAD];
    memcpy(head, TB_SC_PACK_HEAD_MAGIC, 8);
    if (getrandom(head + 8, 8, GRND_NONBLOCK) != 8) {
        uint64_t x = (uint64_t)getpid() * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)head;
        put64(head + 8, x);
    }
    int fd = openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC | O_NOCTTY, 0600);
    if (fd < 0)
        return -1;
    if (write(fd, head, sizeof(head)) != (ssize_t)sizeof(head) || fcntl(fd, F_SETFL, O_APPEND | O_NONBLOCK) != 0 ||
        tb_sc_link_unnamed(fd, dirfd, name) != 0) {
        int err = errno;
        close(fd);
        if (err != EEXIST)
            return -1;
        return openat(dirfd, name, flags); /* (another process made it meanwhile) */
    }
    *created = 1;
    return fd;
}

/* Brings what this process knows of shard k's pack in dirfd up to date (under pack_mu), making the
 * pack when asked (*created_out then 1). With want_fd, or where new records are to be walked, the
 * pack is opened (and its head checked): its descriptor; else -2 (up to date, not opened). -1 with
 * errno ENOENT where there is none, another errno where it is not to be used: only a regular file
 * of the reader's, not writable by others, reached without a symlink, no larger than a pack can be,
 * that starts with a pack's head. */
static int
shard_sync(int dirfd, unsigned k, int create, int want_fd, int *created_out)
{
    char name[sizeof(TB_SC_PACK_PREFIX) + 8];
    shard_name(k, name);
    shard_t    *s = &shards[k];
    struct stat ds, st;
    int         fd    = -1;
    int         flags = O_RDWR | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
    *created_out      = 0;
    if (fstat(dirfd, &ds) != 0)
        return -1;
    if (ds.st_dev != pack_dir_dev || ds.st_ino != pack_dir_ino) { /* (another cache folder) */
        for (unsigned i = 0; i < TB_SC_PACK_SHARDS; i++)
            shard_forget(&shards[i]);
        pack_dir_dev = ds.st_dev;
        pack_dir_ino = ds.st_ino;
    }
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno != ENOENT || !create) {
            shard_forget(s);
            return -1;
        }
        if ((fd = shard_make(dirfd, name, flags, created_out)) < 0 || fstat(fd, &st) != 0)
            goto fail;
    }
    if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)) ||
        (uint64_t)st.st_size > PACK_READ_MAX) {
        errno = EPERM;
        goto fail;
    }
    if (st.st_dev != s->dev || st.st_ino != s->ino || (uint64_t)st.st_size < s->walked) {
        shard_forget(s); /* (a new pack at the name: walked from its head) */
        s->dev = st.st_dev;
        s->ino = st.st_ino;
    }
    if (fd < 0 && !want_fd && (uint64_t)st.st_size == s->walked)
        return -2;
    if (fd < 0 && s->fd1) { /* (the one kept, while it is the file judged above) */
        struct stat os;
        if (fd_is(s->fd1 - 1, st.st_dev, st.st_ino, &os))
            fd = s->fd1 - 1;
        else
            s->fd1 = 0; /* (closed by the program: not ours to close) */
    }
    if (fd < 0) {
        /* (the file opened must be the one judged above) */
        struct stat os;
        if ((fd = openat(dirfd, name, flags)) < 0)
            goto fail;
        if (!fd_is(fd, st.st_dev, st.st_ino, &os)) {
            errno = EAGAIN;
            goto fail;
        }
        st = os;
    }
    if (s->fd1 != fd + 1) {
        shard_close(s);
        s->fd1   = fd + 1;
        s->local = tb_sc_local_fs(fd);
    }
    uint8_t head[TB_SC_PACK_HEAD];
    if (tb_sc_pread_all(fd, head, sizeof(head), 0) != 1 || memcmp(head, TB_SC_PACK_HEAD_MAGIC, 8) != 0) {
        errno = EPERM;
        goto fail;
    }
    if (s->walked && memcmp(head + 8, s->id, 8) != 0) { /* (made again, at the same inode) */
        shard_clear(s);
        s->dev = st.st_dev;
        s->ino = st.st_ino;
    }
    if (!s->walked) {
        memcpy(s->id, head + 8, 8);
        s->walked = TB_SC_PACK_HEAD;
    }
    if ((uint64_t)st.st_size > s->walked) {
        size_t   n   = (size_t)((uint64_t)st.st_size - s->walked);
        uint8_t *buf = malloc(n);
        walk_t   w   = {s, 0};
        if (!buf || tb_sc_pread_all(fd, buf, n, (off_t)s->walked) != 1) {
            free(buf);
            errno = EIO;
            goto fail;
        }
        size_t walked = tb_sc_pack_scan(buf, n, s->walked, walk_record, &w);
        free(buf);
        if (w.failed) { /* (out of memory: walked again next time) */
            errno = ENOMEM;
            goto fail;
        }
        s->walked += walked;
    }
    return fd;
fail:
    if (fd >= 0) {
        int err = errno;
        if (s->fd1 == fd + 1)
            shard_forget(s); /* (closes it) */
        else
            close(fd);
        errno = err;
    }
    return -1;
}

/* A copy of the record of (dev, ino) that shard s lists (in pack fd): 1, 0 where it lists none
 * (or a drop), -1 where it cannot be read. */
static int
record_read(int fd, const shard_t *s, uint64_t dev, uint64_t ino, void **buf_out, size_t *n_out)
{
    const slot_t *x = slot_find((shard_t *)s, dev, ino);
    if (!x || x->len == 0)
        return 0;
    void *buf = malloc(x->len);
    if (!buf || tb_sc_pread_all(fd, buf, x->len, (off_t)x->off) != 1) {
        free(buf);
        return -1;
    }
    *buf_out = buf;
    *n_out   = x->len;
    return 1;
}

int
tb_sc_pack_find(int dirfd, uint64_t dev, uint64_t ino, void **buf_out, size_t *n_out)
{
    unsigned        k = shard_of(dev, ino);
    int             created, found = -1;
    struct timespec now = {0, 0};
    pthread_mutex_lock(&pack_mu);
    /* Opened where a record is to be read: one listed already, or one among what is walked now
     * (the pack is opened for that anyway); else up to date, with none to read. */
    const slot_t *had = slot_find(&shards[k], dev, ino);
    int           fd  = shard_sync(dirfd, k, 0, had && had->len > 0, &created);
    if (fd == -1) {
        found = errno == ENOENT ? 0 : -1;
        goto done;
    }
    if (fd == -2) {
        found = 0;
        goto done;
    }
    if ((found = record_read(fd, &shards[k], dev, ino, buf_out, n_out)) > 0 &&
        (clock_gettime(CLOCK_MONOTONIC, &now) != 0 || now.tv_sec != shards[k].touched)) {
        /* Recently used packs are the last to be evicted from the cache: touched once a second at
         * most (a program reading a record from each of many files touched its pack per file). */
        const struct timespec ts[2] = {{.tv_nsec = UTIME_NOW}, {.tv_nsec = UTIME_OMIT}};
        (void)futimens(fd, ts);
        shards[k].touched = now.tv_sec;
    }
done:
    pthread_mutex_unlock(&pack_mu); /* (the descriptor stays the shard's) */
    return found;
}

int
tb_sc_pack_append(int dirfd, uint64_t dev, uint64_t ino, const void *bytes, size_t n, uint64_t max_nbytes,
                  int (*keep)(void *ctx, const void *had, size_t had_n), void *keep_ctx, uint64_t *added_out,
                  uint64_t *removed_out)
{
    uint64_t max = max_nbytes < TB_SC_PACK_MAX ? max_nbytes : TB_SC_PACK_MAX;
    if (n > TB_SC_PACK_RECORD_MAX || TB_SC_PACK_HEAD + TB_SC_PACK_FRAME + n > max)
        return -1;
    char     name[sizeof(TB_SC_PACK_PREFIX) + 8];
    unsigned k = shard_of(dev, ino);
    shard_name(k, name);
    *added_out   = 0;
    *removed_out = 0;
    int      created;
    pthread_mutex_lock(&pack_mu);
    int      fd  = shard_sync(dirfd, k, 1, 1, &created);
    shard_t *s   = &shards[k];
    int      ret = -1;
    if (fd < 0 || !s->local)
        goto done;
    if (created)
        *added_out = max; /* (a pack counts in the cache's total as all it may grow to) */
    void  *had = NULL;
    size_t hn  = 0;
    if (keep && record_read(fd, s, dev, ino, &had, &hn) > 0) {
        int kept = keep(keep_ctx, had, hn);
        free(had);
        if (kept) {
            ret = 1;
            goto done;
        }
    }
    if (s->walked + TB_SC_PACK_FRAME + n > max) {
        /* Full: it starts again (the name is taken from the pack seen, never from another). */
        struct stat at;
        if (s->walked <= TB_SC_PACK_HEAD || fstatat(dirfd, name, &at, AT_SYMLINK_NOFOLLOW) != 0 || at.st_ino != s->ino ||
            at.st_dev != s->dev || unlinkat(dirfd, name, 0) != 0)
            goto done;
        shard_forget(s);
        if ((fd = shard_sync(dirfd, k, 1, 1, &created)) < 0 || !s->local)
            goto done;
    }
    uint8_t      frame[TB_SC_PACK_FRAME];
    struct iovec iov[2] = {{frame, sizeof(frame)}, {(void *)(uintptr_t)bytes, n}};
    frame_make(frame, dev, ino, (uint32_t)n);
    if (writev(fd, iov, n ? 2 : 1) != (ssize_t)(TB_SC_PACK_FRAME + n))
        goto done; /* (a short write: its frame is walked past by the next scan) */
    ret = 0;
    /* The record is this process's own: known without reading it back when nothing came between. */
    off_t end = lseek(fd, 0, SEEK_CUR);
    if (end >= 0 && (uint64_t)end == s->walked + TB_SC_PACK_FRAME + n &&
        slot_put(s, dev, ino, s->walked + TB_SC_PACK_FRAME, (uint32_t)n) == 0)
        s->walked = (uint64_t)end;
done:
    pthread_mutex_unlock(&pack_mu); /* (the descriptor stays the shard's) */
    return ret;
}
