/* tb_sidecar.h — the public face of the persistent index's sidecars, for the connector and the
 * h5turbo command alike: where they live and whom they trust (the per-user cache by default, a
 * shared folder or the data file's folder opt-in), trusted reads, locked atomic publishing, the
 * sweep of dead writers' temp files, the cache's size bound. Plain POSIX, no HDF5. */
#ifndef TB_SIDECAR_H
#define TB_SIDECAR_H

#include "tb_common.h"

#include <stddef.h>
#include <stdint.h>

#define TB_IX_TOKEN_NBYTES 16
/* Datasets of at most this many bytes of raw data may have their content cached by the index
 * (and `h5turbo index build` reads those whole, so that their contents are captured). */
#define TB_INDEX_DSET_MAX_NBYTES 4096

/* Who a file is, for trusting a sidecar: fstat identity of the descriptor HDF5 reads (ctime
 * included: it changes with every write and cannot be set back) plus an in-file fingerprint.
 * Compared with memcmp: 64 bytes, no padding. */
typedef struct tb_ix_identity {
    uint64_t dev, ino, size;
    int64_t  mtime_ns, ctime_ns;
    uint64_t eoa;
    uint8_t  root_token[TB_IX_TOKEN_NBYTES];
} tb_ix_identity_t;

/* Where sidecars are written (and looked for first). */
typedef enum tb_sc_where {
    TB_SC_CACHE = 0, /* the reader's own cache: $XDG_CACHE_HOME/h5turbo, else ~/.cache/h5turbo */
    TB_SC_BESIDE,    /* next to the data file, as .<name>.h5turbo-index (opt-in) */
    TB_SC_DIR        /* a configured shared folder (opt-in) */
} tb_sc_where_t;

typedef struct tb_sc_policy {
    tb_sc_where_t where;
    const char    *dir;              /* TB_SC_DIR: the folder */
    uint64_t       cache_max_nbytes; /* bound on the per-user cache; oldest entries go first */
    int            debug;            /* say every miss and fallback on stderr */
    /* An MPI job's publication where nothing was at the sidecar's name when this process opened
     * the file: a sidecar there now is another rank's of the same job, left as it is, unread
     * (TB_SC_YIELDED), instead of every rank but one reading it at its close. */
    int            yield;
} tb_sc_policy_t;

/* The data file a sidecar describes, as HDF5 opened it: identity from fstat of the descriptor the
 * file driver holds plus the in-file fingerprint; owner and mode decide trust and permissions. */
typedef struct tb_sc_file {
    const char       *path; /* absolute */
    tb_ix_identity_t id;
    uint32_t          uid, gid, mode;
} tb_sc_file_t;

/* The index's tables of one file (index_model.h; opaque here). */
struct tb_ix_data;

/* What came of one look for, or one publication of, a sidecar. Every outcome but LOADED and
 * WRITTEN is a miss or a fallback: silent, said with debug on, and counted (tb_sc_tally). */
typedef enum tb_sc_outcome {
    TB_SC_LOADED = 0,      /* trusted, and describes this file */
    TB_SC_ABSENT,          /* none there */
    TB_SC_SYMLINK,         /* a symbolic link: never followed */
    TB_SC_NOT_REGULAR,     /* a FIFO, device, folder, ...: never opened for reading */
    TB_SC_FOREIGN_OWNER,   /* owned by someone who is neither the reader nor the file's owner */
    TB_SC_WRITABLE,        /* writable by group or others: anyone could have changed it */
    TB_SC_TOO_LARGE,       /* larger than any sidecar of this file can be */
    TB_SC_CORRUPT,         /* not a sidecar of this format, truncated, or failing its checksum */
    TB_SC_STALE,           /* describes another file or another version of it */
    TB_SC_READ_ERROR,      /* a system call failed while reading */
    TB_SC_NO_MEMORY,       /* not enough memory to hold it */
    TB_SC_WRITTEN,         /* published */
    TB_SC_COVERED,         /* a valid one there already says as much: nothing written */
    TB_SC_YIELDED,         /* (policy.yield) another rank published one meanwhile: left unread */
    TB_SC_NO_DIR,          /* no usable folder (cache unsafe, missing, read-only) */
    TB_SC_LOCK_BUSY,       /* another process held the lock past the bounded wait */
    TB_SC_LOCK_UNSAFE,     /* the lock file is a symlink, not ours, or not a regular file */
    TB_SC_NO_LOCKING,      /* the folder's file system does not support locks */
    TB_SC_WRITE_ERROR,     /* creating, writing or renaming the temp file failed (full, read-only) */
    TB_SC_OVER_BUDGET,     /* larger than the cache's size bound */
    TB_SC_TOO_RECENT,      /* the file changed within the last 2 s: versions cannot be told apart */
    TB_SC_CHANGED,         /* the file changed while it was open */
    TB_SC_NOUTCOMES
} tb_sc_outcome_t;

/* A phrase for an outcome ("sidecar rejected (corrupt)", ...), and a one-word key for statistics
 * ("corrupt"). */
const char *tb_sc_outcome_str(tb_sc_outcome_t o);
const char *tb_sc_outcome_key(tb_sc_outcome_t o);
/* Outcomes so far in this process (for H5TURBO_STATS). Updated under HDF5's serialisation of
 * VOL callbacks, or by a single-threaded command. */
extern size_t tb_sc_tally[TB_SC_NOUTCOMES];
/* Counts outcome o and, with debug on, says it about `where` (a path) on stderr. */
void tb_sc_note(const tb_sc_policy_t *p, tb_sc_outcome_t o, const char *where);

/* What tb_sc_load found where: the path looked at last (the one loaded, or the most telling
 * rejection) and, when its header could be read, the identity it names. */
typedef struct tb_sc_found {
    char              where[4096];
    int               have_id;
    tb_ix_identity_t id;
} tb_sc_found_t;

/* Looks for f's sidecar where p says (the configured place first, then the reader's cache) and
 * reads the first one that is trusted and describes f. LOADED with the bytes in *buf_out (read
 * only; a mapping of the file or a malloc'd copy, released with tb_sc_release); otherwise the
 * outcome of the most telling place. Never blocks, never follows a symlink, reads no more than a
 * sidecar of f can hold. `found` may be NULL. */
tb_sc_outcome_t tb_sc_load(const tb_sc_policy_t *p, const tb_sc_file_t *f, void **buf_out, size_t *n_out,
                             tb_sc_found_t *found);
/* Releases bytes tb_sc_load returned, or any malloc'd buffer (free). */
void tb_sc_release(void *buf);
/* The n bytes tb_sc_load returned in malloc'd memory: buf itself, or a copy of a mapping (which is
 * released); NULL when memory ran out (buf released). */
void *tb_sc_own(void *buf, size_t n);

/* A private, unnamed, empty file in the reader's cache folder (the policy's debug says where),
 * for an index's spill (index_spill.h; policy: a tb_sc_policy_t): its descriptor, or -1 when
 * there is no cache folder to use. */
int tb_sc_spill_open(void *policy);
/* Publishes d as f's sidecar where p says (or in the reader's own cache when the reader does not
 * own f), with permissions from f's read bits and no fsync (the checksum rejects a torn one): a
 * first one (no lock file, nothing at its name) as an unnamed file linked in at its name; any
 * other under the sidecar's lock (bounded wait), unless a valid one already covers d, as an
 * exclusive temp file renamed over it; with p->yield, nothing where something is at its name
 * (TB_SC_YIELDED). Sweeps dead writers' temp files and keeps the cache within its bound. */
tb_sc_outcome_t tb_sc_publish(const tb_sc_policy_t *p, const tb_sc_file_t *f, const struct tb_ix_data *d);

/* Whether n bytes are a sound sidecar (checksum and every structural check of the decoder). */
tb_status_t tb_sc_check(const void *buf, size_t n);

/* For `h5turbo index drop`: removes f's sidecars (beside it, in p's folder, in the reader's cache)
 * and its dead writers' temp files; lock files stay. Calls report(path, errno) for each removal
 * (0) and each failure (errno). Returns the number of failures. */
int tb_sc_drop(const tb_sc_policy_t *p, const tb_sc_file_t *f, void (*report)(const char *, int, void *),
                void *ctx);

/* The reader's cache: where it is, what it holds. */
typedef struct tb_sc_cache_info {
    char     dir[4096];
    int      usable;      /* exists and is safe (owned by the reader, not writable by others) */
    uint64_t nsidecars, nbytes; /* (nbytes: the packs' too) */
    uint64_t npacks;            /* packs of small sidecars (sidecar_pack.h) */
    uint64_t ntemps, nlocks;
    uint64_t max_nbytes;
    /* filled by tb_sc_gc */
    uint64_t removed_orphans, removed_temps, evicted, freed_nbytes;
} tb_sc_cache_info_t;
void tb_sc_cache_info(const tb_sc_policy_t *p, tb_sc_cache_info_t *out);
/* Removes sidecars whose file is gone or replaced, dead writers' temp files, and the oldest
 * entries until the cache holds at most max_nbytes. 0, or -1 when there is no usable cache. */
int tb_sc_gc(const tb_sc_policy_t *p, uint64_t max_nbytes, tb_sc_cache_info_t *out);

#endif
