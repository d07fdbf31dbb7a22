/* pipeline_behind.c — write-behind for the chunk pipeline (write_behind=1, off by default): an
 * H5Dwrite of whole chunks copies them out of the user's buffer, queues their filtering on the
 * pool and returns; the application's thread writes finished chunks, in order, at its next
 * write to the dataset, and writes everything pending before any callback that can observe or
 * change stored chunks (tb_pipe_drain). Errors of deferred writes surface at the dataset's next
 * such call. Caveat: operations that reach the file without passing through a dataset or file
 * callback of ours (H5Ocopy of a dataset with writes pending) see the chunks written so far. */
#include "pipeline_int.h"
#include "tb_pool.h"
#include "tb_threadpool.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct behind_chunk {
    struct behind_chunk *next;      /* application's thread */
    struct tb_behind_q *q;
    hsize_t              offset[TB_PIPE_RANK];
    void                *bufs[2];   /* bufs[0] holds the gathered chunk; tb_buf */
    const void          *out;       /* written by the worker before `done` */
    size_t               out_nbytes;
    uint32_t             out_mask;
    tb_status_t         st;
    int                  done;      /* q->mu */
} behind_chunk_t;

/* One dataset handle's queue. The list and counters belong to the application's thread; `done`
 * flags are handed over under mu. */
typedef struct tb_behind_q {
    pthread_mutex_t      mu;
    pthread_cond_t       cv;
    tb_taskgroup_t      g;
    tb_obj_t           *obj;     /* the handle whose under object the chunks are written through */
    tb_pipe_dset_t     *p;
    behind_chunk_t      *head, *tail;
    size_t               nbytes;  /* buffer bytes held by queued chunks */
    int                  failed;  /* a deferred write failed; reported once */
    int                  listed;  /* on the pending list */
    struct tb_behind_q *next_pending;
} tb_behind_q_t;

/* Queues with chunks pending, process-wide (application's thread; HDF5 serialises callbacks). */
static tb_behind_q_t *pending;

static void
chunk_free(behind_chunk_t *c)
{
    tb_buf_put(c->bufs[0]);
    tb_buf_put(c->bufs[1]);
    free(c);
}

static void
encode_task(void *arg)
{
    behind_chunk_t *c   = arg;
    tb_behind_q_t *q   = c->q;
    const void     *out = NULL;
    size_t          n   = 0;
    uint32_t        m   = 0;
    tb_status_t    st  = tb_pipe_encode(q->p, c->bufs[0], c->bufs, &out, &n, &m, 1);
    pthread_mutex_lock(&q->mu);
    c->out        = out;
    c->out_nbytes = n;
    c->out_mask   = m;
    c->st         = st;
    c->done       = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

/* Writes up to `max` queued chunks in order: those already filtered, or (wait) waiting for each.
 * Where it wrote two or more, it then looks up the first, so that HDF5's cache of the last chunk
 * looked up forgets the filter mask the last one had before (tb_pipe_chunk_write). */
static void
write_queued(tb_behind_q_t *q, hid_t dxpl_id, int wait, size_t max)
{
    hsize_t first[TB_PIPE_RANK];
    size_t  tried = 0;
    for (size_t k = 0; k < max && q->head; k++) {
        behind_chunk_t *c = q->head;
        pthread_mutex_lock(&q->mu);
        while (wait && !c->done)
            pthread_cond_wait(&q->cv, &q->mu);
        int done = c->done;
        pthread_mutex_unlock(&q->mu);
        if (!done)
            break;
        if (c->st == TB_OK && c->out_nbytes <= UINT32_MAX && tried++ == 0)
            memcpy(first, c->offset, sizeof(first));
        if (c->st != TB_OK || c->out_nbytes > UINT32_MAX ||
            tb_pipe_chunk_write(q->obj, c->offset, dxpl_id, c->out_mask, c->out_nbytes, c->out) < 0)
            q->failed = 1;
        else
            tb_pipe_stats_g.chunks_written++;
        q->head = c->next;
        if (!q->head)
            q->tail = NULL;
        q->nbytes -= 2 * q->p->buf_nbytes;
        chunk_free(c);
    }
    if (tried >= 2)
        tb_pipe_chunk_forget(q->obj, first, dxpl_id);
}

static void
unlist(tb_behind_q_t *q)
{
    for (tb_behind_q_t **pp = &pending; *pp; pp = &(*pp)->next_pending)
        if (*pp == q) {
            *pp       = q->next_pending;
            q->listed = 0;
            return;
        }
}

/* Writes everything q holds. Chunk writes here may run inside an unrelated HDF5 call: their
 * failures are recorded in q, not left on that call's error stack. */
static void
drain_q(tb_behind_q_t *q, hid_t dxpl_id)
{
    hid_t saved = tb_err_save();
    write_queued(q, dxpl_id, 1, SIZE_MAX);
    tb_taskgroup_wait(&q->g);
    tb_err_restore(saved);
    unlist(q);
}

herr_t
tb_pipe_drain(tb_obj_t *o, hid_t dxpl_id)
{
    while (pending)
        drain_q(pending, dxpl_id);
    tb_pipe_dset_t *p = o ? (tb_pipe_dset_t *)o->pipe : NULL;
    if (p && p->behind && p->behind->failed) {
        p->behind->failed = 0;
        TB_PUSH("pipeline", TB_ERR_HDF5, "a deferred chunk write (write-behind) of this dataset failed");
        return -1;
    }
    return 0;
}

static int
same_dataset(const tb_pipe_dset_t *a, const tb_pipe_dset_t *b)
{
    return a->have_token && b->have_token && a->fileno == b->fileno &&
           memcmp(&a->token, &b->token, sizeof(a->token)) == 0;
}

int
tb_pipe_behind_write(tb_obj_t *o, tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, hid_t dxpl_id,
                      const void *buf)
{
    hsize_t           off[TB_PIPE_RANK];
    tb_pipe_region_t r;
    /* Only whole chunks: anything else needs stored chunks (merge) or native's cache. */
    for (size_t i = 0; i < plan->nchunks; i++) {
        tb_pipe_chunk_offset(p, plan, i, off);
        tb_pipe_region(p, plan, off, &r);
        if (!r.full || r.edge)
            return 0;
    }
    if (!p->have_token)
        return 0;
    /* Any chunk may be written in a drain of its own, which no look-up of another chunk follows:
     * one stored with a filter mask (an earlier program's) marks the dataset, and the caller writes
     * synchronously (tb_pipe_chunk_stored_masked). Cost: a look-up per chunk, and a read of each
     * one stored. */
    for (size_t i = 0; i < plan->nchunks; i++) {
        tb_pipe_chunk_offset(p, plan, i, off);
        if (tb_pipe_chunk_stored_masked(o, off, dxpl_id) != 0)
            return 0;
    }
    tb_behind_q_t *q = p->behind;
    if (!q) {
        if (!(q = calloc(1, sizeof(*q))))
            return 0;
        pthread_mutex_init(&q->mu, NULL);
        pthread_cond_init(&q->cv, NULL);
        q->p = p;
        tb_taskgroup_init(&q->g, o->ctx->cfg.threads);
        p->behind = q;
    }
    q->obj = o;
    /* Chunks other handles on this dataset queued must land first. */
    for (tb_behind_q_t *x = pending; x;) {
        tb_behind_q_t *next = x->next_pending;
        if (x != q && same_dataset(x->p, p))
            drain_q(x, dxpl_id);
        x = next;
    }
    if (q->failed)
        return 0; /* the synchronous path reports it */
    write_queued(q, dxpl_id, 0, SIZE_MAX);

    size_t limit = o->ctx->cfg.inflight_nbytes;
    for (size_t i = 0; i < plan->nchunks; i++) {
        while (q->head && q->nbytes + 2 * p->buf_nbytes > limit)
            write_queued(q, dxpl_id, 1, 1);
        behind_chunk_t *c = calloc(1, sizeof(*c));
        if (c) {
            c->bufs[0] = tb_buf_get(p->buf_nbytes);
            c->bufs[1] = tb_buf_get(p->buf_nbytes);
        }
        if (!c || !c->bufs[0] || !c->bufs[1]) {
            if (c)
                chunk_free(c);
            /* Out of memory midway: finish what is queued, let the caller rewrite it all. */
            drain_q(q, dxpl_id);
            return 0;
        }
        c->q = q;
        tb_pipe_chunk_offset(p, plan, i, c->offset);
        tb_pipe_region(p, plan, c->offset, &r);
        /* The copy the application's buffer may be reused after (a box: never fails). */
        (void)tb_pipe_gather(p, plan, &r, c->bufs[0], buf);
        if (q->tail)
            q->tail->next = c;
        else
            q->head = c;
        q->tail = c;
        q->nbytes += 2 * p->buf_nbytes;
        tb_taskgroup_submit(&q->g, encode_task, c);
    }
    if (!q->listed) {
        q->next_pending = pending;
        pending         = q;
        q->listed       = 1;
    }
    tb_pipe_stats_g.behind_writes++;
    return 1;
}

void
tb_pipe_behind_release(tb_obj_t *o, tb_pipe_dset_t *p)
{
    tb_behind_q_t *q = p->behind;
    if (!q)
        return;
    /* Normally empty: dataset_close drains before closing. If the wrapper goes away with the
     * object still open (unwrapped), its chunks are still written through it. */
    q->obj = o;
    drain_q(q, H5P_DATASET_XFER_DEFAULT);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
    free(q);
    p->behind = NULL;
}
