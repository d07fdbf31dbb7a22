/* test_pack.c — the packs of small sidecars (sidecar_pack.h) in a private folder: what is appended
 * is found again byte for byte, a later record replaces an earlier one and a drop hides it; records
 * appended at once by several processes are all found, by a process that walked the packs before
 * they grew; torn and damaged bytes in a pack lose only the records they hit; a pack made again at
 * the inode of the one before is walked anew; packs kept open that the program closed behind our
 * back are opened again, never its own files at their numbers; a full pack starts again within its
 * bound; a pack that is a symlink, a folder, writable by others, too large or headless is neither
 * read nor appended to; the frame scanner stops at a record still being appended. */
#include "tb_test.h"
#include "sidecar_pack.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEV 0xfe01u
#define BIG UINT64_MAX

/* Record i's bytes, `version` making later records of one file differ; n of them. */
static size_t
bytes_of(uint64_t ino, unsigned version, uint8_t *out)
{
    size_t n = 100 + (size_t)(ino * 37 + version * 11) % 1200;
    for (size_t k = 0; k < n; k++)
        out[k] = (uint8_t)(ino * 131 + version * 7 + k * 13);
    return n;
}

static int
append(int dirfd, uint64_t ino, unsigned version, uint64_t max)
{
    uint8_t  b[2048];
    uint64_t added, removed;
    size_t   n = bytes_of(ino, version, b);
    return tb_sc_pack_append(dirfd, DEV, ino, b, n, max, NULL, NULL, &added, &removed);
}

/* Whether the pack holds version `version` of ino's record exactly. */
static int
holds(int dirfd, uint64_t ino, unsigned version)
{
    uint8_t want[2048];
    size_t  wn = bytes_of(ino, version, want), n = 0;
    void   *buf = NULL;
    int     r   = tb_sc_pack_find(dirfd, DEV, ino, &buf, &n);
    int     ok  = r == 1 && n == wn && memcmp(buf, want, n) == 0;
    free(buf);
    return ok;
}

static int
packs_in(const char *dir, char names[][NAME_MAX + 1], int max)
{
    DIR *d = opendir(dir);
    ASSERT(d);
    int            n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (tb_sc_pack_named(e->d_name) && n < max)
            snprintf(names[n++], NAME_MAX + 1, "%s", e->d_name);
    closedir(d);
    return n;
}

static int
fresh_dir(char *dir, size_t n)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, n, "%s/tb_pack_XXXXXX", t && *t ? t : "/tmp");
    ASSERT(mkdtemp(dir));
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT(fd >= 0);
    return fd;
}

static void
rm_dir(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    ASSERT(system(cmd) == 0);
}

/* Forgets what this process walked of the packs, as a new process would know nothing of them (the
 * packs of another folder looked at). */
static void
forget(void)
{
    char dir[4096];
    int  fd = fresh_dir(dir, sizeof(dir));
    ASSERT_EQ(tb_sc_pack_find(fd, DEV, 1, &(void *){NULL}, &(size_t){0}), 0);
    close(fd);
    rm_dir(dir);
}

/* What a second scan of a pack's tail finds when the first stopped inside a record. */
typedef struct {
    uint64_t n, last_off;
    uint32_t last_len;
} seen_t;

static void
count_rec(void *ctx, uint64_t dev, uint64_t ino, uint64_t off, uint32_t len)
{
    seen_t *s = ctx;
    (void)dev, (void)ino;
    s->n++;
    s->last_off = off;
    s->last_len = len;
}

static void
scanner(void)
{
    char dir[4096];
    int  dirfd = fresh_dir(dir, sizeof(dir));
    ASSERT_EQ(append(dirfd, 7, 0, BIG), 0);
    char names[TB_SC_PACK_SHARDS][NAME_MAX + 1];
    ASSERT_EQ(packs_in(dir, names, TB_SC_PACK_SHARDS), 1);
    uint8_t buf[4096];
    int     fd = openat(dirfd, names[0], O_RDONLY);
    ssize_t n  = read(fd, buf, sizeof(buf));
    close(fd);
    /* its head, then its records */
    ASSERT(n > (ssize_t)(TB_SC_PACK_HEAD + TB_SC_PACK_FRAME) && memcmp(buf, TB_SC_PACK_HEAD_MAGIC, 8) == 0);
    n -= TB_SC_PACK_HEAD;
    memmove(buf, buf + TB_SC_PACK_HEAD, (size_t)n);
    seen_t s = {0};
    /* whole: one record, right after its frame */
    ASSERT_EQ(tb_sc_pack_scan(buf, (size_t)n, 0, count_rec, &s), n);
    ASSERT_EQ(s.n, 1);
    ASSERT_EQ(s.last_off, TB_SC_PACK_FRAME);
    ASSERT_EQ(s.last_len, n - TB_SC_PACK_FRAME);
    /* cut short anywhere: nothing found, nothing walked (walked again once the rest is there) */
    for (size_t cut = 0; cut < (size_t)n; cut += 97) {
        seen_t c = {0};
        ASSERT_EQ(tb_sc_pack_scan(buf, cut, 0, count_rec, &c), 0);
        ASSERT_EQ(c.n, 0);
    }
    /* behind garbage (a torn record): found; garbage alone is walked past but its last 7 bytes */
    uint8_t two[8192];
    memset(two, 'x', 300);
    memcpy(two + 300, buf, (size_t)n);
    s = (seen_t){0};
    ASSERT_EQ(tb_sc_pack_scan(two, 300 + (size_t)n, 1000, count_rec, &s), 300 + n);
    ASSERT_EQ(s.n, 1);
    ASSERT_EQ(s.last_off, 1000 + 300 + TB_SC_PACK_FRAME);
    ASSERT_EQ(tb_sc_pack_scan(two, 300, 0, count_rec, &s), 300 - 7);
    /* a frame whose check fails is not a record */
    buf[10] ^= 1;
    s = (seen_t){0};
    tb_sc_pack_scan(buf, (size_t)n, 0, count_rec, &s);
    ASSERT_EQ(s.n, 0);
    close(dirfd);
    rm_dir(dir);
}

static void
round_trip(void)
{
    char dir[4096];
    int  dirfd = fresh_dir(dir, sizeof(dir));
    ASSERT_EQ(tb_sc_pack_find(dirfd, DEV, 1, &(void *){NULL}, &(size_t){0}), 0); /* (no pack yet) */
    for (uint64_t i = 1; i <= 300; i++)
        ASSERT_EQ(append(dirfd, i, 0, BIG), 0);
    for (uint64_t i = 1; i <= 300; i++)
        ASSERT_MSG(holds(dirfd, i, 0), "record %llu", (unsigned long long)i);
    ASSERT_EQ(tb_sc_pack_find(dirfd, DEV, 301, &(void *){NULL}, &(size_t){0}), 0);
    ASSERT_EQ(tb_sc_pack_find(dirfd, DEV + 1, 1, &(void *){NULL}, &(size_t){0}), 0);
    /* a later record replaces, a drop hides */
    ASSERT_EQ(append(dirfd, 5, 1, BIG), 0);
    ASSERT(holds(dirfd, 5, 1) && !holds(dirfd, 5, 0));
    uint64_t added, removed;
    ASSERT_EQ(tb_sc_pack_append(dirfd, DEV, 6, NULL, 0, BIG, NULL, NULL, &added, &removed), 0);
    ASSERT_EQ(tb_sc_pack_find(dirfd, DEV, 6, &(void *){NULL}, &(size_t){0}), 0);
    ASSERT(holds(dirfd, 7, 0));
    char     names[TB_SC_PACK_SHARDS][NAME_MAX + 1];
    int      npacks = packs_in(dir, names, TB_SC_PACK_SHARDS);
    ASSERT(npacks > 1 && npacks <= (int)TB_SC_PACK_SHARDS);
    /* private packs */
    struct stat st;
    ASSERT(fstatat(dirfd, names[0], &st, 0) == 0 && (st.st_mode & 0777) == 0600);
    close(dirfd);
    rm_dir(dir);
}

static int
keep_all(void *ctx, const void *had, size_t n)
{
    (void)had;
    *(size_t *)ctx = n;
    return 1;
}

static void
keeping(void)
{
    char dir[4096];
    int  dirfd = fresh_dir(dir, sizeof(dir));
    ASSERT_EQ(append(dirfd, 9, 0, BIG), 0);
    uint8_t  b[2048];
    size_t   shown = 0, n = bytes_of(9, 1, b);
    uint64_t added, removed;
    ASSERT_EQ(tb_sc_pack_append(dirfd, DEV, 9, b, n, BIG, keep_all, &shown, &added, &removed), 1);
    ASSERT_EQ(shown, bytes_of(9, 0, b));
    ASSERT(holds(dirfd, 9, 0));
    /* the first record of a new pack adds all the pack may grow to, the next nothing */
    ASSERT_EQ(tb_sc_pack_append(dirfd, DEV, 10, b, 10, 4096, NULL, NULL, &added, &removed), 0);
    ASSERT(added == 4096 || added == 0);
    close(dirfd);
    rm_dir(dir);
}

/* Four processes append at once (each its own files and one shared file); a process that walked
 * the packs before then finds every record. */
static void
processes(void)
{
    char dir[4096];
    int  dirfd = fresh_dir(dir, sizeof(dir));
    ASSERT_EQ(append(dirfd, 1000, 0, BIG), 0);
    ASSERT(holds(dirfd, 1000, 0));
    pid_t pids[4];
    for (int p = 0; p < 4; p++) {
        if ((pids[p] = fork()) == 0) {
            for (uint64_t i = 0; i < 150; i++) {
                if (append(dirfd, 2000 + (uint64_t)p * 1000 + i, 0, BIG) != 0 || append(dirfd, 1, (unsigned)p, BIG) != 0)
                    _exit(3);
            }
            _exit(0);
        }
        ASSERT(pids[p] > 0);
    }
    for (int p = 0; p < 4; p++) {
        int status;
        ASSERT(waitpid(pids[p], &status, 0) == pids[p]);
        ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    for (int p = 0; p < 4; p++)
        for (uint64_t i = 0; i < 150; i++)
            ASSERT_MSG(holds(dirfd, 2000 + (uint64_t)p * 1000 + i, 0), "process %d record %llu", p,
                       (unsigned long long)i);
    ASSERT(holds(dirfd, 1, 0) || holds(dirfd, 1, 1) || holds(dirfd, 1, 2) || holds(dirfd, 1, 3));
    ASSERT(holds(dirfd, 1000, 0));
    close(dirfd);
    rm_dir(dir);
}

/* Bytes of a pack damaged or cut by a writer killed mid-append: only the records they hit are lost;
 * appends after them are found. */
static void
damage(void)
{
    char dir[4096];
    int  dirfd = fresh_dir(dir, sizeof(dir));
    for (uint64_t i = 1; i <= 64; i++)
        ASSERT_EQ(append(dirfd, i, 0, BIG), 0);
    char names[TB_SC_PACK_SHARDS][NAME_MAX + 1];
    int  npacks = packs_in(dir, names, TB_SC_PACK_SHARDS);
    for (int k = 0; k < npacks; k++) {
        int fd = openat(dirfd, names[k], O_RDWR | O_APPEND);
        ASSERT(fd >= 0);
        struct stat st;
        ASSERT(fstat(fd, &st) == 0);
        /* a byte flipped in the first frame, then a torn record at the end */
        uint8_t c;
        ASSERT(pread(fd, &c, 1, TB_SC_PACK_HEAD + 12) == 1);
        c ^= 0x40;
        int wfd = openat(dirfd, names[k], O_WRONLY); /* (pwrite on an O_APPEND descriptor appends) */
        ASSERT(wfd >= 0 && pwrite(wfd, &c, 1, TB_SC_PACK_HEAD + 12) == 1);
        close(wfd);
        uint8_t torn[40];
        memcpy(torn, TB_SC_PACK_MAGIC, 8);
        memset(torn + 8, 0x55, sizeof(torn) - 8);
        ASSERT(write(fd, torn, sizeof(torn)) == (ssize_t)sizeof(torn));
        close(fd);
    }
    forget();
    int lost = 0;
    for (uint64_t i = 1; i <= 64; i++)
        lost += !holds(dirfd, i, 0);
    ASSERT_MSG(lost == npacks, "%d records lost in %d packs", lost, npacks);
    for (uint64_t i = 1; i <= 64; i++)
        ASSERT_EQ(append(dirfd, i, 1, BIG), 0);
    for (uint64_t i = 1; i <= 64; i++)
        ASSERT_MSG(holds(dirfd, i, 1), "record %llu after the damage", (unsigned long long)i);
    forget();
    for (uint64_t i = 1; i <= 64; i++)
        ASSERT_MSG(holds(dirfd, i, 1), "record %llu after the damage, walked anew", (unsigned long long)i);
    close(dirfd);
    rm_dir(dir);
}

/* A pack made again at the inode of the one this process walked (as a file system reuses a freed
 * inode) is walked anew from its head: what it holds is found, what the one before held is not. */
static void
remade(void)
{
    char dir[4096], dir2[4096];
    int  dirfd = fresh_dir(dir, sizeof(dir)), dirfd2 = fresh_dir(dir2, sizeof(dir2));
    for (uint64_t i = 1; i <= 8; i++)
        ASSERT_EQ(append(dirfd2, i, 2, BIG), 0);
    for (uint64_t i = 100; i <= 400; i++) /* (more bytes than the packs of dir, after those records) */
        ASSERT_EQ(append(dirfd2, i, 1, BIG), 0);
    for (uint64_t i = 1; i <= 8; i++)
        ASSERT_EQ(append(dirfd, i, 0, BIG), 0);
    for (uint64_t i = 1; i <= 8; i++)
        ASSERT(holds(dirfd, i, 0));
    char names[TB_SC_PACK_SHARDS][NAME_MAX + 1];
    int  npacks = packs_in(dir, names, TB_SC_PACK_SHARDS);
    for (int k = 0; k < npacks; k++) { /* (the same inodes, dir2's bytes) */
        static uint8_t buf[1 << 20];
        int            from = openat(dirfd2, names[k], O_RDONLY), to = openat(dirfd, names[k], O_WRONLY | O_TRUNC);
        ssize_t        n    = from >= 0 ? read(from, buf, sizeof(buf)) : -1;
        ASSERT(to >= 0 && n > 0 && write(to, buf, (size_t)n) == n);
        close(from);
        close(to);
    }
    for (uint64_t i = 1; i <= 8; i++)
        ASSERT_MSG(holds(dirfd, i, 2) && !holds(dirfd, i, 0), "record %llu", (unsigned long long)i);
    close(dirfd);
    close(dirfd2);
    rm_dir(dir);
    rm_dir(dir2);
}

/* The packs the process keeps open: closed by the program behind our back (as a daemon closes
 * every descriptor) and their numbers taken by files of its own, they are opened again, and
 * nothing is written to or read from the program's files. */
static void
closed_behind(void)
{
    char dir[4096], mine[4200];
    int  dirfd = fresh_dir(dir, sizeof(dir));
    for (uint64_t i = 1; i <= 64; i++)
        ASSERT_EQ(append(dirfd, i, 0, BIG), 0);
    int taken[64], ntaken = 0;
    for (int fd = 3; fd < 1024; fd++) /* (every descriptor but the folder's, as the program's files) */
        if (fd != dirfd && fcntl(fd, F_GETFD) >= 0)
            close(fd);
    snprintf(mine, sizeof(mine), "%s/mine", dir);
    for (int k = 0; k < 64; k++) {
        taken[k] = open(mine, O_RDWR | O_CREAT | O_APPEND, 0600);
        ASSERT(taken[k] >= 0);
        ntaken++;
    }
    for (uint64_t i = 1; i <= 64; i++)
        ASSERT_MSG(holds(dirfd, i, 0), "record %llu after its pack was closed", (unsigned long long)i);
    for (uint64_t i = 1; i <= 64; i++)
        ASSERT_EQ(append(dirfd, i, 1, BIG), 0);
    for (uint64_t i = 1; i <= 64; i++)
        ASSERT(holds(dirfd, i, 1));
    struct stat st;
    ASSERT(stat(mine, &st) == 0);
    ASSERT_MSG(st.st_size == 0, "the program's file got %lld bytes", (long long)st.st_size);
    for (int k = 0; k < ntaken; k++)
        close(taken[k]);
    forget();
    for (uint64_t i = 1; i <= 64; i++)
        ASSERT(holds(dirfd, i, 1));
    close(dirfd);
    rm_dir(dir);
}

/* A full pack starts again: each stays within its bound, the latest records are there. */
static void
bounded(void)
{
    char dir[4096];
    int  dirfd = fresh_dir(dir, sizeof(dir));
    for (uint64_t i = 1; i <= 2000; i++)
        ASSERT_EQ(append(dirfd, i, 0, 8192), 0);
    char names[TB_SC_PACK_SHARDS][NAME_MAX + 1];
    int  npacks = packs_in(dir, names, TB_SC_PACK_SHARDS);
    for (int k = 0; k < npacks; k++) {
        struct stat st;
        ASSERT(fstatat(dirfd, names[k], &st, 0) == 0);
        ASSERT_MSG(st.st_size <= 8192, "%s: %lld bytes", names[k], (long long)st.st_size);
    }
    ASSERT(holds(dirfd, 2000, 0));
    ASSERT(!holds(dirfd, 1, 0)); /* (gone with its pack's first start again) */
    /* a record larger than a pack may be goes nowhere */
    ASSERT_EQ(append(dirfd, 1, 0, 64), -1);
    uint64_t added, removed;
    static uint8_t huge[TB_SC_PACK_RECORD_MAX + 1];
    ASSERT_EQ(tb_sc_pack_append(dirfd, DEV, 3, huge, sizeof(huge), BIG, NULL, NULL, &added, &removed), -1);
    close(dirfd);
    rm_dir(dir);
}

/* Packs that are not the reader's own private regular files are neither read nor appended to. */
static void
untrusted(void)
{
    char dir[4096];
    int  dirfd = fresh_dir(dir, sizeof(dir));
    ASSERT_EQ(append(dirfd, 1, 0, BIG), 0);
    char names[TB_SC_PACK_SHARDS][NAME_MAX + 1];
    ASSERT_EQ(packs_in(dir, names, TB_SC_PACK_SHARDS), 1);
    struct stat before, after;
    /* writable by others */
    ASSERT(fchmodat(dirfd, names[0], 0622, 0) == 0);
    ASSERT(fstatat(dirfd, names[0], &before, 0) == 0);
    ASSERT_EQ(tb_sc_pack_find(dirfd, DEV, 1, &(void *){NULL}, &(size_t){0}), -1);
    ASSERT_EQ(append(dirfd, 1, 1, BIG), -1);
    ASSERT(fstatat(dirfd, names[0], &after, 0) == 0 && after.st_size == before.st_size);
    /* a symlink at its name, to a file elsewhere: not followed, the file untouched */
    char target[4200], link[4400];
    snprintf(target, sizeof(target), "%s/elsewhere", dir);
    snprintf(link, sizeof(link), "%s/%s", dir, names[0]);
    ASSERT(renameat(dirfd, names[0], dirfd, "elsewhere") == 0 && fchmodat(dirfd, "elsewhere", 0600, 0) == 0);
    ASSERT(symlink(target, link) == 0);
    ASSERT_EQ(tb_sc_pack_find(dirfd, DEV, 1, &(void *){NULL}, &(size_t){0}), -1);
    ASSERT_EQ(append(dirfd, 1, 1, BIG), -1);
    ASSERT(fstatat(dirfd, "elsewhere", &after, 0) == 0 && after.st_size == before.st_size);
    /* a folder at its name */
    ASSERT(unlink(link) == 0 && mkdirat(dirfd, names[0], 0700) == 0);
    ASSERT_EQ(tb_sc_pack_find(dirfd, DEV, 1, &(void *){NULL}, &(size_t){0}), -1);
    ASSERT_EQ(append(dirfd, 1, 1, BIG), -1);
    /* not starting with a pack's head (a file of something else at its name) */
    ASSERT(unlinkat(dirfd, names[0], AT_REMOVEDIR) == 0);
    int other = openat(dirfd, names[0], O_WRONLY | O_CREAT | O_EXCL, 0600);
    ASSERT(other >= 0 && write(other, "not a pack, but long enough to be one", 37) == 37);
    close(other);
    ASSERT_EQ(tb_sc_pack_find(dirfd, DEV, 1, &(void *){NULL}, &(size_t){0}), -1);
    ASSERT_EQ(append(dirfd, 1, 1, BIG), -1);
    ASSERT(fstatat(dirfd, names[0], &after, 0) == 0 && after.st_size == 37);
    ASSERT(unlinkat(dirfd, names[0], 0) == 0 && mkdirat(dirfd, names[0], 0700) == 0);
    /* larger than a pack can be */
    ASSERT(unlinkat(dirfd, names[0], AT_REMOVEDIR) == 0 && renameat(dirfd, "elsewhere", dirfd, names[0]) == 0);
    ASSERT(holds(dirfd, 1, 0));
    ASSERT(truncate(link, (off_t)(3 * TB_SC_PACK_MAX)) == 0);
    ASSERT_EQ(tb_sc_pack_find(dirfd, DEV, 1, &(void *){NULL}, &(size_t){0}), -1);
    close(dirfd);
    rm_dir(dir);
}

int
main(void)
{
    scanner();
    round_trip();
    keeping();
    processes();
    damage();
    remade();
    closed_behind();
    bounded();
    untrusted();
    printf("ok: packs of small sidecars\n");
    return 0;
}
