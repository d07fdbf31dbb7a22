/* pipe_xfer.c — the differential test program of the pipeline's conversions and selections.
 * `write FILE [MEMTYPE]` writes datasets of every numeric file type (special values: overflow, NaN,
 * infinities, negatives, rounding cases), from MEMTYPE when given; `read FILE` reads each into
 * every numeric memory type, with several selections and transfer lists (a conversion exception
 * callback that handles, passes or aborts), printing one hash per read; `dump FILE` prints one
 * hash per dataset (read in its own type); `multi FILE` reads several datasets per H5Dread_multi
 * and writes new ones with H5Dwrite_multi; `multiset FILE ro|rw` reads many per H5Dread_multi.
 * pipe_xfer.sh compares them stock vs h5turbo. */
#define H5_USE_114_API_DEFAULT 1
#include <hdf5.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/tb_test.h"
#include "pipe_test.h"

/* ---- types by name: native ones and a few of the other byte order */
typedef struct tname {
    const char *name;
    hid_t       id; /* set in init_types */
} tname_t;

static tname_t types[] = {{"u8", 0},  {"i8", 0},  {"u16", 0}, {"i16", 0},   {"u32", 0},   {"i32", 0},  {"u64", 0},
                          {"i64", 0}, {"f32", 0}, {"f64", 0}, {"u16be", 0}, {"i32be", 0}, {"f64be", 0}};
#define NTYPES (sizeof(types) / sizeof(*types))

static void
init_types(void)
{
    hid_t ids[NTYPES] = {H5T_NATIVE_UINT8,  H5T_NATIVE_INT8,   H5T_NATIVE_UINT16, H5T_NATIVE_INT16, H5T_NATIVE_UINT32,
                         H5T_NATIVE_INT32,  H5T_NATIVE_UINT64, H5T_NATIVE_INT64,  H5T_NATIVE_FLOAT, H5T_NATIVE_DOUBLE,
                         H5T_STD_U16BE,     H5T_STD_I32BE,     H5T_IEEE_F64BE};
    for (size_t i = 0; i < NTYPES; i++)
        types[i].id = ids[i];
}

/* Memory types "f32nonan", "f64nonan": float values made without NaN (a chunk holding a NaN is
 * converted through H5Tconvert on writes; these let the workers convert). */
static int gen_no_nan;

static hid_t
type_by_name(const char *name)
{
    if (!strcmp(name, "f32nonan") || !strcmp(name, "f64nonan")) {
        gen_no_nan = 1;
        return name[1] == '3' ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    }
    for (size_t i = 0; i < NTYPES; i++)
        if (!strcmp(types[i].name, name))
            return types[i].id;
    return -1;
}

/* ---- values: element e as a double (for float types) or a 64-bit integer (for integer types),
 * with special values often enough that every chunk holds some */
static const double fspecial[] = {
    0.0,        -0.0,         0.5,           1.5,           2.5,          -0.5,        -1.5,       -1.0,
    127.0,      128.0,        255.5,         256.0,         -129.0,       32767.7,     65535.9,    65536.0,
    2147483647.0, 2147483648.0, -2147483649.0, 4294967295.0, 4294967296.0, 9.3e18,      1.9e19,     -9.3e18,
    16777217.0, 1e30,         -1e30,         DBL_MAX,       -DBL_MAX,     1e-40,       1e-310,     3.4e38,
};
static const int64_t ispecial[] = {
    0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769, 65535, 65536,
    INT32_MAX, (int64_t)INT32_MAX + 1, INT32_MIN, (int64_t)INT32_MIN - 1, (int64_t)UINT32_MAX,
    (int64_t)UINT32_MAX + 1, 16777217, (1ll << 53) + 1, INT64_MAX, INT64_MIN, INT64_MAX - 1,
};
#define NFS (sizeof(fspecial) / sizeof(*fspecial))
#define NIS (sizeof(ispecial) / sizeof(*ispecial))

static uint64_t
mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

/* Fills n elements of type t (native or not: values are made in the native type of the same
 * class and size, then converted by HDF5 itself, which is the same in both runs). */
static void
gen(hid_t t, void *buf, size_t n, size_t first, unsigned seed)
{
    H5T_class_t cls = H5Tget_class(t);
    size_t      es  = H5Tget_size(t);
    double     *d   = malloc(n * 8);
    for (size_t e = 0; e < n; e++) {
        uint64_t r = mix((first + e) * 0x9e3779b97f4a7c15ull + seed);
        if (cls == H5T_FLOAT) {
            double v;
            switch (r % 8) {
                case 0: v = fspecial[(r >> 8) % NFS]; break;
                case 1: v = (r >> 8) % 3 == 0 && !gen_no_nan ? NAN : (r >> 8) % 3 == 1 ? INFINITY : -INFINITY; break;
                default: v = ((double)(int64_t)(r >> 20) / 1024.0) * ((r & 0x10) ? -1 : 1); break;
            }
            d[e] = v;
        }
        else {
            int64_t v = r % 4 == 0 ? ispecial[(r >> 8) % NIS] : (int64_t)(r >> 3) >> ((r >> 58) & 63);
            memcpy(&d[e], &v, 8);
        }
    }
    /* From double / int64 into t, by HDF5 (saturating on overflow, which is fine for inputs). */
    hid_t  src = cls == H5T_FLOAT ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64;
    size_t bs  = es > 8 ? es : 8;
    void  *tmp = malloc(n * bs);
    memcpy(tmp, d, n * 8);
    if (cls == H5T_INTEGER) {
        /* Keep the low bytes (wrap-around), which covers negatives in unsigned types too. */
        hid_t same = H5Tget_sign(t) == H5T_SGN_2 ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64;
        for (size_t e = 0; e < n; e++) {
            uint64_t u;
            memcpy(&u, (uint8_t *)tmp + e * 8, 8);
            if (es < 8)
                u &= (1ull << (8 * es)) - 1;
            if (H5Tget_sign(t) == H5T_SGN_2 && es < 8 && (u >> (8 * es - 1)))
                u |= ~((1ull << (8 * es)) - 1); /* sign-extend */
            memcpy((uint8_t *)tmp + e * 8, &u, 8);
        }
        src = same;
    }
    ASSERT_H5(H5Tconvert(src, t, n, tmp, NULL, H5P_DEFAULT));
    memcpy(buf, tmp, n * es);
    free(tmp);
    free(d);
}

/* ---- the conversion exception callback: records the sequence of exceptions it sees, and
 * handles, passes on or aborts them by a policy */
static struct {
    int      policy; /* 0: unhandled, 1: every other one handled with a marker, 2: abort at the 3rd */
    size_t   count, dst_nbytes, src_nbytes;
    uint64_t seq;
} cb;

static H5T_conv_ret_t
except_cb(H5T_conv_except_t kind, hid_t src_id, hid_t dst_id, void *src_buf, void *dst_buf, void *user)
{
    (void)src_id;
    (void)dst_id;
    (void)user;
    cb.count++;
    cb.seq = fnv(&kind, sizeof(kind), cb.seq);
    cb.seq = fnv(src_buf, cb.src_nbytes, cb.seq);
    if (cb.policy == 1 && cb.count % 2 == 0) {
        memset(dst_buf, 0x5a, cb.dst_nbytes);
        return H5T_CONV_HANDLED;
    }
    if (cb.policy == 2 && cb.count == 3)
        return H5T_CONV_ABORT;
    return H5T_CONV_UNHANDLED;
}

/* ---- the file */
static const hsize_t dims[3]  = {5, 24, 36};
static const hsize_t chunk[3] = {2, 10, 16}; /* edge chunks along every dimension */
#define NELEM (5 * 24 * 36)

static const hsize_t whole_dims[3] = {4, 20, 32}; /* whole chunks only (write-behind takes them) */

static hid_t
create(hid_t file, const char *name, hid_t t, const char *filters, int fill_kind, const hsize_t *shape)
{
    hid_t dcpl  = H5Pcreate(H5P_DATASET_CREATE);
    hid_t space = H5Screate_simple(3, shape, NULL);
    ASSERT_H5(H5Pset_chunk(dcpl, 3, chunk));
    for (const char *f = filters; *f; f++) {
        if (*f == 's')
            ASSERT_H5(H5Pset_shuffle(dcpl));
        if (*f == 'z')
            ASSERT_H5(H5Pset_deflate(dcpl, 1));
        if (*f == 'f')
            ASSERT_H5(H5Pset_fletcher32(dcpl));
    }
    if (fill_kind == 1) { /* a fill value that overflows or is negative in narrower types */
        double fv = -70000.75;
        hid_t  ft = H5Tget_class(t) == H5T_FLOAT ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64;
        int64_t iv = -70000;
        ASSERT_H5(H5Pset_fill_value(dcpl, ft, H5Tget_class(t) == H5T_FLOAT ? (void *)&fv : (void *)&iv));
    }
    if (fill_kind == 2)
        ASSERT_H5(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER));
    hid_t d = H5Dcreate2(file, name, t, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ASSERT_H5(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    return d;
}

/* Writes the box [start, start+count) from memory type mt (values made in mt). */
static void
write_box(hid_t d, hid_t mt, const hsize_t *start, const hsize_t *count, unsigned seed, hid_t dxpl)
{
    size_t n = (size_t)(count[0] * count[1] * count[2]), es = H5Tget_size(mt);
    void  *buf = malloc(n * es);
    gen(mt, buf, n, (size_t)(start[0] * 10000 + start[1] * 100 + start[2]), seed);
    hid_t fs = H5Dget_space(d);
    hid_t ms = H5Screate_simple(3, count, NULL);
    ASSERT_H5(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
    hid_t ft      = H5Dget_type(d);
    cb.dst_nbytes = H5Tget_size(ft);
    cb.src_nbytes = es;
    H5Tclose(ft);
    ASSERT_H5(H5Dwrite(d, mt, ms, fs, dxpl, buf));
    H5Sclose(ms);
    H5Sclose(fs);
    free(buf);
}

/* Every file type: "<t>" written whole (in two calls: frames 0-2, then 3-4), "<t>_fill" with a
 * fill value and chunks left unwritten, "<t>_never" with fill time never. memtype: NULL writes
 * from the file type itself, else from that memory type (a conversion on write), and then also
 * "<t>_cb", written whole with a conversion exception callback that handles every other one, and
 * "<t>_whole", of whole chunks only, in one call. */
static int
do_write(const char *path, const char *memtype)
{
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_H5(file);
    unsigned seed = 1;
    char     name[64];
    hid_t    dx   = H5Pcreate(H5P_DATASET_XFER);
    ASSERT_H5(H5Pset_type_conv_cb(dx, except_cb, NULL));
    cb.policy = 1;
    for (size_t t = 0; t < NTYPES; t++) {
        hid_t ft = types[t].id;
        hid_t mt = memtype ? type_by_name(memtype) : ft;
        ASSERT(mt >= 0);
        for (int kind = 0; kind < (memtype ? 5 : 3); kind++) {
            static const char *suffix[] = {"", "_fill", "_never", "_cb", "_whole"};
            snprintf(name, sizeof(name), "%s%s", types[t].name, suffix[kind]);
            hid_t d = create(file, name, ft, kind == 1 || kind == 2 ? "sz" : "szf", kind >= 3 ? 0 : kind,
                             kind == 4 ? whole_dims : dims);
            hid_t x = kind == 3 ? dx : H5P_DEFAULT;
            if (kind == 4)
                write_box(d, mt, (hsize_t[]){0, 0, 0}, whole_dims, seed++, x);
            else if (kind == 0 || kind == 3) {
                write_box(d, mt, (hsize_t[]){0, 0, 0}, (hsize_t[]){3, 24, 36}, seed++, x);
                write_box(d, mt, (hsize_t[]){3, 0, 0}, (hsize_t[]){2, 24, 36}, seed++, x);
            }
            else { /* chunks (0, *, *) and part of (2, 1, *): the rest stays unallocated */
                write_box(d, mt, (hsize_t[]){0, 0, 0}, (hsize_t[]){2, 24, 36}, seed++, x);
                write_box(d, mt, (hsize_t[]){4, 10, 0}, (hsize_t[]){1, 10, 36}, seed++, x);
            }
            H5Dclose(d);
        }
    }
    H5Pclose(dx);
    H5Fclose(file);
    return 0;
}

/* ---- selections of a read: file space and memory space; the memory buffer holds mem_nelem */
typedef struct sel {
    const char *name;
    hid_t       fs, ms;
    size_t      mem_nelem;
} sel_t;

static hid_t
box_space(int rank, const hsize_t *d, const hsize_t *start, const hsize_t *stride, const hsize_t *count,
          const hsize_t *block)
{
    hid_t s = H5Screate_simple(rank, d, NULL);
    ASSERT_H5(H5Sselect_hyperslab(s, H5S_SELECT_SET, start, stride, count, block));
    return s;
}

static int
make_sels(sel_t *s)
{
    int n = 0;
    s[n++] = (sel_t){"all", H5S_ALL, H5S_ALL, NELEM};
    /* A box cutting chunks, into a dense buffer of its shape. */
    s[n++] = (sel_t){"box", box_space(3, dims, (hsize_t[]){1, 3, 5}, NULL, (hsize_t[]){3, 18, 28}, NULL),
                     H5Screate_simple(3, (hsize_t[]){3, 18, 28}, NULL), 3 * 18 * 28};
    /* One frame, into a 2-D buffer. */
    s[n++] = (sel_t){"frame", box_space(3, dims, (hsize_t[]){4, 0, 0}, NULL, (hsize_t[]){1, 24, 36}, NULL),
                     H5Screate_simple(2, (hsize_t[]){24, 36}, NULL), 24 * 36};
    /* A box into a box of a larger buffer (memory strides differ from the file's). */
    s[n++] = (sel_t){"inbig", box_space(3, dims, (hsize_t[]){0, 8, 8}, NULL, (hsize_t[]){5, 12, 20}, NULL),
                     box_space(3, (hsize_t[]){6, 14, 30}, (hsize_t[]){1, 1, 3}, NULL, (hsize_t[]){5, 12, 20}, NULL),
                     6 * 14 * 30};
    /* A region of interest of every frame (cuts every chunk). */
    s[n++] = (sel_t){"roi", box_space(3, dims, (hsize_t[]){0, 0, 4}, NULL, (hsize_t[]){5, 8, 9}, NULL),
                     H5Screate_simple(3, (hsize_t[]){5, 8, 9}, NULL), 5 * 8 * 9};
    /* Every other frame, whole. */
    s[n++] = (sel_t){"frames/2", box_space(3, dims, (hsize_t[]){0, 0, 0}, (hsize_t[]){2, 1, 1}, (hsize_t[]){3, 1, 1},
                                           (hsize_t[]){1, 24, 36}),
                     H5Screate_simple(3, (hsize_t[]){3, 24, 36}, NULL), 3 * 24 * 36};
    /* Strided along every dimension, into a dense buffer and into one shaped like the dataset. */
    s[n++] = (sel_t){"strided", box_space(3, dims, (hsize_t[]){1, 2, 1}, (hsize_t[]){3, 5, 4}, (hsize_t[]){2, 4, 8}, NULL),
                     H5Screate_simple(1, (hsize_t[]){2 * 4 * 8}, NULL), 2 * 4 * 8};
    s[n++] = (sel_t){"strided/all",
                     box_space(3, dims, (hsize_t[]){0, 1, 3}, (hsize_t[]){2, 7, 11}, (hsize_t[]){3, 3, 3}, NULL), H5S_ALL,
                     NELEM};
    /* Points in no order, some twice, some in chunks never written (fill values). */
    enum { NPT = 60 };
    hsize_t pts[NPT * 3];
    for (int i = 0; i < NPT; i++) {
        uint64_t r      = mix((uint64_t)i * 77 + 5);
        pts[i * 3 + 0]  = r % dims[0];
        pts[i * 3 + 1]  = (r >> 8) % dims[1];
        pts[i * 3 + 2]  = (r >> 16) % dims[2];
        if (i % 10 == 9) /* the same point as 3 before */
            memcpy(&pts[i * 3], &pts[(i - 3) * 3], sizeof(hsize_t) * 3);
    }
    hid_t fp = H5Screate_simple(3, dims, NULL);
    ASSERT_H5(H5Sselect_elements(fp, H5S_SELECT_SET, NPT, pts));
    s[n++]   = (sel_t){"points", fp, H5Screate_simple(1, (hsize_t[]){NPT}, NULL), NPT};
    hid_t fp2 = H5Scopy(fp);
    s[n++]    = (sel_t){"points/all", fp2, H5S_ALL, NELEM};
    hid_t fp3 = H5Scopy(fp);
    s[n++]    = (sel_t){"points/row", fp3, box_space(2, (hsize_t[]){3, NPT}, (hsize_t[]){1, 0}, NULL, (hsize_t[]){1, NPT}, NULL),
                     3 * NPT};
    /* The same points grouped by chunk, the groups in chunk order (taken as given, without a
     * sort), into a dense buffer and one shaped like the dataset; and a box inside one chunk
     * listed into a memory selection that is not one box (grouped too). */
    hsize_t gpts[NPT * 3];
    memcpy(gpts, pts, sizeof(pts));
    for (int i = 1; i < NPT; i++) /* insertion sort by chunk, stable */
        for (int j = i; j > 0; j--) {
            hsize_t a[3], b[3];
            for (int d = 0; d < 3; d++) {
                a[d] = gpts[(j - 1) * 3 + d] / chunk[d];
                b[d] = gpts[j * 3 + d] / chunk[d];
            }
            if (a[0] != b[0] ? a[0] < b[0] : a[1] != b[1] ? a[1] < b[1] : a[2] <= b[2])
                break;
            hsize_t t[3];
            memcpy(t, &gpts[j * 3], sizeof(t));
            memcpy(&gpts[j * 3], &gpts[(j - 1) * 3], sizeof(t));
            memcpy(&gpts[(j - 1) * 3], t, sizeof(t));
        }
    hid_t gp = H5Screate_simple(3, dims, NULL);
    ASSERT_H5(H5Sselect_elements(gp, H5S_SELECT_SET, NPT, gpts));
    s[n++] = (sel_t){"points/grouped", gp, H5Screate_simple(1, (hsize_t[]){NPT}, NULL), NPT};
    s[n++] = (sel_t){"points/grouped/all", H5Scopy(gp), H5S_ALL, NELEM};
    s[n++] = (sel_t){"chunkbox/memstrided", box_space(3, dims, (hsize_t[]){2, 10, 16}, NULL, (hsize_t[]){2, 10, 16}, NULL),
                     box_space(1, (hsize_t[]){2 * 2 * 10 * 16}, (hsize_t[]){1}, (hsize_t[]){2}, (hsize_t[]){2 * 10 * 16},
                               NULL),
                     2 * 2 * 10 * 16};
    /* Unions of blocks (H5S_SELECT_OR: overlapping, crossing chunks, rows interleaved in
     * row-major order) and a XOR, into a dense buffer, into one shaped like the dataset, and into
     * a union-shaped memory selection of the same size. */
    hid_t un = box_space(3, dims, (hsize_t[]){0, 2, 3}, NULL, (hsize_t[]){3, 10, 7}, NULL);
    ASSERT_H5(H5Sselect_hyperslab(un, H5S_SELECT_OR, (hsize_t[]){1, 6, 20}, NULL, (hsize_t[]){4, 9, 12}, NULL));
    ASSERT_H5(H5Sselect_hyperslab(un, H5S_SELECT_OR, (hsize_t[]){2, 5, 8}, NULL, (hsize_t[]){2, 4, 16}, NULL));
    hssize_t unn = H5Sget_select_npoints(un);
    s[n++]       = (sel_t){"union", un, H5Screate_simple(1, (hsize_t[]){(hsize_t)unn}, NULL), (size_t)unn};
    s[n++]       = (sel_t){"union/all", H5Scopy(un), H5S_ALL, NELEM};
    hid_t mun    = box_space(2, (hsize_t[]){40, 40}, (hsize_t[]){0, 0}, NULL, (hsize_t[]){1, (hsize_t)unn % 40}, NULL);
    ASSERT_H5(H5Sselect_hyperslab(mun, H5S_SELECT_OR, (hsize_t[]){2, 0}, (hsize_t[]){2, 1},
                                  (hsize_t[]){(hsize_t)unn / 40, 1}, (hsize_t[]){1, 40}));
    ASSERT_EQ(H5Sget_select_npoints(mun), unn);
    s[n++]    = (sel_t){"union/memunion", H5Scopy(un), mun, 40 * 40};
    hid_t xr  = box_space(3, dims, (hsize_t[]){1, 0, 0}, NULL, (hsize_t[]){3, 20, 20}, NULL);
    ASSERT_H5(H5Sselect_hyperslab(xr, H5S_SELECT_XOR, (hsize_t[]){2, 5, 5}, NULL, (hsize_t[]){3, 10, 25}, NULL));
    hssize_t xrn = H5Sget_select_npoints(xr);
    s[n++]       = (sel_t){"xor", xr, H5Screate_simple(1, (hsize_t[]){(hsize_t)xrn}, NULL), (size_t)xrn};
    /* Unions planned from their boxes: two boxes sharing rows in different chunks along the last
     * dimension, into a box of a larger 2-D buffer (its rows are not the file's: runs split);
     * blocks repeated with gaps (a regular hyperslab with blocks) into a buffer shaped like the
     * dataset; boxes reaching into the edge chunks; a checkerboard of 60 small boxes; and a union
     * moved by H5Soffset_simple (its block list leaves the offset out). */
    hid_t u2 = box_space(3, dims, (hsize_t[]){0, 2, 0}, NULL, (hsize_t[]){5, 8, 6}, NULL);
    ASSERT_H5(H5Sselect_hyperslab(u2, H5S_SELECT_OR, (hsize_t[]){0, 2, 20}, NULL, (hsize_t[]){5, 8, 6}, NULL));
    s[n++] = (sel_t){"union/inbig", u2,
                     box_space(2, (hsize_t[]){22, 30}, (hsize_t[]){1, 3}, NULL, (hsize_t[]){20, 24}, NULL), 22 * 30};
    s[n++] = (sel_t){"blocks/all",
                     box_space(3, dims, (hsize_t[]){0, 1, 2}, (hsize_t[]){2, 4, 5}, (hsize_t[]){3, 5, 7},
                               (hsize_t[]){1, 3, 2}),
                     H5S_ALL, NELEM};
    hid_t ue = box_space(3, dims, (hsize_t[]){1, 6, 20}, NULL, (hsize_t[]){4, 9, 12}, NULL);
    ASSERT_H5(H5Sselect_hyperslab(ue, H5S_SELECT_OR, (hsize_t[]){3, 18, 30}, NULL, (hsize_t[]){2, 6, 6}, NULL));
    hssize_t uen = H5Sget_select_npoints(ue);
    s[n++]       = (sel_t){"union/edge", ue, H5Screate_simple(1, (hsize_t[]){(hsize_t)uen}, NULL), (size_t)uen};
    hid_t ck     = box_space(3, dims, (hsize_t[]){0, 0, 0}, NULL, (hsize_t[]){1, 2, 3}, NULL);
    for (int i = 1; i < 60; i++) {
        hsize_t st[3] = {(hsize_t)(i % 5), (hsize_t)((i * 7) % 11) * 2, (hsize_t)((i * 5) % 12) * 3};
        ASSERT_H5(H5Sselect_hyperslab(ck, H5S_SELECT_OR, st, NULL, (hsize_t[]){1, 2, 3}, NULL));
    }
    hssize_t ckn = H5Sget_select_npoints(ck);
    s[n++]       = (sel_t){"checker", ck, H5Screate_simple(1, (hsize_t[]){(hsize_t)ckn}, NULL), (size_t)ckn};
    hid_t uo     = H5Scopy(un);
    ASSERT_H5(H5Soffset_simple(uo, (hssize_t[]){0, 1, 2}));
    s[n++] = (sel_t){"union/offset", uo, H5Screate_simple(1, (hsize_t[]){(hsize_t)unn}, NULL), (size_t)unn};
    /* A regular hyperslab and points moved by H5Soffset_simple (their patterns and lists leave
     * the offset out), and a strided memory selection moved too. */
    hid_t so = box_space(3, dims, (hsize_t[]){0, 2, 1}, (hsize_t[]){2, 5, 4}, (hsize_t[]){2, 3, 6}, NULL);
    ASSERT_H5(H5Soffset_simple(so, (hssize_t[]){1, 1, 3}));
    s[n++]    = (sel_t){"strided/offset", so, H5Screate_simple(1, (hsize_t[]){2 * 3 * 6}, NULL), 2 * 3 * 6};
    hid_t po  = box_space(3, dims, (hsize_t[]){0, 0, 0}, NULL, (hsize_t[]){1, 1, 1}, NULL);
    hsize_t opts[4 * 3] = {0, 0, 0, 1, 5, 7, 2, 9, 20, 0, 3, 3};
    ASSERT_H5(H5Sselect_elements(po, H5S_SELECT_SET, 4, opts));
    ASSERT_H5(H5Soffset_simple(po, (hssize_t[]){2, 4, 6}));
    s[n++]    = (sel_t){"points/offset", po, H5Screate_simple(1, (hsize_t[]){4}, NULL), 4};
    hid_t mso = box_space(1, (hsize_t[]){3 * 2 * 4 * 8}, (hsize_t[]){0}, (hsize_t[]){3}, (hsize_t[]){2 * 4 * 8}, NULL);
    ASSERT_H5(H5Soffset_simple(mso, (hssize_t[]){1}));
    s[n++] = (sel_t){"strided/memoffset",
                     box_space(3, dims, (hsize_t[]){1, 2, 1}, (hsize_t[]){3, 5, 4}, (hsize_t[]){2, 4, 8}, NULL), mso,
                     3 * 2 * 4 * 8};
    /* A box and points into memory selections that are not one box (every third element). */
    s[n++] = (sel_t){"box/memstrided", box_space(3, dims, (hsize_t[]){1, 3, 5}, NULL, (hsize_t[]){3, 18, 28}, NULL),
                     box_space(1, (hsize_t[]){3 * 3 * 18 * 28}, (hsize_t[]){2}, (hsize_t[]){3}, (hsize_t[]){3 * 18 * 28},
                               NULL),
                     3 * 3 * 18 * 28};
    s[n++] = (sel_t){"points/memstrided", H5Scopy(fp),
                     box_space(1, (hsize_t[]){3 * NPT}, (hsize_t[]){1}, (hsize_t[]){3}, (hsize_t[]){NPT}, NULL), 3 * NPT};
    /* A region of interest into blocks with gaps: rows of 9 into every other block of 9 (a 1-D
     * buffer), frames of 8x9 into blocks of 72 100 apart (moved by H5Soffset_simple), and every
     * other frame's rows into the blocks of the last row of a 2-D buffer. */
    s[n++] = (sel_t){"roi/gapped", box_space(3, dims, (hsize_t[]){0, 0, 4}, NULL, (hsize_t[]){5, 8, 9}, NULL),
                     box_space(1, (hsize_t[]){2 * 5 * 8 * 9}, (hsize_t[]){3}, (hsize_t[]){18}, (hsize_t[]){5 * 8},
                               (hsize_t[]){9}),
                     2 * 5 * 8 * 9};
    hid_t go = box_space(1, (hsize_t[]){600}, (hsize_t[]){0}, (hsize_t[]){100}, (hsize_t[]){5}, (hsize_t[]){72});
    ASSERT_H5(H5Soffset_simple(go, (hssize_t[]){7}));
    s[n++] = (sel_t){"roi/gapped2", box_space(3, dims, (hsize_t[]){0, 3, 20}, NULL, (hsize_t[]){5, 8, 9}, NULL), go,
                     600};
    s[n++] = (sel_t){"frames/gapped",
                     box_space(3, dims, (hsize_t[]){0, 0, 0}, (hsize_t[]){2, 1, 1}, (hsize_t[]){3, 24, 36},
                               (hsize_t[]){1, 1, 1}),
                     box_space(2, (hsize_t[]){2, 3 * 24 * 40}, (hsize_t[]){1, 2}, (hsize_t[]){1, 40},
                               (hsize_t[]){1, 3 * 24}, (hsize_t[]){1, 36}),
                     2 * 3 * 24 * 40};
    return n;
}

static void
close_sels(sel_t *s, int n)
{
    for (int i = 0; i < n; i++) {
        if (s[i].fs != H5S_ALL)
            H5Sclose(s[i].fs);
        if (s[i].ms != H5S_ALL)
            H5Sclose(s[i].ms);
    }
}

/* One read: prints name, memory type, selection, transfer list, result and the hash of the
 * whole buffer (pre-set to a pattern, so that what a read leaves alone counts too). */
static void
read_one(hid_t d, const char *dname, hid_t mt, const char *mtname, const sel_t *s, hid_t dxpl, const char *xname)
{
    size_t   es  = H5Tget_size(mt);
    size_t   nb  = s->mem_nelem * es;
    uint8_t *buf = malloc(nb);
    memset(buf, 0xa5, nb);
    cb.count      = 0;
    cb.seq        = 14695981039346656037ull;
    cb.dst_nbytes = es;
    hid_t ft      = H5Dget_type(d);
    cb.src_nbytes = H5Tget_size(ft);
    H5Tclose(ft);
    herr_t r;
    H5E_BEGIN_TRY { r = H5Dread(d, mt, s->ms, s->fs, dxpl, buf); }
    H5E_END_TRY
    printf("%s %s %s %s ret=%d cb=%zu/%016llx %016llx\n", dname, mtname, s->name, xname, r < 0 ? -1 : 0, cb.count,
           (unsigned long long)cb.seq, (unsigned long long)fnv(buf, nb, 14695981039346656037ull));
    free(buf);
}

static int
do_read(const char *path)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_H5(file);
    sel_t sels[32];
    int   nsel = make_sels(sels);
    hid_t dx[3];
    for (int k = 0; k < 3; k++) {
        dx[k] = H5Pcreate(H5P_DATASET_XFER);
        ASSERT_H5(H5Pset_type_conv_cb(dx[k], except_cb, NULL));
    }
    char name[64];
    for (size_t t = 0; t < NTYPES; t++)
        for (int kind = 0; kind < 3; kind++) {
            snprintf(name, sizeof(name), "%s%s", types[t].name, kind == 0 ? "" : kind == 1 ? "_fill" : "_never");
            hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
            ASSERT_H5(d);
            for (size_t m = 0; m < NTYPES; m++)
                for (int s = 0; s < nsel; s++) {
                    cb.policy = 0;
                    read_one(d, name, types[m].id, types[m].name, &sels[s], H5P_DEFAULT, "dflt");
                    /* The exception callback: on every selection of the whole datasets, on the
                     * full read of the others. */
                    if (kind == 0 || s == 0)
                        for (int k = 0; k < 3; k++) {
                            cb.policy = k;
                            read_one(d, name, types[m].id, types[m].name, &sels[s], dx[k],
                                     k == 0 ? "cb-pass" : k == 1 ? "cb-handle" : "cb-abort");
                        }
                }
            H5Dclose(d);
        }
    for (int k = 0; k < 3; k++)
        H5Pclose(dx[k]);
    close_sels(sels, nsel);
    H5Fclose(file);
    return 0;
}

/* Every dataset, read whole in its own type (no conversion), by name order. */
static herr_t
dump_one(hid_t g, const char *name, const H5L_info2_t *info, void *data)
{
    (void)info;
    (void)data;
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    ASSERT_H5(d);
    hid_t    t  = H5Dget_type(d);
    hid_t    sp = H5Dget_space(d);
    size_t   nb = (size_t)H5Sget_select_npoints(sp) * H5Tget_size(t);
    H5Sclose(sp);
    uint8_t *buf = malloc(nb);
    memset(buf, 0xa5, nb);
    ASSERT_H5(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    printf("%s %016llx\n", name, (unsigned long long)fnv(buf, nb, 14695981039346656037ull));
    free(buf);
    H5Tclose(t);
    H5Dclose(d);
    return 0;
}

/* H5Dread_multi of four datasets (conversions, a box, strides, points), then H5Dwrite_multi of
 * three new datasets (from float32, same type, strided: the pipeline takes some, not all). */
static int
do_multi(const char *path)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_H5(file);
    sel_t sels[32];
    int   nsel = make_sels(sels);
    static const char *names[4] = {"u8", "u32", "f64", "i16_fill"};
    static const char *mnames[4] = {"u32", "f32", "i16", "f64"};
    static const int    which[4][4] = {{0, 0, 0, 0}, {1, 4, 5, 8}, {6, 8, 9, 4}, {7, 9, 7, 0}};
    for (int round = 0; round < 4; round++) {
        hid_t  d[4], mt[4], ms[4], fs[4];
        void  *buf[4];
        size_t nb[4];
        for (int k = 0; k < 4; k++) {
            d[k]  = H5Dopen2(file, names[k], H5P_DEFAULT);
            mt[k] = type_by_name(mnames[k]);
            ASSERT_H5(d[k]);
            const sel_t *s = &sels[which[round][k] % nsel];
            ms[k]          = s->ms;
            fs[k]          = s->fs;
            nb[k]          = s->mem_nelem * H5Tget_size(mt[k]);
            buf[k]         = malloc(nb[k]);
            memset(buf[k], 0xa5, nb[k]);
        }
        ASSERT_H5(H5Dread_multi(4, d, mt, ms, fs, H5P_DEFAULT, buf));
        for (int k = 0; k < 4; k++) {
            printf("multi %d %s %s %016llx\n", round, names[k], mnames[k],
                   (unsigned long long)fnv(buf[k], nb[k], 14695981039346656037ull));
            free(buf[k]);
            H5Dclose(d[k]);
        }
    }
    /* Writes: dw0 from float32 (converted), dw1 same type, dw2 every other frame (forwarded). */
    hid_t  d[3] = {create(file, "mw_u8", H5T_NATIVE_UINT8, "szf", 0, dims),
                   create(file, "mw_u32", H5T_NATIVE_UINT32, "sz", 0, dims),
                   create(file, "mw_i16", H5T_NATIVE_INT16, "szf", 1, dims)};
    hid_t  mt[3] = {H5T_NATIVE_FLOAT, H5T_NATIVE_UINT32, H5T_NATIVE_INT16};
    hid_t  ms[3] = {H5S_ALL, H5S_ALL, sels[5].ms};
    hid_t  fs[3] = {H5S_ALL, H5S_ALL, sels[5].fs};
    size_t n[3]  = {NELEM, NELEM, sels[5].mem_nelem};
    void  *buf[3];
    for (int k = 0; k < 3; k++) {
        buf[k] = malloc(n[k] * H5Tget_size(mt[k]));
        gen(mt[k], buf[k], n[k], 0, 40u + (unsigned)k);
    }
    ASSERT_H5(H5Dwrite_multi(3, d, mt, ms, fs, H5P_DEFAULT, (const void **)buf));
    for (int k = 0; k < 3; k++) {
        free(buf[k]);
        H5Dclose(d[k]);
    }
    close_sels(sels, nsel);
    H5Fclose(file);
    return 0;
}

/* H5Dread_multi of many datasets at once (the pipeline runs the datasets it takes as one set):
 * 40 rounds of 2-12 datasets drawn from the file's (every type, with fill values, never filled),
 * each with its own selection and memory type (its own, double,
 * or any other: conversions the workers do and ones H5Tconvert does), buffers prefilled; every
 * fifth round under a conversion exception callback (its count and sequence printed: the
 * datasets' exceptions come one dataset after another). One hash per dataset read. `ro`: the
 * file opened read-only (the decoders pread the chunks), `rw`: for writing (this thread reads them),
 * and then H5Dwrite_multi of 12 new datasets at once (see below). */
static int
do_multiset(const char *path, int rw)
{
    hid_t file = H5Fopen(path, rw ? H5F_ACC_RDWR : H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_H5(file);
    sel_t sels[32];
    int   nsel = make_sels(sels);
    hid_t dx   = H5Pcreate(H5P_DATASET_XFER);
    ASSERT_H5(H5Pset_type_conv_cb(dx, except_cb, NULL));
    static const char *suffix[] = {"", "_fill", "_never"};
    enum { MAXK = 12 };
    for (int round = 0; round < 40; round++) {
        uint64_t r = mix((uint64_t)round * 131 + 7);
        int      k = 2 + (int)(r % (MAXK - 1));
        hid_t    d[MAXK], mt[MAXK], ms[MAXK], fs[MAXK];
        void    *buf[MAXK];
        size_t   nb[MAXK];
        char     names[MAXK][32], mnames[MAXK][16];
        hid_t    xfer = round % 5 == 4 ? dx : H5P_DEFAULT;
        for (int i = 0; i < k; i++) {
            uint64_t q = mix(r + (uint64_t)i * 0x9e3779b9ull);
            /* (Each dataset once: native refuses one named twice, "can't insert duplicate key".) */
            for (uint64_t t = q % NTYPES, dup = 1; dup; t = (t + 1) % NTYPES) {
                snprintf(names[i], sizeof(names[i]), "%s%s", types[t].name, suffix[(q >> 8) % 3]);
                dup = 0;
                for (int e = 0; e < i; e++)
                    dup |= !strcmp(names[e], names[i]);
            }
            d[i] = H5Dopen2(file, names[i], H5P_DEFAULT);
            ASSERT_H5(d[i]);
            int how = (int)((q >> 16) % 4);
            if (how < 2) { /* its own type */
                hid_t ft = H5Dget_type(d[i]);
                mt[i]    = -1;
                for (size_t t = 0; t < NTYPES && mt[i] < 0; t++)
                    if (H5Tequal(ft, types[t].id) > 0) {
                        mt[i] = types[t].id;
                        snprintf(mnames[i], sizeof(mnames[i]), "%s", types[t].name);
                    }
                H5Tclose(ft);
                ASSERT(mt[i] >= 0);
            }
            else {
                size_t t = how == 2 ? 9 /* f64 */ : (size_t)((q >> 20) % NTYPES);
                mt[i]    = types[t].id;
                snprintf(mnames[i], sizeof(mnames[i]), "%s", types[t].name);
            }
            const sel_t *s = &sels[(q >> 32) % (uint64_t)nsel];
            ms[i]          = s->ms;
            fs[i]          = s->fs;
            nb[i]          = s->mem_nelem * H5Tget_size(mt[i]);
            buf[i]         = malloc(nb[i]);
            memset(buf[i], 0xa5, nb[i]);
        }
        /* (The callback hashes and marks one byte of each element: sizes differ by dataset.) */
        cb.policy     = 1;
        cb.count      = 0;
        cb.seq        = 0;
        cb.src_nbytes = cb.dst_nbytes = 1;
        ASSERT_H5(H5Dread_multi((size_t)k, d, mt, ms, fs, xfer, buf));
        for (int i = 0; i < k; i++) {
            printf("set %d %s %s %016llx\n", round, names[i], mnames[i],
                   (unsigned long long)fnv(buf[i], nb[i], 14695981039346656037ull));
            free(buf[i]);
            H5Dclose(d[i]);
        }
        if (xfer == dx)
            printf("set %d cb count=%zu seq=%016llx\n", round, cb.count, (unsigned long long)cb.seq);
    }
    /* One dataset named twice (one handle twice, two handles of it): native refuses the read
     * (a key it cannot insert twice), and so must the connector, whatever the pipeline could do. */
    for (int twice = 0; twice < 2; twice++) {
        hid_t  d[2] = {H5Dopen2(file, "u16", H5P_DEFAULT), -1};
        hid_t  mt[2] = {H5T_NATIVE_UINT16, H5T_NATIVE_UINT16}, sp[2] = {H5S_ALL, H5S_ALL};
        void  *buf[2] = {malloc(NELEM * 2), malloc(NELEM * 2)};
        d[1]          = twice ? H5Dopen2(file, "u16", H5P_DEFAULT) : d[0];
        herr_t ret;
        H5E_BEGIN_TRY { ret = H5Dread_multi(2, d, mt, sp, sp, H5P_DEFAULT, buf); }
        H5E_END_TRY
        printf("twice %d ret=%d\n", twice, ret < 0 ? -1 : 0);
        free(buf[0]);
        free(buf[1]);
        H5Dclose(d[0]);
        if (twice)
            H5Dclose(d[1]);
    }
    /* rw: H5Dwrite_multi of 12 new datasets at once (every filter set, some from float32 or
     * double, one contiguous), four rounds: frames 0-2, frames 2-4 (the last chunk new and
     * partial), a box over written chunks with partial ones at its edge (read-modify-write), a
     * strided selection that covers no chunk whole (native's); read back by `dump`. */
    enum { NW = 12 };
    static const char *wtype[NW] = {"u8", "u16", "i32", "f32", "f64", "u64", "i16", "u32", "i8", "f32", "u16be", "u8"};
    static const char *wmem[NW]  = {"u8", "f32nonan", "i32", "f64", "f64", "u64", "f64nonan", "u32", "i8", "f32", "u16", "u8"};
    hid_t              wd[NW], wmt[NW];
    for (int i = 0; rw && i < NW; i++) {
        char name[32];
        snprintf(name, sizeof(name), "mset%02d", i);
        if (i == NW - 1) { /* contiguous: not the pipeline's */
            hid_t sp = H5Screate_simple(3, dims, NULL);
            wd[i]    = H5Dcreate2(file, name, type_by_name(wtype[i]), sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            H5Sclose(sp);
        }
        else
            wd[i] = create(file, name, type_by_name(wtype[i]), i % 3 == 0 ? "szf" : i % 3 == 1 ? "sz" : "z", i % 2, dims);
        ASSERT_H5(wd[i]);
        wmt[i] = type_by_name(wmem[i]);
    }
    for (int round = 0; rw && round < 4; round++) {
        hid_t   fsp = H5Screate_simple(3, dims, NULL), msp;
        size_t  nelem;
        hsize_t start[3] = {round == 1 ? 2u : 0u, 0, 0};
        hsize_t count[3] = {round == 2 ? 4u : 3u, round == 2 ? 20u : 24u, 36};
        if (round < 3) {
            ASSERT_H5(H5Sselect_hyperslab(fsp, H5S_SELECT_SET, start, NULL, count, NULL));
            nelem = (size_t)(count[0] * count[1] * count[2]);
        }
        else {
            ASSERT_H5(H5Sselect_hyperslab(fsp, H5S_SELECT_SET, (hsize_t[]){0, 1, 0}, (hsize_t[]){2, 3, 1},
                                          (hsize_t[]){3, 8, 36}, (hsize_t[]){1, 1, 1}));
            nelem = 3 * 8 * 36;
        }
        msp = H5Screate_simple(1, (hsize_t[]){nelem}, NULL);
        hid_t ms[NW], fs[NW];
        void *buf[NW];
        for (int i = 0; i < NW; i++) {
            ms[i]  = msp;
            fs[i]  = fsp;
            buf[i] = malloc(nelem * H5Tget_size(wmt[i]));
            gen(wmt[i], buf[i], nelem, (size_t)round * 1000, 70u + (unsigned)(i + 16 * round));
        }
        ASSERT_H5(H5Dwrite_multi(NW, wd, wmt, ms, fs, H5P_DEFAULT, (const void **)buf));
        for (int i = 0; i < NW; i++)
            free(buf[i]);
        H5Sclose(msp);
        H5Sclose(fsp);
    }
    for (int i = 0; rw && i < NW; i++)
        H5Dclose(wd[i]);
    H5Pclose(dx);
    close_sels(sels, nsel);
    H5Fclose(file);
    return 0;
}

int
main(int argc, char **argv)
{
    init_types();
    if (argc >= 3 && !strcmp(argv[1], "write"))
        return do_write(argv[2], argc >= 4 ? argv[3] : NULL);
    if (argc == 3 && !strcmp(argv[1], "read"))
        return do_read(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "multi"))
        return do_multi(argv[2]);
    if (argc == 4 && !strcmp(argv[1], "multiset"))
        return do_multiset(argv[2], !strcmp(argv[3], "rw"));
    if (argc == 3 && !strcmp(argv[1], "dump")) {
        hid_t file = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
        ASSERT_H5(file);
        ASSERT_H5(H5Literate2(file, H5_INDEX_NAME, H5_ITER_INC, NULL, dump_one, NULL));
        H5Fclose(file);
        return 0;
    }
    fprintf(stderr, "usage: %s write FILE [MEMTYPE] | read FILE | dump FILE | multi FILE | multiset FILE ro|rw\n", argv[0]);
    return 2;
}
