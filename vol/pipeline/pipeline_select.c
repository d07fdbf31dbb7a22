/* pipeline_select.c — turns the dataspaces of an H5Dread/H5Dwrite into a plan the pipeline can
 * run (one box in the file, a strided view of the user's buffer), and copies chunk regions between
 * chunk buffers and the user's buffer. HDF5 pairs the elements of the two selections in row-major
 * order; the plan reproduces that pairing for the selections it accepts and rejects the rest. */
#include "pipeline_int.h"

#include <string.h>

/* The box a selection covers, when it is exactly one box lying inside its extent. Hyperslab
 * selections are iterated in row-major order whatever their shape, point selections in the
 * order the points were given: only "all" and hyperslabs qualify. */
static int
select_box(hid_t space, int rank, const hsize_t *dims, hsize_t *start, hsize_t *count, hsize_t *npoints_out)
{
    H5S_sel_type t = H5Sget_select_type(space);
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

int
tb_pipe_plan_make(const tb_pipe_dset_t *p, const hsize_t *dims, hid_t file_space_id, hid_t mem_space_id,
                   size_t mem_type_nbytes, int convert, tb_pipe_plan_t *plan)
{
    int     rank = p->rank;
    size_t  es   = mem_type_nbytes;
    hsize_t npoints;
    memset(plan, 0, sizeof(*plan));
    plan->rank    = rank;
    plan->es      = es;
    plan->convert = convert;
    memcpy(plan->dims, dims, sizeof(hsize_t) * (size_t)rank);

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
            H5Sget_simple_extent_dims(file_space_id, fdims, NULL) < 0)
            return 0;
        for (int d = 0; d < rank; d++)
            if (fdims[d] != dims[d])
                return 0;
        if (!select_box(file_space_id, rank, dims, plan->fstart, plan->fcount, &npoints))
            return 0;
    }
    if (npoints == 0)
        return 0;
    plan->npoints = (size_t)npoints;

    if (mem_space_id == H5S_ALL) {
        /* The buffer is shaped like the dataset and the file selection applies to it too. */
        size_t stride = es;
        for (int d = rank - 1; d >= 0; d--) {
            plan->mstride[d] = stride;
            plan->mbase += (size_t)plan->fstart[d] * stride;
            stride *= (size_t)dims[d];
        }
    }
    else {
        int mrank = H5Sget_simple_extent_ndims(mem_space_id);
        if (mrank < 0 || mrank > TB_PIPE_RANK)
            return 0;
        hsize_t mdims[TB_PIPE_RANK], mstart[TB_PIPE_RANK], mcount[TB_PIPE_RANK], mnpoints = 1;
        size_t  mst[TB_PIPE_RANK];
        if (mrank > 0) {
            if (H5Sget_simple_extent_dims(mem_space_id, mdims, NULL) < 0 ||
                !select_box(mem_space_id, mrank, mdims, mstart, mcount, &mnpoints))
                return 0;
        }
        else if (H5Sget_select_npoints(mem_space_id) != 1)
            return 0; /* a scalar buffer with nothing selected */
        if (mnpoints != npoints)
            return 0;
        size_t stride = es;
        for (int d = mrank - 1; d >= 0; d--) {
            mst[d] = stride;
            plan->mbase += (size_t)mstart[d] * stride;
            stride *= (size_t)mdims[d];
        }
        /* Case 1: the memory box is one contiguous run: the elements are consecutive in the
         * buffer, so the file box maps onto a dense array of its own shape. */
        int k = 0;
        while (k < mrank && mcount[k] == 1)
            k++;
        int contiguous = 1;
        for (int d = k + 1; d < mrank; d++)
            if (mcount[d] != mdims[d])
                contiguous = 0;
        if (contiguous) {
            size_t s = es;
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

    size_t nchunks = 1;
    for (int d = 0; d < rank; d++) {
        plan->clo[d] = plan->fstart[d] / p->chunk[d];
        plan->chi[d] = (plan->fstart[d] + plan->fcount[d] - 1) / p->chunk[d] + 1;
        nchunks *= (size_t)(plan->chi[d] - plan->clo[d]);
    }
    plan->nchunks = nchunks;
    return 1;
}

void
tb_pipe_chunk_offset(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, size_t i, hsize_t *offset)
{
    for (int d = plan->rank - 1; d >= 0; d--) {
        hsize_t n = plan->chi[d] - plan->clo[d];
        offset[d] = (plan->clo[d] + i % n) * p->chunk[d];
        i /= n;
    }
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
    for (int d = plan->rank - 1; d >= 0; d--) {
        hsize_t lo     = offset[d] > plan->fstart[d] ? offset[d] : plan->fstart[d];
        hsize_t cend   = offset[d] + p->chunk[d];
        hsize_t fend   = plan->fstart[d] + plan->fcount[d];
        hsize_t hi     = cend < fend ? cend : fend;
        hsize_t ext_hi = cend < plan->dims[d] ? cend : plan->dims[d];
        r->cnt[d]      = hi - lo;
        if (lo != offset[d] || hi != ext_hi)
            r->full = 0;
        if (cend > plan->dims[d])
            r->edge = 1;
        if (p->chunk[d] > 1 && plan->mstride[d] != cstride)
            r->direct = 0;
        r->chunk_off += (size_t)(lo - offset[d]) * cstride;
        r->user_off += (size_t)(lo - plan->fstart[d]) * plan->mstride[d];
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

static void
chunk_strides(const tb_pipe_dset_t *p, size_t *cs)
{
    size_t s = p->type_nbytes;
    for (int d = p->rank - 1; d >= 0; d--) {
        cs[d] = s;
        s *= (size_t)p->chunk[d];
    }
}

void
tb_pipe_gather(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r, uint8_t *chunk,
                const uint8_t *user)
{
    size_t cs[TB_PIPE_RANK];
    chunk_strides(p, cs);
    copy_nd(p->rank, r->cnt, chunk + r->chunk_off, cs, user + r->user_off, plan->mstride, p->type_nbytes, COPY_DATA);
}

void
tb_pipe_scatter(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r,
                 const uint8_t *chunk, uint8_t *user)
{
    size_t cs[TB_PIPE_RANK];
    chunk_strides(p, cs);
    copy_nd(p->rank, r->cnt, user + r->user_off, plan->mstride, chunk + r->chunk_off, cs, p->type_nbytes, COPY_DATA);
}

void
tb_pipe_fill_user(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r, uint8_t *user)
{
    copy_nd(p->rank, r->cnt, user + r->user_off, plan->mstride, p->fill, NULL, p->type_nbytes,
            p->fill ? COPY_PATTERN : COPY_ZERO);
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

void
tb_pipe_pack_chunk(const tb_pipe_dset_t *p, const tb_pipe_region_t *r, const uint8_t *chunk, uint8_t *dense)
{
    size_t cs[TB_PIPE_RANK], ds[TB_PIPE_RANK];
    chunk_strides(p, cs);
    dense_strides(p->rank, r->cnt, p->type_nbytes, ds);
    copy_nd(p->rank, r->cnt, dense, ds, chunk + r->chunk_off, cs, p->type_nbytes, COPY_DATA);
}

void
tb_pipe_pack_user(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r,
                   const uint8_t *user, uint8_t *dense)
{
    size_t ds[TB_PIPE_RANK];
    dense_strides(p->rank, r->cnt, plan->es, ds);
    copy_nd(p->rank, r->cnt, dense, ds, user + r->user_off, plan->mstride, plan->es, COPY_DATA);
}

void
tb_pipe_unpack_user(const tb_pipe_dset_t *p, const tb_pipe_plan_t *plan, const tb_pipe_region_t *r,
                     const uint8_t *dense, uint8_t *user)
{
    size_t ds[TB_PIPE_RANK];
    dense_strides(p->rank, r->cnt, plan->es, ds);
    copy_nd(p->rank, r->cnt, user + r->user_off, plan->mstride, dense, ds, plan->es, COPY_DATA);
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
