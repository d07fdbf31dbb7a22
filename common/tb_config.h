/* tb_config.h — h5turbo's options: parsed from the connector string ("threads=8;index=off")
 * and from H5TURBO_* environment variables. The connector string wins over the environment. */
#ifndef TB_CONFIG_H
#define TB_CONFIG_H

#include "tb_common.h"

#include <limits.h>
#include <stdio.h>

typedef enum tb_index_mode {
    TB_INDEX_OFF = 0,   /* no link/object index: every query forwarded */
    TB_INDEX_MEMORY,    /* in-process index only */
    TB_INDEX_PERSISTENT /* in-process index plus validated sidecar for read-only opens */
} tb_index_mode_t;

/* Where sidecars of the persistent index are written (and looked for first). */
typedef enum tb_index_where {
    TB_INDEX_IN_CACHE = 0, /* the reader's own cache folder (default) */
    TB_INDEX_BESIDE,       /* next to the data file (opt-in) */
    TB_INDEX_IN_DIR        /* a configured, possibly shared, folder: index_dir (opt-in) */
} tb_index_where_t;

#define TB_INDEX_DIR_NBYTES 1024
/* index_mpi_build = auto (the default): rank 0 builds only where the program walked the job's
 * last such file, walking at most TB_INDEX_MPI_BUILD_AUTO_NOBJ objects. */
#define TB_INDEX_MPI_BUILD_AUTO      ULONG_MAX
#define TB_INDEX_MPI_BUILD_AUTO_NOBJ 4096
/* index_spill = auto (the default): index_spill.h's TB_IX_SPILL_AUTO. */
#define TB_INDEX_SPILL_AUTO (SIZE_MAX - 1)

typedef struct tb_config {
    unsigned         threads;            /* worker threads for codecs; 0 = default */
    tb_index_mode_t index;              /* link/object index mode */
    int              pipeline;           /* 1: parallel chunk pipeline on, 0: forward all I/O */
    int              write_behind;       /* 1: asynchronous chunk writes (see vol/) */
    size_t           inflight_nbytes;    /* bound on chunk bytes in flight */
    size_t           index_data_nbytes;  /* budget of the index's small-dataset cache; 0 = off */
    size_t           index_spill_nbytes; /* an index this large moves to a mapped file; SIZE_MAX = never,
                                          * TB_INDEX_SPILL_AUTO = past a quarter of the process */
    tb_index_where_t index_where;       /* where sidecars go */
    char             index_dir[TB_INDEX_DIR_NBYTES]; /* TB_INDEX_IN_DIR: the folder (absolute) */
    size_t           index_cache_max_nbytes; /* bound on the per-user sidecar cache */
    unsigned long    index_mpi_build;    /* objects rank 0 of the ranks opening a file through
                                          * MPI-IO walks, on a first run, to build the index it
                                          * then broadcasts to them all (0: never, each rank
                                          * learns its own from its calls;
                                          * TB_INDEX_MPI_BUILD_AUTO: auto) */
    unsigned long    index_mpi_build_ranks; /* ... where at least this many ranks open it */
    size_t           pipeline_min_nbytes; /* calls moving fewer bytes go to HDF5's own path: the
                                           * pipeline's fixed cost per call (a few HDF5 queries,
                                           * waking workers) is then comparable to the codec work,
                                           * and native's chunk cache serves repeated small reads
                                           * (0: every eligible call; tests use that) */
    int              keep_files;         /* 1: a read-only file the application closes stays open
                                          * below for its next open (vol/callbacks/file_kept.c) */
    int              debug;              /* 1: debug messages on stderr */
    int              stats;              /* 1: counters on stderr at library close */
} tb_config_t;

/* Defaults, with H5TURBO_* environment variables applied. Never fails: an unparsable
 * environment value is ignored (reported on stderr when H5TURBO_DEBUG is set). */
void tb_config_defaults(tb_config_t *cfg_out);

/* The environment's configuration, parsed once per process (thread-safe): what code without a
 * file's configuration at hand (library close, the thread pool) goes by. */
const tb_config_t *tb_config_process(void);

/* Applies one "key=value" option. Returns TB_ERR_ARG for an unknown key or a bad
 * value and writes a message naming it into errmsg (errmsg_nbytes may be 0). */
tb_status_t tb_config_set(tb_config_t *cfg, const char *key, size_t key_len, const char *val,
                            size_t val_len, char *errmsg, size_t errmsg_nbytes);

/* Writes the options that differ from a default config as "k=v;k=v" (no trailing ';').
 * Returns the length that would have been written (snprintf convention). */
size_t tb_config_to_str(const tb_config_t *cfg, char *buf, size_t buf_nbytes);

/* Where the counters H5TURBO_STATS asks for go, at library close: a value other than a boolean's
 * spelling (1, on, yes, true...) names a file they are appended to (so that a program's own stderr
 * stays its own: test suites compare what their subprocesses print there); a boolean, or a file
 * that cannot be opened, stderr.
 * tb_stats_done flushes or closes what tb_stats_stream returned. */
FILE *tb_stats_stream(void);
void  tb_stats_done(FILE *out);

/* Number of CPUs this process may run on (sched_getaffinity), at least 1. */
unsigned tb_cpu_count(void);

/* Default worker count: H5TURBO_THREADS, else BLOSC_NTHREADS, else tb_cpu_count(). */
unsigned tb_threads_from_env(void);

/* Parses a size with an optional K/M/G suffix (powers of 1024). */
tb_status_t tb_parse_size(const char *s, size_t len, size_t *nbytes_out);

#endif
