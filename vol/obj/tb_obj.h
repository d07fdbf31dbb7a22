/* tb_obj.h — the connector's object layer: the wrapper every callback receives, the context its
 * objects share, the table of hooks through which the index and the pipeline attach their duties
 * to objects, and the helpers for calling the connector below. Everything in vol/ builds on it. */
#ifndef TB_OBJ_H
#define TB_OBJ_H

#define H5_USE_114_API_DEFAULT 1
#include <hdf5.h>
#include <H5VLconnector.h>
#include <H5VLconnector_passthru.h>

#include "tb_common.h"
#include "tb_config.h"
#include "tb_hdf5err.h"

#include <stdbool.h>
#include <time.h>

/* Everything objects of one open file share: the connector below and the configuration.
 * Reference-counted by the objects (plain int: VOL callbacks are serialised by HDF5), so that
 * creating and releasing wrappers costs no HDF5 ID operation and no malloc. Subsystems keep their
 * per-open state in their own slot; only they look inside it. */
struct tb_index_file; /* vol/index: the link/object index of one open file */

typedef struct tb_ctx {
    int                   refs;
    hid_t                 under_vol_id; /* one H5I reference, dropped with the last object */
    tb_config_t           cfg;
    struct tb_index_file *index;       /* owned by the index; NULL when the index is off */
    unsigned              file_intent; /* H5F_ACC_* of the open/create (plus SWMR_WRITE once
                                        * started); objects reached through external links share
                                        * their parent's. The chunk pipeline reads it. */
    bool                  file_mpi;    /* the file's driver does MPI I/O (tb_fapl_uses_mpi, asked
                                        * once at the open): the pipeline stays off, the index
                                        * serves read-only opens only (index.c) */
    int                   sec2_fd;     /* tb_file_sec2_fd's answer for the file, -2 until asked */
    int                   md_asked;    /* the file access list's collective-metadata-read flag
                                        * where the index made the file's metadata reads
                                        * independent (index.c), -2 where it did not */
    const H5VL_class_t   *term_cls;    /* the terminal connector's class, asked of the file at its
                                        * open or create (the same for every object of the
                                        * context): HDF5's "is this native?" checks need no real
                                        * object */
    bool                  under_native; /* the connector below is native (asked once, at the
                                         * context's creation): it has no wrap context, which
                                         * get_wrap_ctx then asks nothing for; direct chunk I/O
                                         * and the file's descriptor need it */
    unsigned              mpi_asked;    /* files on an MPI driver: what the program asked of the
                                         * file (tb_mpi_asked) */
    bool                  keep_may;     /* an open whose file may be kept open below at its close
                                         * (file_kept.c) */
    hid_t                 keep_fapl;    /* its access list (a copy), where the file may be kept at
                                         * this close (closed before, unchanged since);
                                         * H5I_INVALID_HID otherwise */
} tb_ctx_t;

/* Whether a call of an object of ctx runs synchronously below: no request asked for (req NULL),
 * or native underneath, which completes an event set's calls before returning and makes no
 * request (what the connector does itself with such a call is then the same as without one). */
static inline bool
tb_sync_below(void **req, const tb_ctx_t *ctx)
{
    return !req || ctx->under_native;
}

/* What a program asked of a file on an MPI driver: objects opened, attributes opened, tested or
 * iterated, links iterated (1 each), a visit or a recursive iteration (a whole walk: TB_MPI_WALKED). The index decides from the
 * job's last such file whether rank 0 builds the next one's index for all ranks (index.c,
 * index_mpi_build=auto): a program that asked at least TB_MPI_WALKED of it walks its files. */
#define TB_MPI_WALKED 16u

/* What HDF5 holds for each of our objects (file, group, dataset, attribute, datatype, request). */
struct tb_pipe_dset; /* vol/pipeline: per-dataset state of the chunk pipeline */
struct tb_index_obj; /* vol/index: per-object state of the index */

typedef struct tb_obj {
    void                *under;        /* the object of the connector below; NULL while lazy */
    hid_t                under_vol_id; /* == ctx->under_vol_id, kept here for the hot path */
    tb_ctx_t            *ctx;
    struct tb_pipe_dset *pipe;         /* datasets: pipeline state, owned by the pipeline */
    struct tb_index_obj *idx;          /* owned by the index */
    hid_t                dcpl;         /* datasets: tb_dset_dcpl's copy, or H5I_INVALID_HID */
} tb_obj_t;

static inline void
tb_mpi_asked(const tb_obj_t *o, unsigned n)
{
    if (o->ctx->file_mpi)
        o->ctx->mpi_asked += n;
}

/* ---- contexts and objects (obj.c), from free lists */
tb_ctx_t *tb_ctx_new(hid_t under_vol_id, const tb_config_t *cfg); /* takes a new H5I ref */
void      tb_ctx_ref(tb_ctx_t *ctx);
void      tb_ctx_unref(tb_ctx_t *ctx);
tb_obj_t *tb_obj_new(void *under, tb_ctx_t *ctx);
void      tb_obj_free(tb_obj_t *o);

/* Counters of the allocation pools, for tests and the malloc benchmark (H5TURBO_STATS=1 prints
 * them at library close). */
typedef struct tb_vol_stats {
    size_t obj_malloc, obj_reused, obj_live;
    size_t ctx_live;
} tb_vol_stats_t;
void tb_vol_stats(tb_vol_stats_t *out);

/* ---- hooks (hooks.c)
 * The index and the pipeline hang state and duties on objects: lazy objects to make real, queued
 * chunk writes to finish, caches to drop when the file changes, state to free. Each subsystem
 * describes its duties in one table; the connector registers every table once, at load; the
 * callbacks enter every call through tb_enter, which runs the duties the call's kind needs. A
 * callback therefore names what it does (TB_USE, TB_DRAIN, TB_CHANGE), never whom to tell. */
typedef struct tb_hooks {
    const char *name;
    /* A lazy object (under == NULL) of this subsystem becomes real: 0 (done, or not one of its
     * objects), -1 failed (error on the stack). */
    int (*materialise)(tb_obj_t *o);
    /* Background work that could be seen through o (a dataset, or anything: then all of it) is
     * finished: 0, or -1 when o's own work failed (error on the stack). */
    herr_t (*drain)(tb_obj_t *o, hid_t dxpl_id);
    /* Links, objects or attributes may change; or files were mounted (paths may cross files). */
    void (*modified)(void);
    void (*mounted)(void);
    /* A file was created or opened (`file` is the new wrapper, its context new), or the
     * application is closing it (before the connector below does). */
    void (*file_opened)(tb_obj_t *file, const char *name, unsigned flags, hid_t fapl_id, int created);
    void (*file_closing)(tb_obj_t *file);
    /* HDF5 had the wrap class wrap an object the connector below made (for an iteration
     * callback, a reference, an open by token): `o` is the new wrapper. */
    void (*obj_wrapped)(tb_obj_t *o);
    /* A wrapper or a context is released. */
    void (*obj_release)(tb_obj_t *o);
    void (*ctx_release)(tb_ctx_t *ctx);
    /* Which object o is, where the subsystem knows without asking below: true with its file's
     * number (H5O_info2_t.fileno) and its token. */
    bool (*identity)(const tb_obj_t *o, unsigned long *fileno, H5O_token_t *token);
} tb_hooks_t;

/* Adds a subsystem's table (kept by pointer; registering one twice is a no-op). */
void tb_hooks_register(const tb_hooks_t *h);

/* What a callback is about to do with the objects it was handed. */
#define TB_USE    1u /* needs the real objects below: a lazy one is made real */
#define TB_DRAIN  2u /* may observe or move stored chunks or file contents: queued writes finish */
#define TB_CHANGE 4u /* may change links, objects or attributes: caches of them are dropped */
/* Runs the duties `what` calls for on a and b (either may be NULL): 0, or -1 with the error on
 * the stack. Every callback that reaches the connector below enters through here (or through
 * TB_FORWARD, which does). Inline for the common case, a real object that is only used. */
herr_t tb_enter_hooks(tb_obj_t *a, tb_obj_t *b, unsigned what, hid_t dxpl_id);
static inline herr_t
tb_enter(tb_obj_t *a, tb_obj_t *b, unsigned what, hid_t dxpl_id)
{
    if (!(what & (TB_DRAIN | TB_CHANGE)) && (!a || a->under) && (!b || b->under))
        return 0;
    return tb_enter_hooks(a, b, what, dxpl_id);
}
/* Every subsystem's release hook, run by obj.c when a wrapper or a context goes. */
void tb_hooks_obj_release(tb_obj_t *o);
void tb_hooks_ctx_release(tb_ctx_t *ctx);
/* Which object o is, from the first subsystem that knows (tb_hooks_t.identity); false if none. */
bool tb_hooks_identity(const tb_obj_t *o, unsigned long *fileno, H5O_token_t *token);
/* The other events, for the callbacks that see them. */
void tb_hooks_mounted(void);
void tb_hooks_file_opened(tb_obj_t *file, const char *name, unsigned flags, hid_t fapl_id, int created);
void tb_hooks_file_closing(tb_obj_t *file, hid_t dxpl_id);
void tb_hooks_obj_wrapped(tb_obj_t *o);

/* What a subsystem did with a call a callback offered it: answered it (the callback returns the
 * subsystem's status), or left it to be forwarded unchanged. */
typedef enum tb_answer { TB_FORWARD = 0, TB_ANSWERED = 1 } tb_answer_t;

/* ---- calling the connector below */

/* The under object of a (possibly NULL) wrapper. */
static inline void *
tb_under(const void *obj)
{
    return obj ? ((const tb_obj_t *)obj)->under : NULL;
}

/* If the connector below returned an asynchronous request, wraps it in one of our objects so that
 * request callbacks reach us. The one helper for request wrapping. */
static inline void
tb_req_wrap(void **req, tb_ctx_t *ctx)
{
    if (req && *req) {
        tb_obj_t *r = tb_obj_new(*req, ctx);
        if (r)
            *req = r;
    }
}

/* Wraps a newly created/opened under object like `parent`'s; NULL stays NULL. */
static inline void *
tb_wrap_new(void *under, const tb_obj_t *parent, void **req)
{
    if (!under)
        return NULL;
    tb_obj_t *o = tb_obj_new(under, parent->ctx);
    tb_req_wrap(req, parent->ctx);
    return o;
}

/* The shape of nearly every callback: enter (the duties of `what`), call the connector below,
 * wrap its request, return its status. */
#define TB_FORWARD(o, what, dxpl_id, req, call)                                                            \
    do {                                                                                                   \
        if (tb_enter((o), NULL, (what), (dxpl_id)) < 0)                                                    \
            return -1;                                                                                     \
        herr_t ret_ = (call);                                                                              \
        tb_req_wrap((req), (o)->ctx);                                                                      \
        return ret_;                                                                                       \
    } while (0)
/* TB_FORWARD, and when the call succeeded without a request pending, `done` (a statement: what a
 * subsystem keeps of native's answer for the calls to come). */
#define TB_FORWARD_THEN(o, what, dxpl_id, req, call, done)                                                 \
    do {                                                                                                   \
        if (tb_enter((o), NULL, (what), (dxpl_id)) < 0)                                                    \
            return -1;                                                                                     \
        herr_t ret_ = (call);                                                                              \
        tb_req_wrap((req), (o)->ctx);                                                                      \
        if (ret_ >= 0 && !((req) && *(req))) {                                                             \
            done;                                                                                          \
        }                                                                                                  \
        return ret_;                                                                                       \
    } while (0)
/* Closes: the object below goes, then our wrapper. */
#define TB_FORWARD_CLOSE(o, req, call)                                                                     \
    do {                                                                                                   \
        tb_ctx_t *ctx_ = (o)->ctx;                                                                         \
        herr_t    ret_ = (call);                                                                           \
        tb_req_wrap((req), ctx_);                                                                          \
        if (ret_ >= 0)                                                                                     \
            tb_obj_free(o);                                                                                \
        return ret_;                                                                                       \
    } while (0)

/* Lower-connector helpers (under.c). The address of a dataset's contiguous storage in its file
 * (native below): HADDR_UNDEF for any other layout, for external or unallocated storage, and when
 * it cannot be told. One cheap native call, where the creation property list would be a copy. */
haddr_t tb_dset_contig_addr(void *under, hid_t vol, hid_t dxpl_id);
/* Native's H5Oget_native_info of `fields` (H5O_NATIVE_INFO_*) of the object at loc, through `under`
 * (connector vol), into *ni. */
herr_t tb_native_info(void *under, const H5VL_loc_params_t *loc, hid_t vol, unsigned fields, H5O_native_info_t *ni,
                      hid_t dxpl_id);
/* Whether a real dataset's object header holds a filter pipeline message (native below): 1 or 0,
 * told from the header's message summary without the copy of its creation property list; -1 when
 * it cannot be told (error cleared). */
int tb_dset_filtered(void *under, hid_t vol, hid_t dxpl_id);
/* A real dataset's creation property list from below (a copy native makes on every request),
 * fetched once per wrapper and kept until the wrapper is freed: the pipeline and the index both
 * read it. Borrowed (never closed by the caller); H5I_INVALID_HID when native refuses (error
 * cleared). */
hid_t tb_dset_dcpl(tb_obj_t *o, hid_t dxpl_id);
/* The descriptor of a file (one the application opened: its wrapper) that the native connector
 * below opened with the POSIX (sec2) driver, for fstat and pread; -1 for another connector or
 * driver (errors on the stack kept). Asked once per open (the question copies the file's access
 * list): the answer is kept in the file's context. */
int tb_file_sec2_fd(tb_obj_t *file);
/* The same for a file of native below given as its object (no context to keep the answer). */
int tb_file_fd_below(void *file_under, hid_t vol);
/* A time in nanoseconds. */
static inline int64_t
tb_ns(struct timespec ts)
{
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
/* Whether a file changed less than 2 s ago (its mtime or ctime, in ns): two versions written within
 * the clock's resolution cannot be told apart by their times, so nothing is kept of such a file
 * on the strength of them (the index's sidecars, files kept open below). */
static inline bool
tb_changed_lately(int64_t mtime_ns, int64_t ctime_ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return tb_ns(ts) - (mtime_ns > ctime_ns ? mtime_ns : ctime_ns) < 2000000000LL;
}
/* Whether a transfer list sets a data transform (the defaults do not). The failed query of a
 * list without one is cleared from the error stack: for callers whose stack holds nothing of
 * theirs yet (a callback before any failure, or inside tb_err_save/restore). */
bool tb_dxpl_has_transform(hid_t dxpl_id);
/* Whether a function lies in the HDF5 library itself (one of its callbacks handed to a
 * connector, such as the 1.8 calls' adapters), rather than in the application. */
bool tb_hdf5_own_code(void (*fn)(void));
/* HDF5 prints the error stack of any failing API call while automatic printing is on, also of one
 * made inside a callback: calls expected to fail (a probe of an unallocated chunk, a transfer list
 * without a data transform) run with it turned off, and what they leave on the stack is cleared
 * by the caller. */
typedef struct tb_quiet {
    H5E_auto2_t func;
    void       *data;
    int         saved; /* 0: nothing to restore, 2: a v2 handler, 1: a v1 handler */
#ifndef H5_NO_DEPRECATED_SYMBOLS
    H5E_auto1_t func1;
#endif
} tb_quiet_t;
void tb_quiet_on(tb_quiet_t *q);
void tb_quiet_off(tb_quiet_t *q);

/* The feature flags (H5FD_FEAT_*) of the file driver a file access list names, asked of the
 * driver without copying the list (a copy duplicates an MPI driver's communicator); 0 when they
 * cannot be had. */
unsigned long tb_fapl_driver_features(hid_t fapl_id);
/* Whether that driver does MPI I/O (H5FD_FEAT_HAS_MPI: MPI-IO, subfiling). */
bool tb_fapl_uses_mpi(hid_t fapl_id);

#include "below.h"

#endif
