/* test_pipe_raw.c — run with h5turbo active (HDF5_VOL_CONNECTOR=h5turbo): the same data written
 * through h5turbo and through native (a FAPL naming native) gives bit-identical stored chunks
 * (bytes and filter masks, edge chunks included) for pipelines without deflate, DEFLATE chunks
 * no more than 5% larger than zlib's at the same level, and corrupt chunks (bad checksum, bad
 * DEFLATE stream, truncated) make H5Dread fail as in stock HDF5, with the same innermost error;
 * chunks the application stored with a filter mask, written over through H5Dwrite, read back as
 * written (masked_chunks). */
#define H5_USE_114_API_DEFAULT 1
#include <hdf5.h>

#include "tb_test.h"

#include <stdint.h>
#include <string.h>

#define H5OK(x) ASSERT((x) >= 0)

typedef struct {
    int8_t  a;
    double  b;
    int16_t c;
} cmp_t;

static hid_t
make_type(int k)
{
    hsize_t two = 2;
    hid_t   t;
    switch (k) {
        case 0: return H5Tcopy(H5T_NATIVE_UINT8);
        case 1: return H5Tcopy(H5T_NATIVE_INT16);
        case 2: return H5Tcopy(H5T_NATIVE_FLOAT);
        case 3: return H5Tcopy(H5T_NATIVE_DOUBLE);
        case 4: return H5Tarray_create2(H5T_NATIVE_INT64, 1, &two);
        default:
            t = H5Tcreate(H5T_COMPOUND, sizeof(cmp_t));
            H5Tinsert(t, "a", HOFFSET(cmp_t, a), H5T_NATIVE_INT8);
            H5Tinsert(t, "b", HOFFSET(cmp_t, b), H5T_NATIVE_DOUBLE);
            H5Tinsert(t, "c", HOFFSET(cmp_t, c), H5T_NATIVE_INT16);
            return t;
    }
}
#define NTYPES 6

static void
set_filters(hid_t dcpl, const char *f)
{
    for (; *f; f++) {
        if (*f == 's') H5OK(H5Pset_shuffle(dcpl));
        if (*f == 'f') H5OK(H5Pset_fletcher32(dcpl));
        if (*f == 'z') H5OK(H5Pset_deflate(dcpl, 1));
        if (*f == 'Z') H5OK(H5Pset_deflate(dcpl, 6));
    }
}

static const hsize_t dims[2] = {37, 50}, chunk[2] = {8, 16};

static uint8_t *
make_data(size_t es, unsigned seed)
{
    size_t   n = (size_t)dims[0] * (size_t)dims[1] * es;
    uint8_t *b = malloc(n);
    ASSERT(b);
    for (size_t i = 0; i < n; i++) {
        size_t e = i / es, byte = i % es;
        /* Detector-like: small values, mostly in the low bytes. */
        b[i] = byte == 0 ? (uint8_t)((e * 7 + seed) % 13 == 0 ? (e * 31) >> 3 : 0) : (uint8_t)(byte == 1 && e % 5 == 0);
    }
    return b;
}

static void
write_dset(hid_t file, const char *name, int tk, const char *filters, unsigned seed)
{
    hid_t type = make_type(tk), dcpl = H5Pcreate(H5P_DATASET_CREATE), sp = H5Screate_simple(2, dims, NULL);
    H5OK(H5Pset_chunk(dcpl, 2, chunk));
    set_filters(dcpl, filters);
    hid_t d = H5Dcreate2(file, name, type, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5OK(d);
    uint8_t *b = make_data(H5Tget_size(type), seed);
    H5OK(H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, b));
    free(b);
    H5Dclose(d);
    H5Sclose(sp);
    H5Pclose(dcpl);
    H5Tclose(type);
}

/* Compares every stored chunk of `name` in two files; returns total stored bytes of each. */
static void
compare_chunks(hid_t fa, hid_t fb, const char *name, int exact, hsize_t *na_out, hsize_t *nb_out)
{
    hid_t   da = H5Dopen2(fa, name, H5P_DEFAULT), db = H5Dopen2(fb, name, H5P_DEFAULT);
    hsize_t nca = 0, ncb = 0;
    H5OK(H5Dget_num_chunks(da, H5S_ALL, &nca));
    H5OK(H5Dget_num_chunks(db, H5S_ALL, &ncb));
    ASSERT_EQ(nca, ncb);
    ASSERT_EQ(nca, 20); /* ceil(37/8) x ceil(50/16) */
    *na_out = *nb_out = 0;
    for (hsize_t i = 0; i < nca; i++) {
        hsize_t  oa[2], ob[2], sa, sb;
        unsigned ma, mb;
        haddr_t  aa, ab;
        H5OK(H5Dget_chunk_info(da, H5S_ALL, i, oa, &ma, &aa, &sa));
        H5OK(H5Dget_chunk_info_by_coord(db, oa, &mb, &ab, &sb));
        ob[0] = oa[0];
        ob[1] = oa[1];
        /* Equal masks; non-zero only for "ssf", whose second shuffle HDF5 leaves without
         * parameters (its set_local fills the first one only), so native skips it in every chunk
         * and the pipeline forwards that dataset. */
        ASSERT_EQ(ma, mb);
        ASSERT(ma == 0 || strstr(name, "ssf"));
        *na_out += sa;
        *nb_out += sb;
        if (!exact)
            continue;
        ASSERT_EQ(sa, sb);
        uint8_t *ba = malloc(sa), *bb = malloc(sb);
        uint32_t fma = 1, fmb = 1;
        H5OK(H5Dread_chunk(da, H5P_DEFAULT, oa, &fma, ba));
        H5OK(H5Dread_chunk(db, H5P_DEFAULT, ob, &fmb, bb));
        ASSERT_EQ(fma, fmb);
        if (memcmp(ba, bb, sa) != 0) {
            fprintf(stderr, "%s: chunk (%llu,%llu) differs\n", name, (unsigned long long)oa[0],
                    (unsigned long long)oa[1]);
            exit(1);
        }
        free(ba);
        free(bb);
    }
    H5Dclose(da);
    H5Dclose(db);
}

/* The innermost error of the current stack (major, minor, description). */
typedef struct {
    hid_t maj, min;
    char  desc[256];
    int   set;
} err_t;

static herr_t
first_err(unsigned n, const H5E_error2_t *e, void *op)
{
    err_t *x = op;
    (void)n;
    if (!x->set) {
        x->maj = e->maj_num;
        x->min = e->min_num;
        snprintf(x->desc, sizeof(x->desc), "%s", e->desc ? e->desc : "");
        x->set = 1;
    }
    return 0;
}

/* Reads `name` whole with `fapl`'s connector; returns the H5Dread status and the innermost error. */
static herr_t
read_status(const char *path, hid_t fapl, const char *name, hid_t dxpl, err_t *err, uint8_t *buf)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5OK(f);
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT), t = H5Dget_type(d);
    memset(err, 0, sizeof(*err));
    herr_t r;
    H5E_BEGIN_TRY
    {
        r = H5Dread(d, t, H5S_ALL, H5S_ALL, dxpl, buf);
        if (r < 0)
            H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_err, err);
    }
    H5E_END_TRY
    H5Tclose(t);
    H5Dclose(d);
    H5Fclose(f);
    return r;
}

/* Replaces chunk (0,0) of `name` with `how`: 0 flip a payload byte, 1 flip a byte in the middle,
 * 2 truncate. Written with H5Dwrite_chunk through native. */
static void
corrupt(const char *path, hid_t fapl_native, const char *name, int how)
{
    hid_t    f = H5Fopen(path, H5F_ACC_RDWR, fapl_native), d = H5Dopen2(f, name, H5P_DEFAULT);
    hsize_t  off[2] = {0, 0}, sz = 0;
    uint32_t mask   = 0;
    H5OK(H5Dget_chunk_storage_size(d, off, &sz));
    uint8_t *b = malloc(sz);
    H5OK(H5Dread_chunk(d, H5P_DEFAULT, off, &mask, b));
    if (how == 0)
        b[1] ^= 0x40;
    else if (how == 1)
        for (hsize_t i = sz / 3; i < sz / 3 + 4 && i < sz; i++)
            b[i] ^= 0xa5;
    H5OK(H5Dwrite_chunk(d, H5P_DEFAULT, mask, off, how == 2 ? sz / 2 : sz, b));
    free(b);
    H5Dclose(d);
    H5Fclose(f);
}

static void
copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    ASSERT(in && out);
    char   b[65536];
    size_t n;
    while ((n = fread(b, 1, sizeof(b), in)) > 0)
        ASSERT(fwrite(b, 1, n, out) == n);
    fclose(in);
    fclose(out);
}

/* ---- chunks the application stored with a filter mask (H5Dwrite_chunk, every filter skipped: what
 * writers do with chunks no filter shrinks), then written over through H5Dwrite, whole and in part,
 * and read back through the same handle. HDF5 (1.14.5, 2.2.0) keeps, after a direct chunk write,
 * the mask the chunk had before in its cache of the last chunk looked up, and the old mask in its
 * index where a chunk is written again at the length it had; the pipeline's own direct writes must
 * leave neither behind, and the application's must store the mask it gives. */
#define MF 16 /* frames of 64 x 64 float32 (16 KiB), 4 to a chunk */
#define MC 4
static float mexp[MF][64][64];

static void
mframes(int f0, int nf, int version, float *out)
{
    for (int f = f0; f < f0 + nf; f++)
        for (int y = 0; y < 64; y++)
            for (int x = 0; x < 64; x++) {
                float v       = (float)(version * 1000 + f * 64 + y) + (float)x / 64.0f;
                mexp[f][y][x] = v;
                out[(((size_t)f - (size_t)f0) * 64 + (size_t)y) * 64 + (size_t)x] = v;
            }
}

/* The application's direct write of chunk c, raw (mask 3: shuffle and Fletcher32 skipped), with
 * version v; then the handle closed and opened again (HDF5's own stale mask gone). */
static hid_t
mdirect(hid_t file, hid_t d, int c, int v)
{
    float  *b      = malloc(sizeof(float) * MC * 64 * 64);
    hsize_t off[3] = {(hsize_t)c * MC, 0, 0};
    mframes(c * MC, MC, v, b);
    H5OK(H5Dwrite_chunk(d, H5P_DEFAULT, 3, off, sizeof(float) * MC * 64 * 64, b));
    free(b);
    H5OK(H5Dclose(d));
    d = H5Dopen2(file, "masked", H5P_DEFAULT);
    H5OK(d);
    return d;
}

/* The file closed and opened again for writing (what this open met of the dataset is then an
 * earlier open's), and the dataset with it. */
static hid_t
mreopen(const char *path, hid_t fapl, hid_t *file, hid_t d)
{
    H5OK(H5Dclose(d));
    H5OK(H5Fclose(*file));
    *file = H5Fopen(path, H5F_ACC_RDWR, fapl);
    H5OK(*file);
    d = H5Dopen2(*file, "masked", H5P_DEFAULT);
    H5OK(d);
    return d;
}

/* H5Dwrite of frames [f0, f0+nf) with version v (none: nf 0), then a read of frames [r0, r0+rn)
 * through the same handle: what was written. */
static void
mwrite_read(hid_t d, int f0, int nf, int v, int r0, int rn, const char *what)
{
    float  *b = malloc(sizeof(float) * MF * 64 * 64);
    hsize_t start[3] = {(hsize_t)f0, 0, 0}, count[3] = {(hsize_t)nf, 64, 64};
    hid_t   fs = H5Dget_space(d), ms;
    if (nf) {
        ms = H5Screate_simple(3, count, NULL);
        mframes(f0, nf, v, b);
        H5OK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
        H5OK(H5Dwrite(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, b));
        H5Sclose(ms);
    }
    start[0] = (hsize_t)r0;
    count[0] = (hsize_t)rn;
    ms       = H5Screate_simple(3, count, NULL);
    H5OK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
    herr_t r;
    H5E_BEGIN_TRY { r = H5Dread(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, b); }
    H5E_END_TRY
    int same = r >= 0 && memcmp(b, mexp[r0], sizeof(float) * (size_t)rn * 64 * 64) == 0;
    printf("masked: %s: read %s\n", what, r < 0 ? "failed" : same ? "right" : "WRONG");
    ASSERT(same);
    H5Sclose(ms);
    H5Sclose(fs);
    free(b);
}

static void
masked_chunks(const char *path, hid_t fapl, int turbo)
{
    hid_t   file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hsize_t mdims[3] = {MF, 64, 64}, mchunk[3] = {MC, 64, 64};
    hid_t   dcpl = H5Pcreate(H5P_DATASET_CREATE), sp = H5Screate_simple(3, mdims, NULL);
    H5OK(H5Pset_chunk(dcpl, 3, mchunk));
    H5OK(H5Pset_shuffle(dcpl));
    H5OK(H5Pset_fletcher32(dcpl));
    hid_t d = H5Dcreate2(file, "masked", H5T_NATIVE_FLOAT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5OK(d);
    mwrite_read(d, 0, MF, 1, 0, MF, "written whole");
    /* Chunks 1 and 3 stored raw; then all four written through the pipeline, the last of them
     * (3) over a masked one. */
    d = mdirect(file, d, 1, 2);
    d = mdirect(file, d, 3, 2);
    mwrite_read(d, 0, MF, 3, 12, MC, "four chunks over masked ones");
    /* One chunk written over a masked one. */
    d = mdirect(file, d, 2, 4);
    mwrite_read(d, 8, MC, 5, 8, MC, "one chunk over a masked one");
    /* Merged into a masked chunk (0, in part), and a whole chunk (1). */
    d = mdirect(file, d, 0, 6);
    mwrite_read(d, 2, 6, 7, 0, 2 * MC, "merged into a masked chunk");
    /* Masked chunks an earlier open stored (the file closed and opened again: nothing in this
     * open has met them), written over whole. */
    d = mdirect(file, d, 2, 9);
    d = mdirect(file, d, 3, 9);
    d = mreopen(path, fapl, &file, d);
    mwrite_read(d, 2 * MC, 2 * MC, 10, 3 * MC, MC, "two chunks over masked ones an earlier open stored");
    /* One chunk, a call of its own (with write-behind a drain of one), written whole over a masked
     * one an earlier open stored, and read back through the same handle: no other chunk is looked
     * up between. */
    d = mdirect(file, d, 1, 11);
    d = mreopen(path, fapl, &file, d);
    mwrite_read(d, MC, MC, 12, MC, MC, "one chunk over a masked one an earlier open stored");
    if (turbo) {
        /* The application's own write of chunk 1 with another mask at the length stored: Fletcher32
         * only (mask 1, shuffle skipped), its bytes taken from a dataset filtered so. Stock HDF5
         * keeps the stored mask here (its read then unshuffles): h5turbo only. */
        hid_t dc1 = H5Pcreate(H5P_DATASET_CREATE), sp1 = H5Screate_simple(3, mchunk, NULL);
        H5OK(H5Pset_chunk(dc1, 3, mchunk));
        H5OK(H5Pset_fletcher32(dc1));
        hid_t  f1 = H5Dcreate2(file, "fletcher", H5T_NATIVE_FLOAT, sp1, H5P_DEFAULT, dc1, H5P_DEFAULT);
        float *b  = malloc(sizeof(float) * MC * 64 * 64);
        mframes(MC, MC, 8, b);
        H5OK(H5Dwrite(f1, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, b));
        hsize_t  o0[3] = {0, 0, 0}, o1[3] = {MC, 0, 0}, n = 0, nd = 0;
        uint32_t m     = 0;
        H5OK(H5Dget_chunk_storage_size(f1, o0, &n));
        H5OK(H5Dget_chunk_storage_size(d, o1, &nd));
        ASSERT(n == nd);
        uint8_t *raw = malloc(n);
        H5OK(H5Dread_chunk(f1, H5P_DEFAULT, o0, &m, raw));
        H5OK(H5Dwrite_chunk(d, H5P_DEFAULT, 1, o1, (size_t)n, raw));
        free(raw);
        free(b);
        H5Dclose(f1);
        H5Sclose(sp1);
        H5Pclose(dc1);
        H5OK(H5Dclose(d));
        d = H5Dopen2(file, "masked", H5P_DEFAULT);
        mwrite_read(d, 0, 0, 0, MC, MC, "the application's chunk as long as the stored one");
    }
    H5OK(H5Dclose(d));
    H5OK(H5Fclose(file));
    /* Read back read-only, whole. */
    file    = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    d       = H5Dopen2(file, "masked", H5P_DEFAULT);
    float *b = malloc(sizeof(float) * MF * 64 * 64);
    H5OK(H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, b));
    ASSERT(memcmp(b, mexp, sizeof(mexp)) == 0);
    printf("masked: read back read-only: right\n");
    free(b);
    H5Dclose(d);
    H5Fclose(file);
    H5Sclose(sp);
    H5Pclose(dcpl);
}

int
main(void)
{
    const char *conn = getenv("HDF5_VOL_CONNECTOR");
    ASSERT(conn && strncmp(conn, "h5turbo", 7) == 0);
    hid_t native = H5Pcreate(H5P_FILE_ACCESS);
    H5OK(H5Pset_vol(native, H5VL_NATIVE, NULL));

    const char *pn = "pipe_raw_native.h5", *pt = "pipe_raw_turbo.h5";
    hid_t       fn = H5Fcreate(pn, H5F_ACC_TRUNC, H5P_DEFAULT, native);
    hid_t       ft = H5Fcreate(pt, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    H5OK(fn);
    H5OK(ft);
    /* The default FAPL really is h5turbo (HDF5 falls back to native silently otherwise). */
    char cname[64] = "";
    H5OK(H5VLget_connector_name(ft, cname, sizeof(cname)));
    ASSERT(strcmp(cname, "h5turbo") == 0);

    static const char *exact[] = {"s", "f", "sf", "fs", "ssf"};
    static const char *defl[]  = {"sz", "szf", "z", "Zf", "fz"};
    char               name[64];
    unsigned           seed = 1;
    for (int t = 0; t < NTYPES; t++) {
        for (size_t k = 0; k < 5; k++) {
            snprintf(name, sizeof(name), "x_%d_%s", t, exact[k]);
            write_dset(fn, name, t, exact[k], seed);
            write_dset(ft, name, t, exact[k], seed++);
            snprintf(name, sizeof(name), "d_%d_%s", t, defl[k]);
            write_dset(fn, name, t, defl[k], seed);
            write_dset(ft, name, t, defl[k], seed++);
        }
    }
    H5Fclose(fn);
    H5Fclose(ft);

    fn = H5Fopen(pn, H5F_ACC_RDONLY, native);
    ft = H5Fopen(pt, H5F_ACC_RDONLY, native);
    hsize_t tot_n = 0, tot_t = 0;
    for (int t = 0; t < NTYPES; t++)
        for (size_t k = 0; k < 5; k++) {
            hsize_t a, b;
            snprintf(name, sizeof(name), "x_%d_%s", t, exact[k]);
            compare_chunks(fn, ft, name, 1, &a, &b);
            snprintf(name, sizeof(name), "d_%d_%s", t, defl[k]);
            compare_chunks(fn, ft, name, 0, &a, &b);
            tot_n += a;
            tot_t += b;
        }
    printf("deflate chunks: native %llu bytes, h5turbo %llu bytes (%.3f)\n", (unsigned long long)tot_n,
           (unsigned long long)tot_t, (double)tot_t / (double)tot_n);
    ASSERT((double)tot_t <= 1.05 * (double)tot_n);
    H5Fclose(fn);
    H5Fclose(ft);

    /* Corrupt chunks: H5Dread fails through h5turbo as through native, same innermost error. */
    static const struct {
        const char *dset;
        int         how;
    } bad[] = {{"x_1_sf", 0}, {"x_3_fs", 1}, {"d_1_szf", 0}, {"d_2_sz", 1}, {"d_2_sz", 2}, {"d_3_Zf", 1}};
    uint8_t *buf1 = malloc(37 * 50 * 16), *buf2 = malloc(37 * 50 * 16);
    for (size_t k = 0; k < sizeof(bad) / sizeof(*bad); k++) {
        corrupt(pt, native, bad[k].dset, bad[k].how);
        err_t en, et;
        herr_t rn = read_status(pt, native, bad[k].dset, H5P_DEFAULT, &en, buf1);
        herr_t rt = read_status(pt, H5P_DEFAULT, bad[k].dset, H5P_DEFAULT, &et, buf2);
        printf("%s (corruption %d): native %d [%s], h5turbo %d [%s]\n", bad[k].dset, bad[k].how, (int)rn, en.desc,
               (int)rt, et.desc);
        ASSERT(rn < 0 && rt < 0);
        ASSERT(et.maj == en.maj && et.min == en.min && strcmp(et.desc, en.desc) == 0);
    }
    /* A write that must merge into the corrupt chunk (partial coverage) fails too, as natively;
     * each run on its own copy of the file. */
    copy_file(pt, "pipe_raw_turbo2.h5");
    err_t ew[2];
    for (int k = 0; k < 2; k++) {
        hid_t f = H5Fopen(k ? "pipe_raw_turbo2.h5" : pt, H5F_ACC_RDWR, k ? native : H5P_DEFAULT);
        hid_t d = H5Dopen2(f, "x_1_sf", H5P_DEFAULT), fs = H5Dget_space(d);
        H5OK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, (hsize_t[]){4, 0}, NULL, (hsize_t[]){33, 50}, NULL));
        hid_t ms = H5Screate_simple(1, (hsize_t[]){33 * 50}, NULL);
        memset(&ew[k], 0, sizeof(ew[k]));
        herr_t r;
        H5E_BEGIN_TRY
        {
            r = H5Dwrite(d, H5T_NATIVE_INT16, ms, fs, H5P_DEFAULT, buf1);
            if (r < 0)
                H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_err, &ew[k]);
            H5Sclose(ms);
            H5Sclose(fs);
            H5Dclose(d);
            H5Fclose(f);
        }
        H5E_END_TRY
        printf("partial write over the corrupt chunk (%s): %d [%s]\n", k ? "native" : "h5turbo", (int)r, ew[k].desc);
        ASSERT(r < 0);
    }
    ASSERT(ew[0].maj == ew[1].maj && ew[0].min == ew[1].min && strcmp(ew[0].desc, ew[1].desc) == 0);
    remove("pipe_raw_turbo2.h5");

    /* Writing to a file opened read-only fails as natively (the pipeline leaves it to native). */
    {
        err_t  er[2];
        herr_t rr[2];
        for (int k = 0; k < 2; k++) {
            hid_t f = H5Fopen(pt, H5F_ACC_RDONLY, k ? native : H5P_DEFAULT);
            hid_t d = H5Dopen2(f, "x_2_sf", H5P_DEFAULT);
            memset(&er[k], 0, sizeof(er[k]));
            H5E_BEGIN_TRY
            {
                rr[k] = H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf1);
                if (rr[k] < 0)
                    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, first_err, &er[k]);
            }
            H5E_END_TRY
            H5Dclose(d);
            H5Fclose(f);
        }
        printf("write to a read-only file: h5turbo %d [%s], native %d [%s]\n", (int)rr[0], er[0].desc, (int)rr[1],
               er[1].desc);
        ASSERT(rr[0] < 0 && rr[1] < 0 && strcmp(er[0].desc, er[1].desc) == 0);
    }

    /* With error detection off, a bad checksum is not an error, and both read the same data. */
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_edc_check(dxpl, H5Z_DISABLE_EDC);
    err_t e;
    ASSERT(read_status(pt, native, "x_1_sf", dxpl, &e, buf1) >= 0);
    ASSERT(read_status(pt, H5P_DEFAULT, "x_1_sf", dxpl, &e, buf2) >= 0);
    ASSERT(memcmp(buf1, buf2, 37 * 50 * 2) == 0);
    H5Pclose(dxpl);
    free(buf1);
    free(buf2);

    masked_chunks(pn, native, 0);
    masked_chunks(pt, H5P_DEFAULT, 1);
    H5Pclose(native);
    remove(pn);
    remove(pt);
    printf("ok\n");
    return 0;
}
