/* tb_pool.h — allocation pooling: a free list of fixed-size objects (VOL wrappers, wrap contexts)
 * and size-classed buffers (chunk buffers), so hot paths do not call malloc once warm.
 * Both are thread-safe (a mutex, uncontended in practice) and keep counters for tests/benchmarks. */
#ifndef TB_POOL_H
#define TB_POOL_H

#include "tb_common.h"
#include <pthread.h>

typedef struct tb_objpool {
    pthread_mutex_t mu;
    size_t          obj_nbytes;  /* size of one object */
    void           *free_list;   /* singly linked through the first word */
    size_t          nfree;       /* objects on free_list */
    size_t          max_free;    /* beyond this, released objects go back to free() */
    /* counters (under mu) */
    size_t          n_malloc;    /* objects obtained from malloc */
    size_t          n_reused;    /* objects served from the free list */
    size_t          n_live;      /* handed out, not yet returned */
} tb_objpool_t;

#define TB_OBJPOOL_INIT(type, maxfree)                                                                   \
    {PTHREAD_MUTEX_INITIALIZER, sizeof(type), NULL, 0, (maxfree), 0, 0, 0}

/* A zeroed object, or NULL when out of memory. */
void *tb_objpool_get(tb_objpool_t *p);
void  tb_objpool_put(tb_objpool_t *p, void *obj);
/* Frees every object on the free list (live objects are unaffected). */
void  tb_objpool_trim(tb_objpool_t *p);

/* Size-classed buffers: powers of two from 4 KiB to 256 MiB; larger requests go straight to
 * malloc. At most `TB_BUFPOOL_KEEP_NBYTES` bytes are kept cached in all. */
void  *tb_buf_get(size_t nbytes);
void   tb_buf_put(void *buf);
size_t tb_buf_capacity(const void *buf);
void   tb_buf_trim(void);

typedef struct tb_pool_stats {
    size_t buf_malloc, buf_reused, buf_live, buf_cached_nbytes;
} tb_pool_stats_t;
void tb_buf_stats(tb_pool_stats_t *out);

#endif
