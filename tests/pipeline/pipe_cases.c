/* pipe_cases.c — the differential test program of the chunk pipeline. `write FILE` creates a
 * matrix of filtered chunked datasets (types, ranks, filter orders, edge chunks, fill values,
 * extendible datasets, mixed partial/full writes through one handle); `read FILE` reads each back
 * with several selections and prints one hash per read; `raw FILE` prints a hash of every stored
 * chunk (raw bytes and filter mask). pipe_cases.sh runs them with and without h5turbo and compares. */
#define H5_USE_114_API_DEFAULT 1
#include <hdf5.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/tb_test.h"
#include "pipe_test.h"

/* Deterministic, moderately compressible bytes: element e of case `seed`. */
static void
gen(uint8_t *buf, size_t nelem, size_t es, unsigned seed, size_t first)
{
    for (size_t e = 0; e < nelem; e++) {
        size_t g = first + e;
        for (size_t b = 0; b < es; b++) {
            uint32_t v = (uint32_t)(g * 2654435761u) ^ (uint32_t)(seed * 40503u) ^ (uint32_t)(b * 97u);
            /* Low bytes vary, high bytes mostly constant: like real data, shuffle helps. */
            buf[e * es + b] = (uint8_t)(b < 2 ? (v >> 13) : (b == es - 1 ? (g % 3) : 0));
        }
    }
}

/* ---- types */
typedef struct {
    int8_t  a;
    double  b;
    int16_t c;
} cmp_t;

static hid_t
make_type(const char *name)
{
    if (!strcmp(name, "u8"))
        return H5Tcopy(H5T_NATIVE_UINT8);
    if (!strcmp(name, "i16"))
        return H5Tcopy(H5T_NATIVE_INT16);
    if (!strcmp(name, "f32"))
        return H5Tcopy(H5T_NATIVE_FLOAT);
    if (!strcmp(name, "f64"))
        return H5Tcopy(H5T_NATIVE_DOUBLE);
    if (!strcmp(name, "a16")) { /* 16 bytes: an array of two 64-bit integers */
        hsize_t two = 2;
        return H5Tarray_create2(H5T_NATIVE_INT64, 1, &two);
    }
    if (!strcmp(name, "cmp")) { /* compound with padding */
        hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(cmp_t));
        H5Tinsert(t, "a", HOFFSET(cmp_t, a), H5T_NATIVE_INT8);
        H5Tinsert(t, "b", HOFFSET(cmp_t, b), H5T_NATIVE_DOUBLE);
        H5Tinsert(t, "c", HOFFSET(cmp_t, c), H5T_NATIVE_INT16);
        return t;
    }
    if (!strcmp(name, "s5")) { /* fixed-length string of 5 bytes: odd element size */
        hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, 5);
        return t;
    }
    return -1;
}

/* ---- filter pipelines, by letters in order: s shuffle, z deflate-1, Z deflate-6, f fletcher32,
 * b Blosc (only when asked for: stock HDF5 has no Blosc filter) */
static void
set_filters(hid_t dcpl, const char *f)
{
    for (; *f; f++) {
        switch (*f) {
            case 's': ASSERT_H5(H5Pset_shuffle(dcpl)); break;
            case 'z': ASSERT_H5(H5Pset_deflate(dcpl, 1)); break;
            case 'Z': ASSERT_H5(H5Pset_deflate(dcpl, 6)); break;
            case '9': ASSERT_H5(H5Pset_deflate(dcpl, 9)); break;
            case 'f': ASSERT_H5(H5Pset_fletcher32(dcpl)); break;
            case 'b': {
                unsigned cd[7] = {2, 2, 0, 0, 5, 1, 1}; /* lz4, level 5, byte shuffle */
                ASSERT_H5(H5Pset_filter(dcpl, 32001, H5Z_FLAG_OPTIONAL, 7, cd));
                break;
            }
        }
    }
}

typedef struct dcase {
    const char *type, *filters;
    int         rank;
    hsize_t     dims[4], chunk[4];
} dcase_t;

static size_t
nelem_of(int rank, const hsize_t *d)
{
    size_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= (size_t)d[i];
    return n;
}

/* `write FILE latest`: the file in the latest format, whose chunk indexes are a fixed array
 * (fixed dimensions), a single chunk, and, for every second and third dataset created without
 * maximum dimensions, an extensible array (the first dimension unlimited) or a v2 B-tree (all of
 * them unlimited); the default format indexes every chunked dataset with a v1 B-tree. */
static int latest;
static int ncreated;

static hid_t
create(hid_t file, const char *name, const dcase_t *c, hid_t type, const hsize_t *maxdims, hid_t dcpl_extra)
{
    hid_t   dcpl = dcpl_extra >= 0 ? H5Pcopy(dcpl_extra) : H5Pcreate(H5P_DATASET_CREATE);
    hsize_t unl[4];
    int     kind = ncreated++ % 3;
    if (latest && !maxdims && kind) {
        for (int k = 0; k < c->rank; k++)
            unl[k] = k == 0 || kind == 2 ? H5S_UNLIMITED : c->dims[k];
        maxdims = unl;
    }
    hid_t space = H5Screate_simple(c->rank, c->dims, maxdims);
    ASSERT_H5(H5Pset_chunk(dcpl, c->rank, c->chunk));
    set_filters(dcpl, c->filters);
    hid_t d = H5Dcreate2(file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ASSERT_H5(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    return d;
}

/* Writes a box [start, start+count) of the dataset with generated data for those elements. */
static void
write_box(hid_t d, hid_t type, int rank, const hsize_t *dims, const hsize_t *start, const hsize_t *count,
          unsigned seed)
{
    size_t   es = H5Tget_size(type), n = nelem_of(rank, count);
    uint8_t *buf = malloc(n * es);
    /* Element values depend on their position in the dataset, so that any order of writes
     * produces the same file contents. */
    hsize_t idx[4] = {0};
    for (size_t e = 0; e < n; e++) {
        size_t lin = 0;
        for (int k = 0; k < rank; k++)
            lin = lin * (size_t)dims[k] + (size_t)(start[k] + idx[k]);
        gen(buf + e * es, 1, es, seed, lin);
        for (int k = rank - 1; k >= 0; k--) {
            if (++idx[k] < count[k])
                break;
            idx[k] = 0;
        }
    }
    hid_t fs = H5Dget_space(d);
    ASSERT_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
    hid_t ms = H5Screate_simple(1, (hsize_t[]){n}, NULL);
    ASSERT_H5(H5Dwrite(d, type, ms, fs, H5P_DEFAULT, buf));
    H5Sclose(ms);
    H5Sclose(fs);
    free(buf);
}

static void
write_all(hid_t d, hid_t type, int rank, const hsize_t *dims, unsigned seed)
{
    size_t   es = H5Tget_size(type), n = nelem_of(rank, dims);
    uint8_t *buf = malloc(n * es);
    gen(buf, n, es, seed, 0);
    ASSERT_H5(H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    free(buf);
}

static const char *types[]   = {"u8", "i16", "f32", "f64", "a16", "cmp", "s5"};
static const char *filters[] = {"s", "f", "sf", "fs", "sz", "szf", "z", "Zf", "fz", "zs", "9", "ssf"};

/* with_blosc: add Blosc datasets; no_never: leave out "fill_never", whose unwritten part reads as
 * whatever the reader's buffer held (fine for our reads, which pre-set it; not for tools that
 * copy it, like h5repack). */
static int
do_write(const char *path, int with_blosc, int no_never)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (latest)
        ASSERT_H5(H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST));
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    ASSERT_H5(file);
    char     name[128];
    unsigned seed = 1;

    /* 1. Every type x every pipeline, 2-D, chunks not dividing the extent, one whole write. */
    for (size_t t = 0; t < sizeof(types) / sizeof(*types); t++)
        for (size_t f = 0; f < sizeof(filters) / sizeof(*filters); f++) {
            dcase_t c    = {types[t], filters[f], 2, {37, 50}, {8, 16}};
            hid_t   type = make_type(types[t]);
            snprintf(name, sizeof(name), "all_%s_%s", types[t], filters[f]);
            hid_t d = create(file, name, &c, type, NULL, -1);
            write_all(d, type, 2, c.dims, seed++);
            H5Dclose(d);
            H5Tclose(type);
        }
    if (with_blosc) {
        for (size_t t = 0; t < 4; t++) {
            dcase_t c    = {types[t], "b", 2, {37, 50}, {8, 16}};
            hid_t   type = make_type(types[t]);
            snprintf(name, sizeof(name), "blosc_%s", types[t]);
            hid_t d = create(file, name, &c, type, NULL, -1);
            write_all(d, type, 2, c.dims, seed++);
            H5Dclose(d);
            H5Tclose(type);
        }
    }

    /* 2. Ranks 1..4, edge chunks in every dimension, written in boxes that leave partial chunks
     *    (read-modify-write) next to full ones. */
    static const dcase_t ranks[] = {
        {"i16", "szf", 1, {1000}, {64}},
        {"f32", "sz", 2, {45, 70}, {10, 16}},
        {"u8", "sf", 3, {9, 20, 33}, {4, 8, 8}},
        {"f64", "szf", 4, {5, 6, 7, 9}, {2, 3, 4, 4}},
    };
    for (size_t r = 0; r < sizeof(ranks) / sizeof(*ranks); r++) {
        const dcase_t *c    = &ranks[r];
        hid_t          type = make_type(c->type);
        snprintf(name, sizeof(name), "rank%d_boxes", c->rank);
        hid_t d = create(file, name, c, type, NULL, -1);
        /* First box: the lower "half" along dim 0 (not chunk aligned), then the rest. */
        hsize_t start[4] = {0}, count[4];
        memcpy(count, c->dims, sizeof(count));
        count[0] = c->dims[0] / 2 + 1;
        write_box(d, type, c->rank, c->dims, start, count, 1000 + (unsigned)r);
        start[0] = count[0];
        count[0] = c->dims[0] - start[0];
        write_box(d, type, c->rank, c->dims, start, count, 1000 + (unsigned)r);
        /* An inner box overwrite, crossing chunk boundaries. */
        for (int k = 0; k < c->rank; k++) {
            start[k] = c->dims[k] / 3;
            count[k] = c->dims[k] / 2;
        }
        write_box(d, type, c->rank, c->dims, start, count, 1000 + (unsigned)r);
        H5Dclose(d);
        H5Tclose(type);
    }

    /* 3. Fill values: a user fill value and partial coverage; fill time never; default fill. */
    {
        dcase_t c    = {"i16", "sz", 2, {40, 40}, {16, 16}};
        hid_t   type = make_type("i16");
        hid_t   dcpl = H5Pcreate(H5P_DATASET_CREATE);
        short   fv   = -1234;
        H5Pset_fill_value(dcpl, type, &fv);
        hid_t   d       = create(file, "fill_user", &c, type, NULL, dcpl);
        hsize_t start[] = {0, 0}, count[] = {20, 40};
        write_box(d, type, 2, c.dims, start, count, 77);
        H5Dclose(d);
        if (!no_never) {
            H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
            d = create(file, "fill_never", &c, type, NULL, dcpl);
            write_box(d, type, 2, c.dims, start, count, 78);
            H5Dclose(d);
        }
        H5Pclose(dcpl);
        d = create(file, "fill_default", &c, type, NULL, -1);
        write_box(d, type, 2, c.dims, start, count, 79);
        H5Dclose(d);
        /* Fill value with a write of the whole extent: edge chunks hold the fill value outside it. */
        dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_fill_value(dcpl, type, &fv);
        dcase_t c2 = {"i16", "sf", 2, {30, 30}, {16, 16}};
        d          = create(file, "fill_edges", &c2, type, NULL, dcpl);
        write_all(d, type, 2, c2.dims, 80);
        H5Dclose(d);
        H5Pclose(dcpl);
        H5Tclose(type);
    }

    /* 4. Extendible, frame by frame (AGIPD style), then grown in the second dimension too. */
    {
        dcase_t c       = {"u8", "szf", 3, {0, 16, 24}, {1, 16, 24}};
        hsize_t max[]   = {H5S_UNLIMITED, 64, 64};
        hid_t   type    = make_type("u8");
        hid_t   d       = create(file, "ext_frames", &c, type, max, -1);
        hsize_t dims[3] = {0, 16, 24};
        for (int fr = 0; fr < 20; fr++) {
            dims[0] = (hsize_t)fr + 1;
            ASSERT_H5(H5Dset_extent(d, dims));
            hsize_t start[] = {(hsize_t)fr, 0, 0}, count[] = {1, 16, 24};
            write_box(d, type, 3, (hsize_t[]){1000, 16, 24}, start, count, 5);
        }
        /* Grow dims 1 and 2: old edge content must read as fill; write a box in the new area. */
        dims[1] = 40;
        dims[2] = 30;
        ASSERT_H5(H5Dset_extent(d, dims));
        hsize_t start[] = {3, 16, 0}, count[] = {10, 24, 30};
        write_box(d, type, 3, (hsize_t[]){1000, 40, 30}, start, count, 6);
        H5Dclose(d);
        /* Chunks of 32 frames with single-frame writes: all partial (native), then blocks. */
        dcase_t c2     = {"f32", "sz", 2, {0, 100}, {32, 100}};
        hsize_t max2[] = {H5S_UNLIMITED, 100};
        hid_t   t2     = make_type("f32");
        d              = create(file, "ext_blocks", &c2, t2, max2, -1);
        hsize_t d2[2]  = {0, 100};
        for (int fr = 0; fr < 70; fr++) {
            d2[0] = (hsize_t)fr + 1;
            ASSERT_H5(H5Dset_extent(d, d2));
            hsize_t s2[] = {(hsize_t)fr, 0}, n2[] = {1, 100};
            write_box(d, t2, 2, (hsize_t[]){1000, 100}, s2, n2, 7);
        }
        d2[0] = 160;
        ASSERT_H5(H5Dset_extent(d, d2));
        hsize_t s2[] = {70, 0}, n2[] = {90, 100};
        write_box(d, t2, 2, (hsize_t[]){1000, 100}, s2, n2, 7);
        H5Dclose(d);
        H5Tclose(t2);
        H5Tclose(type);
    }

    /* 5. Mixed native/pipeline writes through one handle, with reads in between: partial writes
     *    stay dirty in HDF5's chunk cache while full-chunk writes go around it. */
    {
        dcase_t c    = {"i16", "szf", 2, {64, 64}, {16, 16}};
        hid_t   type = make_type("i16");
        hid_t   d    = create(file, "mixed", &c, type, NULL, -1);
        hsize_t s[2], n[2];
        s[0] = 3; s[1] = 3; n[0] = 5; n[1] = 5; /* partial: native, cached */
        write_box(d, type, 2, c.dims, s, n, 11);
        s[0] = 0; s[1] = 0; n[0] = 32; n[1] = 64; /* covers it: pipeline */
        write_box(d, type, 2, c.dims, s, n, 12);
        s[0] = 30; s[1] = 10; n[0] = 4; n[1] = 4; /* partial again */
        write_box(d, type, 2, c.dims, s, n, 13);
        s[0] = 20; s[1] = 0; n[0] = 44; n[1] = 40; /* full + partial, RMW of the cached chunk */
        write_box(d, type, 2, c.dims, s, n, 14);
        /* Read back through the same handle before closing. */
        short *all = malloc(64 * 64 * sizeof(short));
        ASSERT_H5(H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, all));
        printf("mixed_inflight %016llx\n",
               (unsigned long long)fnv(all, 64 * 64 * sizeof(short), 1469598103934665603ull));
        s[0] = 40; s[1] = 40; n[0] = 2; n[1] = 2; /* partial, left dirty in the cache */
        write_box(d, type, 2, c.dims, s, n, 15);
        ASSERT_H5(H5Dread(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, all));
        printf("mixed_dirty %016llx\n", (unsigned long long)fnv(all, 64 * 64 * sizeof(short), 1469598103934665603ull));
        free(all);
        H5Dclose(d);
        H5Tclose(type);
    }

    /* 5b. Two handles on one dataset share HDF5's chunk cache: a partial write through one stays
     *     dirty there while the other writes and reads through the pipeline. */
    {
        dcase_t c    = {"f32", "szf", 2, {48, 48}, {16, 16}};
        hid_t   type = make_type("f32");
        hid_t   d1   = create(file, "two_handles", &c, type, NULL, -1);
        hid_t   d2   = H5Dopen2(file, "two_handles", H5P_DEFAULT);
        hsize_t s[2] = {0, 0}, n[2] = {48, 48};
        write_box(d2, type, 2, c.dims, s, n, 41);          /* pipeline, everything */
        s[0] = 17; s[1] = 17; n[0] = 3; n[1] = 3;
        write_box(d1, type, 2, c.dims, s, n, 42);          /* native, cached */
        float *all = malloc(48 * 48 * sizeof(float));
        ASSERT_H5(H5Dread(d2, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, all)); /* pipeline must see it */
        printf("two_handles_read %016llx\n", (unsigned long long)fnv(all, 48 * 48 * 4, 1469598103934665603ull));
        s[0] = 0; s[1] = 16; n[0] = 32; n[1] = 20;
        write_box(d2, type, 2, c.dims, s, n, 43);          /* full chunk over the cached one */
        s[0] = 20; s[1] = 20; n[0] = 2; n[1] = 2;
        write_box(d1, type, 2, c.dims, s, n, 44);          /* native again, into that chunk */
        ASSERT_H5(H5Dread(d1, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, all));
        printf("two_handles_read2 %016llx\n", (unsigned long long)fnv(all, 48 * 48 * 4, 1469598103934665603ull));
        free(all);
        H5Dclose(d1);
        H5Dclose(d2);
        H5Tclose(type);
    }

    /* 6. Memory selections: a box inside a bigger buffer (strided), and a 1-D buffer for a 3-D box. */
    {
        dcase_t c    = {"f32", "sf", 2, {30, 40}, {8, 8}};
        hid_t   type = make_type("f32");
        hid_t   d    = create(file, "memsel", &c, type, NULL, -1);
        float  *big  = malloc(50 * 60 * sizeof(float));
        gen((uint8_t *)big, 50 * 60, 4, 21, 0);
        hid_t ms = H5Screate_simple(2, (hsize_t[]){50, 60}, NULL);
        ASSERT_H5(H5Sselect_hyperslab(ms, H5S_SELECT_SET, (hsize_t[]){5, 7}, NULL, (hsize_t[]){30, 40}, NULL));
        ASSERT_H5(H5Dwrite(d, type, ms, H5S_ALL, H5P_DEFAULT, big));
        H5Sclose(ms);
        free(big);
        H5Dclose(d);
        H5Tclose(type);
    }

    /* 7. Chunks that are the whole dataset (single-chunk index) and early allocation. */
    {
        dcase_t c    = {"i16", "szf", 2, {16, 16}, {16, 16}};
        hid_t   type = make_type("i16");
        hid_t   d    = create(file, "single", &c, type, NULL, -1);
        write_all(d, type, 2, c.dims, 31);
        H5Dclose(d);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
        dcase_t c2 = {"i16", "sz", 2, {40, 40}, {16, 16}};
        d          = create(file, "early", &c2, type, NULL, dcpl);
        hsize_t s[] = {0, 0}, n[] = {32, 40};
        write_box(d, type, 2, c2.dims, s, n, 32);
        H5Dclose(d);
        H5Pclose(dcpl);
        H5Tclose(type);
    }
    ASSERT_H5(H5Fclose(file));
    return 0;
}

/* ---- read: every dataset, whole and in boxes with several memory layouts */
static void
print_hash(const char *dset, const char *what, const void *buf, size_t n)
{
    printf("%s %s %016llx\n", dset, what, (unsigned long long)fnv(buf, n, 1469598103934665603ull));
}

static herr_t
read_one(hid_t g, const char *name, const H5L_info2_t *info, void *op)
{
    (void)info;
    (void)op;
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0)
        return 0;
    hid_t   type  = H5Dget_type(d);
    hid_t   mtype = H5Tget_native_type(type, H5T_DIR_DEFAULT);
    hid_t   fs    = H5Dget_space(d);
    int     rank  = H5Sget_simple_extent_ndims(fs);
    hsize_t dims[8];
    H5Sget_simple_extent_dims(fs, dims, NULL);
    size_t es = H5Tget_size(mtype), n = nelem_of(rank, dims);
    /* Pre-set the buffer so that "left untouched" (fill time never) is visible and stable. */
    uint8_t *buf = malloc(n * es + 1);
    memset(buf, 0xA5, n * es + 1);
    ASSERT_H5(H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    print_hash(name, "all", buf, n * es);

    /* A box from 1/4 to 3/4 of each dimension, into a dense buffer, a 1-D buffer and a box of
     * a bigger buffer with the same shape. */
    hsize_t start[8], count[8], big[8], bstart[8];
    size_t  bn = 1;
    for (int k = 0; k < rank; k++) {
        start[k]  = dims[k] / 4;
        count[k]  = dims[k] / 2 ? dims[k] / 2 : 1;
        big[k]    = count[k] + 3;
        bstart[k] = 2;
        bn *= (size_t)big[k];
    }
    size_t   bx  = nelem_of(rank, count);
    uint8_t *box = malloc(bn * es);
    ASSERT_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
    hid_t ms = H5Screate_simple(rank, count, NULL);
    memset(box, 0x5A, bn * es);
    ASSERT_H5(H5Dread(d, mtype, ms, fs, H5P_DEFAULT, box));
    print_hash(name, "box", box, bx * es);
    H5Sclose(ms);
    ms = H5Screate_simple(1, (hsize_t[]){bx}, NULL);
    memset(box, 0x5A, bn * es);
    ASSERT_H5(H5Dread(d, mtype, ms, fs, H5P_DEFAULT, box));
    print_hash(name, "box1d", box, bx * es);
    H5Sclose(ms);
    ms = H5Screate_simple(rank, big, NULL);
    ASSERT_H5(H5Sselect_hyperslab(ms, H5S_SELECT_SET, bstart, NULL, count, NULL));
    memset(box, 0x5A, bn * es);
    ASSERT_H5(H5Dread(d, mtype, ms, fs, H5P_DEFAULT, box));
    print_hash(name, "boxbig", box, bn * es);
    H5Sclose(ms);
    /* One "frame": the first index of dim 0, everything else; into a rank-1-less buffer. */
    if (rank >= 2) {
        for (int k = 0; k < rank; k++) {
            start[k] = 0;
            count[k] = dims[k];
        }
        start[0] = dims[0] / 2;
        count[0] = 1;
        ASSERT_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
        ms = H5Screate_simple(rank - 1, dims + 1, NULL);
        memset(box, 0x5A, bn * es);
        size_t fn = nelem_of(rank - 1, dims + 1);
        uint8_t *fb = malloc(fn * es);
        ASSERT_H5(H5Dread(d, mtype, ms, fs, H5P_DEFAULT, fb));
        print_hash(name, "frame", fb, fn * es);
        free(fb);
        H5Sclose(ms);
    }
    free(box);
    free(buf);
    H5Sclose(fs);
    H5Tclose(mtype);
    H5Tclose(type);
    H5Dclose(d);
    return 0;
}

static int
do_read(const char *path)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_H5(file);
    ASSERT_H5(H5Literate2(file, H5_INDEX_NAME, H5_ITER_INC, NULL, read_one, NULL));
    ASSERT_H5(H5Fclose(file));
    return 0;
}

/* ---- raw: every stored chunk's bytes and filter mask */
static herr_t
raw_one(hid_t g, const char *name, const H5L_info2_t *info, void *op)
{
    (void)info;
    const char *only = op;
    hid_t       d    = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0)
        return 0;
    hid_t   dcpl = H5Dget_create_plist(d);
    int     nf   = H5Pget_nfilters(dcpl);
    int     defl = 0;
    for (int i = 0; i < nf; i++) {
        unsigned flags, cd[8];
        size_t   ncd = 8;
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, 0, NULL, NULL);
        if (id != H5Z_FILTER_SHUFFLE && id != H5Z_FILTER_FLETCHER32)
            defl = 1;
    }
    if (!strcmp(only, "nodeflate") && defl)
        goto done;
    hid_t   fs = H5Dget_space(d);
    hsize_t nchunks = 0;
    ASSERT_H5(H5Dget_num_chunks(d, fs, &nchunks));
    printf("%s nchunks %llu\n", name, (unsigned long long)nchunks);
    for (hsize_t i = 0; i < nchunks; i++) {
        hsize_t  off[8];
        unsigned mask;
        haddr_t  addr;
        hsize_t  size;
        ASSERT_H5(H5Dget_chunk_info(d, fs, i, off, &mask, &addr, &size));
        uint8_t *b = malloc(size);
        uint32_t m2 = 0;
        ASSERT_H5(H5Dread_chunk(d, H5P_DEFAULT, off, &m2, b));
        printf("%s chunk", name);
        for (int k = 0; k < H5Sget_simple_extent_ndims(fs); k++)
            printf(" %llu", (unsigned long long)off[k]);
        printf(" mask %u size %llu %016llx\n", m2, (unsigned long long)size,
               (unsigned long long)fnv(b, size, 1469598103934665603ull));
        free(b);
    }
    H5Sclose(fs);
done:
    H5Pclose(dcpl);
    H5Dclose(d);
    return 0;
}

static int
do_raw(const char *path, const char *only)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_H5(file);
    ASSERT_H5(H5Literate2(file, H5_INDEX_NAME, H5_ITER_INC, NULL, raw_one, (void *)only));
    ASSERT_H5(H5Fclose(file));
    return 0;
}

/* ---- random: random datasets, writes and reads of random selections (boxes, regular hyperslabs,
 * unions of boxes, some moved by H5Soffset_simple) with random memory layouts, one hash per read.
 * The same seed gives the same calls stock and under h5turbo; the outputs must match. */
/* A memory space for `count` elements of a file box of `rank`: dense 1-D, the box's own shape,
 * the box inside a bigger buffer, or the box's shape with extra dimensions of 1 inside a bigger
 * buffer. Returns the space; *nbytes_out is the buffer size needed. */
static hid_t
random_memspace(int rank, const hsize_t *count, size_t es, size_t *nbytes_out)
{
    hsize_t md[8], ms[8], mc[8];
    int     mr = 0;
    size_t  n  = nelem_of(rank, count);
    switch (rnd(4)) {
        case 0:
            md[0] = n;
            *nbytes_out = n * es;
            return H5Screate_simple(1, md, NULL);
        case 1:
            *nbytes_out = n * es;
            return H5Screate_simple(rank, count, NULL);
        default: {
            int extra = rnd(2) ? (int)rnd(3) : 0;
            for (int k = 0; k < rank; k++) {
                if (extra > 0 && rnd(2)) { /* a dimension of 1 (selected), padded */
                    md[mr] = 1 + rnd(3);
                    ms[mr] = rnd((unsigned)md[mr]);
                    mc[mr] = 1;
                    mr++;
                    extra--;
                }
                md[mr] = count[k] + rnd(4);
                ms[mr] = rnd((unsigned)(md[mr] - count[k] + 1));
                mc[mr] = count[k];
                mr++;
            }
            size_t tot = 1;
            for (int k = 0; k < mr; k++)
                tot *= (size_t)md[k];
            hid_t sp = H5Screate_simple(mr, md, NULL);
            H5Sselect_hyperslab(sp, H5S_SELECT_SET, ms, NULL, mc, NULL);
            *nbytes_out = tot * es;
            return sp;
        }
    }
}

/* A random stretch along dimension k of case c: whole chunks (one or two, cut at the extent), or
 * anything inside the extent. */
static void
random_range(const dcase_t *c, int k, int whole, hsize_t *start, hsize_t *count)
{
    if (whole) {
        *start = rnd((unsigned)((c->dims[k] + c->chunk[k] - 1) / c->chunk[k])) * c->chunk[k];
        *count = c->chunk[k] * (1 + rnd(2));
        if (*start + *count > c->dims[k])
            *count = c->dims[k] - *start;
    }
    else {
        *start = rnd((unsigned)c->dims[k]);
        *count = 1 + rnd((unsigned)(c->dims[k] - *start));
    }
}

static int
do_random(const char *path, unsigned seed, int ndsets)
{
    static const char *rtypes[]   = {"u8", "i16", "f32", "f64", "a16", "cmp"};
    static const char *rfilters[] = {"s", "f", "sf", "sz", "szf", "zf", "fs"};
    rstate                        = seed * 7919ull + 1;
    hid_t file                    = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_H5(file);
    for (int ds = 0; ds < ndsets; ds++) {
        dcase_t c;
        c.type    = rtypes[rnd(6)];
        c.filters = rfilters[rnd(7)];
        c.rank    = 1 + (int)rnd(4);
        for (int k = 0; k < c.rank; k++) {
            c.dims[k]  = 1 + rnd(c.rank <= 2 ? 60 : 12);
            c.chunk[k] = 1 + rnd((unsigned)c.dims[k]); /* fixed dims: chunk <= dim */
        }
        hid_t type = make_type(c.type);
        size_t es  = H5Tget_size(type);
        char  name[32];
        snprintf(name, sizeof(name), "r%d", ds);
        hid_t d = create(file, name, &c, type, NULL, -1);
        for (int op = 0; op < 12; op++) {
            hsize_t start[4], count[4];
            for (int k = 0; k < c.rank; k++) /* often whole chunks (so the pipeline takes the call) */
                random_range(&c, k, (int)rnd(2), &start[k], &count[k]);
            size_t   nbytes;
            hid_t    fs   = H5Dget_space(d);
            unsigned kind = rnd(4); /* 0, 1: the box; 2: a regular hyperslab; 3: a union of boxes */
            int      numeric   = strcmp(c.type, "a16") && strcmp(c.type, "cmp");
            int      conv_rows = kind == 2 && numeric && c.dims[0] >= 3 * c.chunk[0] && rnd(2) == 0;
            hid_t    ms;
            if (kind < 2) {
                ms = random_memspace(c.rank, count, es, &nbytes);
                ASSERT_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
            }
            else {
                if (kind == 2 && conv_rows) {
                    /* Every other row of chunks along the first dimension, whole along the others
                     * (h5py's ds[0:n:2] = ... through chunks of one frame), written from doubles. */
                    hsize_t st0[4] = {0}, stride[4], cnt[4], blk[4];
                    for (int k = 0; k < c.rank; k++) {
                        stride[k] = 1;
                        cnt[k]    = 1;
                        blk[k]    = c.dims[k];
                    }
                    blk[0]    = c.chunk[0];
                    stride[0] = 2 * c.chunk[0];
                    cnt[0]    = (c.dims[0] - c.chunk[0]) / stride[0] + 1;
                    ASSERT_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, st0, stride, cnt, blk));
                }
                else if (kind == 2) { /* every other (or third) block of 1-2 along some dimensions */
                    hsize_t stride[4], blk[4], cnt[4];
                    for (int k = 0; k < c.rank; k++) {
                        blk[k]    = rnd(2) ? 1 : 1 + rnd(2);
                        stride[k] = rnd(2) ? blk[k] : blk[k] + 1 + rnd(2);
                        cnt[k]    = count[k] < blk[k]     ? 0
                                    : stride[k] == blk[k] ? count[k] / blk[k]
                                                          : 1 + (count[k] - blk[k]) / stride[k];
                        if (cnt[k] == 0 || start[k] + (cnt[k] - 1) * stride[k] + blk[k] > c.dims[k]) {
                            blk[k] = stride[k] = 1;
                            cnt[k]             = count[k];
                        }
                    }
                    ASSERT_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, stride, cnt, blk));
                }
                else { /* the box and another, whole chunks when they can be */
                    ASSERT_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
                    hsize_t s2[4], c2[4];
                    int     whole = (int)rnd(2);
                    for (int k = 0; k < c.rank; k++)
                        random_range(&c, k, whole, &s2[k], &c2[k]);
                    ASSERT_H5(H5Sselect_hyperslab(fs, H5S_SELECT_OR, s2, NULL, c2, NULL));
                }
                if (rnd(3) == 0) { /* moved by H5Soffset_simple, staying inside the extent */
                    hsize_t  lo[4], hi[4];
                    hssize_t off[4];
                    ASSERT_H5(H5Sget_select_bounds(fs, lo, hi));
                    for (int k = 0; k < c.rank; k++)
                        off[k] = (hssize_t)rnd((unsigned)(c.dims[k] - hi[k]));
                    ASSERT_H5(H5Soffset_simple(fs, off));
                }
                hssize_t np = H5Sget_select_npoints(fs);
                if (rnd(2)) { /* a dense 1-D buffer */
                    hsize_t m = (hsize_t)np;
                    ms        = H5Screate_simple(1, &m, NULL);
                    nbytes    = (size_t)np * es;
                }
                else { /* a buffer shaped like the dataset, the same elements selected */
                    ms = H5Scopy(fs);
                    nbytes = nelem_of(c.rank, c.dims) * es;
                }
            }
            uint8_t *buf = malloc(nbytes);
            if (rnd(3)) { /* write */
                gen(buf, nbytes / es, es, seed + (unsigned)op, (size_t)ds * 1000 + (size_t)op * 7);
                if (conv_rows) {
                    /* From doubles: a conversion (negatives, fractions, values out of the file
                     * type's range, now and then a NaN). */
                    size_t  n  = nbytes / es;
                    double *dv = malloc(n * sizeof(double));
                    for (size_t e = 0; e < n; e++) {
                        uint32_t h = (uint32_t)((e + (size_t)op * 131 + (size_t)ds * 7919) * 2654435761u);
                        dv[e]      = h % 211 == 0 ? NAN : ((double)(h % 200000) - 70000.0) / 7.0;
                    }
                    ASSERT_H5(H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, dv));
                    free(dv);
                }
                else
                    ASSERT_H5(H5Dwrite(d, type, ms, fs, H5P_DEFAULT, buf));
            }
            else { /* read: the whole buffer, pre-set, is hashed */
                memset(buf, 0x3C, nbytes);
                ASSERT_H5(H5Dread(d, type, ms, fs, H5P_DEFAULT, buf));
                char what[32];
                snprintf(what, sizeof(what), "op%d", op);
                print_hash(name, what, buf, nbytes);
            }
            free(buf);
            H5Sclose(fs);
            H5Sclose(ms);
        }
        H5Dclose(d);
        H5Tclose(type);
    }
    ASSERT_H5(H5Fclose(file));
    return 0;
}

/* ---- async: writes and reads through an event set (H5Dwrite_async, H5Dread_async,
 * H5Dread_multi_async), each waited for; one hash per read. */
static void
es_wait(hid_t es)
{
    size_t  inprog = 0;
    hbool_t failed = 0;
    ASSERT_H5(H5ESwait(es, H5ES_WAIT_FOREVER, &inprog, &failed));
    ASSERT(!failed && inprog == 0);
}

static int
do_async(const char *path)
{
    hid_t es   = H5EScreate();
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_H5(es);
    ASSERT_H5(file);
    dcase_t c     = {"f32", "szf", 3, {8, 64, 32}, {1, 64, 32}};
    hid_t   type  = make_type("f32");
    hid_t   d[2]  = {create(file, "frames", &c, type, NULL, -1), create(file, "frames2", &c, type, NULL, -1)};
    size_t  n     = 8 * 64 * 32;
    float  *buf   = malloc(n * sizeof(float)), *back[2] = {malloc(n * sizeof(float)), malloc(n * sizeof(float))};
    gen((uint8_t *)buf, n, 4, 51, 0);
    ASSERT_H5(H5Dwrite_async(d[0], type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf, es));
    ASSERT_H5(H5Dwrite_async(d[1], type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf, es));
    es_wait(es);
    memset(back[0], 0x3C, n * sizeof(float));
    ASSERT_H5(H5Dread_async(d[0], type, H5S_ALL, H5S_ALL, H5P_DEFAULT, back[0], es));
    es_wait(es);
    print_hash("frames", "async", (const uint8_t *)back[0], n * sizeof(float));
    hid_t mtypes[2] = {type, type}, spaces[2] = {H5S_ALL, H5S_ALL};
    void *bufs[2]  = {back[0], back[1]};
    memset(back[0], 0x3C, n * sizeof(float));
    memset(back[1], 0x3C, n * sizeof(float));
    ASSERT_H5(H5Dread_multi_async(2, d, mtypes, spaces, spaces, H5P_DEFAULT, bufs, es));
    es_wait(es);
    print_hash("frames", "multi_async", (const uint8_t *)back[0], n * sizeof(float));
    print_hash("frames2", "multi_async", (const uint8_t *)back[1], n * sizeof(float));
    free(buf);
    free(back[0]);
    free(back[1]);
    H5Dclose(d[0]);
    H5Dclose(d[1]);
    H5Tclose(type);
    ASSERT_H5(H5Fclose(file));
    ASSERT_H5(H5ESclose(es));
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "write")) {
        latest = argc >= 4 && !strcmp(argv[3], "latest");
        return do_write(argv[2], argc >= 4 && !strcmp(argv[3], "blosc"), argc >= 4 && !strcmp(argv[3], "nonever"));
    }
    if (argc >= 3 && !strcmp(argv[1], "read"))
        return do_read(argv[2]);
    if (argc >= 3 && !strcmp(argv[1], "async"))
        return do_async(argv[2]);
    if (argc >= 5 && !strcmp(argv[1], "random"))
        return do_random(argv[2], (unsigned)atoi(argv[3]), atoi(argv[4]));
    if (argc >= 3 && !strcmp(argv[1], "raw"))
        return do_raw(argv[2], argc >= 4 ? argv[3] : "all");
    fprintf(stderr, "usage: pipe_cases write FILE [blosc|nonever|latest] | read FILE | async FILE | raw FILE [nodeflate] | random FILE SEED N\n");
    return 2;
}
