/* tb_threadpool.h — one process-wide pool of persistent worker threads with a bounded queue.
 * Codec work (compression, checksums) runs here; HDF5 is only ever called by the application's
 * thread. Work is grouped: submit tasks to a group, then wait for the group. */
#ifndef TB_THREADPOOL_H
#define TB_THREADPOOL_H

#include "tb_common.h"

typedef void (*tb_task_fn)(void *arg);

/* A set of tasks the caller waits for together. Lives on the caller's stack or in a caller's
 * struct; only the submitting thread calls submit/wait on it. `pending` is protected by the
 * pool's mutex. */
typedef struct tb_taskgroup {
    unsigned threads; /* total threads (caller included) this group may keep busy */
    size_t   pending; /* submitted, not yet finished (pool mutex) */
} tb_taskgroup_t;

/* Prepares a group that uses up to `threads` threads in all, the caller counted as one:
 * threads <= 1 runs every task inline on the caller's thread. 0 means the process default
 * (tb_threads_from_env()). Grows the pool if needed; if no thread can be created, tasks
 * run inline. */
void tb_taskgroup_init(tb_taskgroup_t *g, unsigned threads);

/* Queues fn(arg). When the queue is full, or the group is serial, runs it on the caller. */
void tb_taskgroup_submit(tb_taskgroup_t *g, tb_task_fn fn, void *arg);

/* Blocks until every task of g has finished; the caller runs queued tasks meanwhile. */
void tb_taskgroup_wait(tb_taskgroup_t *g);

/* Runs fn(arg, i) for i in [0, n) on up to `threads` threads (caller included) and returns when
 * all are done. Indices are handed out dynamically (an atomic counter). */
typedef void (*tb_index_fn)(void *arg, size_t i);
void tb_parallel_for(size_t n, unsigned threads, tb_index_fn fn, void *arg);

/* Number of worker threads currently alive in this module's pool (for tests and `info`). */
unsigned tb_threadpool_workers(void);

/* Test hook: when set to 1, creating worker threads is made to fail, to exercise the serial
 * fallback. */
void tb_threadpool_fail_thread_creation(int on);

#endif
