/* pipe_cache.c — the differential test program of the pipeline's decoded-chunk cache: reads that
 * take chunks a piece at a time (frame by frame through 8-frame chunks, row by row, converted),
 * interleaved with every way a chunk can change under them. Frames are 32 KiB (float32) and
 * 16 KiB (uint16), at or above the size under which reads are left to native. Each read prints
 * one hash; pipe_cache.sh runs the same sequence stock and under h5turbo and compares.
 *   make FILE    a float32 dataset [16][128][64] in chunks of 8 frames (shuffle, deflate, fletcher32)
 *                and a uint16 one of the same shape, all written; a float32 one (shuffle,
 *                fletcher32) with its first chunk damaged
 *                "sparse" (same filters) with only its first chunk written, "never" the same
 *                with fill time never, and "edge" of 12 frames (its last chunk reaches past the
 *                extent)
 *   ro FILE      read-only: frame by frame, row by row, into double, two handles, a dataset access
 *                list with the chunk cache off and one with room for one chunk, the damaged chunk
 *                with the checksum off and on, and small reads inside one chunk (the ones the
 *                pipeline serves from its cache as copies, and every near miss of that form:
 *                strided, points, other memory types and shapes, unallocated chunks, a row moved
 *                past the extent into a chunk's overhang)
 *   rw FILE      read-write: reads around partial H5Dwrites, a whole-chunk H5Dwrite, a direct chunk
 *                write, a shrink and re-extension of the extent, a write through a second handle of
 *                the same dataset and through a second open of the file
 *   again FILE   read-only: whole chunks read again and again, then points and a box across them
 *                (PyTables reads a table's rows in ranges, then the rows its index found by
 *                coordinates): native's cache keeps every chunk it decodes, so the pipeline keeps
 *                them too once a handle reads a chunk again
 *   slide FILE   read-only, a chunk cache with room for one chunk: windows of frames, each across
 *                both chunks of "f32", each starting a frame later (a reader whose reads are not
 *                aligned with the chunks): native's cache holds the last chunk of each window,
 *                which the next window takes again; the pipeline keeps it too */
#define H5_USE_114_API_DEFAULT 1
#include <hdf5.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/tb_test.h"
#include "pipe_test.h"

#define NF 16
#define NY 128
#define NX 64
#define CF 8

static uint64_t
hash(const void *p, size_t n)
{
    return fnv(p, n, 1469598103934665603ull);
}

static float
value(int f, int y, int x, int version)
{
    return (float)(1000 * version + 4000.0 * (y * NX + x) / (NY * NX) + (f * 7 + x * 3 + y) % 29 - 14) * 0.25f;
}

static void
frames(float *buf, int f0, int nf, int version)
{
    for (int f = 0; f < nf; f++)
        for (int y = 0; y < NY; y++)
            for (int x = 0; x < NX; x++)
                buf[((size_t)f * NY + y) * NX + x] = value(f0 + f, y, x, version);
}

/* One read of the box [f0, f0+nf) x [y0, y0+ny) x [0, NX) into mem_type; prints its hash. The
 * file space is the caller's (taken once per handle: H5Dget_space is itself a call that drains). */
static void
read_box_x(const char *what, hid_t d, hid_t fspace, hid_t mem_type, int f0, int nf, int y0, int ny, hid_t dxpl)
{
    hsize_t start[3] = {(hsize_t)f0, (hsize_t)y0, 0}, count[3] = {(hsize_t)nf, (hsize_t)ny, NX};
    size_t  nbytes = (size_t)nf * ny * NX * H5Tget_size(mem_type);
    void   *buf    = malloc(nbytes);
    ASSERT(buf);
    memset(buf, 0xa5, nbytes); /* (what a read that leaves the buffer alone hashes) */
    hid_t ms = H5Screate_simple(3, count, NULL);
    ASSERT_H5(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL));
    herr_t rc;
    H5E_BEGIN_TRY { rc = H5Dread(d, mem_type, ms, fspace, dxpl, buf); }
    H5E_END_TRY
    printf("%s frames %d+%d rows %d+%d rc=%d hash=%016llx\n", what, f0, nf, y0, ny, (int)rc,
           rc < 0 ? 0ull : (unsigned long long)hash(buf, nbytes));
    H5Sclose(ms);
    free(buf);
}

static void
read_box(const char *what, hid_t d, hid_t fspace, hid_t mem_type, int f0, int nf, int y0, int ny)
{
    read_box_x(what, d, fspace, mem_type, f0, nf, y0, ny, H5P_DEFAULT);
}

static void
write_box(hid_t d, hid_t fspace, int f0, int nf, int version)
{
    hsize_t start[3] = {(hsize_t)f0, 0, 0}, count[3] = {(hsize_t)nf, NY, NX};
    float  *buf      = malloc(sizeof(float) * (size_t)nf * NY * NX);
    ASSERT(buf);
    frames(buf, f0, nf, version);
    hid_t ms = H5Screate_simple(3, count, NULL);
    ASSERT_H5(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL));
    ASSERT_H5(H5Dwrite(d, H5T_NATIVE_FLOAT, ms, fspace, H5P_DEFAULT, buf));
    H5Sclose(ms);
    free(buf);
}

static void
every_frame(const char *what, hid_t d, hid_t fspace, hid_t mem_type)
{
    for (int f = 0; f < NF; f++)
        read_box(what, d, fspace, mem_type, f, 1, 0, NY);
}

/* One small read: the file selection the caller made on fspace, into a memory space of rank mrank
 * and dims mdims with `nsel` elements selected ("all" when nsel is 0) of mem_type; prints its
 * hash. The buffer starts as a pattern, so that elements a read leaves alone hash too. */
static void
read_small(const char *what, int k, hid_t d, hid_t fspace, hid_t mem_type, int mrank, const hsize_t *mdims,
           hid_t dxpl)
{
    hssize_t n      = H5Sget_select_npoints(fspace);
    hsize_t  mtotal = 1;
    for (int i = 0; i < mrank; i++)
        mtotal *= mdims[i];
    size_t nbytes = (size_t)mtotal * H5Tget_size(mem_type);
    void  *buf    = malloc(nbytes);
    ASSERT(buf && n > 0);
    memset(buf, 0xa5, nbytes);
    hid_t ms = H5Screate_simple(mrank, mdims, NULL);
    if ((hsize_t)n < mtotal) { /* the first n elements of a larger memory space */
        hsize_t start[1] = {0}, count[1] = {(hsize_t)n};
        ASSERT(mrank == 1);
        ASSERT_H5(H5Sselect_hyperslab(ms, H5S_SELECT_SET, start, NULL, count, NULL));
    }
    herr_t rc;
    H5E_BEGIN_TRY { rc = H5Dread(d, mem_type, ms, fspace, dxpl, buf); }
    H5E_END_TRY
    printf("%s %d n=%lld rc=%d hash=%016llx\n", what, k, (long long)n, (int)rc,
           rc < 0 ? 0ull : (unsigned long long)hash(buf, nbytes));
    H5Sclose(ms);
    free(buf);
}

/* One small read into a box of a larger memory space: rank mrank, dims mdims, the block of
 * mblock elements at mstart selected (a pattern everywhere else, hashed too). */
static void
read_small_box(const char *what, int k, hid_t d, hid_t fspace, hid_t mem_type, int mrank, const hsize_t *mdims,
               const hsize_t *mstart, const hsize_t *mblock)
{
    hsize_t mtotal = 1;
    for (int i = 0; i < mrank; i++)
        mtotal *= mdims[i];
    size_t nbytes = (size_t)mtotal * H5Tget_size(mem_type);
    void  *buf    = malloc(nbytes);
    ASSERT(buf);
    memset(buf, 0xa5, nbytes);
    hid_t ms = H5Screate_simple(mrank, mdims, NULL);
    ASSERT_H5(H5Sselect_hyperslab(ms, H5S_SELECT_SET, mstart, NULL, mblock, NULL));
    herr_t rc;
    H5E_BEGIN_TRY { rc = H5Dread(d, mem_type, ms, fspace, H5P_DEFAULT, buf); }
    H5E_END_TRY
    printf("%s %d rc=%d hash=%016llx\n", what, k, (int)rc, rc < 0 ? 0ull : (unsigned long long)hash(buf, nbytes));
    H5Sclose(ms);
    free(buf);
}

/* Small reads inside one chunk of dataset d (rank 3, chunks of CF frames), of every form near
 * the one the pipeline serves from its decoded-chunk cache. */
static void
small_reads(const char *what, hid_t d, hid_t fs, hid_t ftype)
{
    char tag[96];
    for (int k = 0; k < 3; k++) { /* the same chunk three times over: the later ones are copies */
        for (int y = 0; y < NY; y += 9) { /* rows: a frame's, then part of one, then a single pixel */
            hsize_t start[3] = {(hsize_t)(5 + k), (hsize_t)y, (hsize_t)(y % 7)};
            hsize_t cnt[3]   = {1, 1, (hsize_t)(NX - y % 7)}, m1[1] = {cnt[2]}, m2[2] = {1, cnt[2]};
            ASSERT_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL));
            snprintf(tag, sizeof(tag), "%s row", what);
            read_small(tag, y, d, fs, ftype, 1, m1, H5P_DEFAULT);
            snprintf(tag, sizeof(tag), "%s row, 2-d memory", what);
            read_small(tag, y, d, fs, ftype, 2, m2, H5P_DEFAULT);
            snprintf(tag, sizeof(tag), "%s row as int64", what);
            read_small(tag, y, d, fs, H5T_NATIVE_INT64, 1, m1, H5P_DEFAULT);
            hsize_t big[1] = {cnt[2] + 3};
            snprintf(tag, sizeof(tag), "%s row into a larger memory selection", what);
            read_small(tag, y, d, fs, ftype, 1, big, H5P_DEFAULT);
            hsize_t one[3] = {1, 1, 1}, m0[1] = {1};
            ASSERT_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, one, NULL));
            snprintf(tag, sizeof(tag), "%s pixel", what);
            read_small(tag, y, d, fs, ftype, 1, m0, H5P_DEFAULT);
        }
        /* A box of 3 frames x 5 rows x 9 columns, one column-strided, and a union of two rows. */
        hsize_t start[3] = {(hsize_t)k, 40, 11}, cnt[3] = {3, 5, 9}, m3[3] = {3, 5, 9}, m1[1] = {135};
        ASSERT_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL));
        snprintf(tag, sizeof(tag), "%s box", what);
        read_small(tag, k, d, fs, ftype, 3, m3, H5P_DEFAULT);
        read_small(tag, k, d, fs, ftype, 1, m1, H5P_DEFAULT);
        /* ... into a box of a larger memory space: rows of 9 in 2-d and 3-d, one run in 1-d, and
         * rows of another length (native's) */
        hsize_t d2[2] = {20, 40}, s2[2] = {2, 5}, b2[2] = {15, 9};
        hsize_t d3[3] = {4, 8, 12}, s3[3] = {1, 2, 3}, b3[3] = {3, 5, 9};
        hsize_t d1[1] = {200}, s1[1] = {30}, b1[1] = {135}, b5[2] = {27, 5};
        snprintf(tag, sizeof(tag), "%s box into a box", what);
        read_small_box(tag, k, d, fs, ftype, 2, d2, s2, b2);
        read_small_box(tag, k, d, fs, ftype, 3, d3, s3, b3);
        read_small_box(tag, k, d, fs, ftype, 1, d1, s1, b1);
        read_small_box(tag, k, d, fs, ftype, 2, d2, s2, b5);
        hsize_t stride[3] = {1, 2, 3}, scnt[3] = {2, 4, 5}, ms[1] = {40};
        ASSERT_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, stride, scnt, NULL));
        snprintf(tag, sizeof(tag), "%s strided", what);
        read_small(tag, k, d, fs, ftype, 1, ms, H5P_DEFAULT);
        hsize_t r1[3] = {(hsize_t)k, 3, 0}, r2[3] = {(hsize_t)k, 70, 0}, rc[3] = {1, 1, NX}, mu[1] = {2 * NX};
        ASSERT_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, r1, NULL, rc, NULL));
        ASSERT_H5(H5Sselect_hyperslab(fs, H5S_SELECT_OR, r2, NULL, rc, NULL));
        snprintf(tag, sizeof(tag), "%s union of two rows", what);
        read_small(tag, k, d, fs, ftype, 1, mu, H5P_DEFAULT);
        /* Points: in order, reversed, and repeated so that their count equals their box's. */
        hsize_t pts[3][3] = {{(hsize_t)k, 9, 2}, {(hsize_t)k, 9, 3}, {(hsize_t)k, 9, 4}};
        hsize_t rev[3][3] = {{(hsize_t)k, 9, 4}, {(hsize_t)k, 9, 3}, {(hsize_t)k, 9, 2}};
        hsize_t rep[3][3] = {{(hsize_t)k, 9, 2}, {(hsize_t)k, 9, 4}, {(hsize_t)k, 9, 4}}, mp[1] = {3};
        const hsize_t(*sets[3])[3] = {pts, rev, rep};
        for (int i = 0; i < 3; i++) {
            ASSERT_H5(H5Sselect_elements(fs, H5S_SELECT_SET, 3, (const hsize_t *)sets[i]));
            snprintf(tag, sizeof(tag), "%s points %d", what, i);
            read_small(tag, k, d, fs, ftype, 1, mp, H5P_DEFAULT);
        }
        /* A transfer list of its own (checksum off), then the default again. */
        hid_t noedc = H5Pcreate(H5P_DATASET_XFER);
        ASSERT_H5(H5Pset_edc_check(noedc, H5Z_DISABLE_EDC));
        hsize_t row[3] = {(hsize_t)(k + 1), 100, 0}, rcnt[3] = {1, 1, NX}, mr[1] = {NX};
        ASSERT_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, row, NULL, rcnt, NULL));
        snprintf(tag, sizeof(tag), "%s row, own transfer list", what);
        read_small(tag, k, d, fs, ftype, 1, mr, noedc);
        H5Pclose(noedc);
    }
    /* Rows of every frame, the last chunk's edge included. */
    for (int f = 0; f < NF; f++) {
        hsize_t start[3] = {(hsize_t)f, (hsize_t)(NY - 1), 0}, cnt[3] = {1, 1, NX}, m1[1] = {NX};
        ASSERT_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL));
        snprintf(tag, sizeof(tag), "%s last row", what);
        read_small(tag, f, d, fs, ftype, 1, m1, H5P_DEFAULT);
    }
}

static int
do_make(const char *path)
{
    hid_t   file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[3] = {NF, NY, NX}, maxd[3] = {H5S_UNLIMITED, NY, NX}, chunk[3] = {CF, NY, NX};
    hid_t   space = H5Screate_simple(3, dims, maxd), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    ASSERT_H5(H5Pset_chunk(dcpl, 3, chunk));
    ASSERT_H5(H5Pset_shuffle(dcpl));
    ASSERT_H5(H5Pset_deflate(dcpl, 1));
    ASSERT_H5(H5Pset_fletcher32(dcpl));
    hid_t f = H5Dcreate2(file, "f32", H5T_NATIVE_FLOAT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    hid_t u = H5Dcreate2(file, "u16", H5T_NATIVE_UINT16, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ASSERT(f >= 0 && u >= 0);
    float    *buf = malloc(sizeof(float) * NF * NY * NX);
    uint16_t *ub  = malloc(sizeof(uint16_t) * NF * NY * NX);
    ASSERT(buf && ub);
    frames(buf, 0, NF, 1);
    for (size_t i = 0; i < (size_t)NF * NY * NX; i++)
        ub[i] = (uint16_t)(buf[i] * 8);
    ASSERT_H5(H5Dwrite(f, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    ASSERT_H5(H5Dwrite(u, H5T_NATIVE_UINT16, H5S_ALL, H5S_ALL, H5P_DEFAULT, ub));
    /* "bad": shuffle + fletcher32 only, its first chunk's data damaged after the write (the
     * checksum then fails; with the check off, the damaged values read back). */
    hid_t dcpl2 = H5Pcreate(H5P_DATASET_CREATE);
    ASSERT_H5(H5Pset_chunk(dcpl2, 3, chunk));
    ASSERT_H5(H5Pset_shuffle(dcpl2));
    ASSERT_H5(H5Pset_fletcher32(dcpl2));
    hid_t b = H5Dcreate2(file, "bad", H5T_NATIVE_FLOAT, space, H5P_DEFAULT, dcpl2, H5P_DEFAULT);
    ASSERT_H5(H5Dwrite(b, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    hsize_t  off[3] = {0, 0, 0}, nbytes = 0;
    uint32_t mask   = 0;
    ASSERT_H5(H5Dget_chunk_storage_size(b, off, &nbytes));
    uint8_t *raw = malloc(nbytes);
    ASSERT(raw);
    ASSERT_H5(H5Dread_chunk(b, H5P_DEFAULT, off, &mask, raw));
    raw[nbytes / 2] ^= 0x5a;
    ASSERT_H5(H5Dwrite_chunk(b, H5P_DEFAULT, mask, off, (size_t)nbytes, raw));
    free(raw);
    H5Dclose(b);
    H5Pclose(dcpl2);
    /* "sparse" and "never": only their first chunk written; the fill value -2.5 (and, for "never",
     * fill time never: reads of unwritten chunks leave the buffer alone). */
    float fillv = -2.5f;
    ASSERT_H5(H5Pset_fill_value(dcpl, H5T_NATIVE_FLOAT, &fillv));
    hid_t sp = H5Dcreate2(file, "sparse", H5T_NATIVE_FLOAT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ASSERT_H5(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER));
    hid_t nv = H5Dcreate2(file, "never", H5T_NATIVE_FLOAT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ASSERT(sp >= 0 && nv >= 0);
    hsize_t cstart[3] = {0, 0, 0}, ccount[3] = {CF, NY, NX};
    hid_t   cms       = H5Screate_simple(3, ccount, NULL);
    ASSERT_H5(H5Sselect_hyperslab(space, H5S_SELECT_SET, cstart, NULL, ccount, NULL));
    ASSERT_H5(H5Dwrite(sp, H5T_NATIVE_FLOAT, cms, space, H5P_DEFAULT, buf));
    ASSERT_H5(H5Dwrite(nv, H5T_NATIVE_FLOAT, cms, space, H5P_DEFAULT, buf));
    H5Sselect_all(space);
    H5Sclose(cms);
    H5Dclose(sp);
    H5Dclose(nv);
    /* "edge": 12 frames, so its second chunk reaches past the extent by 4 frames. */
    hsize_t edims[3] = {12, NY, NX};
    hid_t   espace   = H5Screate_simple(3, edims, NULL);
    hid_t   e        = H5Dcreate2(file, "edge", H5T_NATIVE_FLOAT, espace, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ASSERT(e >= 0);
    ASSERT_H5(H5Dwrite(e, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    H5Dclose(e);
    H5Sclose(espace);
    free(buf);
    free(ub);
    H5Dclose(f);
    H5Dclose(u);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(file);
    return 0;
}

static int
do_ro(const char *path)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t f = H5Dopen2(file, "f32", H5P_DEFAULT), u = H5Dopen2(file, "u16", H5P_DEFAULT);
    ASSERT(f >= 0 && u >= 0);
    hid_t fs = H5Dget_space(f), us = H5Dget_space(u);
    every_frame("ro f32", f, fs, H5T_NATIVE_FLOAT);
    every_frame("ro f32 again", f, fs, H5T_NATIVE_FLOAT);
    every_frame("ro u16->f64", u, us, H5T_NATIVE_DOUBLE);
    every_frame("ro u16->f32", u, us, H5T_NATIVE_FLOAT);
    every_frame("ro u16", u, us, H5T_NATIVE_UINT16);
    for (int y = 0; y < NY; y++)
        read_box("ro row", f, fs, H5T_NATIVE_FLOAT, 3, 1, y, 1);
    for (int y = 0; y + 5 <= NY; y += 5)
        read_box("ro rows of 4 frames", u, us, H5T_NATIVE_INT32, 6, 4, y, 5);
    small_reads("ro small f32", f, fs, H5T_NATIVE_FLOAT);
    small_reads("ro small u16", u, us, H5T_NATIVE_UINT16);
    hid_t sp = H5Dopen2(file, "sparse", H5P_DEFAULT), nv = H5Dopen2(file, "never", H5P_DEFAULT);
    ASSERT(sp >= 0 && nv >= 0);
    small_reads("ro small sparse", sp, fs, H5T_NATIVE_FLOAT);
    small_reads("ro small never", nv, fs, H5T_NATIVE_FLOAT);
    H5Dclose(sp);
    H5Dclose(nv);
    /* Rows of the last chunk of "edge" (it reaches past the extent), the same row again (from
     * the cache), then a row moved by H5Soffset_simple past the extent but inside that chunk:
     * native refuses it. */
    hid_t e = H5Dopen2(file, "edge", H5P_DEFAULT), es = H5Dget_space(e);
    ASSERT(e >= 0);
    hsize_t start[3] = {11, 7, 0}, cnt[3] = {1, 1, NX}, m1[1] = {NX};
    hssize_t moved[3] = {1, 0, 0}, none[3] = {0, 0, 0};
    ASSERT_H5(H5Sselect_hyperslab(es, H5S_SELECT_SET, start, NULL, cnt, NULL));
    for (int k = 0; k < 3; k++) /* (the second brings the chunk into the cache, the third is a copy) */
        read_small("ro edge row", k, e, es, H5T_NATIVE_FLOAT, 1, m1, H5P_DEFAULT);
    ASSERT_H5(H5Soffset_simple(es, moved));
    read_small("ro edge row moved past the extent", 0, e, es, H5T_NATIVE_FLOAT, 1, m1, H5P_DEFAULT);
    ASSERT_H5(H5Soffset_simple(es, none));
    read_small("ro edge row", 3, e, es, H5T_NATIVE_FLOAT, 1, m1, H5P_DEFAULT);
    H5Sclose(es);
    H5Dclose(e);
    /* A second handle of the same dataset, reads alternating between them. */
    hid_t f2 = H5Dopen2(file, "f32", H5P_DEFAULT);
    for (int fr = 0; fr < NF; fr++)
        read_box(fr % 2 ? "ro handle 2" : "ro handle 1", fr % 2 ? f2 : f, fs, H5T_NATIVE_FLOAT, fr, 1, 0, NY);
    /* The access list's chunk cache: off, then room for one chunk (256 KiB). */
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    ASSERT_H5(H5Pset_chunk_cache(dapl, 521, 0, 0.75));
    hid_t f3 = H5Dopen2(file, "f32", dapl);
    every_frame("ro cache off", f3, fs, H5T_NATIVE_FLOAT);
    ASSERT_H5(H5Pset_chunk_cache(dapl, 521, (size_t)NY * NX * 4 * CF, 0.75));
    hid_t f4 = H5Dopen2(file, "f32", dapl);
    for (int k = 0; k < 3; k++)
        for (int fr = 0; fr < NF; fr += 3)
            read_box("ro one-chunk cache", f4, fs, H5T_NATIVE_FLOAT, fr, 1, 0, NY);
    H5Pclose(dapl);
    /* A damaged chunk read with the checksum on (it fails), off, then on again: native's chunk
     * cache kept the chunk from the unchecked read and serves the checked one from it (it
     * succeeds); ours must do the same. (Frame 9 lies in an undamaged chunk.) */
    hid_t b = H5Dopen2(file, "bad", H5P_DEFAULT), noedc = H5Pcreate(H5P_DATASET_XFER);
    ASSERT_H5(H5Pset_edc_check(noedc, H5Z_DISABLE_EDC));
    read_box("ro damaged, checked first", b, fs, H5T_NATIVE_FLOAT, 3, 1, 0, NY);
    read_box_x("ro damaged, no check", b, fs, H5T_NATIVE_FLOAT, 1, 1, 0, NY, noedc);
    read_box_x("ro damaged, no check", b, fs, H5T_NATIVE_FLOAT, 2, 1, 0, NY, noedc);
    read_box("ro damaged, checked", b, fs, H5T_NATIVE_FLOAT, 2, 1, 0, NY);
    read_box("ro damaged, checked", b, fs, H5T_NATIVE_FLOAT, 9, 1, 0, NY);
    read_box_x("ro damaged, no check", b, fs, H5T_NATIVE_FLOAT, 9, 1, 0, NY, noedc);
    H5Pclose(noedc);
    H5Dclose(b);
    H5Dclose(f4);
    H5Dclose(f3);
    H5Dclose(f2);
    H5Sclose(fs);
    H5Sclose(us);
    H5Dclose(f);
    H5Dclose(u);
    H5Fclose(file);
    return 0;
}

/* The chunk at chunk offset `from` written over the one at `to`, raw, with H5Dwrite_chunk. */
static void
copy_chunk(hid_t d, int from, int to)
{
    hsize_t  off[3] = {(hsize_t)from, 0, 0}, nbytes = 0;
    uint32_t mask   = 0;
    ASSERT_H5(H5Dget_chunk_storage_size(d, off, &nbytes));
    void *raw = malloc(nbytes);
    ASSERT(raw);
    ASSERT_H5(H5Dread_chunk(d, H5P_DEFAULT, off, &mask, raw));
    off[0] = (hsize_t)to;
    ASSERT_H5(H5Dwrite_chunk(d, H5P_DEFAULT, mask, off, (size_t)nbytes, raw));
    free(raw);
}

static int
do_rw(const char *path)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t f    = H5Dopen2(file, "f32", H5P_DEFAULT);
    ASSERT(f >= 0);
    hid_t fs = H5Dget_space(f);
    /* A partial write of a chunk read before (and so kept). */
    read_box("rw before", f, fs, H5T_NATIVE_FLOAT, 1, 1, 0, NY);
    read_box("rw before", f, fs, H5T_NATIVE_FLOAT, 2, 1, 0, NY);
    write_box(f, fs, 2, 1, 2);
    read_box("rw after partial write", f, fs, H5T_NATIVE_FLOAT, 2, 1, 0, NY);
    read_box("rw after partial write", f, fs, H5T_NATIVE_FLOAT, 1, 1, 0, NY);
    /* A whole-chunk write (the pipeline's own), then frames of it. */
    read_box("rw before", f, fs, H5T_NATIVE_FLOAT, 4, 1, 0, NY);
    write_box(f, fs, 0, CF, 3);
    read_box("rw after chunk write", f, fs, H5T_NATIVE_FLOAT, 4, 1, 0, NY);
    read_box("rw after chunk write", f, fs, H5T_NATIVE_FLOAT, 2, 1, 0, NY);
    /* A direct chunk write over a chunk read before. */
    read_box("rw before", f, fs, H5T_NATIVE_FLOAT, 9, 1, 0, NY);
    read_box("rw before", f, fs, H5T_NATIVE_FLOAT, 10, 1, 0, NY);
    copy_chunk(f, 0, CF);
    read_box("rw after direct chunk write", f, fs, H5T_NATIVE_FLOAT, 9, 1, 0, NY);
    read_box("rw after direct chunk write", f, fs, H5T_NATIVE_FLOAT, 10, 1, 0, NY);
    /* Shrinking cuts the edge chunk (its frames past the new extent become fill values), and
     * extending again shows them. */
    read_box("rw before", f, fs, H5T_NATIVE_FLOAT, 13, 1, 0, NY);
    read_box("rw before", f, fs, H5T_NATIVE_FLOAT, 14, 1, 0, NY);
    hsize_t small[3] = {12, NY, NX}, full[3] = {NF, NY, NX};
    ASSERT_H5(H5Dset_extent(f, small));
    ASSERT_H5(H5Dset_extent(f, full));
    read_box("rw after shrink+extend", f, fs, H5T_NATIVE_FLOAT, 13, 1, 0, NY);
    read_box("rw after shrink+extend", f, fs, H5T_NATIVE_FLOAT, 11, 1, 0, NY);
    /* Writes through a second handle of the dataset, and through a second open of the file. */
    hid_t f2 = H5Dopen2(file, "f32", H5P_DEFAULT);
    read_box("rw handle 1 before", f, fs, H5T_NATIVE_FLOAT, 5, 1, 0, NY);
    read_box("rw handle 1 before", f, fs, H5T_NATIVE_FLOAT, 6, 1, 0, NY);
    write_box(f2, fs, 5, 1, 4);
    read_box("rw handle 1 after handle 2 wrote", f, fs, H5T_NATIVE_FLOAT, 5, 1, 0, NY);
    hid_t file2 = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t f5    = H5Dopen2(file2, "f32", H5P_DEFAULT);
    read_box("rw before", f, fs, H5T_NATIVE_FLOAT, 7, 1, 0, NY);
    read_box("rw before", f, fs, H5T_NATIVE_FLOAT, 6, 1, 0, NY);
    write_box(f5, fs, 6, 2, 5);
    read_box("rw after the other open wrote", f, fs, H5T_NATIVE_FLOAT, 7, 1, 0, NY);
    read_box("rw after the other open wrote", f, fs, H5T_NATIVE_FLOAT, 6, 1, 0, NY);
    H5Dclose(f5);
    H5Fclose(file2);
    H5Dclose(f2);
    small_reads("rw small", f, fs, H5T_NATIVE_FLOAT);
    write_box(f, fs, 5, 1, 6);
    small_reads("rw small after a write", f, fs, H5T_NATIVE_FLOAT);
    every_frame("rw final", f, fs, H5T_NATIVE_FLOAT);
    H5Sclose(fs);
    H5Dclose(f);
    H5Fclose(file);
    return 0;
}

static int
do_again(const char *path)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t f    = H5Dopen2(file, "f32", H5P_DEFAULT), u = H5Dopen2(file, "u16", H5P_DEFAULT);
    ASSERT(f >= 0 && u >= 0);
    hid_t fs = H5Dget_space(f);
    for (int pass = 0; pass < 3; pass++) {
        read_box("again all frames", f, fs, H5T_NATIVE_FLOAT, 0, NF, 0, NY);
        read_box("again first chunk", f, fs, H5T_NATIVE_FLOAT, 0, CF, 0, NY);
        read_box("again u16 second chunk", u, fs, H5T_NATIVE_UINT16, CF, CF, 0, NY);
    }
    /* Points across both chunks, in order and scattered, as PyTables' read_coordinates. */
    hsize_t pts[96][3];
    for (int i = 0; i < 96; i++) {
        pts[i][0] = (hsize_t)((i * 5) % NF);
        pts[i][1] = (hsize_t)((i * 37) % NY);
        pts[i][2] = (hsize_t)((i * 11) % NX);
    }
    float   buf[96];
    hsize_t m[1] = {96};
    hid_t   ms   = H5Screate_simple(1, m, NULL);
    ASSERT_H5(H5Sselect_elements(fs, H5S_SELECT_SET, 96, (const hsize_t *)pts));
    ASSERT_H5(H5Dread(f, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, buf));
    printf("again points hash=%016llx\n", (unsigned long long)hash(buf, sizeof(buf)));
    ASSERT_H5(H5Dread(f, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, (double[96]){0}));
    H5Sclose(ms);
    read_box("again rows across chunks", f, fs, H5T_NATIVE_FLOAT, 3, 10, 17, 50);
    read_box("again as double", f, fs, H5T_NATIVE_DOUBLE, 0, NF, 0, NY);
    H5Sclose(fs);
    H5Dclose(f);
    H5Dclose(u);
    H5Fclose(file);
    return 0;
}

static int
do_slide(const char *path)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    ASSERT_H5(H5Pset_chunk_cache(dapl, 521, (size_t)NY * NX * 4 * CF, 0.75));
    hid_t f = H5Dopen2(file, "f32", dapl);
    ASSERT(file >= 0 && f >= 0);
    hid_t fs = H5Dget_space(f);
    for (int f0 = 0; f0 < CF; f0++)
        read_box("slide", f, fs, H5T_NATIVE_FLOAT, f0, NF - f0, 0, NY);
    for (int f0 = 0; f0 < CF; f0++) /* (rows: every chunk taken in part) */
        read_box("slide rows", f, fs, H5T_NATIVE_FLOAT, 2, NF - 4, f0 * 8, NY / 2);
    H5Sclose(fs);
    H5Dclose(f);
    H5Pclose(dapl);
    H5Fclose(file);
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "make"))
        return do_make(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "ro"))
        return do_ro(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "rw"))
        return do_rw(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "again"))
        return do_again(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "slide"))
        return do_slide(argv[2]);
    fprintf(stderr, "usage: pipe_cache make|ro|rw|again|slide FILE\n");
    return 2;
}
