/* sidecar_store.h — where sidecars live and whom they trust: the per-user cache (default), a
 * shared folder or the data file's folder (opt-in); trusted reads, locked atomic publishing, the
 * sweep of dead writers' temp files, the cache's size bound. Plain POSIX, no HDF5. */
#ifndef H5T_SIDECAR_STORE_H
#define H5T_SIDECAR_STORE_H

#include "index_int.h"

#include <stddef.h>
#include <stdint.h>

/* What came of one look for, or one publication of, a sidecar. Every outcome but LOADED and
 * WRITTEN is a miss or a fallback: silent, said with debug on, and counted (h5t_sc_tally). */
typedef enum h5t_sc_outcome {
    H5T_SC_LOADED = 0,      /* trusted, and describes this file */
    H5T_SC_ABSENT,          /* none there */
    H5T_SC_SYMLINK,         /* a symbolic link: never followed */
    H5T_SC_NOT_REGULAR,     /* a FIFO, device, folder, ...: never opened for reading */
    H5T_SC_FOREIGN_OWNER,   /* owned by someone who is neither the reader nor the file's owner */
    H5T_SC_WRITABLE,        /* writable by group or others: anyone could have changed it */
    H5T_SC_TOO_LARGE,       /* larger than any sidecar of this file can be */
    H5T_SC_CORRUPT,         /* not a sidecar of this format, truncated, or failing its checksum */
    H5T_SC_STALE,           /* describes another file or another version of it */
    H5T_SC_READ_ERROR,      /* a system call failed while reading */
    H5T_SC_NO_MEMORY,       /* not enough memory to hold it */
    H5T_SC_WRITTEN,         /* published */
    H5T_SC_COVERED,         /* a valid one there already says as much: nothing written */
    H5T_SC_NO_DIR,          /* no usable folder (cache unsafe, missing, read-only) */
    H5T_SC_LOCK_BUSY,       /* another process held the lock past the bounded wait */
    H5T_SC_LOCK_UNSAFE,     /* the lock file is a symlink, not ours, or not a regular file */
    H5T_SC_NO_LOCKING,      /* the folder's file system does not support locks */
    H5T_SC_WRITE_ERROR,     /* creating, writing or renaming the temp file failed (full, read-only) */
    H5T_SC_OVER_BUDGET,     /* larger than the cache's size bound */
    H5T_SC_TOO_RECENT,      /* the file changed within the last 2 s: versions cannot be told apart */
    H5T_SC_CHANGED,         /* the file changed while it was open */
    H5T_SC_NOUTCOMES
} h5t_sc_outcome_t;

/* A phrase for an outcome ("sidecar rejected (corrupt)", ...), and a one-word key for statistics
 * ("corrupt"). */
const char *h5t_sc_outcome_str(h5t_sc_outcome_t o);
const char *h5t_sc_outcome_key(h5t_sc_outcome_t o);
/* Outcomes so far in this process (for H5TURBO_STATS). Updated under HDF5's serialisation of
 * VOL callbacks, or by a single-threaded command. */
extern size_t h5t_sc_tally[H5T_SC_NOUTCOMES];
/* Counts outcome o and, with debug on, says it about `where` (a path) on stderr. */
void h5t_sc_note(const h5t_sc_policy_t *p, h5t_sc_outcome_t o, const char *where);

/* What h5t_sc_load found where: the path looked at last (the one loaded, or the most telling
 * rejection) and, when its header could be read, the identity it names. */
typedef struct h5t_sc_found {
    char              where[4096];
    int               have_id;
    h5t_ix_identity_t id;
} h5t_sc_found_t;

/* Looks for f's sidecar where p says (the configured place first, then the reader's cache) and
 * reads the first one that is trusted and describes f. LOADED with the bytes in *buf_out
 * (malloc'd); otherwise the outcome of the most telling place. Never blocks, never follows a
 * symlink, reads no more than a sidecar of f can hold. `found` may be NULL. */
h5t_sc_outcome_t h5t_sc_load(const h5t_sc_policy_t *p, const h5t_sc_file_t *f, void **buf_out, size_t *n_out,
                             h5t_sc_found_t *found);

/* Publishes d as f's sidecar where p says (or in the reader's own cache when the reader does not
 * own f): under the sidecar's lock (bounded wait), unless a valid one already covers d; exclusive
 * temp file, permissions from f's read bits, fsync, rename. Sweeps dead writers' temp files and
 * keeps the cache within its bound. */
h5t_sc_outcome_t h5t_sc_publish(const h5t_sc_policy_t *p, const h5t_sc_file_t *f, const h5t_ix_data_t *d);

/* For `h5turbo index drop`: removes f's sidecars (beside it, in p's folder, in the reader's cache)
 * and its dead writers' temp files; lock files stay. Calls report(path, errno) for each removal
 * (0) and each failure (errno). Returns the number of failures. */
int h5t_sc_drop(const h5t_sc_policy_t *p, const h5t_sc_file_t *f, void (*report)(const char *, int, void *),
                void *ctx);

/* The reader's cache: where it is, what it holds. */
typedef struct h5t_sc_cache_info {
    char     dir[4096];
    int      usable;      /* exists and is safe (owned by the reader, not writable by others) */
    uint64_t nsidecars, nbytes;
    uint64_t ntemps, nlocks;
    uint64_t max_nbytes;
    /* filled by h5t_sc_gc */
    uint64_t removed_orphans, removed_temps, evicted, freed_nbytes;
} h5t_sc_cache_info_t;
void h5t_sc_cache_info(const h5t_sc_policy_t *p, h5t_sc_cache_info_t *out);
/* Removes sidecars whose file is gone or replaced, dead writers' temp files, and the oldest
 * entries until the cache holds at most max_nbytes. 0, or -1 when there is no usable cache. */
int h5t_sc_gc(const h5t_sc_policy_t *p, uint64_t max_nbytes, h5t_sc_cache_info_t *out);

#endif
