/* index_publish.c — sidecars published off the application's thread in MPI jobs. A publication
 * creates a file in the sidecar cache, a round trip to the server on a network file system, and
 * in an MPI job every rank waits for the publishing rank at the next collective open. One
 * publisher thread per process takes finished indexes from a queue (bench/mpi README, CREATE_US). */
#include "index_ctx.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

static pthread_mutex_t pub_mu   = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t  pub_work = PTHREAD_COND_INITIALIZER; /* something queued, or stop */
static pthread_cond_t  pub_done = PTHREAD_COND_INITIALIZER; /* a publication ended */
static tb_ix_data_t   *pub_head, *pub_tail;                 /* the queue, linked by d->next */
static bool            pub_busy;                            /* one is being published: */
static uint64_t        pub_busy_dev, pub_busy_ino;          /* its file (d itself is freed then) */
static pthread_t       pub_thread;
static int             pub_running, pub_stop;
static bool            pub_started; /* the thread runs its loop (past the thread library's start) */
static pthread_once_t  pub_once = PTHREAD_ONCE_INIT;

static void *
publisher(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&pub_mu);
    pub_started = true;
    pthread_cond_broadcast(&pub_done);
    for (;;) {
        while (!pub_head && !pub_stop)
            pthread_cond_wait(&pub_work, &pub_mu);
        if (!pub_head)
            break; /* asked to stop, and nothing left */
        tb_ix_data_t *d = pub_head;
        if (!(pub_head = d->next))
            pub_tail = NULL;
        pub_busy     = true;
        pub_busy_dev = d->dev;
        pub_busy_ino = d->ino;
        pthread_mutex_unlock(&pub_mu);
        tb_ix_data_finish(d);
        pthread_mutex_lock(&pub_mu);
        pub_busy = false;
        pthread_cond_broadcast(&pub_done);
    }
    pthread_mutex_unlock(&pub_mu);
    return NULL;
}

/* fork() waits for the publication in progress (which may hold the sidecar store's locks), and for
 * a thread just created to reach its loop (its start allocates: a lock of the allocator held at the
 * fork stays held in the child, which ASan's showed as a child hung in its first allocation of
 * that size), and keeps the next publication from starting until it returns. A forked child has
 * no publisher: what the parent had queued is the parent's to publish, and the child publishes its
 * own at the close, as a serial program does. */
static void
atfork_prepare(void)
{
    pthread_mutex_lock(&pub_mu);
    while (pub_busy || (pub_running && !pub_started))
        pthread_cond_wait(&pub_done, &pub_mu);
}

static void
atfork_parent(void)
{
    pthread_mutex_unlock(&pub_mu);
}

static void
atfork_child(void)
{
    pthread_mutex_init(&pub_mu, NULL);
    pthread_cond_init(&pub_work, NULL);
    pthread_cond_init(&pub_done, NULL);
    pub_head = pub_tail = NULL;
    pub_busy = pub_started = false;
    pub_running            = 0;
    pub_stop               = 1; /* (no thread in the child) */
}

static void
register_atfork(void)
{
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

bool
tb_ix_publish_in_background(void)
{
    return tb_ix_mpi_family() != NULL;
}

void
tb_ix_publish_queue(tb_ix_data_t *d)
{
    pthread_once(&pub_once, register_atfork);
    pthread_mutex_lock(&pub_mu);
    if (!pub_running && !pub_stop) {
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old); /* (the application's signals stay its threads') */
        pub_running = pthread_create(&pub_thread, NULL, publisher, NULL) == 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    if (!pub_running) {
        pthread_mutex_unlock(&pub_mu);
        tb_ix_data_finish(d); /* (no thread: here, as in a serial program) */
        return;
    }
    tb_ix_stats.sidecar_queued++; /* (read once drained) */
    d->next = NULL;
    if (pub_tail)
        pub_tail->next = d;
    else
        pub_head = d;
    pub_tail = d;
    pthread_cond_signal(&pub_work);
    pthread_mutex_unlock(&pub_mu);
}

void
tb_ix_publish_wait_for(uint64_t dev, uint64_t ino)
{
    pthread_mutex_lock(&pub_mu);
    for (;;) {
        bool queued = pub_busy && pub_busy_dev == dev && pub_busy_ino == ino;
        for (const tb_ix_data_t *q = pub_head; q && !queued; q = q->next)
            queued = q->dev == dev && q->ino == ino;
        if (!queued)
            break;
        pthread_cond_wait(&pub_done, &pub_mu);
    }
    pthread_mutex_unlock(&pub_mu);
}

void
tb_ix_publish_drain(void)
{
    pthread_mutex_lock(&pub_mu);
    if (!pub_running) {
        pthread_mutex_unlock(&pub_mu);
        return;
    }
    pub_stop = 1;
    pthread_cond_signal(&pub_work);
    pthread_mutex_unlock(&pub_mu);
    pthread_join(pub_thread, NULL);
    pthread_mutex_lock(&pub_mu);
    pub_running = pub_stop = 0;
    pub_started            = false;
    pthread_mutex_unlock(&pub_mu);
}
