/* pipeline_cache.c — decoded chunks per dataset handle, so that reads that take a chunk a piece
 * at a time (row by row, frame by frame through multi-frame chunks), or read chunks again, decode
 * them once, as HDF5's own chunk cache does for native reads. Sized like HDF5's from the access
 * list; dropped whole whenever anything may have written chunks. Application's thread only. */
#include "pipeline_int.h"
#include "tb_pool.h"

#include <stdlib.h>
#include <string.h>

typedef struct tb_pipe_cached {
    hsize_t  offset[TB_PIPE_RANK];
    uint64_t used; /* p->cache_tick when last found or put: the least is evicted first */
    uint8_t *data; /* tb_buf of chunk_nbytes */
} tb_pipe_cached_t;

/* Bumped by everything that may write chunks; a cache filled under another value is stale.
 * Only application threads touch it, inside VOL callbacks (HDF5's lock serialises them). */
static uint64_t written_gen;

void
tb_pipe_cache_written(void)
{
    written_gen++;
}

void
tb_pipe_cache_config(tb_pipe_dset_t *p, size_t rdcc_nslots, size_t rdcc_nbytes)
{
    size_t n = rdcc_nslots && p->chunk_nbytes ? rdcc_nbytes / p->chunk_nbytes : 0;
    p->cache_max = n > TB_PIPE_CACHE_MAX ? TB_PIPE_CACHE_MAX : n;
}

void
tb_pipe_cache_drop(tb_pipe_dset_t *p)
{
    for (size_t i = 0; i < p->cache_n; i++)
        tb_buf_put(p->cache[i].data);
    p->cache_n = 0;
}

static int
same_offset(const tb_pipe_dset_t *p, const hsize_t *a, const hsize_t *b)
{
    for (int d = 0; d < p->rank; d++)
        if (a[d] != b[d])
            return 0;
    return 1;
}

const uint8_t *
tb_pipe_cache_find(tb_pipe_dset_t *p, const hsize_t *offset)
{
    if (p->cache_gen != written_gen) {
        tb_pipe_cache_drop(p);
        p->cache_gen = written_gen;
    }
    for (size_t i = 0; i < p->cache_n; i++)
        if (same_offset(p, p->cache[i].offset, offset)) {
            p->cache[i].used = ++p->cache_tick;
            return p->cache[i].data;
        }
    return NULL;
}

static int
recent_has(const tb_pipe_dset_t *p, const hsize_t *offset)
{
    for (size_t i = 0; i < p->recent_n; i++)
        if (same_offset(p, p->recent[i], offset))
            return 1;
    return 0;
}

int
tb_pipe_cache_seen(tb_pipe_dset_t *p, const hsize_t *offset)
{
    return tb_pipe_cache_find(p, offset) != NULL || recent_has(p, offset);
}

int
tb_pipe_cache_reread(tb_pipe_dset_t *p, const hsize_t *offset)
{
    if (!recent_has(p, offset))
        return 0;
    p->keep_all = 1;
    return 1;
}

void
tb_pipe_cache_note_decoded(tb_pipe_dset_t *p, const hsize_t *offset)
{
    if (p->keep_all || !p->cache_max)
        return;
    if (!p->recent && !(p->recent = malloc(TB_PIPE_RECENT * sizeof(*p->recent))))
        return;
    memcpy(p->recent[p->recent_at], offset, (size_t)p->rank * sizeof(hsize_t));
    p->recent_at = (p->recent_at + 1) % TB_PIPE_RECENT;
    if (p->recent_n < TB_PIPE_RECENT)
        p->recent_n++;
}

void
tb_pipe_cache_note_unkept(tb_pipe_dset_t *p, const hsize_t *offset)
{
    memcpy(p->unkept, offset, (size_t)p->rank * sizeof(hsize_t));
    p->unkept_valid = 1;
}

int
tb_pipe_cache_unkept(const tb_pipe_dset_t *p, const hsize_t *offset)
{
    return p->unkept_valid && same_offset(p, p->unkept, offset);
}

void
tb_pipe_cache_put(tb_pipe_dset_t *p, const hsize_t *offset, uint8_t *data)
{
    if (p->cache_gen != written_gen) { /* (a job never spans a write, but be sure) */
        tb_pipe_cache_drop(p);
        p->cache_gen = written_gen;
    }
    if (!p->cache && p->cache_max && !(p->cache = calloc(p->cache_max, sizeof(*p->cache)))) {
        tb_buf_put(data);
        return;
    }
    size_t at = p->cache_n;
    for (size_t i = 0; i < p->cache_n; i++)
        if (same_offset(p, p->cache[i].offset, offset)) {
            at = i;
            break;
        }
    if (at == p->cache_n && p->cache_n == p->cache_max) {
        at = 0;
        for (size_t i = 1; i < p->cache_n; i++)
            if (p->cache[i].used < p->cache[at].used)
                at = i;
    }
    if (at < p->cache_n)
        tb_buf_put(p->cache[at].data);
    else
        p->cache_n++;
    memcpy(p->cache[at].offset, offset, (size_t)p->rank * sizeof(hsize_t));
    p->cache[at].data = data;
    p->cache[at].used = ++p->cache_tick;
}
