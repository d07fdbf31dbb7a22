/* index_spill.c — the index's tables and record parts in a mapped temporary file once an index
 * grows past a threshold: each table in a region of its own that grows in place, parts cut from
 * segments after them, and the process's pages of it let go every few MiB. A fork makes the
 * child's mappings private copies before the parent goes on (the two must not share tables). */
#define _GNU_SOURCE
#include "index_spill.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <stdio.h>
#include <unistd.h>

#define LANE_SHIFT    36 /* each table's region of the file: 64 GiB, sparse */
#define HEAP_BASE     ((uint64_t)TB_IX_NLANES << LANE_SHIFT)
#define SEG_NBYTES    ((size_t)16 << 20) /* parts are cut from segments this large */
/* Every CHECK_EVERY bytes written or walked, the process's file-backed pages are counted
 * (/proc/self/statm): more than HELD_MAX over what it held after the last release, and it lets go
 * of the spill's pages. (A read maps more than it reads: up to 64 KiB around it, so what is
 * counted, not what is walked, decides.) Without /proc, a release every CHECK_EVERY * 4. */
#define CHECK_EVERY ((uint64_t)256 << 10)
#define HELD_MAX    ((uint64_t)2 << 20)
/* A read faults in the aligned 64 KiB around the page it touches (the kernel's fault-around maps
 * what of it the page cache holds): the windows read since the last release are remembered
 * (tb_ix_spill_read), a window counted once. Open addressing; full, a window counts each time. */
#define WIN_SHIFT 16
#define WIN_SLOTS 256

typedef struct {
    uint8_t *addr;
    size_t   len; /* mapped bytes, whole pages */
} map_t;

struct tb_ix_spill {
    struct tb_ix_spill *prev, *next; /* the process's spills with a file (fork_*) */
    int                 fd;          /* the file, or -1 (not yet, none, or a forked child's copy) */
    bool                tried;       /* open was called */
    bool                registered;
    uint64_t            from;      /* use the file once this much was allocated (TB_IX_SPILL_AUTO) */
    uint64_t            allocated; /* bytes of tables and parts allocated (growth counted, frees not) */
    uint64_t            in_mem;    /* of which in memory (counted in mem_held) */
    uint64_t            look_at;   /* TB_IX_SPILL_AUTO: allocated bytes at which the next look is */
    uint64_t            fresh;     /* bytes written or walked since the last check */
    uint64_t            base;      /* file-backed bytes the process held after the last release */
    unsigned            blind;     /* checks without /proc since the last release */
    uint64_t            in_file;   /* bytes of the file mapped */
    int (*open)(void *);
    void    *arg;
    map_t    lane[TB_IX_NLANES];
    map_t   *segs;
    uint32_t nseg, segcap;
    uint8_t *bump, *bump_end; /* the segment parts are cut from */
    uint64_t heap_end;        /* the file offset of the next segment */
    uintptr_t win[WIN_SLOTS]; /* windows read since the last release, +1 (0: free) */
    unsigned  nwin;
};

static size_t
page_round(size_t n)
{
    static size_t pg;
    if (!pg) {
        long v = sysconf(_SC_PAGESIZE);
        pg     = v > 0 ? (size_t)v : 4096;
    }
    return n + (pg - n % pg) % pg;
}

/* Spills with a file open in this process, at most SPILL_FILES_MAX. */
#define SPILL_FILES_MAX 64
static int spill_files;

/* /proc/self/statm, kept open (-2: not yet; a forked child opens its own: at_child). */
static int statm_fd = -2;

/* Bytes the process's spills allocated in memory (their in_mem), for TB_IX_SPILL_AUTO. */
static uint64_t mem_held;

/* ------------------------------------------------------------------ fork */
/* Spills with a file are listed; a fork waits in the parent until the child has copied every
 * mapping of theirs into private memory (at_child), so that neither sees the other's changes. */
static pthread_mutex_t fork_mu      = PTHREAD_MUTEX_INITIALIZER;
static tb_ix_spill_t  *fork_list    = NULL;
static int             fork_pipe[2] = {-1, -1};
static pthread_once_t  fork_once    = PTHREAD_ONCE_INIT;

/* One mapping becomes a private copy at the same address (on failure: read-only, so that a
 * child out of memory cannot write into its parent's tables). */
static void
privatise(map_t *m)
{
    if (!m->addr)
        return;
    void *a = mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a != MAP_FAILED) {
        memcpy(a, m->addr, m->len);
        if (mremap(a, m->len, m->len, MREMAP_MAYMOVE | MREMAP_FIXED, m->addr) != MAP_FAILED)
            return;
        munmap(a, m->len);
    }
    mprotect(m->addr, m->len, PROT_READ);
}

/* A spill whose mappings are all private from now on: no file, nothing released. */
static void
privatise_all(tb_ix_spill_t *s)
{
    for (int k = 0; k < TB_IX_NLANES; k++)
        privatise(&s->lane[k]);
    for (uint32_t k = 0; k < s->nseg; k++)
        privatise(&s->segs[k]);
    close(s->fd);
    __atomic_sub_fetch(&spill_files, 1, __ATOMIC_ACQ_REL);
    s->fd         = -1;
    s->bump       = s->bump_end = NULL; /* (new parts are malloc'd) */
    s->registered = false;
    s->prev = s->next = NULL;
}

/* Every listed spill made private, the list emptied. */
static void
privatise_listed(void)
{
    while (fork_list) {
        tb_ix_spill_t *s = fork_list;
        fork_list        = s->next;
        privatise_all(s);
    }
}

/* One side of the fork's handshake: the parent reads the byte the child writes once its copies are
 * made (or the end of the pipe, if the child is gone); each closes its ends. */
static void
handshake(bool child)
{
    char    c = 0;
    ssize_t r;
    close(fork_pipe[child ? 0 : 1]);
    do
        r = child ? write(fork_pipe[1], &c, 1) : read(fork_pipe[0], &c, 1);
    while (r < 0 && errno == EINTR);
    close(fork_pipe[child ? 1 : 0]);
    fork_pipe[0] = fork_pipe[1] = -1;
}

static void
at_prepare(void)
{
    pthread_mutex_lock(&fork_mu);
    if (fork_list && pipe2(fork_pipe, O_CLOEXEC) != 0) {
        /* No way to wait for the child: the parent's copies become private before the fork. */
        fork_pipe[0] = fork_pipe[1] = -1;
        privatise_listed();
    }
}

static void
at_parent(void)
{
    if (fork_pipe[0] >= 0)
        handshake(false);
    pthread_mutex_unlock(&fork_mu);
}

static void
at_child(void)
{
    int fd = __atomic_exchange_n(&statm_fd, -2, __ATOMIC_ACQ_REL); /* (the parent's) */
    if (fd >= 0)
        close(fd);
    privatise_listed();
    if (fork_pipe[0] >= 0)
        handshake(true);
    pthread_mutex_unlock(&fork_mu);
}

static void
fork_handlers(void)
{
    (void)pthread_atfork(at_prepare, at_parent, at_child);
}

static void
fork_enlist(tb_ix_spill_t *s)
{
    pthread_once(&fork_once, fork_handlers);
    pthread_mutex_lock(&fork_mu);
    s->prev = NULL;
    s->next = fork_list;
    if (fork_list)
        fork_list->prev = s;
    fork_list     = s;
    s->registered = true;
    pthread_mutex_unlock(&fork_mu);
}

static void
fork_delist(tb_ix_spill_t *s)
{
    pthread_mutex_lock(&fork_mu);
    if (s->registered) {
        if (s->prev)
            s->prev->next = s->next;
        else
            fork_list = s->next;
        if (s->next)
            s->next->prev = s->prev;
        s->registered = false;
    }
    pthread_mutex_unlock(&fork_mu);
}

/* ------------------------------------------------------------------ the spill */
tb_ix_spill_t *
tb_ix_spill_new(uint64_t from, int (*open)(void *arg), void *arg)
{
    tb_ix_spill_t *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->fd       = -1;
    s->from     = from;
    s->look_at  = TB_IX_SPILL_AUTO_MIN;
    s->open     = open;
    s->arg      = arg;
    s->heap_end = HEAP_BASE;
    return s;
}

static uint64_t statm_field(int k);

/* n more bytes allocated through s, in memory unless in_file. */
static void
grew(tb_ix_spill_t *s, uint64_t n, bool in_file)
{
    if (!s)
        return;
    s->allocated += n;
    if (!in_file) {
        s->in_mem += n;
        __atomic_add_fetch(&mem_held, n, __ATOMIC_RELAXED);
    }
}

/* TB_IX_SPILL_AUTO: whether the process's spills hold in memory more than a quarter of the rest
 * of its resident memory, less the HELD_MAX of a spill's own pages a file in use may hold on top
 * (looked at every TB_IX_SPILL_AUTO_MIN bytes s grows by). */
static bool
auto_due(tb_ix_spill_t *s)
{
    if (s->allocated < s->look_at)
        return false;
    s->look_at      = s->allocated + TB_IX_SPILL_AUTO_MIN;
    uint64_t rss    = statm_field(1);
    uint64_t held   = __atomic_load_n(&mem_held, __ATOMIC_RELAXED);
    uint64_t others = rss == UINT64_MAX || rss < held ? 0 : rss - held;
    return held + HELD_MAX > others / 4;
}

/* Whether what is allocated now goes to the file (opened on first need). */
static bool
use_file(tb_ix_spill_t *s)
{
    /* (The threshold holds after a reset too: an index of a file open for writing is dropped at
     * every change, and starts small again.) */
    if (!s)
        return false;
    if (s->from == TB_IX_SPILL_AUTO ? s->allocated < TB_IX_SPILL_AUTO_MIN || (s->fd < 0 && !auto_due(s))
                                    : s->allocated < s->from)
        return false;
    if (s->fd >= 0)
        return true;
    if (s->tried)
        return false;
    s->tried = true;
    /* (A process with many large files open keeps the rest in memory rather than run short of
     * descriptors: each spill holds one.) */
    if (__atomic_add_fetch(&spill_files, 1, __ATOMIC_ACQ_REL) > SPILL_FILES_MAX ||
        (s->fd = s->open ? s->open(s->arg) : -1) < 0) {
        __atomic_sub_fetch(&spill_files, 1, __ATOMIC_ACQ_REL);
        return false;
    }
    fork_enlist(s);
    return true;
}

/* Maps [off, off + len) of the file, allocated on disk first (so that no write into the mapping
 * can fail for want of space): NULL on failure. */
static uint8_t *
map_file(tb_ix_spill_t *s, uint64_t off, size_t len)
{
    if (posix_fallocate(s->fd, (off_t)off, (off_t)len) != 0)
        return NULL;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, (off_t)off);
    if (p == MAP_FAILED)
        return NULL;
    /* No read-ahead: a fault then brings one page into the page cache, not a large folio that a
     * later touch would map whole (what the process holds of the file is what it touched). */
    (void)madvise(p, len, MADV_RANDOM);
    s->in_file += len;
    return p;
}

/* Lane `lane`'s table at nbytes (at least): its mapping grown in place. NULL on failure. */
static uint8_t *
lane_grow(tb_ix_spill_t *s, int lane, size_t nbytes)
{
    map_t *m   = &s->lane[lane];
    size_t len = page_round(nbytes);
    if (len <= m->len)
        return m->addr;
    if (s->fd >= 0) {
        uint64_t off = (uint64_t)lane << LANE_SHIFT;
        if (len > ((size_t)1 << LANE_SHIFT) || posix_fallocate(s->fd, (off_t)(off + m->len), (off_t)(len - m->len)) != 0)
            return NULL;
    }
    void *p = mremap(m->addr, m->len, len, MREMAP_MAYMOVE);
    if (p == MAP_FAILED)
        return NULL;
    if (s->fd >= 0)
        s->in_file += len - m->len;
    m->addr = p;
    m->len  = len;
    return p;
}

/* The table of lane `lane` replacing arr (old_nbytes of it in use) with nbytes, arr's content kept:
 * NULL on failure, arr unchanged. A table the file cannot hold (full, or no file) is malloc'd. */
static void *
table_to(tb_ix_spill_t *s, int lane, void *arr, size_t old_nbytes, size_t nbytes)
{
    void  *p   = NULL;
    map_t *m   = s ? &s->lane[lane] : NULL;
    size_t len = page_round(nbytes);
    if (m && arr && arr == m->addr) {
        if (!(p = lane_grow(s, lane, nbytes))) {
            /* (out of the file: a copy in memory) */
            if (!(p = malloc(nbytes)))
                return NULL;
            memcpy(p, arr, old_nbytes);
            munmap(m->addr, m->len);
            m->addr = NULL;
            m->len  = 0;
        }
    }
    else if (use_file(s) && !m->addr && len <= ((size_t)1 << LANE_SHIFT) &&
             (p = map_file(s, (uint64_t)lane << LANE_SHIFT, len))) {
        if (arr)
            memcpy(p, arr, old_nbytes);
        free(arr);
        m->addr = p;
        m->len  = len;
        tb_ix_spill_walked(s, old_nbytes);
    }
    else if (!(p = realloc(arr, nbytes ? nbytes : 1)))
        return NULL;
    if (nbytes > old_nbytes)
        grew(s, nbytes - old_nbytes, m && p == m->addr);
    return p;
}

/* The capacity a table of cap elements grows to when it must hold need (first_cap: its first). */
static uint64_t
grown_cap(uint32_t cap, uint64_t need, uint32_t first_cap)
{
    /* Doubling while small; large tables grow by a quarter, so that what a 400,000-object file
     * leaves unused stays small (a copy per growth is still amortised constant per element). */
    uint64_t c = cap ? cap : first_cap;
    while (c < need)
        c = c < 65536 ? c * 2 : c + c / 4;
    return c;
}

tb_status_t
tb_ix_spill_reserve(tb_ix_spill_t *s, int lane, void *arr, uint32_t *cap, uint64_t need, size_t elem_nbytes,
                    uint32_t first_cap, void **arr_out)
{
    *arr_out = arr;
    tb_ix_spill_walked(s, elem_nbytes); /* (a record is appended: what the pages in use grow by) */
    if (need <= *cap)
        return TB_OK;
    uint64_t c = grown_cap(*cap, need, first_cap);
    if (c > UINT32_MAX || c > SIZE_MAX / elem_nbytes)
        return TB_ERR_NOMEM; /* (an array that large cannot be allocated) */
    void *n = table_to(s, lane, arr, (size_t)*cap * elem_nbytes, (size_t)c * elem_nbytes);
    if (!n)
        return TB_ERR_NOMEM;
    *arr_out = n;
    *cap     = (uint32_t)c;
    return TB_OK;
}

void
tb_ix_spill_table_free(tb_ix_spill_t *s, int lane, void *arr)
{
    if (s && arr && arr == s->lane[lane].addr) {
        munmap(s->lane[lane].addr, s->lane[lane].len);
        s->lane[lane].addr = NULL;
        s->lane[lane].len  = 0;
    }
    else
        free(arr);
}

/* n bytes (8-aligned) cut from the file's segments: NULL when they cannot be had. */
static void *
heap_alloc(tb_ix_spill_t *s, size_t n)
{
    size_t a = (n + 7) & ~(size_t)7;
    if (!a)
        a = 8;
    if (a > (size_t)(s->bump_end - s->bump)) {
        if (s->nseg == s->segcap) {
            uint32_t c    = s->segcap ? s->segcap * 2 : 16;
            map_t   *segs = realloc(s->segs, (size_t)c * sizeof(*segs));
            if (!segs)
                return NULL;
            s->segs   = segs;
            s->segcap = c;
        }
        size_t   len = a > SEG_NBYTES / 4 ? page_round(a) : SEG_NBYTES;
        uint8_t *p   = map_file(s, s->heap_end, len);
        if (!p)
            return NULL;
        s->segs[s->nseg++] = (map_t){p, len};
        s->heap_end += len;
        if (len != SEG_NBYTES) /* (a large part has a segment of its own) */
            return p;
        s->bump     = p;
        s->bump_end = p + len;
    }
    void *r = s->bump;
    s->bump += a;
    tb_ix_spill_walked(s, a);
    return r;
}

void *
tb_ix_spill_keep(tb_ix_spill_t *s, const void *src, size_t n)
{
    void *p = use_file(s) ? heap_alloc(s, n) : NULL;
    grew(s, n, p != NULL);
    if (!p && !(p = malloc(n ? n : 1)))
        return NULL;
    memcpy(p, src, n);
    return p;
}

void *
tb_ix_spill_adopt(tb_ix_spill_t *s, void *p, size_t n)
{
    if (!p || !n)
        return p; /* (nothing to keep: as it is) */
    void *q = use_file(s) ? heap_alloc(s, n) : NULL;
    grew(s, n, q != NULL);
    if (q) {
        memcpy(q, p, n);
        free(p);
        return q;
    }
    return (q = realloc(p, n)) ? q : p;
}

void
tb_ix_spill_part_free(tb_ix_spill_t *s, void *p)
{
    if (s && p)
        for (uint32_t k = 0; k < s->nseg; k++)
            if ((uint8_t *)p >= s->segs[k].addr && (uint8_t *)p < s->segs[k].addr + s->segs[k].len)
                return; /* (freed with the spill) */
    free(p);
}

/* Field k of /proc/self/statm in bytes (1: resident; 2: resident file-backed and shared), or
 * UINT64_MAX when it cannot be told. */
static uint64_t
statm_field(int k)
{
    int fd = __atomic_load_n(&statm_fd, __ATOMIC_ACQUIRE);
    if (fd == -2) {
        int nfd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC), want = -2;
        if (__atomic_compare_exchange_n(&statm_fd, &want, nfd, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            fd = nfd;
        else {
            if (nfd >= 0)
                close(nfd); /* (another thread's is kept) */
            fd = want;
        }
    }
    char    buf[128];
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof(buf) - 1, 0) : -1;
    if (n <= 0)
        return UINT64_MAX;
    buf[n] = '\0';
    unsigned long long f[3];
    if (sscanf(buf, "%llu %llu %llu", &f[0], &f[1], &f[2]) != 3)
        return UINT64_MAX;
    return (uint64_t)f[k] * page_round(1);
}

/* The process's resident file-backed (and shared) bytes, or UINT64_MAX. */
static uint64_t
file_resident(void)
{
    return statm_field(2);
}

void
tb_ix_spill_release(tb_ix_spill_t *s)
{
    if (!s || s->fd < 0)
        return; /* (private mappings would lose their content) */
    for (int k = 0; k < TB_IX_NLANES; k++)
        if (s->lane[k].addr)
            madvise(s->lane[k].addr, s->lane[k].len, MADV_DONTNEED);
    for (uint32_t k = 0; k < s->nseg; k++)
        madvise(s->segs[k].addr, s->segs[k].len, MADV_DONTNEED);
    s->fresh = 0;
    s->blind = 0;
    s->base  = file_resident();
    memset(s->win, 0, sizeof(s->win));
    s->nwin = 0;
}

/* Whether window w was read since the last release; remembers it. */
static bool
win_seen(tb_ix_spill_t *s, uintptr_t w)
{
    uintptr_t key = w + 1;
    size_t    h   = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 56) % WIN_SLOTS;
    for (unsigned probe = 0; probe < WIN_SLOTS; probe++, h = (h + 1) % WIN_SLOTS) {
        if (s->win[h] == key)
            return true;
        if (!s->win[h]) {
            if (s->nwin < WIN_SLOTS * 3 / 4) {
                s->win[h] = key;
                s->nwin++;
            }
            return false;
        }
    }
    return false;
}

void
tb_ix_spill_read(tb_ix_spill_t *s, const void *p, size_t n)
{
    if (!s || s->fd < 0 || !p)
        return;
    size_t    c  = n;
    uintptr_t w0 = (uintptr_t)p >> WIN_SHIFT, w1 = ((uintptr_t)p + (n ? n - 1 : 0)) >> WIN_SHIFT;
    for (uintptr_t w = w0; w <= w1; w++)
        if (!win_seen(s, w))
            c += (size_t)1 << WIN_SHIFT;
    tb_ix_spill_walked(s, c);
}

void
tb_ix_spill_walked(tb_ix_spill_t *s, size_t n)
{
    if (!s || s->fd < 0)
        return;
    if ((s->fresh += n) < CHECK_EVERY)
        return;
    s->fresh     = 0;
    uint64_t now = file_resident();
    if (now == UINT64_MAX || s->base == UINT64_MAX ? ++s->blind >= 4 : now > s->base + HELD_MAX)
        tb_ix_spill_release(s);
}

void
tb_ix_spill_reset(tb_ix_spill_t *s)
{
    if (!s)
        return;
    for (int k = 0; k < TB_IX_NLANES; k++)
        if (s->lane[k].addr)
            munmap(s->lane[k].addr, s->lane[k].len);
    for (uint32_t k = 0; k < s->nseg; k++)
        munmap(s->segs[k].addr, s->segs[k].len);
    memset(s->lane, 0, sizeof(s->lane));
    s->nseg = 0;
    s->bump = s->bump_end = NULL;
    s->heap_end           = HEAP_BASE;
    __atomic_sub_fetch(&mem_held, s->in_mem, __ATOMIC_RELAXED);
    s->allocated = s->fresh = s->in_file = s->in_mem = 0;
    s->look_at = TB_IX_SPILL_AUTO_MIN;
    if (s->fd >= 0 && ftruncate(s->fd, 0) != 0) {
        /* (its blocks stay allocated until the spill is freed) */
    }
}

void
tb_ix_spill_free(tb_ix_spill_t *s)
{
    if (!s)
        return;
    tb_ix_spill_reset(s);
    fork_delist(s);
    if (s->fd >= 0) {
        close(s->fd);
        __atomic_sub_fetch(&spill_files, 1, __ATOMIC_ACQ_REL);
    }
    free(s->segs);
    free(s);
}

void
tb_ix_spill_sizes(const tb_ix_spill_t *s, uint64_t *in_file_out, uint64_t *allocated_out)
{
    *in_file_out   = s ? s->in_file : 0;
    *allocated_out = s ? s->allocated : 0;
}
