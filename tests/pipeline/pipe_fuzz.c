/* pipe_fuzz.c — a random differential program for the chunk pipeline. `run FILE SEED [blosc]`: SEED
 * picks datasets (file type, rank, extent, maximum dimensions, chunks, a pipeline of shuffle,
 * DEFLATE, Fletcher32 and Blosc, fill value, allocation time, file format) and calls on them:
 * writes and reads of whole extents, boxes, strided hyperslabs, unions and point lists, from and
 * into other memory types, through transfer lists with small conversion buffers, data transforms
 * or checksums off; extent changes, handles reopened with other chunk caches, the file closed and
 * opened again, H5Dread_multi and H5Dwrite_multi, chunks written directly with their filters
 * skipped (a filter mask); then `verify`'s reads. `verify FILE SEED`: the file reopened
 * read-only, every dataset read whole and in random pieces. One line per call (what, its return
 * value, a hash of the whole buffer); pipe_fuzz.sh compares them. What HDF5 itself gets wrong is
 * left out (the comments where it is: N-bit and scale-offset filters, which crash or write past
 * its buffers). */
#define H5_USE_114_API_DEFAULT 1
#include <hdf5.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/tb_test.h"
#include "pipe_test.h"

#define MAXD   8   /* datasets per file */
#define NOPS   60  /* calls of the write phase */
#define BLOSC  32001

static uint64_t
hash(const void *p, size_t n)
{
    return fnv(p, n, 1469598103934665603ull);
}

/* ---- types: numeric ones of both byte orders (any can be converted into any), a compound with
 * padding and a 5-byte string (read and written in their own type only) */
typedef struct {
    const char *name;
    hid_t       id;
    int         numeric, integer;
} ftype_t;

static ftype_t ty[16];
static int     nty;

static void
add_type(const char *name, hid_t id, int numeric, int integer)
{
    ty[nty++] = (ftype_t){name, id, numeric, integer};
}

static void
init_types(void)
{
    add_type("u8", H5T_NATIVE_UINT8, 1, 1);
    add_type("i8", H5T_NATIVE_INT8, 1, 1);
    add_type("u16", H5T_NATIVE_UINT16, 1, 1);
    add_type("i16", H5T_NATIVE_INT16, 1, 1);
    add_type("u32", H5T_NATIVE_UINT32, 1, 1);
    add_type("i32", H5T_NATIVE_INT32, 1, 1);
    add_type("u64", H5T_NATIVE_UINT64, 1, 1);
    add_type("i64", H5T_NATIVE_INT64, 1, 1);
    add_type("f32", H5T_NATIVE_FLOAT, 1, 0);
    add_type("f64", H5T_NATIVE_DOUBLE, 1, 0);
    add_type("u16be", H5T_STD_U16BE, 1, 1);
    add_type("i32be", H5T_STD_I32BE, 1, 1);
    add_type("f64be", H5T_IEEE_F64BE, 1, 0);
    hid_t c = H5Tcreate(H5T_COMPOUND, 16);
    H5Tinsert(c, "a", 0, H5T_NATIVE_INT8);
    H5Tinsert(c, "b", 4, H5T_NATIVE_FLOAT);
    H5Tinsert(c, "c", 8, H5T_NATIVE_INT64);
    add_type("cmp", c, 0, 0);
    hid_t s = H5Tcopy(H5T_C_S1);
    H5Tset_size(s, 5);
    add_type("s5", s, 0, 0);
}

/* Bytes for n elements of type t: random bits (NaNs, infinities, values out of any narrower type's
 * range) or, half the time for numbers, small values (fractions for floats), which convert exactly
 * or round. */
static void
fill_values(const ftype_t *t, uint8_t *buf, size_t n)
{
    size_t es = H5Tget_size(t->id);
    if (!t->numeric || rnd(2)) {
        for (size_t i = 0; i < n * es; i++)
            buf[i] = (uint8_t)rnd(256);
        if (!t->numeric && !strcmp(t->name, "cmp"))
            for (size_t e = 0; e < n; e++) /* (its padding zeroed: what it holds is not data) */
                memset(buf + e * es + 1, 0, 3);
        return;
    }
    int    ints = t->integer;
    double sc   = rnd(3) == 0 ? 1e6 : 300.0;
    for (size_t e = 0; e < n; e++) {
        double v = ((double)rnd(20001) - 10000.0) / 10000.0 * sc;
        if (ints)
            v = (double)(long long)v;
        /* Into the memory type through HDF5's own conversion of one double (exact semantics). */
        uint8_t tmp[16];
        memcpy(tmp, &v, sizeof(v));
        if (H5Tconvert(H5T_NATIVE_DOUBLE, t->id, 1, tmp, NULL, H5P_DEFAULT) < 0)
            memset(tmp, 0, sizeof(tmp));
        memcpy(buf + e * es, tmp, es);
    }
}

/* ---- datasets */
typedef struct {
    char     name[16];
    hid_t    id;
    int      t, rank;
    hsize_t  dims[4], maxdims[4], chunk[4];
    int      nfilters;  /* in its pipeline */
    int      mask_sized; /* a chunk stored with every filter skipped is never as long as one filtered
                          * with none skipped, whoever filtered it (one_direct) */
} dset_t;

static dset_t ds[MAXD];

/* A dimension of d is unlimited. */
static int
extendible(const dset_t *d)
{
    for (int k = 0; k < d->rank; k++)
        if (d->maxdims[k] == H5S_UNLIMITED)
            return 1;
    return 0;
}
static int    nds;

static void
describe(const dset_t *d, const char *filters, const char *fill)
{
    printf("%s %s rank=%d dims=", d->name, ty[d->t].name, d->rank);
    for (int k = 0; k < d->rank; k++)
        printf("%llu%s,", (unsigned long long)d->dims[k], d->maxdims[k] == H5S_UNLIMITED ? "+" : "");
    printf(" chunk=");
    for (int k = 0; k < d->rank; k++)
        printf("%llu,", (unsigned long long)d->chunk[k]);
    printf(" filters=%s fill=%s\n", filters, fill);
}

static void
make_dset(hid_t file, int i, int with_blosc)
{
    dset_t *d = &ds[i];
    snprintf(d->name, sizeof(d->name), "d%d", i);
    d->t         = (int)rnd((unsigned)nty);
    d->rank      = 1 + (int)rnd(4);
    int maybe_unlimited = rnd(3) == 0;
    for (int k = 0; k < d->rank; k++) {
        d->dims[k]    = 1 + rnd(d->rank <= 2 ? 40 : 9);
        d->maxdims[k] = maybe_unlimited && rnd(2) ? H5S_UNLIMITED : d->dims[k];
        /* (an unlimited dimension's chunk may be longer than its extent) */
        unsigned top  = (unsigned)d->dims[k] + (d->maxdims[k] == H5S_UNLIMITED ? 3 : 0);
        d->chunk[k]   = rnd(3) == 0 ? d->dims[k] : 1 + rnd(top);
    }
    const ftype_t *t            = &ty[d->t];
    hid_t          dcpl         = H5Pcreate(H5P_DATASET_CREATE);
    size_t         chunk_nbytes = H5Tget_size(t->id);
    for (int k = 0; k < d->rank; k++)
        chunk_nbytes *= (size_t)d->chunk[k];
    ASSERT_H5(H5Pset_chunk(dcpl, d->rank, d->chunk));
    char     fl[16] = "";
    int      nf = 0, deflated = 0, bloscs = 0, opt_blosc = 0;
    unsigned n      = rnd(4);
    for (unsigned f = 0; f < n; f++) {
        switch (rnd(with_blosc ? 7 : 6)) {
            case 0: ASSERT_H5(H5Pset_shuffle(dcpl)); fl[nf++] = 's'; break;
            case 1: case 2:
                if (!deflated && !opt_blosc) {
                    unsigned level = rnd(10);
                    ASSERT_H5(H5Pset_deflate(dcpl, level));
                    fl[nf++] = (char)('0' + level);
                    deflated = 1;
                }
                break;
            case 3: ASSERT_H5(H5Pset_fletcher32(dcpl)); fl[nf++] = 'f'; break;
            case 4: ASSERT_H5(H5Pset_shuffle(dcpl)); fl[nf++] = 's'; break;
            case 5: ASSERT_H5(H5Pset_fletcher32(dcpl)); fl[nf++] = 'f'; break;
            case 6: /* Blosc, once (lz4 or zstd): optional (as h5py sets it) or mandatory. HDF5
                     * keeps a chunk's old filter mask when it writes the chunk again at the same
                     * size with another (PyTables/PyTables#1325), its own writes too, which run
                     * at other moments under h5turbo (its chunk cache flushed at others), and the
                     * pipeline avoids; for stock's file to read right, optional Blosc only where
                     * it never compresses (under 128 bytes a chunk: every chunk has one mask). */
                if (!bloscs++) {
                    unsigned cd[7] = {2, 2, 0, 0, 1 + rnd(9), rnd(3), rnd(2) ? 1 : 5};
                    opt_blosc      = !deflated && chunk_nbytes + 4 < 128 && rnd(2);
                    ASSERT_H5(H5Pset_filter(dcpl, BLOSC, opt_blosc ? H5Z_FLAG_OPTIONAL : H5Z_FLAG_MANDATORY, 7, cd));
                    fl[nf++] = opt_blosc ? 'b' : 'B';
                }
                break;
        }
    }
    fl[nf] = '\0';
    d->nfilters   = H5Pget_nfilters(dcpl);
    /* (Fletcher32 adds 4 bytes and shuffle none; DEFLATE and Blosc may make a chunk of any length) */
    d->mask_sized = strchr(fl, 'f') && !deflated && !bloscs;
    const char *fill = "default";
    if (rnd(3) == 0) {
        uint8_t fv[16];
        fill_values(t, fv, 1);
        if (t->numeric && !t->integer) /* (a fill value that converts as every value does) */
            memset(fv, 0x41, sizeof(fv));
        ASSERT_H5(H5Pset_fill_value(dcpl, t->id, fv));
        fill = "set";
    }
    static const H5D_alloc_time_t at[] = {H5D_ALLOC_TIME_DEFAULT, H5D_ALLOC_TIME_EARLY, H5D_ALLOC_TIME_INCR,
                                          H5D_ALLOC_TIME_LATE};
    H5D_alloc_time_t alloc = at[rnd(4)];
    /* (Not late for unfiltered chunks: HDF5 allocates them all at the first write, and writes no
     * fill value into them when that write selects as many elements as the extent holds, which a
     * point list with repeats does without covering it; the chunks then hold what their file
     * space held before, which the pipeline's chunk sizes change.) */
    if (nf == 0 && alloc == H5D_ALLOC_TIME_LATE)
        alloc = H5D_ALLOC_TIME_INCR;
    ASSERT_H5(H5Pset_alloc_time(dcpl, alloc));
    if (rnd(4) == 0) /* (never is left out: a chunk written in part would hold what its buffer held) */
        ASSERT_H5(H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC));
    if (nf == 0 && extendible(d)) {
        /* Unfiltered (never the pipeline's): fixed. HDF5 writes an unfiltered edge chunk's
         * elements in place, and the rest of its file space holds what it held before, which
         * the pipeline's chunk sizes change; an extent grown over it shows those bytes. */
        for (int k = 0; k < d->rank; k++) {
            d->maxdims[k] = d->dims[k];
            if (d->chunk[k] > d->dims[k])
                d->chunk[k] = d->dims[k];
        }
        ASSERT_H5(H5Pset_chunk(dcpl, d->rank, d->chunk));
    }
    hid_t space = H5Screate_simple(d->rank, d->dims, d->maxdims);
    d->id       = H5Dcreate2(file, d->name, t->id, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ASSERT_H5(d->id);
    describe(d, nf ? fl : "-", fill);
    H5Sclose(space);
    H5Pclose(dcpl);
}

/* ---- selections: a file space of d's extent with a random selection, and a memory space for it
 * (dense, or the selection's shape inside a bigger buffer); *what says which. */
typedef struct {
    hid_t  fs, ms; /* H5S_ALL for both: the whole extent */
    size_t nbytes; /* of the memory buffer */
    char   what[96];
} sel_t;

static void
random_box(const dset_t *d, hsize_t *start, hsize_t *count)
{
    for (int k = 0; k < d->rank; k++) {
        if (rnd(2)) { /* whole chunks, cut at the extent */
            hsize_t nch = (d->dims[k] + d->chunk[k] - 1) / d->chunk[k];
            start[k]    = rnd((unsigned)nch) * d->chunk[k];
            count[k]    = d->chunk[k] * (1 + rnd(2));
        }
        else {
            start[k] = rnd((unsigned)d->dims[k]);
            count[k] = 1 + rnd((unsigned)(d->dims[k] - start[k]));
        }
        if (start[k] >= d->dims[k])
            start[k] = 0;
        if (start[k] + count[k] > d->dims[k])
            count[k] = d->dims[k] - start[k];
    }
}

static void
make_sel(const dset_t *d, size_t es, sel_t *s)
{
    size_t total = 1;
    for (int k = 0; k < d->rank; k++)
        total *= (size_t)d->dims[k];
    s->fs = s->ms = H5S_ALL;
    if (total == 0 || rnd(8) == 0) {
        snprintf(s->what, sizeof(s->what), "all");
        s->nbytes = total * es;
        return;
    }
    s->fs = H5Screate_simple(d->rank, d->dims, NULL);
    hsize_t  start[4], count[4];
    unsigned kind = rnd(6);
    if (kind <= 1) {
        random_box(d, start, count);
        ASSERT_H5(H5Sselect_hyperslab(s->fs, H5S_SELECT_SET, start, NULL, count, NULL));
        snprintf(s->what, sizeof(s->what), "box");
        if (kind == 1) { /* the box's shape inside a bigger buffer */
            hsize_t md[4], ms[4];
            size_t  n = 1;
            for (int k = 0; k < d->rank; k++) {
                md[k] = count[k] + rnd(3);
                ms[k] = rnd((unsigned)(md[k] - count[k] + 1));
                n *= (size_t)md[k];
            }
            s->ms = H5Screate_simple(d->rank, md, NULL);
            ASSERT_H5(H5Sselect_hyperslab(s->ms, H5S_SELECT_SET, ms, NULL, count, NULL));
            s->nbytes = n * es;
            snprintf(s->what, sizeof(s->what), "box-in-buffer");
            return;
        }
    }
    else if (kind == 2) { /* strided: blocks of 1-2 every 1-4 */
        hsize_t stride[4], blk[4], cnt[4];
        random_box(d, start, count);
        for (int k = 0; k < d->rank; k++) {
            blk[k]    = 1 + rnd(2);
            stride[k] = blk[k] + rnd(3);
            if (blk[k] > count[k])
                blk[k] = stride[k] = 1;
            cnt[k] = 1 + (count[k] - blk[k]) / stride[k];
        }
        ASSERT_H5(H5Sselect_hyperslab(s->fs, H5S_SELECT_SET, start, stride, cnt, blk));
        snprintf(s->what, sizeof(s->what), "strided");
    }
    else if (kind == 3) { /* a union of 2-3 boxes, perhaps overlapping */
        unsigned n = 2 + rnd(2);
        for (unsigned b = 0; b < n; b++) {
            random_box(d, start, count);
            ASSERT_H5(H5Sselect_hyperslab(s->fs, b ? H5S_SELECT_OR : H5S_SELECT_SET, start, NULL, count, NULL));
        }
        snprintf(s->what, sizeof(s->what), "union%u", n);
    }
    else if (kind == 4) { /* points, in any order, perhaps repeated */
        size_t   np = 1 + rnd(40);
        hsize_t *co = malloc(np * (size_t)d->rank * sizeof(*co));
        for (size_t p = 0; p < np; p++)
            for (int k = 0; k < d->rank; k++)
                co[p * (size_t)d->rank + (size_t)k] = p && rnd(6) == 0 ? co[(p - 1) * (size_t)d->rank + (size_t)k]
                                                                         : rnd((unsigned)d->dims[k]);
        ASSERT_H5(H5Sselect_elements(s->fs, H5S_SELECT_SET, np, co));
        free(co);
        snprintf(s->what, sizeof(s->what), "points%zu", np);
    }
    else { /* nothing */
        ASSERT_H5(H5Sselect_none(s->fs));
        snprintf(s->what, sizeof(s->what), "none");
    }
    hsize_t np = (hsize_t)H5Sget_select_npoints(s->fs);
    hsize_t m  = np ? np : 1;
    s->ms      = H5Screate_simple(1, &m, NULL);
    if (!np)
        ASSERT_H5(H5Sselect_none(s->ms));
    s->nbytes = (size_t)m * es;
}

static void
free_sel(sel_t *s)
{
    if (s->fs != H5S_ALL)
        H5Sclose(s->fs);
    if (s->ms != H5S_ALL)
        H5Sclose(s->ms);
}

/* The memory type of a call on d: its own, or (numbers) any other number. */
static int
mem_type(const dset_t *d)
{
    if (!ty[d->t].numeric || rnd(2))
        return d->t;
    int m;
    do
        m = (int)rnd((unsigned)nty);
    while (!ty[m].numeric);
    return m;
}

/* A transfer list: the default, or one with a small conversion buffer, a data transform (numbers
 * of native byte order), or checksums left unchecked. */
static hid_t
make_dxpl(const dset_t *d, int mt, char *what, size_t wn)
{
    unsigned k = rnd(8);
    snprintf(what, wn, "dflt");
    if (k > 3)
        return H5P_DEFAULT;
    hid_t x = H5Pcreate(H5P_DATASET_XFER);
    if (k == 0) {
        size_t sz = rnd(2) ? 1024 : 64 * H5Tget_size(ty[mt].id);
        ASSERT_H5(H5Pset_buffer(x, sz, NULL, NULL));
        snprintf(what, wn, "buf%zu", sz);
    }
    else if (k == 1 && ty[d->t].numeric && ty[mt].numeric && !strstr(ty[mt].name, "be")) {
        /* (HDF5 refuses a transform of a big-endian memory type, and a write it failed leaves
         * what its chunk cache holds undefined) */
        ASSERT_H5(H5Pset_data_transform(x, rnd(2) ? "x+3" : "2*x"));
        snprintf(what, wn, "transform");
    }
    else if (k == 2) {
        ASSERT_H5(H5Pset_edc_check(x, H5Z_DISABLE_EDC));
        snprintf(what, wn, "noedc");
    }
    return x;
}

static void
print_read(int op, const dset_t *d, const sel_t *s, int mt, const char *xw, herr_t ret, const void *buf)
{
    printf("op%d read %s %s mt=%s x=%s ret=%d hash=%016llx\n", op, d->name, s->what, ty[mt].name, xw, (int)ret,
           ret < 0 ? 0ull : (unsigned long long)hash(buf, s->nbytes));
}

static void
one_read(int op, const dset_t *d)
{
    sel_t s;
    int   mt = mem_type(d);
    make_sel(d, H5Tget_size(ty[mt].id), &s);
    char     xw[24];
    hid_t    x   = make_dxpl(d, mt, xw, sizeof(xw));
    uint8_t *buf = malloc(s.nbytes ? s.nbytes : 1);
    memset(buf, 0x3C, s.nbytes);
    herr_t ret = H5Dread(d->id, ty[mt].id, s.ms, s.fs, x, buf);
    print_read(op, d, &s, mt, xw, ret, buf);
    free(buf);
    if (x != H5P_DEFAULT)
        H5Pclose(x);
    free_sel(&s);
}

static void
one_write(int op, const dset_t *d)
{
    sel_t s;
    int   mt = mem_type(d);
    size_t es = H5Tget_size(ty[mt].id);
    make_sel(d, es, &s);
    char     xw[24];
    hid_t    x   = make_dxpl(d, mt, xw, sizeof(xw));
    uint8_t *buf = malloc(s.nbytes ? s.nbytes : 1);
    fill_values(&ty[mt], buf, s.nbytes / es);
    herr_t ret = H5Dwrite(d->id, ty[mt].id, s.ms, s.fs, x, buf);
    printf("op%d write %s %s mt=%s x=%s ret=%d\n", op, d->name, s.what, ty[mt].name, xw, (int)ret);
    free(buf);
    if (x != H5P_DEFAULT)
        H5Pclose(x);
    free_sel(&s);
}

/* Two or three datasets in one H5Dread_multi or H5Dwrite_multi, each its own selection and memory
 * type (none named twice: native refuses that in a read, and loops forever in some writes). */
static void
one_multi(int op, int write)
{
    size_t   n = nds < 3 ? 2 : 2 + rnd(2);
    hid_t    dids[3], mts[3], mss[3], fss[3];
    sel_t    s[3];
    int      mt[3], which[3];
    void    *bufs[3];
    for (size_t i = 0; i < n; i++) {
        which[i] = (int)rnd((unsigned)nds);
        for (size_t j = 0; j < i; j++)
            if (which[j] == which[i]) { /* (the next one not named yet) */
                which[i] = (which[i] + 1) % nds;
                j        = (size_t)-1;
            }
        const dset_t *d = &ds[which[i]];
        mt[i]           = mem_type(d);
        size_t es       = H5Tget_size(ty[mt[i]].id);
        make_sel(d, es, &s[i]);
        dids[i] = d->id;
        mts[i]  = ty[mt[i]].id;
        mss[i]  = s[i].ms;
        fss[i]  = s[i].fs;
        bufs[i] = malloc(s[i].nbytes ? s[i].nbytes : 1);
        if (write)
            fill_values(&ty[mt[i]], bufs[i], s[i].nbytes / es);
        else
            memset(bufs[i], 0x3C, s[i].nbytes);
    }
    herr_t ret = write ? H5Dwrite_multi(n, dids, mts, mss, fss, H5P_DEFAULT, (const void **)bufs)
                       : H5Dread_multi(n, dids, mts, mss, fss, H5P_DEFAULT, bufs);
    printf("op%d %s_multi ret=%d\n", op, write ? "write" : "read", (int)ret);
    for (size_t i = 0; i < n; i++) {
        if (!write)
            print_read(op, &ds[which[i]], &s[i], mt[i], "multi", ret, bufs[i]);
        free(bufs[i]);
        free_sel(&s[i]);
    }
}

static void
one_extent(int op, dset_t *d)
{
    hsize_t nd[4];
    for (int k = 0; k < d->rank; k++)
        nd[k] = d->maxdims[k] == H5S_UNLIMITED ? (hsize_t)rnd((unsigned)(2 * d->dims[k] + 3)) : d->dims[k];
    herr_t ret = H5Dset_extent(d->id, nd);
    printf("op%d extent %s ret=%d", op, d->name, (int)ret);
    if (ret >= 0)
        for (int k = 0; k < d->rank; k++) {
            d->dims[k] = nd[k];
            printf(" %llu", (unsigned long long)nd[k]);
        }
    printf("\n");
}

/* Closed and opened again, with the default chunk cache or another (none, one small, a big one). */
static void
one_reopen(int op, dset_t *d, hid_t file)
{
    ASSERT_H5(H5Dclose(d->id));
    hid_t    dapl = H5Pcreate(H5P_DATASET_ACCESS);
    unsigned k    = rnd(4);
    if (k == 1)
        ASSERT_H5(H5Pset_chunk_cache(dapl, 0, 0, H5D_CHUNK_CACHE_W0_DEFAULT));
    else if (k == 2)
        ASSERT_H5(H5Pset_chunk_cache(dapl, 7, 2048, 0.5));
    else if (k == 3)
        ASSERT_H5(H5Pset_chunk_cache(dapl, 521, 64 << 20, 1.0));
    d->id = H5Dopen2(file, d->name, dapl);
    ASSERT_H5(d->id);
    H5Pclose(dapl);
    printf("op%d reopen %s cache=%u\n", op, d->name, k);
}

static hid_t
fapl_of(uint64_t seed)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (seed % 2) /* the latest format: every kind of chunk index */
        ASSERT_H5(H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST));
    return fapl;
}

/* The file closed and opened again for writing, every dataset with it: what this process learnt
 * of the datasets (masked chunks met, among them the application's own direct writes) is then of
 * an earlier open, as if another program had written them. */
static hid_t
file_reopen(int op, const char *path, uint64_t seed, hid_t file)
{
    for (int i = 0; i < nds; i++)
        ASSERT_H5(H5Dclose(ds[i].id));
    ASSERT_H5(H5Fclose(file));
    hid_t fapl = fapl_of(seed);
    file       = H5Fopen(path, H5F_ACC_RDWR, fapl);
    ASSERT_H5(file);
    H5Pclose(fapl);
    for (int i = 0; i < nds; i++) {
        ds[i].id = H5Dopen2(file, ds[i].name, H5P_DEFAULT);
        ASSERT_H5(ds[i].id);
    }
    printf("op%d file reopened\n", op);
    return file;
}

/* A chunk written directly, whole, with every filter skipped (its filter mask: what writers that
 * store chunks no filter shrinks do), then the handle opened again: HDF5 (1.14.5, 2.2.0) keeps
 * the mask a chunk had before a direct write in its cache of the last chunk looked up, so that its
 * next read of that chunk through the same handle decodes it with the wrong mask. Later calls
 * write over such chunks, in whole or in part. Only where no chunk filtered with none skipped can
 * be as long as one stored raw (shuffle and Fletcher32): HDF5 keeps the old mask of a chunk written
 * again at the length it had (PyTables/PyTables#1325), its own writes and direct ones alike, and
 * the pipeline's DEFLATE and Blosc make chunks of other lengths than stock's. */
static hid_t
one_direct(int op, dset_t *d, hid_t file, const char *path, uint64_t seed)
{
    hsize_t off[4];
    size_t  nelem = 1, es = H5Tget_size(ty[d->t].id);
    if (!d->nfilters || !d->mask_sized)
        return file;
    for (int k = 0; k < d->rank; k++) {
        hsize_t nch = (d->dims[k] + d->chunk[k] - 1) / d->chunk[k];
        if (!nch)
            return file;
        off[k] = rnd((unsigned)nch) * d->chunk[k];
        nelem *= (size_t)d->chunk[k];
    }
    uint8_t *buf = malloc(nelem * es);
    fill_values(&ty[d->t], buf, nelem);
    herr_t ret = H5Dwrite_chunk(d->id, H5P_DEFAULT, (1u << d->nfilters) - 1, off, nelem * es, buf);
    printf("op%d direct %s at", op, d->name);
    for (int k = 0; k < d->rank; k++)
        printf(" %llu", (unsigned long long)off[k]);
    printf(" ret=%d\n", (int)ret);
    ASSERT_H5(H5Dclose(d->id));
    d->id = H5Dopen2(file, d->name, H5P_DEFAULT);
    ASSERT_H5(d->id);
    /* Half the time, as a later program finds that chunk: the file opened again (nothing is known
     * then of the chunk's mask), the chunk written whole by one H5Dwrite (clipped at the extent)
     * and read back through the same handle. */
    if (rnd(2)) {
        hsize_t count[4];
        size_t  n = 1;
        file      = file_reopen(op, path, seed, file);
        for (int k = 0; k < d->rank; k++) {
            count[k] = d->dims[k] - off[k] < d->chunk[k] ? d->dims[k] - off[k] : d->chunk[k];
            n *= (size_t)count[k];
        }
        hid_t fs = H5Dget_space(d->id), ms = H5Screate_simple(d->rank, count, NULL);
        ASSERT_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, count, NULL));
        fill_values(&ty[d->t], buf, n);
        herr_t w = H5Dwrite(d->id, ty[d->t].id, ms, fs, H5P_DEFAULT, buf);
        memset(buf, 0, n * es);
        herr_t r = H5Dread(d->id, ty[d->t].id, ms, fs, H5P_DEFAULT, buf);
        printf("op%d chunk over it: write ret=%d read ret=%d hash=%016llx\n", op, (int)w, (int)r,
               r < 0 ? 0ull : (unsigned long long)hash(buf, n * es));
        H5Sclose(ms);
        H5Sclose(fs);
    }
    free(buf);
    return file;
}

/* What is stored: the number of chunks, each one's offset and filter mask (not its size or
 * address: the pipeline's DEFLATE may compress to other bytes). Not of a dataset whose extent may
 * have shrunk: HDF5 then allocates, holding only fill values, the chunks across the new edge that
 * its chunk cache happens to hold (those the pipeline read are not in it). */
static void
print_chunks(const dset_t *d)
{
    if (extendible(d)) {
        printf("%s extendible\n", d->name);
        return;
    }
    hsize_t n = 0;
    hid_t   fs = H5Dget_space(d->id);
    herr_t  ret = H5Dget_num_chunks(d->id, fs, &n);
    printf("%s chunks ret=%d n=%llu:", d->name, (int)ret, (unsigned long long)n);
    for (hsize_t i = 0; ret >= 0 && i < n; i++) {
        hsize_t  off[4] = {0};
        unsigned mask   = 0;
        haddr_t  addr;
        hsize_t  size;
        if (H5Dget_chunk_info(d->id, fs, i, off, &mask, &addr, &size) < 0) {
            printf(" ?");
            continue;
        }
        printf(" (");
        for (int k = 0; k < d->rank; k++)
            printf("%llu,", (unsigned long long)off[k]);
        printf("m%u)", mask);
    }
    printf("\n");
    H5Sclose(fs);
}

/* The file reopened read-only: each dataset read whole in its own type, then in random pieces. */
static int
do_verify(const char *path, uint64_t seed)
{
    rstate     = seed * 2654435761ull + 99;
    hid_t fapl = fapl_of(seed);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    ASSERT_H5(file);
    H5Pclose(fapl);
    ssize_t n = H5Fget_obj_count(file, H5F_OBJ_DATASET);
    ASSERT_EQ(n, 0);
    for (int i = 0; i < nds; i++) {
        dset_t *d = &ds[i];
        d->id     = H5Dopen2(file, d->name, H5P_DEFAULT);
        ASSERT_H5(d->id);
        hid_t fs = H5Dget_space(d->id);
        ASSERT_EQ(H5Sget_simple_extent_dims(fs, d->dims, NULL), d->rank);
        H5Sclose(fs);
        size_t   es = H5Tget_size(ty[d->t].id), total = es;
        for (int k = 0; k < d->rank; k++)
            total *= (size_t)d->dims[k];
        uint8_t *buf = malloc(total ? total : 1);
        memset(buf, 0x3C, total);
        herr_t ret = H5Dread(d->id, ty[d->t].id, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
        printf("verify %s whole ret=%d hash=%016llx\n", d->name, (int)ret, (unsigned long long)hash(buf, total));
        free(buf);
        print_chunks(d);
    }
    for (int op = 0; op < 30; op++)
        one_read(1000 + op, &ds[rnd((unsigned)nds)]);
    if (nds > 1)
        one_multi(1100, 0);
    for (int i = 0; i < nds; i++)
        ASSERT_H5(H5Dclose(ds[i].id));
    ASSERT_H5(H5Fclose(file));
    return 0;
}

/* The datasets of the seed, as created (their types and ranks; verify reads what the file says of
 * their extents). */
static void
plan(uint64_t seed, hid_t file, int with_blosc)
{
    rstate = seed * 7919ull + 1;
    nds = 2 + (int)rnd(MAXD - 1);
    for (int i = 0; i < nds; i++)
        make_dset(file, i, with_blosc);
}

static int
do_run(const char *path, uint64_t seed, int with_blosc)
{
    hid_t fapl = fapl_of(seed);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    ASSERT_H5(file);
    H5Pclose(fapl);
    plan(seed, file, with_blosc);
    for (int op = 0; op < NOPS; op++) {
        dset_t  *d = &ds[rnd((unsigned)nds)];
        unsigned k = rnd(44);
        if (k >= 40)
            file = one_direct(op, d, file, path, seed);
        else if (k < 16)
            one_write(op, d);
        else if (k < 31)
            one_read(op, d);
        else if (k < 33)
            one_multi(op, 0);
        else if (k < 35)
            one_multi(op, 1);
        else if (k < 37 && extendible(d))
            one_extent(op, d);
        else if (k < 39)
            one_reopen(op, d, file);
        else if (rnd(2))
            file = file_reopen(op, path, seed, file);
        else {
            herr_t ret = H5Fflush(file, H5F_SCOPE_LOCAL);
            printf("op%d flush ret=%d\n", op, (int)ret);
        }
    }
    for (int i = 0; i < nds; i++) {
        print_chunks(&ds[i]);
        ASSERT_H5(H5Dclose(ds[i].id));
    }
    ASSERT_H5(H5Fclose(file));
    return do_verify(path, seed);
}

int
main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[1], "run") && strcmp(argv[1], "verify"))) {
        fprintf(stderr, "usage: pipe_fuzz run FILE SEED [blosc] | verify FILE SEED [blosc]\n");
        return 2;
    }
    init_types();
    if (!getenv("PIPE_FUZZ_ERRORS")) /* (failures are printed as return values; set it to see why) */
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    uint64_t seed       = strtoull(argv[3], NULL, 10);
    int      with_blosc = argc > 4 && !strcmp(argv[4], "blosc");
    if (!strcmp(argv[1], "run"))
        return do_run(argv[2], seed, with_blosc);
    /* (the datasets' names, types and ranks, as run made them: planned into a scratch file) */
    hid_t scratch = H5Fcreate("pipe_fuzz_plan.h5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_H5(scratch);
    plan(seed, scratch, with_blosc);
    for (int i = 0; i < nds; i++)
        H5Dclose(ds[i].id);
    H5Fclose(scratch);
    remove("pipe_fuzz_plan.h5");
    return do_verify(argv[2], seed);
}
