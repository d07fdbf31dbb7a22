/* tb_threadpool.c — persistent workers, bounded ring-buffer queue, task groups.
 * Ownership: every field of `pool` below is protected by pool.mu, except `workers`' thread handles,
 * which only the thread that grows or shuts down the pool touches (under pool.grow_mu). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tb_threadpool.h"
#include "tb_config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define TB_MAX_WORKERS 1024
#define TB_QUEUE_CAP   1024

typedef struct task {
    tb_task_fn      fn;
    void            *arg;
    tb_taskgroup_t *group;
} task_t;

static struct {
    pthread_mutex_t mu;        /* protects everything below but `threads` */
    pthread_cond_t  work_cv;   /* signalled when a task is queued or on shutdown */
    pthread_cond_t  done_cv;   /* broadcast when a task finishes */
    task_t          queue[TB_QUEUE_CAP];
    size_t          head, count;
    unsigned        nworkers;
    int             shutdown;
    pthread_mutex_t grow_mu;   /* serialises growing and shutdown */
    pthread_t       threads[TB_MAX_WORKERS];
} pool = {.mu = PTHREAD_MUTEX_INITIALIZER,
          .work_cv = PTHREAD_COND_INITIALIZER,
          .done_cv = PTHREAD_COND_INITIALIZER,
          .grow_mu = PTHREAD_MUTEX_INITIALIZER};

static atomic_int fail_creation;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* Runs one task with the mutex released, then accounts for it. Called with pool.mu held. */
static void
run_locked(task_t t)
{
    pthread_mutex_unlock(&pool.mu);
    t.fn(t.arg);
    pthread_mutex_lock(&pool.mu);
    if (--t.group->pending == 0)
        pthread_cond_broadcast(&pool.done_cv);
}

static int
pop_locked(task_t *out)
{
    if (pool.count == 0)
        return 0;
    *out = pool.queue[pool.head];
    pool.head = (pool.head + 1) % TB_QUEUE_CAP;
    pool.count--;
    return 1;
}

static void *
worker_main(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&pool.mu);
    for (;;) {
        task_t t;
        while (!pool.shutdown && pool.count == 0)
            pthread_cond_wait(&pool.work_cv, &pool.mu);
        if (pool.shutdown)
            break;
        if (pop_locked(&t))
            run_locked(t);
    }
    pthread_mutex_unlock(&pool.mu);
    return NULL;
}

/* After fork() the child has no workers: forget them (their memory is the parent's copy). */
static void
atfork_child(void)
{
    pthread_mutex_init(&pool.mu, NULL);
    pthread_mutex_init(&pool.grow_mu, NULL);
    pthread_cond_init(&pool.work_cv, NULL);
    pthread_cond_init(&pool.done_cv, NULL);
    pool.nworkers = 0;
    pool.count    = 0;
    pool.head     = 0;
}

static void
register_atfork(void)
{
    pthread_atfork(NULL, NULL, atfork_child);
}

/* Ensures at least `want` workers exist. Failure to create a thread is not an error: the
 * groups then run their tasks on the caller (serial fallback). */
static void
grow(unsigned want)
{
    if (want > TB_MAX_WORKERS)
        want = TB_MAX_WORKERS;
    pthread_once(&atfork_once, register_atfork);
    pthread_mutex_lock(&pool.grow_mu);
    pthread_mutex_lock(&pool.mu);
    unsigned have = pool.nworkers;
    int      down = pool.shutdown;
    pthread_mutex_unlock(&pool.mu);
    while (!down && have < want && !atomic_load(&fail_creation)) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, (size_t)1 << 20);
        int rc = pthread_create(&pool.threads[have], &attr, worker_main, NULL);
        pthread_attr_destroy(&attr);
        if (rc != 0)
            break;
        have++;
        pthread_mutex_lock(&pool.mu);
        pool.nworkers = have;
        pthread_mutex_unlock(&pool.mu);
    }
    pthread_mutex_unlock(&pool.grow_mu);
}

/* Joins the workers when the module is unloaded or the process exits, so that no thread is
 * left running code of an unmapped plugin. */
__attribute__((destructor)) static void
shutdown_pool(void)
{
    pthread_mutex_lock(&pool.grow_mu);
    pthread_mutex_lock(&pool.mu);
    unsigned n    = pool.nworkers;
    pool.shutdown = 1;
    pthread_cond_broadcast(&pool.work_cv);
    pthread_mutex_unlock(&pool.mu);
    for (unsigned i = 0; i < n; i++)
        pthread_join(pool.threads[i], NULL);
    pthread_mutex_lock(&pool.mu);
    pool.nworkers = 0;
    pthread_mutex_unlock(&pool.mu);
    pthread_mutex_unlock(&pool.grow_mu);
}

void
tb_taskgroup_init(tb_taskgroup_t *g, unsigned threads)
{
    if (threads == 0)
        threads = tb_threads_from_env();
    g->threads = threads;
    g->pending = 0;
    if (threads > 1) {
        pthread_mutex_lock(&pool.mu);
        unsigned have = pool.nworkers;
        pthread_mutex_unlock(&pool.mu);
        if (have < threads - 1)
            grow(threads - 1);
    }
}

void
tb_taskgroup_submit(tb_taskgroup_t *g, tb_task_fn fn, void *arg)
{
    if (g->threads > 1) {
        pthread_mutex_lock(&pool.mu);
        /* Bound on what this group may queue: enough to keep its threads busy, no more.
         * Beyond it the caller does the work itself, which also bounds memory in flight. */
        size_t limit = (size_t)g->threads * 4;
        if (pool.nworkers > 0 && !pool.shutdown && pool.count < TB_QUEUE_CAP && g->pending < limit) {
            pool.queue[(pool.head + pool.count) % TB_QUEUE_CAP] = (task_t){fn, arg, g};
            pool.count++;
            g->pending++;
            pthread_cond_signal(&pool.work_cv);
            pthread_mutex_unlock(&pool.mu);
            return;
        }
        pthread_mutex_unlock(&pool.mu);
    }
    fn(arg);
}

void
tb_taskgroup_wait(tb_taskgroup_t *g)
{
    pthread_mutex_lock(&pool.mu);
    while (g->pending > 0) {
        task_t t;
        if (pop_locked(&t))
            run_locked(t);
        else
            pthread_cond_wait(&pool.done_cv, &pool.mu);
    }
    pthread_mutex_unlock(&pool.mu);
}

typedef struct pfor {
    tb_index_fn   fn;
    void          *arg;
    size_t         n;
    atomic_size_t  next;
} pfor_t;

static void
pfor_worker(void *p)
{
    pfor_t *pf = p;
    for (;;) {
        size_t i = atomic_fetch_add(&pf->next, 1);
        if (i >= pf->n)
            break;
        pf->fn(pf->arg, i);
    }
}

void
tb_parallel_for(size_t n, unsigned threads, tb_index_fn fn, void *arg)
{
    if (threads == 0)
        threads = tb_threads_from_env();
    if (n <= 1 || threads <= 1) {
        for (size_t i = 0; i < n; i++)
            fn(arg, i);
        return;
    }
    pfor_t          pf = {fn, arg, n, 0};
    tb_taskgroup_t g;
    tb_taskgroup_init(&g, threads);
    unsigned helpers = threads - 1;
    if (helpers > n - 1)
        helpers = (unsigned)(n - 1);
    for (unsigned k = 0; k < helpers; k++) {
        pthread_mutex_lock(&pool.mu);
        int queued = 0;
        if (pool.nworkers > 0 && !pool.shutdown && pool.count < TB_QUEUE_CAP) {
            pool.queue[(pool.head + pool.count) % TB_QUEUE_CAP] = (task_t){pfor_worker, &pf, &g};
            pool.count++;
            g.pending++;
            queued = 1;
            pthread_cond_signal(&pool.work_cv);
        }
        pthread_mutex_unlock(&pool.mu);
        if (!queued)
            break;
    }
    pfor_worker(&pf);
    tb_taskgroup_wait(&g);
}

unsigned
tb_threadpool_workers(void)
{
    pthread_mutex_lock(&pool.mu);
    unsigned n = pool.nworkers;
    pthread_mutex_unlock(&pool.mu);
    return n;
}

void
tb_threadpool_fail_thread_creation(int on)
{
    atomic_store(&fail_creation, on);
}
