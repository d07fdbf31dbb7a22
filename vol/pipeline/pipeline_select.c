/* pipeline_select.c — turns the dataspaces of an H5Dread/H5Dwrite into a plan the pipeline can
 * run (a box, a strided hyperslab, points or a union of boxes in the file; a strided view of the
 * user's buffer; other pairs listed as runs), and copies chunk regions between chunk
 * buffers and the user's buffer. HDF5 pairs the elements of the two selections in row-major
 * order; the plan reproduces that pairing for the selections it accepts and rejects the rest. */
#include "pipeline_int.h"

#include <stdlib.h>
#include <string.h>

/* The box a selection covers, when it is exactly one box lying inside its extent. Hyperslab
 * selections are iterated in row-major order whatever their shape, point selections in the
 * order the points were given: only "all" and hyperslabs qualify. */
static int
select_box(hid_t space, int rank, const hsize_t *dims, hsize_t *start, hsize_t *count, hsize_t *npoints_out)
{
    H5S_sel_type t = tb_h5s_select_type(space);
    hsize_t      n = 1;
    if (t == H5S_SEL_ALL) {
        for (int d = 0; d < rank; d++) {
            start[d] = 0;
            count[d] = dims[d];
            n *= dims[d];
        }
        *npoints_out = n;
        return 1;
    }
    if (t != H5S_SEL_HYPERSLABS)
        return 0;
    hssize_t np = H5Sget_select_npoints(space);
    hsize_t  end[TB_PIPE_RANK];
    if (np <= 0 || H5Sget_select_bounds(space, start, end) < 0)
        return 0;
    for (int d = 0; d < rank; d++) {
        if (end[d] < start[d] || end[d] >= dims[d])
            return 0; /* outside the extent (an offset selection): native reports it */
        count[d] = end[d] - start[d] + 1;
        n *= count[d];
    }
    if (n != (hsize_t)np)
        return 0;
    *npoints_out = n;
    return 1;
}

/* A regular hyperslab whose every dimension is a run or single elements at a fixed stride:
 * fstart/fcount/fstride as in the plan. 0 for anything else (blocks of several elements
 * repeated with gaps are left to native), or when it leaves the extent. */
static int
select_strided(hid_t space, int rank, const hsize_t *dims, hsize_t *start, hsize_t *count, hsize_t *stride,
               hsize_t *npoints_out)
{
    if (tb_h5s_select_type(space) != H5S_SEL_HYPERSLABS || H5Sis_regular_hyperslab(space) <= 0)
        return 0;
    hsize_t st[TB_PIPE_RANK], sd[TB_PIPE_RANK], ct[TB_PIPE_RANK], bk[TB_PIPE_RANK], lo[TB_PIPE_RANK],
        hi[TB_PIPE_RANK], n = 1;
    /* (The pattern leaves out an offset set with H5Soffset_simple; the bounds include it: the
     * first selected element is taken from them, and the pattern must end where they do.) */
    if (H5Sget_regular_hyperslab(space, st, sd, ct, bk) < 0 || H5Sget_select_bounds(space, lo, hi) < 0)
        return 0;
    for (int d = 0; d < rank; d++) {
        if (ct[d] == 0 || bk[d] == 0)
            return 0;
        start[d] = lo[d];
        if (ct[d] == 1 || sd[d] == bk[d]) { /* a run */
            count[d]  = ct[d] * bk[d];
            stride[d] = 1;
        }
        else if (bk[d] == 1) {
            count[d]  = ct[d];
            stride[d] = sd[d];
        }
        else
            return 0;
        if (start[d] + (count[d] - 1) * stride[d] != hi[d] || hi[d] >= dims[d])
            return 0;
        n *= count[d];
    }
    *npoints_out = n;
    return 1;
}

/* A regular hyperslab of `count` blocks of `block` elements `stride` apart along its last
 * dimension (stride > block: gaps between them), one element of every other dimension: a buffer
 * the application fills row by row, leaving gaps (a region of interest into every other block of
 * a buffer). *first: the element of the first block, row-major in the extent. */
static int
select_blocked(hid_t space, int rank, const hsize_t *dims, hsize_t *first, hsize_t *count, hsize_t *block,
               hsize_t *stride)
{
    if (rank < 1 || tb_h5s_select_type(space) != H5S_SEL_HYPERSLABS || H5Sis_regular_hyperslab(space) <= 0)
        return 0;
    hsize_t st[TB_PIPE_RANK], sd[TB_PIPE_RANK], ct[TB_PIPE_RANK], bk[TB_PIPE_RANK], lo[TB_PIPE_RANK],
        hi[TB_PIPE_RANK];
    /* (As in select_strided: the bounds hold an offset set with H5Soffset_simple, the pattern not.) */
    if (H5Sget_regular_hyperslab(space, st, sd, ct, bk) < 0 || H5Sget_select_bounds(space, lo, hi) < 0)
        return 0;
    int l = rank - 1;
    for (int d = 0; d < l; d++)
        if (ct[d] != 1 || bk[d] != 1 || hi[d] != lo[d] || hi[d] >= dims[d])
            return 0;
    if (ct[l] < 2 || bk[l] < 2 || sd[l] <= bk[l] || lo[l] + (ct[l] - 1) * sd[l] + bk[l] - 1 != hi[l] ||
        hi[l] >= dims[l])
        return 0;
    hsize_t lin = 0;
    for (int d = 0; d < rank; d++)
        lin = lin * dims[d] + lo[d];
    *first  = lin;
    *count  = ct[l];
    *block  = bk[l];
    *stride = sd[l];
    return 1;
}

void
tb_pipe_plan_free(tb_pipe_plan_t *plan)
{
    free(plan->coffs);
    free(plan->pts);
    free(plan->pt_user_off);
    free(plan->pt_first);
    free(plan->blocks);
    free(plan->runs);
    plan->coffs = plan->pts = plan->blocks = NULL;
    plan->runs                             = NULL;
    plan->pt_user_off = plan->pt_first = NULL;
}

/* Strided plans: the chunks touched along each dimension, then every combination of them in
 * row-major order. */
static int
strided_chunks(const tb_pipe_dset_t *p, tb_pipe_plan_t *plan)
{
    int      rank = plan->rank;
    hsize_t *list[TB_PIPE_RANK] = {NULL};
    size_t   n[TB_PIPE_RANK], total = 1;
    int      ok = 1;
    for (int d = 0; d < rank && ok; d++) {
        size_t cap = plan->fstride[d] == 1 ? (size_t)(plan->chi[d] - plan->clo[d]) : (size_t)plan->fcount[d];
        if (!(list[d] = malloc(cap * sizeof(hsize_t)))) {
            ok = 0;
            break;
        }
        n[d] = 0;
        if (plan->fstride[d] == 1)
            for (hsize_t c = plan->clo[d]; c < plan->chi[d]; c++)
                list[d][n[d]++] = c;
        else
            for (hsize_t k = 0; k < plan->fcount[d]; k++) {
                hsize_t c = (plan->fstart[d] + k * plan->fstride[d]) / p->chunk[d];
                if (n[d] == 0 || list[d][n[d] - 1] != c)
                    list[d][n[d]++] = c;
            }
        total *= n[d];
    }
    if (ok && !(plan->coffs = malloc(total * (size_t)rank * sizeof(hsize_t))))
        ok = 0;
    if (ok) {
        size_t idx[TB_PIPE_RANK] = {0};
        for (size_t i = 0; i < total; i++) {
            for (int d = 0; d < rank; d++)
                plan->coffs[i * (size_t)rank + (size_t)d] = list[d][idx[d]] * p->chunk[d];
            for (int d = rank - 1; d >= 0; d--) {
                if (++idx[d] < n[d])
                    break;
                idx[d] = 0;
            }
        }
        plan->nchunks = total;
    }
    for (int d = 0; d < rank; d++)
        free(list[d]);
    return ok;
}

/* Point plans: the points (as given), each point's place in the user's buffer (dense: the k-th
 * at mbase + k * es; mem_all: where the point lies in a buffer shaped like the dataset), sorted
 * by chunk. */
typedef struct pt_key {
    size_t  chunk; /* linear chunk index */
    size_t  k;     /* position in the selection */
} pt_key_t;

static int
pt_key_cmp(const void *a, const void *b)
{
    const pt_key_t *x = a, *y = b;
    if (x->chunk != y->chunk)
        return x->chunk < y->chunk ? -1 : 1;
    return x->k < y->k ? -1 : x->k > y->k;
}

/* Points grouped by chunk, the groups in chunk order (points read in row-major order through
 * chunks of whole rows often come so): the plan's chunks taken as the points are given, a
 * division per chunk (a point in the chunk of the one before needs none), and each dimension's
 * least coordinate into `least`. 0 when they are not so grouped (`least` then incomplete); -1 when
 * memory ran out. (No point lies outside the extent: points_plan_from checked the selection's
 * bounds, and the least coordinates tell whether those were the points'.) One pass, without
 * branches per dimension: this is the application's thread's work for every point of a read (its
 * serial part), so it is compiled once per common rank (points_grouped), its loops over the
 * dimensions unrolled. */
static inline __attribute__((always_inline)) int
points_grouped_rank(const tb_pipe_dset_t *p, const hsize_t *given, tb_pipe_plan_t *plan, hsize_t *least,
                    const int rank)
{
    size_t  n = plan->npoints, r = (size_t)rank, nchunks = 0, cap = 0, prev = 0;
    hsize_t nchunk_dim[TB_PIPE_RANK], lo[TB_PIPE_RANK], ck[TB_PIPE_RANK], mn[TB_PIPE_RANK];
    for (int d = 0; d < rank; d++) {
        ck[d]         = p->chunk[d];
        nchunk_dim[d] = (plan->dims[d] + ck[d] - 1) / ck[d];
        mn[d]         = HSIZE_UNDEF;
        lo[d]         = 0;
    }
    for (size_t k = 0; k < n; k++) {
        const hsize_t *x   = given + k * r;
        hsize_t        far = 0;
#pragma GCC unroll 4
        for (int d = 0; d < rank; d++) {
            hsize_t v = x[d];
            far |= (hsize_t)(v - lo[d] >= ck[d]); /* (unsigned: below lo[d] wraps past the chunk) */
            mn[d] = v < mn[d] ? v : mn[d];
        }
        if (!far && k > 0)
            continue;
        size_t c = 0;
        for (int d = 0; d < rank; d++) {
            hsize_t q = x[d] / ck[d];
            lo[d]     = q * ck[d];
            c         = c * (size_t)nchunk_dim[d] + (size_t)q;
        }
        if (k > 0 && c <= prev)
            return 0;
        prev = c;
        if (nchunks + 1 >= cap) { /* (room for the closing pt_first entry too) */
            cap            = cap ? cap * 2 : 16;
            size_t  *first = realloc(plan->pt_first, cap * sizeof(size_t));
            if (first)
                plan->pt_first = first;
            hsize_t *coffs = first ? realloc(plan->coffs, cap * r * sizeof(hsize_t)) : NULL;
            if (!coffs)
                return -1;
            plan->coffs = coffs;
        }
        plan->pt_first[nchunks] = k;
        for (int d = 0; d < rank; d++)
            plan->coffs[nchunks * r + (size_t)d] = lo[d];
        nchunks++;
    }
    plan->pt_first[nchunks] = n;
    plan->nchunks           = nchunks;
    for (int d = 0; d < rank; d++)
        least[d] = mn[d];
    return 1;
}

static int
points_grouped(const tb_pipe_dset_t *p, const hsize_t *given, tb_pipe_plan_t *plan, hsize_t *least)
{
    switch (plan->rank) {
        case 1:
            return points_grouped_rank(p, given, plan, least, 1);
        case 2:
            return points_grouped_rank(p, given, plan, least, 2);
        case 3:
            return points_grouped_rank(p, given, plan, least, 3);
        default:
            return points_grouped_rank(p, given, plan, least, plan->rank);
    }
}

/* given: the points (npoints x rank, kept in the plan or freed here; NULL: declined), the k-th
 * going to the user's buffer at mbase + k * es or, with mem_all, into a buffer shaped like the
 * dataset. bounds_lo, bounds_hi: the selection's bounds (H5Sget_select_bounds), which include an
 * offset set with H5Soffset_simple where the listed points do not: a moved selection is declined
 * (listed as runs: HDF5's iterators apply the offset), and so are bounds past the extent (a point
 * outside it, or a selection moved there: native reports it). */
static int
points_plan_from(const tb_pipe_dset_t *p, hsize_t *given, const hsize_t *bounds_lo, const hsize_t *bounds_hi,
                 int mem_all, tb_pipe_plan_t *plan)
{
    int     rank = plan->rank;
    size_t  n = plan->npoints, r = (size_t)rank;
    hsize_t least[TB_PIPE_RANK];
    plan->mem_all = mem_all;
    for (int d = 0; given && d < rank; d++)
        if (bounds_hi[d] >= plan->dims[d]) {
            free(given);
            given = NULL;
        }
    int g = given ? points_grouped(p, given, plan, least) : -1;
    if (g > 0 && memcmp(least, bounds_lo, r * sizeof(hsize_t)) != 0)
        g = -1; /* moved */
    if (g != 0) {
        if (g < 0) {
            free(given);
            return 0;
        }
        plan->pts = given; /* in order: each point's place follows from k (pt_user_off stays NULL) */
        return 1;
    }
    free(plan->pt_first);
    free(plan->coffs);
    plan->pt_first = NULL;
    plan->coffs    = NULL;
    pt_key_t *keys = malloc(n * sizeof(pt_key_t));
    int       ok   = given && keys;
    if (ok) {
        plan->pts         = malloc(n * r * sizeof(hsize_t));
        plan->pt_user_off = malloc(n * sizeof(size_t));
        ok                = plan->pts && plan->pt_user_off;
    }
    hsize_t nchunk_dim[TB_PIPE_RANK];
    for (int d = 0; d < rank; d++) {
        nchunk_dim[d] = (plan->dims[d] + p->chunk[d] - 1) / p->chunk[d];
        least[d]      = HSIZE_UNDEF;
    }
    for (size_t k = 0; ok && k < n; k++) {
        size_t c = 0;
        for (int d = 0; d < rank; d++) {
            /* (inside the extent, by the bounds' check above, unless moved: declined below) */
            hsize_t x = given[k * r + (size_t)d];
            least[d]  = x < least[d] ? x : least[d];
            c         = c * (size_t)nchunk_dim[d] + (size_t)(x / p->chunk[d]);
        }
        keys[k].chunk = c;
        keys[k].k     = k;
    }
    if (ok && memcmp(least, bounds_lo, r * sizeof(hsize_t)) != 0)
        ok = 0; /* moved */
    size_t nchunks = 0;
    if (ok) {
        qsort(keys, n, sizeof(*keys), pt_key_cmp);
        for (size_t i = 0; i < n; i++)
            if (i == 0 || keys[i].chunk != keys[i - 1].chunk)
                nchunks++;
        plan->pt_first = malloc((nchunks + 1) * sizeof(size_t));
        plan->coffs    = malloc(nchunks * r * sizeof(hsize_t));
        ok             = plan->pt_first && plan->coffs;
    }
    if (ok) {
        size_t ci = 0;
        for (size_t i = 0; i < n; i++) {
            const hsize_t *x = given + keys[i].k * r;
            memcpy(plan->pts + i * r, x, r * sizeof(hsize_t));
            if (mem_all) {
                size_t lin = 0;
                for (int d = 0; d < rank; d++)
                    lin = lin * (size_t)plan->dims[d] + (size_t)x[d];
                plan->pt_user_off[i] = lin * plan->es;
            }
            else
                plan->pt_user_off[i] = plan->mbase + keys[i].k * plan->es;
            if (i == 0 || keys[i].chunk != keys[i - 1].chunk) {
                plan->pt_first[ci] = i;
                for (int d = 0; d < rank; d++)
                    plan->coffs[ci * r + (size_t)d] = x[d] / p->chunk[d] * p->chunk[d];
                ci++;
            }
        }
        plan->pt_first[nchunks] = n;
        plan->nchunks           = nchunks;
    }
    free(given);
    free(keys);
    return ok;
}

/* A point plan; a moved selection is declined (points_plan_from). */
static int
points_plan(const tb_pipe_dset_t *p, hid_t space, int mem_all, tb_pipe_plan_t *plan)
{
    size_t   n     = plan->npoints;
    hsize_t *given = malloc(n * (size_t)plan->rank * sizeof(hsize_t));
    hsize_t  lo[TB_PIPE_RANK], hi[TB_PIPE_RANK];
    if (given && (H5Sget_select_elem_pointlist(space, 0, n, given) < 0 || H5Sget_select_bounds(space, lo, hi) < 0)) {
        free(given);
        given = NULL; /* (points_plan_from declines) */
    }
    return points_plan_from(p, given, lo, hi, mem_all, plan);
}

/* ---- any other selection pair, on reads: as runs. Both selections are walked in the order HDF5
 * pairs their elements (its selection iterators: row-major for hyperslabs of any shape, the given
 * order for points), as sequences of contiguous elements; each stretch contiguous in both, cut at
 * the rows of the chunks, is one run: its place in its chunk and in the user's buffer. Planning
 * costs a step per run, not per element. */
#define GENERIC_MAX_RUNS ((size_t)1 << 20) /* beyond this the run lists cost too much memory */
#define GENERIC_SEQS     256

/* One selection's sequences, pulled one stretch at a time (units of the iterator's element size). */
typedef struct seq_stream {
    hid_t   iter;
    hsize_t off[GENERIC_SEQS];
    size_t  len[GENERIC_SEQS], n, i;
    hsize_t cur;  /* the current sequence's next offset */
    size_t  left; /* ... and what is left of it */
    int     failed;
} seq_stream_t;

/* Makes s->left > 0; 0 at the end of the selection or when HDF5 could not iterate. */
static int
stream_fill(seq_stream_t *s)
{
    while (s->left == 0) {
        if (s->i == s->n) {
            size_t nbytes = 0;
            if (H5Ssel_iter_get_seq_list(s->iter, GENERIC_SEQS, (size_t)-1, &s->n, &nbytes, s->off, s->len) < 0) {
                s->failed = 1;
                return 0;
            }
            s->i = 0;
            if (s->n == 0)
                return 0;
        }
        s->cur  = s->off[s->i];
        s->left = s->len[s->i];
        s->i++;
    }
    return 1;
}

typedef struct run_rec {
    pt_key_t      key; /* its chunk, and its position in the listing (first: sorted as points) */
    tb_pipe_run_t run;
} run_rec_t;

typedef struct run_list {
    run_rec_t *v;
    size_t     n, cap, max;
    hsize_t    next;            /* the file offset after the last run added, and its coordinates: */
    hsize_t    q[TB_PIPE_RANK]; /* its chunk's (scaled) ... */
    hsize_t    r[TB_PIPE_RANK]; /* ... and within that chunk (stretches that follow one another
                                 * need no division) */
} run_list_t;

/* Cuts the n elements from the file's linear offset flin (going to the user's buffer at uoff,
 * consecutive there) at the rows of the chunks and appends the pieces; 0 past max or out of
 * memory. */
static int
runs_add(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, run_list_t *l, hsize_t flin, size_t uoff, size_t n,
         const hsize_t *nchunk_dim)
{
    int      rank = plan->rank, last = rank - 1;
    hsize_t *q = l->q, *r = l->r;
    if (l->n == 0 || flin != l->next) {
        hsize_t rest = flin;
        for (int d = last; d >= 0; d--) {
            hsize_t x = rest % plan->dims[d];
            rest /= plan->dims[d];
            q[d] = x / p->chunk[d];
            r[d] = x - q[d] * p->chunk[d];
        }
    }
    l->next = flin + n;
    while (n > 0) {
        /* to the end of the chunk's row, or of the dataset's */
        hsize_t x    = q[last] * p->chunk[last] + r[last];
        hsize_t cend = (q[last] + 1) * p->chunk[last];
        if (cend > plan->dims[last])
            cend = plan->dims[last];
        size_t m = (size_t)(cend - x) < n ? (size_t)(cend - x) : n;
        if (l->n == l->cap) {
            size_t     cap = l->cap ? 2 * l->cap : 256;
            run_rec_t *v   = l->n >= l->max ? NULL : realloc(l->v, cap * sizeof(*v));
            if (!v)
                return 0;
            l->v   = v;
            l->cap = cap;
        }
        run_rec_t *rec = &l->v[l->n];
        size_t     c = 0, coff = 0;
        for (int d = 0; d < rank; d++) {
            c    = c * (size_t)nchunk_dim[d] + (size_t)q[d];
            coff = coff * (size_t)p->chunk[d] + (size_t)r[d];
        }
        rec->key.chunk = c;
        rec->key.k     = l->n++;
        rec->run.coff = coff;
        rec->run.uoff = uoff;
        rec->run.len  = m;
        uoff += m * plan->es;
        n -= m;
        /* the next element: along the row, into the next chunk, or onto the next row */
        int d = last;
        r[d] += m;
        for (;;) {
            hsize_t xd = q[d] * p->chunk[d] + r[d];
            if (d > 0 && xd == plan->dims[d]) {
                q[d] = r[d] = 0;
                d--;
                r[d]++;
                continue;
            }
            if (r[d] == p->chunk[d]) {
                q[d]++;
                r[d] = 0;
            }
            break;
        }
    }
    return 1;
}

/* A plan of runs for selections no other plan takes (memory selections that are not one box,
 * unions the block plan declines). Element by element the listing used to cost more than native's
 * copies of dense selections; runs cost a step each: a selection whose elements are dense in the
 * chunks it may touch (over a sixteenth) is taken when its runs are long (16 elements on average),
 * else left to native (dense_too: taken anyway, for tests). */
static int
generic_plan(const tb_pipe_dset_t *p, hid_t file_space_id, hid_t mem_space_id, int dense_too, tb_pipe_plan_t *plan)
{
    hssize_t np = file_space_id == H5S_ALL ? -1 : H5Sget_select_npoints(file_space_id);
    hsize_t  lo[TB_PIPE_RANK], hi[TB_PIPE_RANK];
    if (np <= 0 || H5Sget_select_bounds(file_space_id, lo, hi) < 0)
        return 0;
    size_t n          = (size_t)np;
    double nchunk_box = 1;
    for (int d = 0; d < plan->rank; d++)
        nchunk_box *= (double)(hi[d] / p->chunk[d] - lo[d] / p->chunk[d] + 1);
    int        dense = (double)n * 16 > nchunk_box * (double)p->chunk_nelem;
    run_list_t l     = {.max = dense && !dense_too ? n / 16 : GENERIC_MAX_RUNS};
    if (mem_space_id != H5S_ALL) {
        int mrank = H5Sget_simple_extent_ndims(mem_space_id);
        if (mrank < 1 || H5Sget_select_npoints(mem_space_id) != np)
            return 0;
    }
    hsize_t nchunk_dim[TB_PIPE_RANK];
    for (int d = 0; d < plan->rank; d++)
        nchunk_dim[d] = (plan->dims[d] + p->chunk[d] - 1) / p->chunk[d];
    seq_stream_t fs = {.iter = H5Ssel_iter_create(file_space_id, 1, 0)}, ms = {.iter = H5I_INVALID_HID};
    int          ok = fs.iter >= 0, mem_all = mem_space_id == H5S_ALL;
    if (ok && !mem_all)
        ok = (ms.iter = H5Ssel_iter_create(mem_space_id, plan->es, 0)) >= 0;
    size_t done = 0;
    while (ok && stream_fill(&fs)) {
        size_t m = fs.left, uoff;
        if (mem_all)
            uoff = (size_t)fs.cur * plan->es;
        else {
            if (!stream_fill(&ms)) {
                ok = 0;
                break;
            }
            if (ms.left / plan->es < m)
                m = ms.left / plan->es;
            uoff = (size_t)ms.cur;
            ms.cur += m * plan->es;
            ms.left -= m * plan->es;
        }
        ok = runs_add(p, plan, &l, fs.cur, uoff, m, nchunk_dim);
        fs.cur += m;
        fs.left -= m;
        done += m;
    }
    ok = ok && !fs.failed && !ms.failed && done == n;
    if (fs.iter >= 0)
        H5Ssel_iter_close(fs.iter);
    if (ms.iter >= 0)
        H5Ssel_iter_close(ms.iter);
    /* Runs grouped by chunk, chunks in order, each chunk's in HDF5's order. */
    size_t nchunks = 0;
    if (ok) {
        size_t sorted = 1;
        while (sorted < l.n && l.v[sorted].key.chunk >= l.v[sorted - 1].key.chunk)
            sorted++;
        if (sorted < l.n)
            qsort(l.v, l.n, sizeof(*l.v), pt_key_cmp);
        for (size_t i = 0; i < l.n; i++)
            nchunks += i == 0 || l.v[i].key.chunk != l.v[i - 1].key.chunk;
        plan->runs     = malloc(l.n * sizeof(*plan->runs));
        plan->pt_first = malloc((nchunks + 1) * sizeof(size_t));
        plan->coffs    = malloc(nchunks * (size_t)plan->rank * sizeof(hsize_t));
        ok             = plan->runs && plan->pt_first && plan->coffs;
    }
    if (ok) {
        size_t ci = 0;
        for (size_t i = 0; i < l.n; i++) {
            plan->runs[i] = l.v[i].run;
            if (i > 0 && l.v[i].key.chunk == l.v[i - 1].key.chunk)
                continue;
            plan->pt_first[ci] = i;
            size_t c = l.v[i].key.chunk;
            for (int d = plan->rank - 1; d >= 0; d--) {
                plan->coffs[ci * (size_t)plan->rank + (size_t)d] = (c % nchunk_dim[d]) * p->chunk[d];
                c /= nchunk_dim[d];
            }
            ci++;
        }
        plan->pt_first[nchunks] = l.n;
        plan->nchunks           = nchunks;
        plan->nruns             = l.n;
        plan->npoints           = n;
        plan->kind              = TB_PLAN_RUNS;
        plan->generic           = 1;
    }
    free(l.v);
    if (!ok)
        tb_pipe_plan_free(plan);
    return ok;
}

/* ---- unions of boxes, on reads: hyperslabs no structured plan describes (H5S_SELECT_OR of
 * regions, blocks repeated with gaps). The application's thread takes the selection's boxes in
 * one call and the chunks they touch; each worker cuts its chunk's rows from the boxes and finds
 * their place in the user's buffer itself, so that planning costs a call per H5Dread, not a step
 * per element or row. */
#define BLOCKS_MAX       4096
#define BLOCKS_MAX_CELLS ((size_t)1 << 22) /* (block, chunk) pairs listed while planning */

/* Steps x through the box [lo, hi] over its first n dims in row-major order: 0 once past the end
 * (x back at lo). */
static int
odometer_next(hsize_t *x, const hsize_t *lo, const hsize_t *hi, int n)
{
    int d = n - 1;
    while (d >= 0 && x[d] == hi[d]) {
        x[d] = lo[d];
        d--;
    }
    if (d < 0)
        return 0;
    x[d]++;
    return 1;
}

/* The number of the elements of box b (first and last element per dim) that lie before x in
 * row-major order. */
static hsize_t
block_before(const hsize_t *b, int rank, const hsize_t *x)
{
    const hsize_t *lo = b, *hi = b + rank;
    hsize_t        tail[TB_PIPE_RANK], t = 1, n = 0;
    for (int d = rank - 1; d >= 0; d--) {
        tail[d] = t;
        t *= hi[d] - lo[d] + 1;
    }
    for (int d = 0; d < rank; d++) {
        /* Elements equal to x before d, less than it along d. */
        if (x[d] < lo[d])
            break;
        n += ((x[d] > hi[d] ? hi[d] + 1 : x[d]) - lo[d]) * tail[d];
        if (x[d] > hi[d])
            break;
    }
    return n;
}

/* The position of element x in the selection's row-major order. Boxes are disjoint, so the
 * elements of a row that follow x within its box follow it in the selection too. */
static hsize_t
blocks_rank_of(const tb_pipe_plan_t *plan, const hsize_t *x)
{
    hsize_t k = 0;
    for (size_t b = 0; b < plan->nblocks; b++)
        k += block_before(plan->blocks + b * 2 * (size_t)plan->rank, plan->rank, x);
    return k;
}

/* The intersection of box b and the chunk at off (clipped to the extent): 0 when empty. */
static int
block_in_chunk(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const hsize_t *b, const hsize_t *off,
               hsize_t *lo, hsize_t *hi)
{
    int rank = plan->rank;
    for (int d = 0; d < rank; d++) {
        hsize_t cend = off[d] + p->chunk[d] - 1;
        if (cend >= plan->dims[d])
            cend = plan->dims[d] - 1;
        lo[d] = b[d] > off[d] ? b[d] : off[d];
        hi[d] = b[rank + d] < cend ? b[rank + d] : cend;
        if (lo[d] > hi[d])
            return 0;
    }
    return 1;
}

/* One row of one box within a chunk: its first element in the chunk buffer (elements), its
 * length, and where it goes: its position in the selection, or with mem_all its offset in the
 * dataset (both in elements). */
typedef struct blk_run {
    size_t  coff, len;
    hsize_t key;
} blk_run_t;

static int
blk_run_cmp(const void *a, const void *b)
{
    const blk_run_t *x = a, *y = b;
    return x->coff < y->coff ? -1 : x->coff > y->coff;
}

/* The runs of a block plan's chunk, in the chunk's row-major order (HDF5's order within a chunk,
 * which conversions keep) when ordered, consecutive ones merged; keys only when keys is set.
 * Into buf when they fit in cap, else into memory the caller frees (*out != buf). Returns the
 * number of runs; *out NULL when memory ran out. */
#define BLK_RUNS_STACK 256

static size_t
blocks_runs(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r, int keys,
            int ordered, blk_run_t *buf, size_t cap, blk_run_t **out)
{
    int     rank = plan->rank, last = rank - 1;
    size_t  n    = 0;
    hsize_t lo[TB_PIPE_RANK], hi[TB_PIPE_RANK];
    for (size_t b = 0; b < plan->nblocks; b++)
        if (block_in_chunk(p, plan, plan->blocks + b * 2 * (size_t)rank, r->coff, lo, hi)) {
            size_t rows = 1;
            for (int d = 0; d < last; d++)
                rows *= (size_t)(hi[d] - lo[d] + 1);
            n += rows;
        }
    blk_run_t *runs = n <= cap ? buf : malloc(n * sizeof(*runs));
    *out            = runs;
    if (!runs)
        return 0;
    size_t m = 0;
    for (size_t b = 0; b < plan->nblocks; b++) {
        if (!block_in_chunk(p, plan, plan->blocks + b * 2 * (size_t)rank, r->coff, lo, hi))
            continue;
        hsize_t x[TB_PIPE_RANK];
        memcpy(x, lo, sizeof(hsize_t) * (size_t)rank);
        for (;;) {
            size_t coff = 0, lin = 0;
            for (int d = 0; d < rank; d++) {
                coff = coff * (size_t)p->chunk[d] + (size_t)(x[d] - r->coff[d]);
                lin  = lin * (size_t)plan->dims[d] + (size_t)x[d];
            }
            runs[m].coff = coff;
            runs[m].len  = (size_t)(hi[last] - lo[last] + 1);
            runs[m].key  = !keys ? 0 : plan->mem_all ? (hsize_t)lin : blocks_rank_of(plan, x);
            m++;
            if (!odometer_next(x, lo, hi, last))
                break;
        }
    }
    if (ordered) {
        size_t i = 1;
        while (i < m && runs[i].coff > runs[i - 1].coff)
            i++;
        if (i < m)
            qsort(runs, m, sizeof(*runs), blk_run_cmp);
    }
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        if (k > 0 && runs[k - 1].coff + runs[k - 1].len == runs[i].coff &&
            (!keys || runs[k - 1].key + runs[k - 1].len == runs[i].key)) {
            runs[k - 1].len += runs[i].len;
            continue;
        }
        runs[k++] = runs[i];
    }
    return k;
}

/* Where the element with key `key` goes in the user's buffer (bytes), and how many of the want
 * elements from there on follow one another in it. */
static size_t
blocks_user_span(const tb_pipe_plan_t *plan, hsize_t key, size_t want, size_t *off)
{
    if (plan->mem_all || plan->mcontig) {
        *off = plan->mbase + (size_t)key * plan->es;
        return want;
    }
    size_t o = plan->mbase;
    for (int d = plan->mrank - 1; d >= 0; d--) {
        hsize_t i = key % plan->mcount[d];
        if (d == plan->mrank - 1 && plan->mcount[d] - i < want)
            want = (size_t)(plan->mcount[d] - i);
        o += (size_t)i * plan->mbst[d];
        key /= plan->mcount[d];
    }
    *off = o;
    return want;
}

typedef enum { BLK_SCATTER, BLK_GATHER, BLK_PACK, BLK_UNPACK, BLK_FILL } blk_op_t;

/* The block plans' copies: chunk -> user (scatter), user -> chunk (gather: src is the user's
 * buffer), chunk -> dense (pack, file type), dense -> user (unpack, memory type), fill value ->
 * user. 0 when memory for the rows ran out. */
static int
blocks_copy(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r, blk_op_t op,
            const uint8_t *src, uint8_t *dst)
{
    blk_run_t  stack[BLK_RUNS_STACK], *runs;
    int        user  = op != BLK_PACK;
    size_t     n     = blocks_runs(p, plan, r, user, op == BLK_PACK || op == BLK_UNPACK, stack, BLK_RUNS_STACK, &runs);
    size_t     fes   = p->type_nbytes, pos = 0;
    if (!runs)
        return 0;
    for (size_t i = 0; i < n; i++) {
        const blk_run_t *rn = &runs[i];
        if (op == BLK_PACK) {
            memcpy(dst + pos * fes, src + rn->coff * fes, rn->len * fes);
            pos += rn->len;
            continue;
        }
        for (size_t done = 0; done < rn->len;) {
            size_t uoff, m = blocks_user_span(plan, rn->key + done, rn->len - done, &uoff);
            if (op == BLK_SCATTER)
                memcpy(dst + uoff, src + (rn->coff + done) * fes, m * fes);
            else if (op == BLK_GATHER)
                memcpy(dst + (rn->coff + done) * fes, src + uoff, m * fes);
            else if (op == BLK_UNPACK)
                memcpy(dst + uoff, src + (pos + done) * plan->es, m * plan->es);
            else
                tb_pipe_fill_dense(p, dst + uoff, m);
            done += m;
        }
        pos += rn->len;
    }
    if (runs != stack)
        free(runs);
    return 1;
}

static int
size_cmp(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* The chunks a block plan's boxes touch, in row-major order of chunk indices, into plan->coffs. */
static int
blocks_chunks(const tb_pipe_dset_t *p, tb_pipe_plan_t *plan)
{
    int     rank = plan->rank;
    size_t  r = (size_t)rank, cells = 0, grid = 1;
    hsize_t glo[TB_PIPE_RANK], ghi[TB_PIPE_RANK], gn[TB_PIPE_RANK];
    for (size_t b = 0; b < plan->nblocks; b++) {
        const hsize_t *bl = plan->blocks + b * 2 * r;
        size_t         c  = 1;
        for (int d = 0; d < rank; d++) {
            hsize_t lo = bl[d] / p->chunk[d], hi = bl[rank + d] / p->chunk[d];
            c *= (size_t)(hi - lo + 1);
            if (b == 0 || lo < glo[d])
                glo[d] = lo;
            if (b == 0 || hi > ghi[d])
                ghi[d] = hi;
        }
        if (c > BLOCKS_MAX_CELLS || (cells += c) > BLOCKS_MAX_CELLS)
            return 0;
    }
    for (int d = 0; d < rank; d++) {
        gn[d] = ghi[d] - glo[d] + 1;
        grid  = gn[d] > BLOCKS_MAX_CELLS * 8 / grid ? BLOCKS_MAX_CELLS * 8 + 1 : grid * (size_t)gn[d];
    }
    /* Chunk indices relative to the boxes' bounding grid: marked in a byte map when the grid is
     * small against the pairs, else listed and sorted. */
    int      use_map = grid <= cells * 8 || grid <= 65536;
    uint8_t *map     = use_map ? calloc(grid, 1) : NULL;
    size_t  *list    = use_map ? NULL : malloc(cells * sizeof(size_t));
    if (!map && !list)
        return 0;
    size_t nl = 0;
    for (size_t b = 0; b < plan->nblocks; b++) {
        const hsize_t *bl = plan->blocks + b * 2 * r;
        hsize_t        lo[TB_PIPE_RANK], hi[TB_PIPE_RANK], x[TB_PIPE_RANK];
        for (int d = 0; d < rank; d++) {
            lo[d] = x[d] = bl[d] / p->chunk[d] - glo[d];
            hi[d] = bl[rank + d] / p->chunk[d] - glo[d];
        }
        for (;;) {
            size_t lin = 0;
            for (int d = 0; d < rank; d++)
                lin = lin * (size_t)gn[d] + (size_t)x[d];
            if (map)
                map[lin] = 1;
            else
                list[nl++] = lin;
            if (!odometer_next(x, lo, hi, rank))
                break;
        }
    }
    size_t n = 0;
    if (map) {
        for (size_t i = 0; i < grid; i++)
            n += map[i];
    }
    else {
        qsort(list, nl, sizeof(size_t), size_cmp);
        for (size_t i = 0; i < nl; i++)
            if (i == 0 || list[i] != list[i - 1])
                list[n++] = list[i];
    }
    plan->coffs = malloc(n * r * sizeof(hsize_t));
    if (plan->coffs) {
        size_t k = 0;
        for (size_t i = 0; k < n; i++) {
            size_t lin = map ? i : list[i];
            if (map && !map[i])
                continue;
            for (int d = rank - 1; d >= 0; d--) {
                plan->coffs[k * r + (size_t)d] = (glo[d] + lin % gn[d]) * p->chunk[d];
                lin /= gn[d];
            }
            k++;
        }
        plan->nchunks = n;
    }
    free(map);
    free(list);
    return plan->coffs != NULL;
}

/* The memory strides of a file selection filling blocks with gaps (select_blocked: `count` blocks
 * of `block` elements, `stride` apart, the first at element `first`): taken when the selection's
 * last dimensions make up one block exactly and its first ones count the blocks. */
static int
gapped_plan(tb_pipe_plan_t *plan, int rank, size_t es, hsize_t first, hsize_t count, hsize_t block, hsize_t stride)
{
    int     q  = rank;
    hsize_t in = 1, out = 1;
    while (q > 0 && in < block)
        in *= plan->fcount[--q];
    for (int d = 0; d < q; d++)
        out *= plan->fcount[d];
    if (in != block || out != count)
        return 0;
    size_t s = es;
    for (int d = rank - 1; d >= q; d--) {
        plan->mstride[d] = s;
        s *= (size_t)plan->fcount[d];
    }
    s = (size_t)stride * es;
    for (int d = q - 1; d >= 0; d--) {
        plan->mstride[d] = s;
        s *= (size_t)plan->fcount[d];
    }
    plan->mbase += (size_t)first * es;
    return 1;
}

/* A plan of boxes for a hyperslab selection into a buffer shaped like the dataset or one memory
 * box. Rejected when finding each row's place in the selection (for a memory box: a pass over
 * every box per row) would cost more than listing the elements. */
static int
blocks_plan(const tb_pipe_dset_t *p, hid_t file_space_id, hid_t mem_space_id, tb_pipe_plan_t *plan)
{
    int    rank = plan->rank;
    size_t r    = (size_t)rank;
    if (tb_h5s_select_type(file_space_id) != H5S_SEL_HYPERSLABS)
        return 0;
    hssize_t nb = H5Sget_select_hyper_nblocks(file_space_id), np = H5Sget_select_npoints(file_space_id);
    hsize_t  lo[TB_PIPE_RANK], hi[TB_PIPE_RANK];
    if (nb <= 0 || nb > BLOCKS_MAX || np <= 0 || H5Sget_select_bounds(file_space_id, lo, hi) < 0)
        return 0;
    plan->kind    = TB_PLAN_BLOCKS;
    plan->npoints = (size_t)np;
    plan->nblocks = (size_t)nb;
    if (!(plan->blocks = malloc(plan->nblocks * 2 * r * sizeof(hsize_t))) ||
        H5Sget_select_hyper_blocklist(file_space_id, 0, (hsize_t)nb, plan->blocks) < 0)
        return 0;
    /* The block list leaves out the selection's offset (H5Soffset_simple), the bounds include it:
     * they must agree. And the boxes must hold the selection's elements, no more. */
    hsize_t blo[TB_PIPE_RANK], bhi[TB_PIPE_RANK], total = 0, rows = 0;
    for (size_t b = 0; b < plan->nblocks; b++) {
        const hsize_t *bl = plan->blocks + b * 2 * r;
        hsize_t        n  = 1, brows = 1;
        for (int d = 0; d < rank; d++) {
            if (bl[rank + d] < bl[d] || bl[rank + d] >= plan->dims[d])
                return 0;
            n *= bl[rank + d] - bl[d] + 1;
            /* rows of the box, times the chunks its rows cross */
            brows *= d < rank - 1 ? bl[rank + d] - bl[d] + 1
                                  : bl[rank + d] / p->chunk[d] - bl[d] / p->chunk[d] + 1;
            if (b == 0 || bl[d] < blo[d])
                blo[d] = bl[d];
            if (b == 0 || bl[rank + d] > bhi[d])
                bhi[d] = bl[rank + d];
        }
        total += n;
        rows += brows;
    }
    if (total != (hsize_t)np || memcmp(blo, lo, r * sizeof(hsize_t)) || memcmp(bhi, hi, r * sizeof(hsize_t)))
        return 0;
    plan->mem_all = mem_space_id == H5S_ALL;
    if (!plan->mem_all) {
        hsize_t mdims[TB_PIPE_RANK], mstart[TB_PIPE_RANK], mnp = 0;
        int     mrank = H5Sget_simple_extent_ndims(mem_space_id);
        if (mrank < 1 || mrank > TB_PIPE_RANK || tb_h5s_dims(mem_space_id, mdims, NULL) < 0 ||
            !select_box(mem_space_id, mrank, mdims, mstart, plan->mcount, &mnp) || mnp != (hsize_t)np)
            return 0;
        plan->mrank = mrank;
        size_t stride = plan->es;
        for (int d = mrank - 1; d >= 0; d--) {
            plan->mbst[d] = stride;
            plan->mbase += (size_t)mstart[d] * stride;
            stride *= (size_t)mdims[d];
        }
        int k = 0;
        while (k < mrank && plan->mcount[k] == 1)
            k++;
        plan->mcontig = 1;
        for (int d = k + 1; d < mrank; d++)
            if (plan->mcount[d] != mdims[d])
                plan->mcontig = 0;
        /* Each row's place: a pass over the boxes. */
        if ((double)rows * (double)plan->nblocks > 16.0 * (double)np + 65536.0)
            return 0;
    }
    /* Each chunk's region and rows: a pass over the boxes. */
    return blocks_chunks(p, plan) && (double)plan->nblocks * (double)plan->nchunks <= 16.0 * (double)np + 65536.0;
}

static int plan_structured(const tb_pipe_dset_t *p, const hsize_t *dims, hid_t file_space_id, hid_t mem_space_id,
                           size_t mem_type_nbytes, int convert, int how, tb_pipe_plan_t *plan);

int
tb_pipe_plan_make(const tb_pipe_dset_t *p, const hsize_t *dims, hid_t file_space_id, hid_t mem_space_id,
                   size_t mem_type_nbytes, int convert, int how, tb_pipe_plan_t *plan)
{
    /* A selection outside its extent (offset included) is native's to report: planned, it would
     * reach past the application's buffer (a memory box larger than its space did, under
     * pipeline_min 0: pipe_cache's "box into a box"). */
    if ((mem_space_id != H5S_ALL && H5Sselect_valid(mem_space_id) <= 0) ||
        (file_space_id != H5S_ALL && H5Sselect_valid(file_space_id) <= 0)) {
        H5Eclear2(H5E_DEFAULT);
        return 0;
    }
    if (plan_structured(p, dims, file_space_id, mem_space_id, mem_type_nbytes, convert, how, plan))
        return 1;
    if (file_space_id == H5S_ALL)
        return 0;
    /* (plan_structured checked the file extent against dims when it got that far; again here.) */
    hsize_t fdims[TB_PIPE_RANK];
    if (H5Sget_simple_extent_ndims(file_space_id) != p->rank ||
        tb_h5s_dims(file_space_id, fdims, NULL) < 0)
        return 0;
    for (int d = 0; d < p->rank; d++)
        if (fdims[d] != dims[d])
            return 0;
    memset(plan, 0, sizeof(*plan));
    plan->rank    = p->rank;
    plan->es      = mem_type_nbytes;
    plan->convert = convert;
    memcpy(plan->dims, dims, sizeof(hsize_t) * (size_t)p->rank);
    for (int d = 0; d < p->rank; d++)
        plan->fstride[d] = 1;
    tb_pipe_plan_t blk = *plan;
    if (blocks_plan(p, file_space_id, mem_space_id, &blk)) {
        *plan = blk;
        return 1;
    }
    tb_pipe_plan_free(&blk);
    if (how & TB_PIPE_PLAN_WRITE)
        return 0; /* (listed runs never cover a chunk whole: a write of them is native's) */
    return generic_plan(p, file_space_id, mem_space_id, how & TB_PIPE_PLAN_DENSE, plan);
}

static int
plan_structured(const tb_pipe_dset_t *p, const hsize_t *dims, hid_t file_space_id, hid_t mem_space_id,
                   size_t mem_type_nbytes, int convert, int how, tb_pipe_plan_t *plan)
{
    int     rank = p->rank;
    size_t  es   = mem_type_nbytes;
    hsize_t npoints;
    memset(plan, 0, sizeof(*plan));
    plan->rank    = rank;
    plan->es      = es;
    plan->convert = convert;
    plan->kind    = TB_PLAN_BOX;
    memcpy(plan->dims, dims, sizeof(hsize_t) * (size_t)rank);
    for (int d = 0; d < rank; d++)
        plan->fstride[d] = 1;

    if (file_space_id == H5S_ALL) {
        npoints = 1;
        for (int d = 0; d < rank; d++) {
            plan->fstart[d] = 0;
            plan->fcount[d] = dims[d];
            npoints *= dims[d];
        }
    }
    else {
        hsize_t fdims[TB_PIPE_RANK];
        if (H5Sget_simple_extent_ndims(file_space_id) != rank ||
            tb_h5s_dims(file_space_id, fdims, NULL) < 0)
            return 0;
        for (int d = 0; d < rank; d++)
            if (fdims[d] != dims[d])
                return 0;
        if (select_box(file_space_id, rank, dims, plan->fstart, plan->fcount, &npoints))
            ;
        else if (select_strided(file_space_id, rank, dims, plan->fstart, plan->fcount, plan->fstride, &npoints))
            plan->kind = TB_PLAN_STRIDED;
        else if (!(how & TB_PIPE_PLAN_WRITE) && tb_h5s_select_type(file_space_id) == H5S_SEL_POINTS) {
            hssize_t np = H5Sget_select_npoints(file_space_id);
            if (np <= 0)
                return 0;
            npoints    = (hsize_t)np;
            plan->kind = TB_PLAN_POINTS;
        }
        else
            return 0;
    }
    if (npoints == 0)
        return 0;
    plan->npoints = (size_t)npoints;

    if (plan->kind == TB_PLAN_POINTS) {
        /* The k-th point goes to the k-th element of the memory selection: only a buffer shaped
         * like the dataset (the same points) or one contiguous run of it is taken. */
        int mem_all = mem_space_id == H5S_ALL;
        if (!mem_all) {
            int     mrank = H5Sget_simple_extent_ndims(mem_space_id);
            hsize_t mdims[TB_PIPE_RANK], mstart[TB_PIPE_RANK], mcount[TB_PIPE_RANK], mnp = 1;
            if (mrank < 1 || mrank > TB_PIPE_RANK || tb_h5s_dims(mem_space_id, mdims, NULL) < 0 ||
                !select_box(mem_space_id, mrank, mdims, mstart, mcount, &mnp) || mnp != npoints)
                return 0;
            int k = 0;
            while (k < mrank && mcount[k] == 1)
                k++;
            for (int d = k + 1; d < mrank; d++)
                if (mcount[d] != mdims[d])
                    return 0;
            size_t stride = es;
            for (int d = mrank - 1; d >= 0; d--) {
                plan->mbase += (size_t)mstart[d] * stride;
                stride *= (size_t)mdims[d];
            }
        }
        if (!points_plan(p, file_space_id, mem_all, plan)) {
            tb_pipe_plan_free(plan);
            return 0;
        }
        return 1;
    }

    if (mem_space_id == H5S_ALL) {
        /* The buffer is shaped like the dataset and the file selection applies to it too. */
        size_t stride = es;
        for (int d = rank - 1; d >= 0; d--) {
            plan->mstride[d] = stride * (size_t)plan->fstride[d];
            plan->mbase += (size_t)plan->fstart[d] * stride;
            stride *= (size_t)dims[d];
        }
    }
    else {
        int mrank = H5Sget_simple_extent_ndims(mem_space_id);
        if (mrank < 0 || mrank > TB_PIPE_RANK)
            return 0;
        hsize_t mdims[TB_PIPE_RANK], mstart[TB_PIPE_RANK], mcount[TB_PIPE_RANK], mstep[TB_PIPE_RANK], mnpoints = 1;
        size_t  mst[TB_PIPE_RANK];
        int     mstrided = 0;
        for (int d = 0; d < TB_PIPE_RANK; d++)
            mstep[d] = 1;
        if (mrank > 0) {
            if (tb_h5s_dims(mem_space_id, mdims, NULL) < 0)
                return 0;
            /* A box, or a regular hyperslab whose every dimension is a run or single elements a
             * step apart (every third element of a buffer: channels interleaved). */
            hsize_t first, bcount, block, bstride;
            if (!select_box(mem_space_id, mrank, mdims, mstart, mcount, &mnpoints)) {
                if (select_blocked(mem_space_id, mrank, mdims, &first, &bcount, &block, &bstride)) {
                    /* Blocks with gaps: the file selection's elements, in row-major order, fill
                     * one block after another. Taken when its last dimensions make up exactly a
                     * block, its first ones count the blocks. */
                    if (!gapped_plan(plan, rank, es, first, bcount, block, bstride))
                        return 0;
                    goto chunks;
                }
                if (!select_strided(mem_space_id, mrank, mdims, mstart, mcount, mstep, &mnpoints))
                    return 0;
                mstrided = 1;
            }
        }
        else if (H5Sget_select_npoints(mem_space_id) != 1)
            return 0; /* a scalar buffer with nothing selected */
        if (mnpoints != npoints)
            return 0;
        size_t stride = es;
        for (int d = mrank - 1; d >= 0; d--) {
            mst[d] = stride * (size_t)mstep[d];
            plan->mbase += (size_t)mstart[d] * stride;
            stride *= (size_t)mdims[d];
        }
        /* Case 1: the memory selection is one contiguous run, or one dimension of single
         * elements a step apart: the elements follow one another in the buffer (that step apart),
         * so the file selection maps onto a dense array of its own shape (scaled by the step). */
        int k = 0;
        while (k < mrank && mcount[k] == 1)
            k++;
        int    contiguous = 1;
        size_t step       = es;
        for (int d = k + 1; d < mrank; d++)
            if (mstrided ? mcount[d] != 1 : mcount[d] != mdims[d])
                contiguous = 0;
        if (mstrided && k < mrank)
            step = mst[k];
        if (contiguous) {
            size_t s = step;
            for (int d = rank - 1; d >= 0; d--) {
                plan->mstride[d] = s;
                s *= (size_t)plan->fcount[d];
            }
        }
        else {
            /* Case 2: both boxes have the same shape once dimensions of extent 1 are dropped:
             * pair the remaining dimensions in order. */
            int j = 0;
            for (int d = 0; d < rank; d++) {
                if (plan->fcount[d] == 1) {
                    plan->mstride[d] = 0;
                    continue;
                }
                while (j < mrank && mcount[j] == 1)
                    j++;
                if (j >= mrank || mcount[j] != plan->fcount[d])
                    return 0;
                plan->mstride[d] = mst[j++];
            }
            while (j < mrank && mcount[j] == 1)
                j++;
            if (j != mrank)
                return 0;
        }
    }

chunks:;
    size_t nchunks = 1;
    for (int d = 0; d < rank; d++) {
        hsize_t last = plan->fstart[d] + (plan->fcount[d] - 1) * plan->fstride[d];
        plan->clo[d] = plan->fstart[d] / p->chunk[d];
        plan->chi[d] = last / p->chunk[d] + 1;
        nchunks *= (size_t)(plan->chi[d] - plan->clo[d]);
    }
    plan->nchunks = nchunks;
    if (plan->kind == TB_PLAN_STRIDED && !strided_chunks(p, plan)) {
        tb_pipe_plan_free(plan);
        return 0;
    }
    return 1;
}

void
tb_pipe_chunk_offset(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, size_t i, hsize_t *offset)
{
    if (plan->coffs) {
        memcpy(offset, plan->coffs + i * (size_t)plan->rank, sizeof(hsize_t) * (size_t)plan->rank);
        return;
    }
    for (int d = plan->rank - 1; d >= 0; d--) {
        hsize_t n = plan->chi[d] - plan->clo[d];
        offset[d] = (plan->clo[d] + i % n) * p->chunk[d];
        i /= n;
    }
}

/* The number of the selection's elements along d that lie before coordinate c. */
static hsize_t
k_before(const tb_pipe_plan_t *plan, int d, hsize_t c)
{
    if (c <= plan->fstart[d])
        return 0;
    hsize_t k = (c - plan->fstart[d] + plan->fstride[d] - 1) / plan->fstride[d];
    return k < plan->fcount[d] ? k : plan->fcount[d];
}

void
tb_pipe_region(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const hsize_t *offset, tb_pipe_region_t *r)
{
    size_t cstride = p->type_nbytes;
    r->chunk_off   = 0;
    r->user_off    = plan->mbase;
    r->full        = 1;
    r->edge        = 0;
    r->direct      = 1;
    r->pt0 = r->pt1 = 0;
    if (plan->kind == TB_PLAN_BLOCKS) {
        /* The elements the boxes hold in this chunk; the workers cut its rows (blocks_runs). */
        hsize_t lo[TB_PIPE_RANK], hi[TB_PIPE_RANK], n = 0, ext = 1;
        memcpy(r->coff, offset, sizeof(hsize_t) * (size_t)plan->rank);
        for (int d = 0; d < plan->rank; d++) {
            r->cnt[d] = 1;
            if (offset[d] + p->chunk[d] > plan->dims[d]) {
                r->edge = 1;
                ext *= plan->dims[d] - offset[d];
            }
            else
                ext *= p->chunk[d];
        }
        for (size_t b = 0; b < plan->nblocks; b++)
            if (block_in_chunk(p, plan, plan->blocks + b * 2 * (size_t)plan->rank, offset, lo, hi)) {
                hsize_t c = 1;
                for (int d = 0; d < plan->rank; d++)
                    c *= hi[d] - lo[d] + 1;
                n += c;
            }
        r->cnt[plan->rank - 1] = n;
        r->full                = n == ext;
        r->direct              = 0;
        return;
    }
    if (plan->kind == TB_PLAN_POINTS || plan->kind == TB_PLAN_RUNS) {
        /* Which of the plan's chunks this is: they are sorted, find it by bisection. */
        size_t lo = 0, hi = plan->nchunks, rk = (size_t)plan->rank;
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            int cmp = 0;
            for (size_t d = 0; d < rk && !cmp; d++)
                cmp = plan->coffs[mid * rk + d] < offset[d] ? -1 : plan->coffs[mid * rk + d] > offset[d];
            if (cmp <= 0)
                lo = mid;
            else
                hi = mid;
        }
        r->pt0    = plan->pt_first[lo];
        r->pt1    = plan->pt_first[lo + 1];
        r->full   = 0;
        r->direct = 0;
        for (int d = 0; d < plan->rank; d++) {
            r->cnt[d] = 1;
            if (offset[d] + p->chunk[d] > plan->dims[d])
                r->edge = 1;
        }
        r->cnt[plan->rank - 1] = (hsize_t)(r->pt1 - r->pt0);
        if (plan->kind == TB_PLAN_RUNS) {
            hsize_t n = 0;
            for (size_t i = r->pt0; i < r->pt1; i++)
                n += plan->runs[i].len;
            r->cnt[plan->rank - 1] = n;
        }
        return;
    }
    for (int d = plan->rank - 1; d >= 0; d--) {
        hsize_t cend   = offset[d] + p->chunk[d];
        hsize_t ext_hi = cend < plan->dims[d] ? cend : plan->dims[d];
        hsize_t klo    = k_before(plan, d, offset[d]);
        hsize_t khi    = k_before(plan, d, cend);
        hsize_t lo     = plan->fstart[d] + klo * plan->fstride[d];
        r->cnt[d]      = khi - klo;
        r->cstride[d]  = cstride * (size_t)plan->fstride[d];
        if (r->cnt[d] != ext_hi - offset[d])
            r->full = 0;
        if (cend > plan->dims[d])
            r->edge = 1;
        if (p->chunk[d] > 1 && plan->mstride[d] != cstride)
            r->direct = 0;
        r->chunk_off += (size_t)(lo - offset[d]) * cstride;
        r->user_off += (size_t)klo * plan->mstride[d];
        cstride *= (size_t)p->chunk[d];
    }
    r->direct = r->direct && r->full && !r->edge && !plan->convert;
}

/* ---- N-dimensional copies */
typedef enum { COPY_DATA, COPY_PATTERN, COPY_ZERO } copy_mode_t;

static inline void
copy_elem(uint8_t *d, const uint8_t *s, size_t es)
{
    switch (es) {
        case 1: *d = *s; break;
        case 2: memcpy(d, s, 2); break;
        case 4: memcpy(d, s, 4); break;
        case 8: memcpy(d, s, 8); break;
        default: memcpy(d, s, es); break;
    }
}

/* Copies a box of cnt elements between two strided layouts. Dimensions of extent 1 are dropped
 * and neighbours that are contiguous in both layouts merged, so that the inner loop is one
 * memcpy per row in the common cases. COPY_PATTERN repeats the es bytes at src; COPY_ZERO
 * zeroes. */
static void
copy_nd(int rank, const hsize_t *cnt, uint8_t *dst, const size_t *dstride, const uint8_t *src, const size_t *sstride,
        size_t es, copy_mode_t mode)
{
    size_t n[TB_PIPE_RANK], ds[TB_PIPE_RANK], ss[TB_PIPE_RANK];
    int    m = 0;
    for (int d = 0; d < rank; d++) {
        if (cnt[d] == 0)
            return;
        if (cnt[d] == 1)
            continue;
        size_t s = mode == COPY_DATA ? sstride[d] : 0;
        if (m > 0 && ds[m - 1] == (size_t)cnt[d] * dstride[d] &&
            (mode != COPY_DATA || ss[m - 1] == (size_t)cnt[d] * s)) {
            n[m - 1] *= (size_t)cnt[d];
            ds[m - 1] = dstride[d];
            ss[m - 1] = s;
            continue;
        }
        n[m]  = (size_t)cnt[d];
        ds[m] = dstride[d];
        ss[m] = s;
        m++;
    }
    if (m == 0) { /* a single element */
        n[0] = 1;
        ds[0] = es;
        ss[0] = mode == COPY_DATA ? es : 0;
        m     = 1;
    }
    size_t idx[TB_PIPE_RANK] = {0};
    size_t inner = n[m - 1], ids = ds[m - 1], iss = ss[m - 1];
    int    run   = ids == es && (mode != COPY_DATA || iss == es);
    for (;;) {
        size_t doff = 0, soff = 0;
        for (int k = 0; k < m - 1; k++) {
            doff += idx[k] * ds[k];
            soff += idx[k] * ss[k];
        }
        uint8_t       *dp = dst + doff;
        const uint8_t *sp = src + soff;
        if (mode == COPY_ZERO && run)
            memset(dp, 0, inner * es);
        else if (mode == COPY_DATA && run)
            memcpy(dp, sp, inner * es);
        else if (mode == COPY_ZERO)
            for (size_t j = 0; j < inner; j++)
                memset(dp + j * ids, 0, es);
        else
            for (size_t j = 0; j < inner; j++)
                copy_elem(dp + j * ids, sp + j * iss, es);
        int k = m - 2;
        while (k >= 0 && ++idx[k] == n[k])
            idx[k--] = 0;
        if (k < 0)
            break;
    }
}

/* Point plans: where point i goes in the user's buffer. */
static inline size_t
pt_user(const tb_pipe_plan_t *plan, size_t i)
{
    if (plan->pt_user_off)
        return plan->pt_user_off[i];
    if (!plan->mem_all)
        return plan->mbase + i * plan->es;
    const hsize_t *x   = plan->pts + i * (size_t)plan->rank;
    size_t         lin = 0;
    for (int d = 0; d < plan->rank; d++)
        lin = lin * (size_t)plan->dims[d] + (size_t)x[d];
    return lin * plan->es;
}

/* Point plans: where point i lies in a chunk at offset. */
static size_t
pt_chunk_off(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, size_t i, const hsize_t *offset)
{
    const hsize_t *x   = plan->pts + i * (size_t)plan->rank;
    size_t         off = 0;
    for (int d = 0; d < plan->rank; d++)
        off = off * (size_t)p->chunk[d] + (size_t)(x[d] - offset[d]);
    return off * p->type_nbytes;
}

/* The chunk's offset from a region (point plans keep none: recomputed from the first point). */
static void
pt_region_offset(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r, hsize_t *offset)
{
    const hsize_t *x = plan->pts + r->pt0 * (size_t)plan->rank;
    for (int d = 0; d < plan->rank; d++)
        offset[d] = x[d] / p->chunk[d] * p->chunk[d];
}

int
tb_pipe_gather(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r, uint8_t *chunk,
                const uint8_t *user)
{
    if (plan->kind == TB_PLAN_BLOCKS)
        return blocks_copy(p, plan, r, BLK_GATHER, user, chunk);
    if (plan->kind == TB_PLAN_RUNS || plan->kind == TB_PLAN_POINTS)
        return 0; /* (never planned for writes) */
    copy_nd(p->rank, r->cnt, chunk + r->chunk_off, r->cstride, user + r->user_off, plan->mstride, p->type_nbytes,
            COPY_DATA);
    return 1;
}

int
tb_pipe_scatter(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r,
                 const uint8_t *chunk, uint8_t *user)
{
    if (plan->kind == TB_PLAN_BLOCKS)
        return blocks_copy(p, plan, r, BLK_SCATTER, chunk, user);
    if (plan->kind == TB_PLAN_RUNS) {
        for (size_t i = r->pt0; i < r->pt1; i++) {
            const tb_pipe_run_t *rn = &plan->runs[i];
            memcpy(user + rn->uoff, chunk + rn->coff * p->type_nbytes, rn->len * p->type_nbytes);
        }
        return 1;
    }
    if (plan->kind == TB_PLAN_POINTS) {
        hsize_t off[TB_PIPE_RANK];
        pt_region_offset(p, plan, r, off);
        for (size_t i = r->pt0; i < r->pt1; i++)
            copy_elem(user + pt_user(plan, i), chunk + pt_chunk_off(p, plan, i, off), p->type_nbytes);
        return 1;
    }
    copy_nd(p->rank, r->cnt, user + r->user_off, plan->mstride, chunk + r->chunk_off, r->cstride, p->type_nbytes,
            COPY_DATA);
    return 1;
}

int
tb_pipe_fill_user(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r, uint8_t *user)
{
    if (plan->kind == TB_PLAN_BLOCKS)
        return blocks_copy(p, plan, r, BLK_FILL, NULL, user);
    if (plan->kind == TB_PLAN_RUNS) {
        for (size_t i = r->pt0; i < r->pt1; i++)
            tb_pipe_fill_dense(p, user + plan->runs[i].uoff, plan->runs[i].len);
        return 1;
    }
    if (plan->kind == TB_PLAN_POINTS) {
        for (size_t i = r->pt0; i < r->pt1; i++) {
            if (p->fill)
                memcpy(user + pt_user(plan, i), p->fill, p->type_nbytes);
            else
                memset(user + pt_user(plan, i), 0, p->type_nbytes);
        }
        return 1;
    }
    copy_nd(p->rank, r->cnt, user + r->user_off, plan->mstride, p->fill, NULL, p->type_nbytes,
            p->fill ? COPY_PATTERN : COPY_ZERO);
    return 1;
}

size_t
tb_pipe_region_nelem(const tb_pipe_dset_t *p, const tb_pipe_region_t *r)
{
    size_t n = 1;
    for (int d = 0; d < p->rank; d++)
        n *= (size_t)r->cnt[d];
    return n;
}

/* Strides of a dense row-major array of the region's shape. */
static void
dense_strides(int rank, const hsize_t *cnt, size_t es, size_t *ds)
{
    size_t s = es;
    for (int d = rank - 1; d >= 0; d--) {
        ds[d] = s;
        s *= (size_t)cnt[d];
    }
}

int
tb_pipe_pack_chunk(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r,
                    const uint8_t *chunk, uint8_t *dense)
{
    if (plan->kind == TB_PLAN_BLOCKS)
        return blocks_copy(p, plan, r, BLK_PACK, chunk, dense);
    if (plan->kind == TB_PLAN_RUNS) {
        for (size_t i = r->pt0; i < r->pt1; i++) {
            const tb_pipe_run_t *rn = &plan->runs[i];
            memcpy(dense, chunk + rn->coff * p->type_nbytes, rn->len * p->type_nbytes);
            dense += rn->len * p->type_nbytes;
        }
        return 1;
    }
    if (plan->kind == TB_PLAN_POINTS) {
        hsize_t off[TB_PIPE_RANK];
        pt_region_offset(p, plan, r, off);
        for (size_t i = r->pt0; i < r->pt1; i++)
            copy_elem(dense + (i - r->pt0) * p->type_nbytes, chunk + pt_chunk_off(p, plan, i, off), p->type_nbytes);
        return 1;
    }
    size_t ds[TB_PIPE_RANK];
    dense_strides(p->rank, r->cnt, p->type_nbytes, ds);
    copy_nd(p->rank, r->cnt, dense, ds, chunk + r->chunk_off, r->cstride, p->type_nbytes, COPY_DATA);
    return 1;
}

void
tb_pipe_unpack_chunk(const tb_pipe_dset_t *p, const tb_pipe_region_t *r, const uint8_t *dense, uint8_t *chunk)
{
    size_t ds[TB_PIPE_RANK];
    dense_strides(p->rank, r->cnt, p->type_nbytes, ds);
    copy_nd(p->rank, r->cnt, chunk + r->chunk_off, r->cstride, dense, ds, p->type_nbytes, COPY_DATA);
}

void
tb_pipe_pack_user(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r,
                   const uint8_t *user, uint8_t *dense)
{
    size_t ds[TB_PIPE_RANK];
    dense_strides(p->rank, r->cnt, plan->es, ds);
    copy_nd(p->rank, r->cnt, dense, ds, user + r->user_off, plan->mstride, plan->es, COPY_DATA);
}

int
tb_pipe_unpack_user(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r,
                     const uint8_t *dense, uint8_t *user)
{
    if (plan->kind == TB_PLAN_BLOCKS)
        return blocks_copy(p, plan, r, BLK_UNPACK, dense, user);
    if (plan->kind == TB_PLAN_RUNS) {
        for (size_t i = r->pt0; i < r->pt1; i++) {
            const tb_pipe_run_t *rn = &plan->runs[i];
            memcpy(user + rn->uoff, dense, rn->len * plan->es);
            dense += rn->len * plan->es;
        }
        return 1;
    }
    if (plan->kind == TB_PLAN_POINTS) {
        for (size_t i = r->pt0; i < r->pt1; i++)
            memcpy(user + pt_user(plan, i), dense + (i - r->pt0) * plan->es, plan->es);
        return 1;
    }
    size_t ds[TB_PIPE_RANK];
    dense_strides(p->rank, r->cnt, plan->es, ds);
    copy_nd(p->rank, r->cnt, user + r->user_off, plan->mstride, dense, ds, plan->es, COPY_DATA);
    return 1;
}

void
tb_pipe_fill_dense(const tb_pipe_dset_t *p, uint8_t *dense, size_t nelem)
{
    hsize_t cnt[1] = {nelem};
    size_t  ds[1]  = {p->type_nbytes};
    copy_nd(1, cnt, dense, ds, p->fill, NULL, p->type_nbytes, p->fill ? COPY_PATTERN : COPY_ZERO);
}

void
tb_pipe_fill_chunk(const tb_pipe_dset_t *p, uint8_t *chunk)
{
    if (!p->fill) {
        memset(chunk, 0, p->chunk_nbytes);
        return;
    }
    /* Doubling copies: log2(n) memcpy calls. */
    size_t have = p->type_nbytes;
    memcpy(chunk, p->fill, have);
    while (have < p->chunk_nbytes) {
        size_t c = have < p->chunk_nbytes - have ? have : p->chunk_nbytes - have;
        memcpy(chunk + have, chunk, c);
        have += c;
    }
}
