/* blosc_interop.c — writes and verifies HDF5 files with Blosc (filter 32001) datasets through
 * whatever Blosc plugin HDF5_PLUGIN_PATH provides: h5turbo's, the hdf5-blosc reference, or none.
 * Every /blosc/<name> dataset has an unfiltered twin /plain/<name>, so any reader (this program,
 * h5py with hdf5plugin) checks a file against itself, not against expectations written here.
 *   blosc_interop write FILE [mandatory|optional]    every compressor x shuffle x dtype, edge
 *                                                     chunks, one-element and multi-block chunks
 *   blosc_interop write-one FILE                      one float64, filter mandatory
 *   blosc_interop verify FILE                         reads every /blosc dataset, compares
 *   blosc_interop params FILE                         prints each dataset's cd_values
 *   blosc_interop chunks A B                          compares the stored chunks of two files
 *   blosc_interop chunks-same A B                     the same, filter masks equal too */
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOSC_ID 32001

typedef struct cmpd {
    uint16_t gain;
    float    value;
    uint8_t  mask;
    double   t;
} cmpd_t;

static hid_t
make_type(const char *dtype)
{
    if (!strcmp(dtype, "u1"))
        return H5Tcopy(H5T_STD_U8LE);
    if (!strcmp(dtype, "u2") || !strcmp(dtype, "n2"))
        return H5Tcopy(H5T_STD_U16LE);
    if (!strcmp(dtype, "u4"))
        return H5Tcopy(H5T_STD_U32LE);
    if (!strcmp(dtype, "f8"))
        return H5Tcopy(H5T_IEEE_F64LE);
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(cmpd_t));
    H5Tinsert(t, "gain", HOFFSET(cmpd_t, gain), H5T_STD_U16LE);
    H5Tinsert(t, "value", HOFFSET(cmpd_t, value), H5T_IEEE_F32LE);
    H5Tinsert(t, "mask", HOFFSET(cmpd_t, mask), H5T_STD_U8LE);
    H5Tinsert(t, "t", HOFFSET(cmpd_t, t), H5T_IEEE_F64LE);
    return t;
}

/* Detector-like bytes: slowly varying values with sparse noise, element by element. */
static void
fill(uint8_t *buf, size_t n, size_t elem, unsigned seed)
{
    uint32_t s = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        s          = s * 1103515245u + 12345u;
        size_t   e = i / elem, b = i % elem;
        uint32_t v = (uint32_t)(100 + (e % 300) * 7 + (((s >> 16) & 15) == 0 ? (s >> 20) & 63 : 0));
        buf[i]     = b < 4 ? (uint8_t)(v >> (8 * b)) : (uint8_t)(e >> 12);
    }
}

static int
write_pair(hid_t file, const char *name, const char *dtype, int rank, const hsize_t *dims, const hsize_t *chunk,
           unsigned flags, size_t ncd, const unsigned *cd, unsigned seed)
{
    hid_t  type  = make_type(dtype);
    hid_t  space = H5Screate_simple(rank, dims, NULL);
    size_t esize = H5Tget_size(type), n = esize;
    for (int i = 0; i < rank; i++)
        n *= dims[i];
    uint8_t *buf = malloc(n);
    fill(buf, n, esize, seed);
    if (!strcmp(dtype, "n2")) {
        /* Noise: no compressor shrinks it. */
        uint64_t x = 0x9e3779b97f4a7c15ull * seed;
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            buf[i] = (uint8_t)(x >> 24);
        }
    }
    if (!strcmp(dtype, "f8") || !strcmp(dtype, "cmpd")) {
        /* Keep floating-point fields finite: NaN payloads would make h5py's comparison fail. */
        size_t cnt = n / esize;
        for (size_t i = 0; i < cnt; i++) {
            if (!strcmp(dtype, "f8")) {
                double v = (double)(i % 977) * 0.25 + (double)(seed % 13);
                memcpy(buf + i * esize, &v, sizeof(v));
            } else {
                cmpd_t *c = (cmpd_t *)(void *)(buf + i * esize);
                c->value  = (float)(i % 311) * 0.5f;
                c->t      = (double)i * 1e-3;
            }
        }
    }
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, rank, chunk);
    H5Pset_filter(dcpl, BLOSC_ID, flags, ncd, cd);
    char path[256];
    snprintf(path, sizeof(path), "/blosc/%s", name);
    hid_t ds = H5Dcreate2(file, path, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int   rc = -1;
    if (ds >= 0 && H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0) {
        snprintf(path, sizeof(path), "/plain/%s", name);
        hid_t pl = H5Dcreate2(file, path, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (pl >= 0 && H5Dwrite(pl, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0)
            rc = 0;
        H5Dclose(pl);
    }
    /* Chunks may reach the filter only when the dataset is closed and its cache flushed. */
    if (ds >= 0 && H5Dclose(ds) < 0)
        rc = -1;
    if (rc != 0)
        fprintf(stderr, "FAIL: writing %s\n", name);
    H5Pclose(dcpl), H5Sclose(space), H5Tclose(type);
    free(buf);
    return rc;
}

static int
do_write(const char *fname, unsigned flags)
{
    static const char *dtypes[] = {"u1", "u2", "u4", "f8", "cmpd"};
    hid_t              file     = H5Fcreate(fname, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0)
        return 1;
    H5Gclose(H5Gcreate2(file, "blosc", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(H5Gcreate2(file, "plain", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    int      fails = 0;
    unsigned seed  = 1;
    char     name[128];
    for (unsigned comp = 0; comp <= 5; comp++)
        for (unsigned sh = 0; sh <= 2; sh++)
            for (unsigned d = 0; d < sizeof(dtypes) / sizeof(dtypes[0]); d++) {
                /* 37 x 53 in 16 x 20 chunks: every chunk on the right and bottom is an edge chunk. */
                hsize_t  dims[2] = {37, 53}, chunk[2] = {16, 20};
                unsigned clevel  = (comp * 3 + sh + d) % 10;
                unsigned cd[7]   = {0, 0, 0, 0, clevel, sh, comp};
                snprintf(name, sizeof(name), "c%u_s%u_%s_l%u", comp, sh, dtypes[d], clevel);
                fails += write_pair(file, name, dtypes[d], 2, dims, chunk, flags, 7, cd, seed++) != 0;
            }
    for (unsigned comp = 0; comp <= 5; comp++) {
        /* One element: a chunk smaller than a Blosc header. */
        hsize_t  one = 1;
        unsigned cd[7] = {0, 0, 0, 0, 5, 1, comp};
        snprintf(name, sizeof(name), "one_c%u_f8", comp);
        fails += write_pair(file, name, "f8", 1, &one, &one, flags, 7, cd, seed++) != 0;
        /* Chunks of 1 MiB and more: several Blosc blocks, compressed and decoded on threads. */
        hsize_t big[2] = {700, 1024}, bigchunk[2] = {512, 1024};
        snprintf(name, sizeof(name), "big_c%u_u2", comp);
        unsigned cdb[7] = {0, 0, 0, 0, comp == 2 || comp == 4 || comp == 5 ? 3 : 7, comp % 3, comp};
        fails += write_pair(file, name, "u2", 2, big, bigchunk, flags, 7, cdb, seed++) != 0;
        snprintf(name, sizeof(name), "big_c%u_f8", comp);
        hsize_t bigf[1] = {300000}, bigfchunk[1] = {131072};
        fails += write_pair(file, name, "f8", 1, bigf, bigfchunk, flags, 7, cdb, seed++) != 0;
        /* Incompressible chunks, and compressible ones at level 0: no frame fits in the chunk's
         * size, so an optional filter is left out of those chunks (hdf5-blosc fails there). */
        snprintf(name, sizeof(name), "noise_c%u_n2", comp);
        unsigned cdn[7] = {0, 0, 0, 0, 5, comp % 3, comp};
        fails += write_pair(file, name, "n2", 2, big, bigchunk, flags, 7, cdn, seed++) != 0;
        snprintf(name, sizeof(name), "level0_c%u_u2", comp);
        unsigned cd0[7] = {0, 0, 0, 0, 0, 1, comp};
        fails += write_pair(file, name, "u2", 2, big, bigchunk, flags, 7, cd0, seed++) != 0;
    }
    /* No optional cd_values at all: hdf5-blosc's defaults (level 5, shuffle, blosclz). */
    hsize_t dims[2] = {37, 53}, chunk[2] = {16, 20};
    fails += write_pair(file, "defaults_u4", "u4", 2, dims, chunk, flags, 0, NULL, seed++) != 0;
    if (H5Fclose(file) < 0)
        fails++;
    return fails ? 1 : 0;
}

/* One float64 with the filter mandatory: the chunk (8 bytes) is smaller than a Blosc header. */
static int
do_write_one(const char *fname)
{
    hid_t file = H5Fcreate(fname, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0)
        return 1;
    H5Gclose(H5Gcreate2(file, "blosc", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(H5Gcreate2(file, "plain", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    hsize_t one = 1;
    int     rc  = write_pair(file, "one_f8", "f8", 1, &one, &one, H5Z_FLAG_MANDATORY, 0, NULL, 7);
    if (H5Fclose(file) < 0)
        rc = -1;
    return rc ? 1 : 0;
}

typedef struct vctx {
    hid_t file;
    int   n_ok, n_bad;
} vctx_t;

static herr_t
verify_one(hid_t g, const char *name, const H5L_info2_t *info, void *arg)
{
    vctx_t *v = arg;
    (void)g, (void)info;
    char path[256];
    snprintf(path, sizeof(path), "/blosc/%s", name);
    hid_t ds = H5Dopen2(v->file, path, H5P_DEFAULT);
    snprintf(path, sizeof(path), "/plain/%s", name);
    hid_t pl = H5Dopen2(v->file, path, H5P_DEFAULT);
    if (ds < 0 || pl < 0) {
        fprintf(stderr, "FAIL: %s: cannot open\n", name);
        v->n_bad++;
        return 0;
    }
    hid_t    type = H5Dget_type(pl);
    hid_t    sp   = H5Dget_space(pl);
    size_t   n    = H5Tget_size(type) * (size_t)H5Sget_simple_extent_npoints(sp);
    uint8_t *a = calloc(1, n), *b = calloc(1, n);
    if (H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, a) < 0) {
        fprintf(stderr, "FAIL: %s: read through the Blosc filter failed\n", name);
        v->n_bad++;
    } else if (H5Dread(pl, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, b) < 0 || memcmp(a, b, n) != 0) {
        fprintf(stderr, "FAIL: %s: data differs from its unfiltered twin\n", name);
        v->n_bad++;
    } else {
        v->n_ok++;
    }
    free(a), free(b);
    H5Tclose(type), H5Sclose(sp), H5Dclose(ds), H5Dclose(pl);
    return 0;
}

static int
do_verify(const char *fname)
{
    vctx_t v = {H5Fopen(fname, H5F_ACC_RDONLY, H5P_DEFAULT), 0, 0};
    if (v.file < 0)
        return 1;
    hid_t g = H5Gopen2(v.file, "/blosc", H5P_DEFAULT);
    H5Literate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, verify_one, &v);
    H5Gclose(g);
    H5Fclose(v.file);
    printf("%s: %d datasets equal to their unfiltered twins, %d failed\n", fname, v.n_ok, v.n_bad);
    return (v.n_bad || v.n_ok == 0) ? 1 : 0;
}

static herr_t
params_one(hid_t g, const char *name, const H5L_info2_t *info, void *arg)
{
    (void)info, (void)arg;
    hid_t    ds = H5Dopen2(g, name, H5P_DEFAULT), dcpl = H5Dget_create_plist(ds);
    unsigned flags, cd[16];
    size_t   n = 16;
    printf("%s:", name);
    if (H5Pget_filter_by_id2(dcpl, BLOSC_ID, &flags, &n, cd, 0, NULL, NULL) >= 0)
        for (size_t i = 0; i < n; i++)
            printf(" %u", cd[i]);
    printf("\n");
    H5Pclose(dcpl), H5Dclose(ds);
    return 0;
}

/* Compares the raw chunks of every /blosc dataset of two files written from the same data.
 * Chunks both sides compressed (filter mask 0) must be identical. With the filter mandatory in
 * the first file and optional in the second, the reference leaves chunks that do not shrink
 * unfiltered (mask 1) where we store a plain-copy frame: counted apart (`chunks`). Both optional
 * (`chunks-same`), the masks must be equal too, and unfiltered chunks identical. Snappy frames
 * may legitimately be smaller on our side (see tb_blosc_codec.h). */
typedef struct cctx {
    hid_t a, b;
    int   same_masks;
    int   same, differ, unfiltered_b, unfiltered_both, snappy_smaller;
} cctx_t;

static herr_t
chunks_one(hid_t g, const char *name, const H5L_info2_t *info, void *arg)
{
    cctx_t *c = arg;
    (void)g, (void)info;
    char path[256];
    snprintf(path, sizeof(path), "/blosc/%s", name);
    hid_t   da = H5Dopen2(c->a, path, H5P_DEFAULT), db = H5Dopen2(c->b, path, H5P_DEFAULT);
    hid_t   sa = H5Dget_space(da);
    hsize_t nchunks = 0;
    H5Dget_num_chunks(da, sa, &nchunks);
    for (hsize_t i = 0; i < nchunks; i++) {
        hsize_t  off[H5S_MAX_RANK];
        unsigned ma = 0, mb = 0;
        haddr_t  addr;
        hsize_t  na = 0, nb = 0;
        H5Dget_chunk_info(da, sa, i, off, &ma, &addr, &na);
        if (H5Dget_chunk_storage_size(db, off, &nb) < 0)
            continue;
        uint8_t *ba = malloc(na ? na : 1), *bb = malloc(nb ? nb : 1);
        H5Dread_chunk(da, H5P_DEFAULT, off, &ma, ba);
        H5Dread_chunk(db, H5P_DEFAULT, off, &mb, bb);
        if (c->same_masks && ma != mb) {
            fprintf(stderr, "chunk %llu of %s: filter mask %u vs %u\n", (unsigned long long)i, name, ma, mb);
            c->differ++;
        }
        else if (ma != 0 && ma == mb && na == nb && memcmp(ba, bb, na) == 0)
            c->unfiltered_both++;
        else if (ma != 0 || mb != 0)
            c->unfiltered_b++;
        else if (na == nb && memcmp(ba, bb, na) == 0)
            c->same++;
        else if (strncmp(name, "c3_", 3) == 0 || strncmp(name, "big_c3", 6) == 0 || strncmp(name, "one_c3", 6) == 0)
            c->snappy_smaller += (na <= nb);
        else {
            fprintf(stderr, "chunk %llu of %s: %llu vs %llu bytes differ\n", (unsigned long long)i, name,
                    (unsigned long long)na, (unsigned long long)nb);
            c->differ++;
        }
        free(ba), free(bb);
    }
    H5Sclose(sa), H5Dclose(da), H5Dclose(db);
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc >= 4 && (!strcmp(argv[1], "chunks") || !strcmp(argv[1], "chunks-same"))) {
        cctx_t c = {0};
        c.same_masks = !strcmp(argv[1], "chunks-same");
        c.a      = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
        c.b      = H5Fopen(argv[3], H5F_ACC_RDONLY, H5P_DEFAULT);
        if (c.a < 0 || c.b < 0)
            return 1;
        hid_t g = H5Gopen2(c.a, "/blosc", H5P_DEFAULT);
        H5Literate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, chunks_one, &c);
        H5Gclose(g), H5Fclose(c.a), H5Fclose(c.b);
        printf("chunks: %d identical, %d differ, %d unfiltered on both sides alike, %d unfiltered on one side, "
               "%d snappy frames smaller in the first\n",
               c.same, c.differ, c.unfiltered_both, c.unfiltered_b, c.snappy_smaller);
        return (c.differ || c.same == 0 || (c.same_masks && (c.unfiltered_b || c.unfiltered_both == 0))) ? 1 : 0;
    }
    if (argc >= 3 && !strcmp(argv[1], "write"))
        return do_write(argv[2], argc >= 4 && !strcmp(argv[3], "optional") ? H5Z_FLAG_OPTIONAL : H5Z_FLAG_MANDATORY);
    if (argc >= 3 && !strcmp(argv[1], "write-one"))
        return do_write_one(argv[2]);
    if (argc >= 3 && !strcmp(argv[1], "verify"))
        return do_verify(argv[2]);
    if (argc >= 3 && !strcmp(argv[1], "params")) {
        hid_t f = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT), g = H5Gopen2(f, "/blosc", H5P_DEFAULT);
        H5Literate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, params_one, NULL);
        H5Gclose(g), H5Fclose(f);
        return 0;
    }
    fprintf(stderr, "usage: %s write FILE [mandatory|optional] | verify FILE | params FILE\n", argv[0]);
    return 2;
}
