/* test_spill.c — the index's spill (index_spill.h): tables and parts keep their content through
 * growth, moves into the file and releases; without a file everything is malloc'd; a forked child
 * and its parent never see each other's changes; an index whose tables are in the file encodes to
 * the same sidecar bytes as one in memory. The file is made by the sidecar store's own opener. */
#include "tb_test.h"
#include "sidecar_sample.h"
#include "sidecar_format.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static tb_sc_policy_t policy = {.where = TB_SC_CACHE};

static int
no_file(void *arg)
{
    (void)arg;
    return -1;
}

static uint64_t
pattern(uint64_t i, uint64_t salt)
{
    return (i + 1) * 0x9E3779B97F4A7C15ull ^ salt;
}

/* A table of n u64 grown one element at a time, as the index grows its tables. */
static uint64_t *
fill_table(tb_ix_spill_t *s, int lane, uint32_t n, uint64_t salt, uint32_t *cap)
{
    uint64_t *t = NULL;
    *cap        = 0;
    for (uint32_t i = 0; i < n; i++) {
        void *arr;
        ASSERT(tb_ix_spill_reserve(s, lane, t, cap, (uint64_t)i + 1, sizeof(*t), 64, &arr) == TB_OK);
        t    = arr;
        t[i] = pattern(i, salt);
    }
    return t;
}

/* A spill in the test's cache folder, used from `from` bytes on. */
static tb_ix_spill_t *
new_spill(uint64_t from)
{
    tb_ix_spill_t *s = tb_ix_spill_new(from, tb_sc_spill_open, &policy);
    ASSERT(s);
    return s;
}

static uint64_t
in_file_of(const tb_ix_spill_t *s)
{
    uint64_t in_file, allocated;
    tb_ix_spill_sizes(s, &in_file, &allocated);
    return in_file;
}

static void
check_table(const uint64_t *t, uint32_t n, uint64_t salt)
{
    for (uint32_t i = 0; i < n; i++)
        ASSERT_MSG(t[i] == pattern(i, salt), "element %u of %u", i, n);
}

/* Two tables and many parts in the file: content survives growth (in place), releases and the
 * move of a malloc'd table into the file; parts keep their addresses. */
static void
test_file(void)
{
    tb_ix_spill_t *s = new_spill(1 << 20);
    uint32_t  ca, cb;
    uint64_t *a = fill_table(s, TB_IX_LANE_OBJS, 300000, 1, &ca); /* (crosses the threshold) */
    uint64_t *b = fill_table(s, TB_IX_LANE_DSETS, 200000, 2, &cb);
    enum { NPART = 50000 };
    static uint8_t *parts[NPART];
    for (uint32_t k = 0; k < NPART; k++) {
        uint8_t buf[300];
        size_t  n = k % 300;
        memset(buf, (int)(k & 0xff), n);
        parts[k] = tb_ix_spill_keep(s, buf, n);
        ASSERT(parts[k]);
    }
    /* A large part, and a malloc'd block adopted. */
    size_t   big_n = (size_t)9 << 20;
    uint8_t *big   = malloc(big_n);
    ASSERT(big);
    memset(big, 0x5a, big_n);
    uint8_t *bigk = tb_ix_spill_keep(s, big, big_n);
    ASSERT(bigk);
    free(big);
    char *blk = malloc(100);
    ASSERT(blk);
    memcpy(blk, "adopted", 8);
    blk = tb_ix_spill_adopt(s, blk, 8);
    tb_ix_spill_release(s);
    check_table(a, 300000, 1);
    check_table(b, 200000, 2);
    for (uint32_t k = 0; k < NPART; k++)
        for (size_t i = 0; i < k % 300; i++)
            ASSERT_MSG(parts[k][i] == (uint8_t)(k & 0xff), "part %u byte %zu", k, i);
    for (size_t i = 0; i < big_n; i += 4096)
        ASSERT(bigk[i] == 0x5a);
    ASSERT(strcmp(blk, "adopted") == 0);
    uint64_t in_file, allocated;
    tb_ix_spill_sizes(s, &in_file, &allocated);
    ASSERT_MSG(in_file >= (uint64_t)ca * 8 && allocated >= (uint64_t)ca * 8, "in file %llu, allocated %llu",
               (unsigned long long)in_file, (unsigned long long)allocated);
    /* Freeing a part in the file is a no-op until the spill goes; a malloc'd one is freed. */
    tb_ix_spill_part_free(s, parts[7]);
    tb_ix_spill_part_free(s, malloc(10));
    tb_ix_spill_table_free(s, TB_IX_LANE_DSETS, b);
    /* Dropped and used again: tables start over. */
    tb_ix_spill_table_free(s, TB_IX_LANE_OBJS, a);
    tb_ix_spill_reset(s);
    tb_ix_spill_sizes(s, &in_file, &allocated);
    ASSERT(in_file == 0 && allocated == 0);
    /* (below the threshold again: in memory; past it, in the file) */
    a = fill_table(s, TB_IX_LANE_OBJS, 1000, 3, &ca);
    ASSERT(in_file_of(s) == 0);
    tb_ix_spill_table_free(s, TB_IX_LANE_OBJS, a);
    a = fill_table(s, TB_IX_LANE_OBJS, 300000, 3, &ca);
    ASSERT(in_file_of(s) > 0);
    check_table(a, 300000, 3);
    tb_ix_spill_free(s); /* (frees a) */
}

/* The process's resident bytes (/proc/self/statm). */
static uint64_t
resident(void)
{
    unsigned long long size = 0, res = 0;
    FILE              *f    = fopen("/proc/self/statm", "r");
    ASSERT(f);
    ASSERT(fscanf(f, "%llu %llu", &size, &res) == 2);
    fclose(f);
    return (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Whether the process's resident memory says what the application holds: not under
 * AddressSanitizer, whose quarantine keeps every block a table's growth frees resident (the "rest
 * of the process" then grows with the index itself, and the budget with it). */
#if defined(__SANITIZE_ADDRESS__)
#define RSS_TELLS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RSS_TELLS 0
#endif
#endif
#ifndef RSS_TELLS
#define RSS_TELLS 1
#endif

/* TB_IX_SPILL_AUTO: in memory while the process's spills hold at most a quarter of the rest of
 * the process (never in the file below TB_IX_SPILL_AUTO_MIN); the budget is the process's, shared
 * by its spills; and it grows with what the application holds. Sizes are taken relative to what
 * the process holds; a table's last growth may pass the budget by a quarter of itself (the look
 * comes before it), which the sizes leave room for. Under AddressSanitizer the same steps run and
 * the tables keep their content, but where each went is not asserted (RSS_TELLS). */
static void
test_auto(void)
{
    /* An index larger than the whole process: into the file. */
    tb_ix_spill_t *s = new_spill(TB_IX_SPILL_AUTO);
    uint32_t       ca, cb;
    uint64_t      *a = fill_table(s, TB_IX_LANE_OBJS, 60000, 4, &ca); /* (< 1 MiB) */
    ASSERT(in_file_of(s) == 0);
    tb_ix_spill_table_free(s, TB_IX_LANE_OBJS, a);
    tb_ix_spill_reset(s);
    uint32_t n1 = (uint32_t)((resident() + ((uint64_t)32 << 20)) / 8);
    a           = fill_table(s, TB_IX_LANE_OBJS, n1, 4, &ca);
    ASSERT_MSG(!RSS_TELLS || in_file_of(s) > 0, "an index of %u MiB in a process of %llu MiB stayed in memory",
               n1 >> 17, (unsigned long long)(resident() >> 20));
    check_table(a, n1, 4);
    tb_ix_spill_table_free(s, TB_IX_LANE_OBJS, a); /* (in the file or in memory) */
    tb_ix_spill_free(s);
    /* An application holding 160 MiB more than the process: an index of three quarters of the
     * budget stays in memory; a second index of the same process, half the budget (which alone
     * would fit), goes to its file once the two pass it. */
    size_t   app_n = ((size_t)160 << 20) + (size_t)resident();
    uint8_t *app   = malloc(app_n);
    ASSERT(app);
    memset(app, 1, app_n);
    uint64_t budget = resident() / 4 - ((uint64_t)2 << 20); /* (what the process's indexes may hold) */
    uint32_t n = (uint32_t)(budget * 3 / 4 / 8);
    s          = new_spill(TB_IX_SPILL_AUTO);
    a          = fill_table(s, TB_IX_LANE_OBJS, n, 5, &ca);
    ASSERT_MSG(!RSS_TELLS || in_file_of(s) == 0, "a %u MiB index beside %zu MiB went to its file", n >> 17,
               app_n >> 20);
    uint32_t       n2 = (uint32_t)(budget / 2 / 8);
    tb_ix_spill_t *s2 = new_spill(TB_IX_SPILL_AUTO);
    uint64_t      *b  = fill_table(s2, TB_IX_LANE_DSETS, n2, 6, &cb);
    ASSERT_MSG(!RSS_TELLS || in_file_of(s2) > 0, "indexes of %u and %u MiB beside %zu MiB stayed in memory",
               n >> 17, n2 >> 17, app_n >> 20);
    check_table(a, n, 5);
    check_table(b, n2, 6);
    tb_ix_spill_table_free(s2, TB_IX_LANE_DSETS, b);
    tb_ix_spill_table_free(s, TB_IX_LANE_OBJS, a);
    tb_ix_spill_free(s2);
    tb_ix_spill_free(s);
    free(app);
}

/* No file to be had: all in malloc'd memory, nothing in a file. */
static void
test_no_file(void)
{
    tb_ix_spill_t *s = tb_ix_spill_new(0, no_file, NULL);
    ASSERT(s);
    uint32_t  ca;
    uint64_t *a = fill_table(s, TB_IX_LANE_OBJS, 100000, 4, &ca);
    void     *p = tb_ix_spill_keep(s, "abc", 4);
    ASSERT(p && strcmp(p, "abc") == 0);
    check_table(a, 100000, 4);
    uint64_t in_file, allocated;
    tb_ix_spill_sizes(s, &in_file, &allocated);
    ASSERT(in_file == 0 && allocated >= 800000);
    tb_ix_spill_part_free(s, p);
    tb_ix_spill_table_free(s, TB_IX_LANE_OBJS, a);
    tb_ix_spill_free(s);
    /* And no spill at all (the decoder's indexes): plain realloc. */
    a = fill_table(NULL, TB_IX_LANE_OBJS, 1000, 5, &ca);
    check_table(a, 1000, 5);
    tb_ix_spill_table_free(NULL, TB_IX_LANE_OBJS, a);
}

/* No room in the file (a full disk; here a file-size limit): tables and parts go on in memory,
 * a table that can no longer grow in the file moving out of it with its content. */
static void
test_no_room(void)
{
    tb_ix_spill_t *s = new_spill(0);
    uint32_t  ca;
    uint64_t *a       = fill_table(s, TB_IX_LANE_OBJS, 1000, 10, &ca);
    uint64_t  in_file = in_file_of(s);
    ASSERT(in_file > 0);
    struct rlimit old, lim;
    ASSERT(getrlimit(RLIMIT_FSIZE, &old) == 0);
    void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
    lim.rlim_cur = (rlim_t)in_file; /* (the object table's region ends there: it cannot grow) */
    lim.rlim_max = old.rlim_max;
    ASSERT(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    for (uint32_t i = 1000; i < 200000; i++) {
        void *arr;
        ASSERT(tb_ix_spill_reserve(s, TB_IX_LANE_OBJS, a, &ca, (uint64_t)i + 1, sizeof(*a), 64, &arr) == TB_OK);
        a    = arr;
        a[i] = pattern(i, 10);
    }
    uint32_t  cb;
    uint64_t *b = fill_table(s, TB_IX_LANE_DSETS, 50000, 11, &cb);
    void     *p = tb_ix_spill_keep(s, "part", 5);
    ASSERT(setrlimit(RLIMIT_FSIZE, &old) == 0);
    signal(SIGXFSZ, was);
    ASSERT(p && strcmp(p, "part") == 0);
    check_table(a, 200000, 10);
    check_table(b, 50000, 11);
    uint64_t in_file2 = in_file_of(s);
    ASSERT_MSG(in_file2 == in_file, "%llu bytes in the file, %llu before", (unsigned long long)in_file2,
               (unsigned long long)in_file);
    tb_ix_spill_part_free(s, p);
    tb_ix_spill_table_free(s, TB_IX_LANE_OBJS, a);
    tb_ix_spill_table_free(s, TB_IX_LANE_DSETS, b);
    tb_ix_spill_free(s);
}

/* At most 64 spills of a process hold a file (a descriptor each): the others stay in memory. */
static void
test_many(void)
{
    enum { N = 70 };
    tb_ix_spill_t *s[N];
    uint64_t      *t[N];
    int            with_file = 0;
    for (int k = 0; k < N; k++) {
        uint32_t c;
        s[k] = new_spill(0);
        t[k] = fill_table(s[k], TB_IX_LANE_OBJS, 2000, (uint64_t)k, &c);
        with_file += in_file_of(s[k]) > 0;
    }
    ASSERT_EQ(with_file, 64);
    for (int k = 0; k < N; k++) {
        check_table(t[k], 2000, (uint64_t)k);
        tb_ix_spill_table_free(s[k], TB_IX_LANE_OBJS, t[k]);
        tb_ix_spill_free(s[k]);
    }
    /* (and a file again once they are gone) */
    uint32_t       c;
    tb_ix_spill_t *one = new_spill(0);
    uint64_t      *a   = fill_table(one, TB_IX_LANE_OBJS, 2000, 1, &c);
    ASSERT(in_file_of(one) > 0);
    tb_ix_spill_table_free(one, TB_IX_LANE_OBJS, a);
    tb_ix_spill_free(one);
}

/* A fork: the child's tables and parts are its own copies, taken before the parent goes on. */
static void
test_fork(void)
{
    tb_ix_spill_t *s = new_spill(0);
    uint32_t  ca;
    uint64_t *a    = fill_table(s, TB_IX_LANE_OBJS, 200000, 6, &ca);
    uint8_t  *part = tb_ix_spill_keep(s, "parent", 7);
    ASSERT(part);
    int go[2];
    ASSERT(pipe(go) == 0);
    pid_t pid = fork();
    ASSERT(pid >= 0);
    if (pid == 0) {
        char c;
        close(go[1]);
        /* (after the parent has written its changes) */
        if (read(go[0], &c, 1) != 1)
            _exit(2);
        for (uint32_t i = 0; i < 200000; i++)
            if (a[i] != pattern(i, 6))
                _exit(3); /* (saw the parent's change) */
        if (memcmp(part, "parent", 7) != 0)
            _exit(4);
        for (uint32_t i = 0; i < 200000; i++)
            a[i] = pattern(i, 7);
        memcpy(part, "child!", 7);
        /* The child's tables grow on their own (private) memory. */
        for (uint32_t i = 200000; i < 300000; i++) {
            void *arr;
            if (tb_ix_spill_reserve(s, TB_IX_LANE_OBJS, a, &ca, (uint64_t)i + 1, sizeof(*a), 64, &arr) != TB_OK)
                _exit(5);
            a    = arr;
            a[i] = pattern(i, 7);
        }
        tb_ix_spill_release(s); /* (must not drop a private copy) */
        for (uint32_t i = 0; i < 300000; i++)
            if (a[i] != pattern(i, 7))
                _exit(6);
        /* A spill of the child's own, in a file of its own. */
        tb_ix_spill_t *own = tb_ix_spill_new(0, tb_sc_spill_open, &policy);
        uint32_t       cc;
        uint64_t      *t = own ? fill_table(own, TB_IX_LANE_OBJS, 300000, 9, &cc) : NULL;
        if (!t || in_file_of(own) == 0)
            _exit(7);
        tb_ix_spill_release(own);
        for (uint32_t i = 0; i < 300000; i++)
            if (t[i] != pattern(i, 9))
                _exit(8);
        _exit(0);
    }
    close(go[0]);
    for (uint32_t i = 0; i < 200000; i += 1000)
        a[i] = pattern(i, 8);
    memcpy(part, "PARENT", 7);
    ASSERT(write(go[1], "x", 1) == 1);
    close(go[1]);
    int st;
    ASSERT(waitpid(pid, &st, 0) == pid);
    ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
    tb_ix_spill_release(s);
    for (uint32_t i = 0; i < 200000; i++)
        ASSERT_MSG(a[i] == pattern(i, i % 1000 ? 6 : 8), "element %u", i);
    ASSERT(memcmp(part, "PARENT", 7) == 0);
    tb_ix_spill_free(s);
}

/* The same index encoded from tables in memory and from tables in the file. */
static void
test_encode(void)
{
    tb_ix_identity_t id;
    memset(&id, 0, sizeof(id));
    id.ino = 42;
    void  *buf[2];
    size_t n[2];
    for (int with = 0; with < 2; with++) {
        tb_ix_data_t d;
        tb_sample_build(&d, 200, 8);
        d.spill = with ? tb_ix_spill_new(0, tb_sc_spill_open, &policy) : NULL;
        /* More objects, with info: the object table grows (into the file, with a spill). */
        for (uint32_t k = 0; k < 100000; k++) {
            uint8_t  t[TB_IX_TOKEN_NBYTES];
            uint32_t oi;
            tb_sample_token(t, 0x10000000 + k);
            ASSERT(tb_ix_obj_insert(&d, t, &oi) == TB_OK);
            d.objs[oi].has_info = 1;
            d.objs[oi].type     = 1;
            d.objs[oi].mtime    = k;
        }
        ASSERT(tb_sidecar_encode(&d, &id, "/x.h5", UINT64_MAX, &buf[with], &n[with]) == TB_OK);
        ASSERT(with ? in_file_of(d.spill) > 0 : in_file_of(d.spill) == 0);
        tb_ix_spill_t *s = d.spill;
        tb_ix_data_clear(&d);
        tb_ix_spill_free(s);
    }
    ASSERT(n[0] == n[1] && memcmp(buf[0], buf[1], n[0]) == 0);
    free(buf[0]);
    free(buf[1]);
}

int
main(void)
{
    char dir[] = "/tmp/tb_spill_XXXXXX";
    ASSERT(mkdtemp(dir));
    ASSERT(setenv("XDG_CACHE_HOME", dir, 1) == 0);
    test_file();
    test_auto();
    test_no_file();
    test_no_room();
    test_many();
    test_fork();
    test_encode();
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    ASSERT(system(cmd) == 0);
    printf("ok: spill tables, parts, auto threshold, no file, no room, 64 files at most, fork and encoding\n");
    return 0;
}
