/* tb_pool.c — free lists for fixed-size objects and size-classed buffers (see tb_pool.h). */
#include "tb_pool.h"

#include <stdlib.h>
#include <string.h>

void *
tb_objpool_get(tb_objpool_t *p)
{
    void *obj = NULL;
    pthread_mutex_lock(&p->mu);
    if (p->free_list) {
        obj          = p->free_list;
        p->free_list = *(void **)obj;
        p->nfree--;
        p->n_reused++;
    }
    p->n_live++;
    pthread_mutex_unlock(&p->mu);
    if (obj) {
        memset(obj, 0, p->obj_nbytes);
        return obj;
    }
    obj = calloc(1, p->obj_nbytes < sizeof(void *) ? sizeof(void *) : p->obj_nbytes);
    pthread_mutex_lock(&p->mu);
    if (obj)
        p->n_malloc++;
    else
        p->n_live--;
    pthread_mutex_unlock(&p->mu);
    return obj;
}

void
tb_objpool_put(tb_objpool_t *p, void *obj)
{
    if (!obj)
        return;
    pthread_mutex_lock(&p->mu);
    p->n_live--;
    if (p->nfree < p->max_free) {
        *(void **)obj = p->free_list;
        p->free_list  = obj;
        p->nfree++;
        obj = NULL;
    }
    pthread_mutex_unlock(&p->mu);
    if (obj) /* (not kept: past max_free) */
        free(obj);
}

void
tb_objpool_trim(tb_objpool_t *p)
{
    pthread_mutex_lock(&p->mu);
    void *l      = p->free_list;
    p->free_list = NULL;
    p->nfree     = 0;
    pthread_mutex_unlock(&p->mu);
    while (l) {
        void *next = *(void **)l;
        free(l);
        l = next;
    }
}

/* ------------------------------------------------------------------ buffers */
#define TB_BUF_MIN_SHIFT  12 /* 4 KiB */
#define TB_BUF_MAX_SHIFT  28 /* 256 MiB */
#define TB_BUF_NCLASSES   (TB_BUF_MAX_SHIFT - TB_BUF_MIN_SHIFT + 1)
#define TB_BUFPOOL_KEEP_NBYTES ((size_t)512 << 20)
#define TB_BUF_HDR        64 /* keeps the payload 64-byte aligned */

typedef struct buf_hdr {
    struct buf_hdr *next;
    size_t          capacity; /* payload bytes */
    int             cls;      /* size class, -1 for oversize */
} buf_hdr_t;

static struct {
    pthread_mutex_t mu;
    buf_hdr_t      *free_lists[TB_BUF_NCLASSES];
    size_t          cached_nbytes;
    size_t          n_malloc, n_reused, n_live;
} bufs = {.mu = PTHREAD_MUTEX_INITIALIZER};

static int
size_class(size_t n)
{
    int s = TB_BUF_MIN_SHIFT;
    while (s <= TB_BUF_MAX_SHIFT && ((size_t)1 << s) < n)
        s++;
    return s > TB_BUF_MAX_SHIFT ? -1 : s - TB_BUF_MIN_SHIFT;
}

void *
tb_buf_get(size_t nbytes)
{
    int        cls = size_class(nbytes ? nbytes : 1);
    buf_hdr_t *h   = NULL;
    if (cls >= 0) {
        pthread_mutex_lock(&bufs.mu);
        h = bufs.free_lists[cls];
        if (h) {
            bufs.free_lists[cls] = h->next;
            bufs.cached_nbytes -= h->capacity;
            bufs.n_reused++;
            bufs.n_live++;
        }
        pthread_mutex_unlock(&bufs.mu);
        if (h)
            return (char *)h + TB_BUF_HDR;
    }
    size_t cap = cls >= 0 ? (size_t)1 << (cls + TB_BUF_MIN_SHIFT) : nbytes;
    void  *mem = NULL;
    if (cap > SIZE_MAX - TB_BUF_HDR || posix_memalign(&mem, 64, cap + TB_BUF_HDR) != 0)
        return NULL;
    h           = mem;
    h->next     = NULL;
    h->capacity = cap;
    h->cls      = cls;
    pthread_mutex_lock(&bufs.mu);
    bufs.n_malloc++;
    bufs.n_live++;
    pthread_mutex_unlock(&bufs.mu);
    return (char *)h + TB_BUF_HDR;
}

size_t
tb_buf_capacity(const void *buf)
{
    return ((const buf_hdr_t *)((const char *)buf - TB_BUF_HDR))->capacity;
}

void
tb_buf_put(void *buf)
{
    if (!buf)
        return;
    buf_hdr_t *h = (buf_hdr_t *)((char *)buf - TB_BUF_HDR);
    pthread_mutex_lock(&bufs.mu);
    bufs.n_live--;
    if (h->cls >= 0 && bufs.cached_nbytes + h->capacity <= TB_BUFPOOL_KEEP_NBYTES) {
        h->next                 = bufs.free_lists[h->cls];
        bufs.free_lists[h->cls] = h;
        bufs.cached_nbytes += h->capacity;
        h = NULL;
    }
    pthread_mutex_unlock(&bufs.mu);
    free(h);
}

void
tb_buf_trim(void)
{
    pthread_mutex_lock(&bufs.mu);
    for (int c = 0; c < TB_BUF_NCLASSES; c++) {
        buf_hdr_t *h = bufs.free_lists[c];
        while (h) {
            buf_hdr_t *n = h->next;
            free(h);
            h = n;
        }
        bufs.free_lists[c] = NULL;
    }
    bufs.cached_nbytes = 0;
    pthread_mutex_unlock(&bufs.mu);
}

void
tb_buf_stats(tb_pool_stats_t *out)
{
    pthread_mutex_lock(&bufs.mu);
    out->buf_malloc        = bufs.n_malloc;
    out->buf_reused        = bufs.n_reused;
    out->buf_live          = bufs.n_live;
    out->buf_cached_nbytes = bufs.cached_nbytes;
    pthread_mutex_unlock(&bufs.mu);
}
