/* file_kept.c — read-only files the application closes stay open below for its next open of them,
 * which HDF5 then shares (option keep_files): programs that open a file around every access pay
 * HDF5's whole open once, not at every access. */
#include "tb_callbacks.h"
#include "index.h"

#include "tb_hdf5err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* What such a program pays at every open under stock: a metadata cache made and zeroed (1.1M
 * instructions in the wheels' 1.14.6), the superblock and root group read again, every header and
 * B-tree node read again. A file kept here is found by HDF5 itself at the next open (a file already
 * open is shared, its metadata cache with it), then closed below. Only what stock would do the same
 * way is kept: read-only sec2 files closed a second time unchanged, not changed in the last 2 s
 * (a change within the resolution of its times would go unseen), native below, none of its
 * objects left open, access lists equal; the file's advisory lock is released while it is kept and
 * taken again at the reuse; a file that changed (size, times, inode) or is opened any other way
 * through this connector is closed below first, and every kept file when one is opened for
 * writing or made. Opens that bypass this connector (an access list naming native) are not seen:
 * one for writing of a file kept here fails as "already open for read-only" (README). */

/* HDF5's internal emptying of a file's metadata cache (every entry not pinned or protected), NULL
 * where a library does not export it. */
extern herr_t H5AC_evict(void *f) __attribute__((weak));

#define TB_KEPT_MAX 4 /* files kept at most (the oldest is closed first) */

/* A file as it was: which one, and its size and times (a change of its contents changes those). */
typedef struct file_id {
    dev_t           dev;
    ino_t           ino;
    off_t           size;
    struct timespec mtime, ctime;
} file_id_t;

static file_id_t
id_of(const struct stat *st)
{
    return (file_id_t){st->st_dev, st->st_ino, st->st_size, st->st_mtim, st->st_ctim};
}

static bool
id_is(const file_id_t *id, const struct stat *st)
{
    return id->dev == st->st_dev && id->ino == st->st_ino && id->size == st->st_size &&
           id->mtime.tv_sec == st->st_mtim.tv_sec && id->mtime.tv_nsec == st->st_mtim.tv_nsec &&
           id->ctime.tv_sec == st->st_ctim.tv_sec && id->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

typedef struct kept {
    void     *under; /* the native file, open */
    hid_t     vol;   /* its connector (one H5I reference held) */
    hid_t     fapl;  /* a copy of the access list of its open */
    void     *state; /* the library's state at the application's close (H5VLretrieve_lib_state):
                      * its wrap context, with which native's close releases what it wrapped at
                      * the open */
    int       fd;     /* its descriptor (sec2) */
    int       relock; /* its lock was released (HDF5 locks this file): take it again at reuse */
    file_id_t id;     /* the file when it was kept */
    uint64_t  seq;    /* order kept */
    pid_t     pid;    /* the process that kept it (a forked child does not use its parent's) */
} kept_t;

/* Read-only files closed lately and not kept, as they were then: a file is kept from its second
 * close on, unchanged since the first (a program opening it again and again), not after a single
 * read (a program that reads a file back and then writes it through native, where the file kept
 * open read-only would refuse that open: native's opens are not this connector's to see). */
#define TB_SEEN_MAX 16
static file_id_t seen[TB_SEEN_MAX];
static int       seen_next;

static kept_t   kept[TB_KEPT_MAX];
static int      nkept;
static uint64_t kept_seq;
static size_t   n_kept, n_reused, n_trimmed; /* H5TURBO_STATS */

/* Closes entry i below and removes it: in the library state of the application's close, as that
 * close would have (native releases the file's wrapped object with the wrap context it finds). */
static void
drop(int i)
{
    /* (Out of the table first: closing its access list may release the last reference to this
     * connector, whose terminate callback closes what is kept.) */
    kept_t k = kept[i];
    kept[i]  = kept[--nkept];
    if (k.pid != getpid()) {
        /* Inherited through fork: the descriptor's open file (and its lock) is shared with the
         * parent, whose lock native's close would release: the close gets an open of its own. */
        char proc[64];
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", k.fd);
        int own = open(proc, O_RDONLY | O_CLOEXEC);
        if (own >= 0) {
            (void)dup3(own, k.fd, O_CLOEXEC);
            close(own);
        }
    }
    hid_t saved = tb_err_save();
#if H5_VERS_MAJOR >= 2
    void *lc     = NULL;
    bool  in_ctx = H5VLopen_lib_context(&lc) >= 0;
#else
    bool in_ctx = H5VLstart_lib_state() >= 0;
#endif
    if (in_ctx)
        (void)H5VLrestore_lib_state(k.state);
    (void)H5VLfile_close(k.under, k.vol, H5P_DATASET_XFER_DEFAULT, NULL);
#if H5_VERS_MAJOR >= 2
    if (in_ctx)
        (void)H5VLclose_lib_context(lc);
#else
    if (in_ctx)
        (void)H5VLfinish_lib_state();
#endif
    (void)H5VLfree_lib_state(k.state);
    if (k.fapl >= 0)
        H5Pclose(k.fapl);
    H5Idec_ref(k.vol);
    tb_err_restore(saved);
}

static bool
same_file(const kept_t *k, const struct stat *st)
{
    return k->id.dev == st->st_dev && k->id.ino == st->st_ino;
}

/* Whether HDF5 takes an advisory lock on files opened with fapl (its environment variable first,
 * as HDF5 reads it). */
static bool
hdf5_locks(hid_t fapl)
{
    const char *e = getenv("HDF5_USE_FILE_LOCKING");
    if (e && *e)
        return !(strcmp(e, "FALSE") == 0 || strcmp(e, "0") == 0);
    hbool_t use = 1, ignore = 0;
    hid_t   saved = tb_err_save();
    if (H5Pget_file_locking(fapl, &use, &ignore) < 0)
        use = 1;
    tb_err_restore(saved);
    return use != 0;
}

/* Closes below the files a parent process kept before it forked this one. */
static void
forget_inherited(void)
{
    for (int i = nkept - 1; i >= 0; i--)
        if (kept[i].pid != getpid())
            drop(i);
}

int
tb_kept_before(const char *name, unsigned flags, int create, hid_t fapl_id, hid_t vol)
{
    forget_inherited();
    /* A file opened for writing (or made) may reach a kept one through its external links, which
     * native then opens for writing too: nothing stays kept. */
    if (create || (flags & H5F_ACC_RDWR)) {
        tb_kept_close_all();
        return -1;
    }
    if (!nkept || !name)
        return -1;
    struct stat st;
    if (stat(name, &st) != 0)
        return -1;
    /* At most one entry per file is kept (tb_kept_keep). */
    for (int i = 0; i < nkept; i++) {
        if (!same_file(&kept[i], &st))
            continue;
        hid_t saved = tb_err_save();
        bool  eq    = flags == H5F_ACC_RDONLY && kept[i].vol == vol && id_is(&kept[i].id, &st) &&
                  H5Pequal(kept[i].fapl, fapl_id) > 0;
        tb_err_restore(saved);
        if (eq)
            return i;
        drop(i); /* (another way of opening it, or it changed: stock's open, from nothing) */
        return -1;
    }
    return -1;
}

void *
tb_kept_after(int share, void *under, hid_t vol, bool *retry, hid_t *fapl_out)
{
    *retry    = false;
    *fapl_out = H5I_INVALID_HID;
    if (share < 0 || share >= nkept)
        return under;
    kept_t *k = &kept[share];
    if (!under) { /* (failed with the file kept: stock's open, without it) */
        drop(share);
        *retry = true;
        return NULL;
    }
    /* Shared with the kept one when HDF5 found it open: the same descriptor. */
    int  fd     = tb_file_fd_below(under, vol);
    bool shared = fd >= 0 && fd == k->fd;
    if (shared && k->relock && flock(fd, LOCK_SH | LOCK_NB) != 0) {
        /* Someone locked it meanwhile (a writer): stock's open would meet that lock. */
        hid_t saved = tb_err_save();
        (void)H5VLfile_close(under, vol, H5P_DATASET_XFER_DEFAULT, NULL);
        tb_err_restore(saved);
        drop(share);
        *retry = true;
        return NULL;
    }
    if (shared)
        n_reused++;
    *fapl_out = k->fapl; /* (equal to this open's: tb_kept_before) */
    k->fapl   = H5I_INVALID_HID;
    drop(share); /* (the file stays open: the new open holds it) */
    return under;
}

static void
close_all_cb(void *arg)
{
    (void)arg;
    tb_kept_close_all();
}

/* A kept file's metadata cache keeps what every open of it read, where stock's starts empty at
 * every open: a program reading another table at every open (pandas' read_hdf) kept it full, and
 * the headers decoded from it, ~20 times its size, grew the heap (peak RSS 101 MB against stock's
 * 82, 4,800 page faults in 200 opens against 130). Half full or more, it is emptied as the close
 * would have done; what a program reads again at every open (its groups' headers) fits below. */
static void
trim_cache(tb_obj_t *file)
{
    size_t                           max = 0, min_clean = 0, cur = 0;
    uint32_t                         n  = 0;
    H5VL_native_file_optional_args_t na = {.get_mdc_size = {&max, &min_clean, &cur, &n}};
    H5VL_optional_args_t             op = {.op_type = H5VL_NATIVE_FILE_GET_MDC_SIZE, .args = &na};
    if (!H5AC_evict)
        return;
    /* TB_NO_DUTIES: a read-only file at its application's close (its chunk writes drained). */
    hid_t saved = tb_err_save();
    if (H5VLfile_optional(file->under, file->under_vol_id, &op, H5P_DATASET_XFER_DEFAULT, NULL) >= 0 &&
        cur >= max / 2 && H5AC_evict(file->under) >= 0)
        n_trimmed++;
    tb_err_restore(saved);
}

/* Whether objects of this open of the file are still open (counted as H5Fget_obj_count counts
 * them): then native's close is left to do what the file's close degree says (close them, refuse,
 * or close the file once they close). */
static bool
objects_open(tb_obj_t *file)
{
    /* TB_NO_DUTIES: a count of open objects (the file's chunk writes were drained at its close). */
    hid_t                saved = tb_err_save();
    size_t               n     = 1;
    H5VL_file_get_args_t ga;
    memset(&ga, 0, sizeof(ga));
    ga.op_type                  = H5VL_FILE_GET_OBJ_COUNT;
    ga.args.get_obj_count.types = H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE | H5F_OBJ_ATTR | H5F_OBJ_LOCAL;
    ga.args.get_obj_count.count = &n;
    tb_index_listing(1);
    if (H5VLfile_get(file->under, file->under_vol_id, &ga, H5P_DATASET_XFER_DEFAULT, NULL) < 0)
        n = 1;
    tb_index_listing(0);
    tb_err_restore(saved);
    return n != 0;
}

/* Whether the file as st describes it was closed lately (seen), unchanged since: its next close
 * keeps it. */
static bool
was_seen(const struct stat *st)
{
    for (int i = 0; i < TB_SEEN_MAX; i++)
        if (id_is(&seen[i], st))
            return true;
    return false;
}

void
tb_kept_opened(tb_obj_t *file, unsigned flags, hid_t fapl_id, hid_t kept_fapl)
{
    tb_ctx_t *ctx = file->ctx;
    ctx->keep_may = flags == H5F_ACC_RDONLY && !ctx->file_mpi && ctx->cfg.keep_files && ctx->under_native;
    hid_t saved   = tb_err_save();
    /* The copy (50k instructions with its close) only for a file that may be kept at this close:
     * one shared with a kept entry (its list goes on), or closed before. */
    int         fd;
    struct stat st;
    if (ctx->keep_may && kept_fapl < 0 && (fd = tb_file_sec2_fd(file)) >= 0 && fstat(fd, &st) == 0 && was_seen(&st))
        kept_fapl = H5Pcopy(fapl_id);
    else if (!ctx->keep_may && kept_fapl >= 0) {
        H5Pclose(kept_fapl);
        kept_fapl = H5I_INVALID_HID;
    }
    ctx->keep_fapl = kept_fapl;
    tb_err_restore(saved);
}

void
tb_kept_forgo(tb_ctx_t *ctx)
{
    ctx->keep_may = false;
    if (ctx->keep_fapl < 0)
        return;
    hid_t saved = tb_err_save();
    H5Pclose(ctx->keep_fapl);
    tb_err_restore(saved);
    ctx->keep_fapl = H5I_INVALID_HID;
}

bool
tb_kept_keep(tb_obj_t *file)
{
    tb_ctx_t *ctx = file->ctx;
    if (!ctx->keep_may) /* (tb_kept_opened) */
        return false;
    forget_inherited();
    if (objects_open(file))
        return false;
    int         fd = tb_file_sec2_fd(file);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0)
        return false;
    for (int i = 0; i < nkept; i++)
        if (same_file(&kept[i], &st))
            return false; /* (one kept per file: this one closes) */
    if (tb_changed_lately(tb_ns(st.st_mtim), tb_ns(st.st_ctim)))
        return false; /* (a change within its times' resolution would go unseen at the reuse) */
    if (!was_seen(&st)) {
        seen[seen_next] = id_of(&st);
        seen_next       = (seen_next + 1) % TB_SEEN_MAX;
        return false;
    }
    if (ctx->keep_fapl < 0)
        return false; /* (seen only since this open: another open's close; kept at the next) */
    static bool atclose;
    hid_t       saved = tb_err_save();
    if (!atclose)
        atclose = H5atclose(close_all_cb, NULL) >= 0; /* (before HDF5 closes its packages) */
    tb_err_restore(saved);
    if (!atclose)
        return false;
    if (nkept == TB_KEPT_MAX) {
        int oldest = 0;
        for (int i = 1; i < nkept; i++)
            if (kept[i].seq < kept[oldest].seq)
                oldest = i;
        drop(oldest);
    }
    void *state = NULL;
    saved       = tb_err_save();
    if (H5VLretrieve_lib_state(&state) < 0 || !state) {
        tb_err_restore(saved);
        return false;
    }
    if (H5Iinc_ref(ctx->under_vol_id) < 0) {
        (void)H5VLfree_lib_state(state);
        tb_err_restore(saved);
        return false;
    }
    tb_err_restore(saved);
    trim_cache(file);
    bool relock = hdf5_locks(ctx->keep_fapl);
    if (relock)
        (void)flock(fd, LOCK_UN); /* (HDF5's advisory lock: a writer elsewhere may open it meanwhile) */
    kept_t *k   = &kept[nkept++];
    k->under    = file->under;
    k->vol      = ctx->under_vol_id;
    k->fapl     = ctx->keep_fapl;
    k->state    = state;
    k->fd       = fd;
    k->relock   = relock;
    k->id       = id_of(&st);
    k->seq      = ++kept_seq;
    k->pid      = getpid();
    ctx->keep_fapl = H5I_INVALID_HID; /* (the entry's now) */
    n_kept++;
    if (ctx->cfg.debug)
        fprintf(stderr, "h5turbo: file kept open below for its next open (device %llu, inode %llu)\n",
                (unsigned long long)k->id.dev, (unsigned long long)k->id.ino);
    return true;
}

void
tb_kept_close_all(void)
{
    while (nkept)
        drop(nkept - 1);
}

void
tb_kept_stats(size_t *kept_out, size_t *reused_out, size_t *trimmed_out)
{
    *kept_out    = n_kept;
    *reused_out  = n_reused;
    *trimmed_out = n_trimmed;
}
