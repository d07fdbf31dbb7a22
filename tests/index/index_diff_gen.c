/* index_diff_gen.c — the generator scenario of the index's differential test: `gen DIR SEED`
 * builds DIR/tree.h5, a random tree (symbol-table, compact and dense groups, one wider than the
 * index lists at a first look-up, creation order tracked or not, groups' attributes in their
 * header or dense, their creation order tracked, indexed or not, hard links to one object by
 * several paths, soft, dangling and external links, datasets, committed datatypes, attributes,
 * and small datasets of every kind: numeric of both byte orders, strings, compound, array, enum,
 * opaque, references, variable-length, null, scalar, 1-D and 2-D spaces, contiguous, compact,
 * chunked with filters, external, unwritten, of committed types, 4 KiB and just over),
 * DIR/paths.txt listing its paths and DIR/tree_ext.bin holding external raw data; and the random
 * values datasets are written with. */
#include "index_diff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What building one tree holds beyond the run's state. */
typedef struct gen {
    ixd_t     *run;
    ixd_pool_t pool;    /* the variable-length parts of the dataset being written */
    hsize_t    ext_off; /* where the next external dataset starts in tree_ext.bin */
} gen_t;

/* ------------------------------------------------------------------ groups and attributes */
hid_t
ixd_random_gcpl(ixd_t *run, int *kind_out)
{
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    int   kind = (int)ixd_rnd(run, 5);
    switch (kind) {
        case 0: /* symbol table (default, earliest format) */
            break;
        case 1: /* compact, creation order tracked */
            H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED);
            break;
        case 2: /* compact, tracked + indexed */
            H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
            break;
        case 3: /* dense, tracked + indexed */
            H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
            H5Pset_link_phase_change(gcpl, 0, 0);
            break;
        default: /* dense, tracked, not indexed */
            H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED);
            H5Pset_link_phase_change(gcpl, 0, 0);
            break;
    }
    /* The group's attributes: creation order not tracked, tracked, tracked and indexed, in its
     * header or in dense storage (where native order by creation order is the index's, or
     * without one the name index's). */
    switch (ixd_rnd(run, 5)) {
        case 1: H5Pset_attr_creation_order(gcpl, H5P_CRT_ORDER_TRACKED); break;
        case 2: H5Pset_attr_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED); break;
        case 3:
            H5Pset_attr_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
            H5Pset_attr_phase_change(gcpl, 0, 0);
            break;
        case 4: H5Pset_attr_phase_change(gcpl, 0, 0); break;
        default: break;
    }
    *kind_out = kind;
    return gcpl;
}

static void
add_attrs(ixd_t *run, hid_t obj)
{
    int na = (int)ixd_rnd(run, 4);
    for (int i = 0; i < na; i++) {
        char  name[32];
        hid_t s = H5Screate(H5S_SCALAR);
        snprintf(name, sizeof(name), "attr%d", i);
        hid_t a = H5Acreate2(obj, name, H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT);
        int   v = i;
        H5Awrite(a, H5T_NATIVE_INT, &v);
        H5Aclose(a);
        H5Sclose(s);
    }
    /* NeXus-like and other kinds the index caches or not: a fixed-length string, a small array,
     * one too large to cache, a variable-length string, a compound, a dimension scales' list of
     * object references (DIMENSION_LIST's type: sequences of H5T_STD_REF_OBJ, some empty). */
    int kinds = (int)ixd_rnd(run, 64);
    if (kinds & 1) {
        hid_t s = H5Screate(H5S_SCALAR), t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, 7 + ixd_rnd(run, 3));
        hid_t a = H5Acreate2(obj, "NX_class", t, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, t, "NXentry\0\0");
        H5Aclose(a), H5Tclose(t), H5Sclose(s);
    }
    if (kinds & 2) {
        hsize_t dims = 5;
        double  v[5] = {1.5, -2, 3.25, 1e300, (double)ixd_rnd(run, 100)};
        hid_t   s = H5Screate_simple(1, &dims, NULL);
        hid_t   a = H5Acreate2(obj, "vec", H5T_IEEE_F64BE, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_DOUBLE, v);
        H5Aclose(a), H5Sclose(s);
    }
    if (kinds & 4) {
        hsize_t dims = 100;
        int     v[100];
        for (int i = 0; i < 100; i++)
            v[i] = i * 3;
        hid_t s = H5Screate_simple(1, &dims, NULL);
        hid_t a = H5Acreate2(obj, "big", H5T_STD_I32LE, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, H5T_NATIVE_INT, v);
        H5Aclose(a), H5Sclose(s);
    }
    if (kinds & 8) {
        hid_t       s = H5Screate(H5S_SCALAR), t = H5Tcopy(H5T_C_S1);
        const char *v = "variable";
        H5Tset_size(t, H5T_VARIABLE);
        hid_t a = H5Acreate2(obj, "vstr", t, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, t, &v);
        H5Aclose(a), H5Tclose(t), H5Sclose(s);
    }
    if (kinds & 16) {
        struct {
            int    i;
            double d;
        } v;
        memset(&v, 0, sizeof(v)); /* no indeterminate padding bytes in the file */
        v.i = 7, v.d = 0.5;
        hid_t t   = H5Tcreate(H5T_COMPOUND, sizeof(v));
        H5Tinsert(t, "i", 0, H5T_NATIVE_INT);
        H5Tinsert(t, "d", sizeof(double), H5T_NATIVE_DOUBLE);
        hid_t s = H5Screate(H5S_SCALAR);
        hid_t a = H5Acreate2(obj, "cmp", t, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, t, &v);
        H5Aclose(a), H5Tclose(t), H5Sclose(s);
    }
    if (kinds & 32) {
        hobj_ref_t refs[2];
        H5Rcreate(&refs[0], obj, "/", H5R_OBJECT, -1);
        H5Rcreate(&refs[1], obj, ".", H5R_OBJECT, -1);
        hsize_t dims = 1 + ixd_rnd(run, 3);
        hvl_t   v[3];
        for (hsize_t i = 0; i < dims; i++) {
            v[i].len = ixd_rnd(run, 3);
            v[i].p   = v[i].len ? refs + (2 - v[i].len) : NULL;
        }
        hid_t t = H5Tvlen_create(H5T_STD_REF_OBJ), s = H5Screate_simple(1, &dims, NULL);
        hid_t a = H5Acreate2(obj, "dimlist", t, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, t, v);
        H5Aclose(a), H5Tclose(t), H5Sclose(s);
    }
}

/* A 1-D dataset of native ints at p, of 1 to `maxlen` elements, with random attributes when
 * `attrs`, listed as a dataset. */
static void
add_int_dataset(ixd_t *run, hid_t f, const char *p, uint32_t maxlen, bool attrs)
{
    hsize_t dims = 1 + ixd_rnd(run, maxlen);
    hid_t   s    = H5Screate_simple(1, &dims, NULL);
    hid_t   d    = H5Dcreate2(f, p, H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_H5(d);
    if (attrs)
        add_attrs(run, d);
    H5Dclose(d);
    H5Sclose(s);
    ixd_add_path(run, p, IXD_DSET);
}

/* ------------------------------------------------------------------ small datasets */
/* Datasets the index's small-dataset cache may take (raw data up to 4 KiB, contiguous or compact,
 * no filters, fixed-size types without variable-length parts or references, not of a committed
 * type, storage allocated, not external) and ones just outside that: every kind in every tree. */
enum {
    SD_NUM,         /* numeric, contiguous: scalar, 1-D or 2-D, either byte order */
    SD_NUM_COMPACT, /* the same, compact */
    SD_BIG,         /* exactly 4 KiB of raw data, or one element more */
    SD_FSTR,        /* fixed-length strings, any padding and character set */
    SD_CMPD,        /* compound of numeric members of both byte orders, packed or with padding */
    SD_ARRAY,       /* array type */
    SD_NULL,        /* null dataspace, contiguous or compact */
    SD_UNWRITTEN,   /* never written: storage not allocated, or allocated early, fill value or not */
    SD_CHUNKED,     /* chunked, deflate and other filters, extendible: never cached */
    SD_COMMITTED,   /* of a committed datatype */
    SD_VLSTR,       /* variable-length strings */
    SD_EXTERNAL,    /* external storage (tree_ext.bin, next to tree.h5, named relative) */
    SD_ENUM,        /* enumeration */
    SD_OPAQUE,      /* opaque or bitfield */
    SD_REF,         /* object references (fixed size, yet they need the file to convert) */
    SD_CMPD_VL,     /* compound with a variable-length string member */
    SD_VLSEQ,       /* variable-length sequences of integers */
    SD_NKINDS
};

/* Allocations that a buffer of variable-length data points to, freed after the write. */
static void *
pool_alloc(ixd_pool_t *pool, size_t n)
{
    ASSERT_MSG(pool->n < IXD_NPOOL, "more than %d variable-length parts in one buffer", IXD_NPOOL);
    void *p = calloc(1, n ? n : 1);
    ASSERT(p);
    return pool->p[pool->n++] = p;
}

void
ixd_pool_free(ixd_pool_t *pool)
{
    while (pool->n)
        free(pool->p[--pool->n]);
}

static void
put_uint(unsigned char *p, size_t size, H5T_order_t order, uint64_t v)
{
    for (size_t i = 0; i < size; i++)
        p[order == H5T_ORDER_BE ? size - 1 - i : i] = (unsigned char)(i < 8 ? v >> (8 * i) : 0);
}

/* An integer of `size` bytes (two's complement bits): zero, -1/max, min, max, small, random. */
static uint64_t
int_value(ixd_t *run, size_t size, int is_signed)
{
    unsigned bits = (unsigned)(8 * size);
    uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
    switch (ixd_rnd(run, 8)) {
        case 0:
            return 0;
        case 1:
            return mask;
        case 2:
            return is_signed ? 1ull << (bits - 1) : 0;
        case 3:
            return is_signed ? mask >> 1 : mask;
        case 4:
            return (uint64_t)((int64_t)ixd_rnd(run, 200) - 100) & mask;
        case 5:
            return ixd_rnd(run, 1000) & mask;
        default:
            return ixd_rnd64(run) & mask;
    }
}

/* Values that convert with rounding, overflow and clamping (no NaN: its conversion to an integer
 * is undefined in C, and HDF5 does it with a cast). */
static const double dvals[] = {0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.5, 1e10, -1e10, 3e9, 4294967296.5, 1e300,
                               -1e300, 1e-310, 65535.75, 127.5, -128.5, 1.8e19, 3.141592653589793, INFINITY,
                               -INFINITY};
static const float  fvals[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.5f, -3.5f, 1e10f, -1e10f, 3e9f, 3.4e38f,
                               -3.4e38f, 1e-40f, 65535.75f, 127.5f, -128.5f, 3.1415927f, INFINITY, -INFINITY};

static const char alphabet[] = "abcXYZ 019_-.";

/* n elements of type t, built in t's own representation (no conversion), deterministic from the
 * seed. Variable-length parts point into the pool. References are left as they are. */
void
ixd_make_data(ixd_t *run, ixd_pool_t *pool, hid_t t, size_t n, unsigned char *buf)
{
    H5T_class_t c  = H5Tget_class(t);
    size_t      s  = H5Tget_size(t);
    H5T_order_t no = H5Tget_order(H5T_NATIVE_DOUBLE);
    for (size_t i = 0; i < n; i++) {
        unsigned char *p = buf + i * s;
        switch (c) {
            case H5T_INTEGER:
                put_uint(p, s, H5Tget_order(t), int_value(run, s, H5Tget_sign(t) == H5T_SGN_2));
                break;
            case H5T_FLOAT: {
                unsigned char tmp[8];
                if (s == 4) {
                    float v = ixd_rnd(run, 4) ? fvals[ixd_rnd(run, sizeof(fvals) / sizeof(fvals[0]))]
                                     : (float)((int)ixd_rnd(run, 20001) - 10000) / 16.0f;
                    memcpy(tmp, &v, 4);
                }
                else {
                    double v = ixd_rnd(run, 4) ? dvals[ixd_rnd(run, sizeof(dvals) / sizeof(dvals[0]))]
                                      : (double)((int)ixd_rnd(run, 2000001) - 1000000) / 64.0;
                    memcpy(tmp, &v, 8);
                }
                for (size_t b = 0; b < s && b < 8; b++)
                    p[b] = tmp[H5Tget_order(t) == no ? b : s - 1 - b];
                break;
            }
            case H5T_STRING:
                if (H5Tis_variable_str(t) > 0) {
                    char *v = NULL;
                    if (ixd_rnd(run, 8)) {
                        size_t len = ixd_rnd(run, 12);
                        v          = pool_alloc(pool, len + 1);
                        for (size_t k = 0; k < len; k++)
                            v[k] = alphabet[ixd_rnd(run, sizeof(alphabet) - 1)];
                    }
                    memcpy(p, &v, sizeof(v));
                }
                else {
                    H5T_str_t pad = H5Tget_strpad(t);
                    size_t    len = ixd_rnd(run, (uint32_t)(pad == H5T_STR_NULLTERM ? s : s + 1));
                    memset(p, pad == H5T_STR_SPACEPAD ? ' ' : 0, s);
                    for (size_t k = 0; k < len; k++)
                        p[k] = (unsigned char)alphabet[ixd_rnd(run, sizeof(alphabet) - 1)];
                }
                break;
            case H5T_COMPOUND: {
                int nm = H5Tget_nmembers(t);
                memset(p, 0, s);
                for (int m = 0; m < nm; m++) {
                    hid_t mt = H5Tget_member_type(t, (unsigned)m);
                    ixd_make_data(run, pool, mt, 1, p + H5Tget_member_offset(t, (unsigned)m));
                    H5Tclose(mt);
                }
                break;
            }
            case H5T_ARRAY: {
                hsize_t ad[H5S_MAX_RANK];
                int     r  = H5Tget_array_dims2(t, ad);
                size_t  ne = 1;
                for (int k = 0; k < r; k++)
                    ne *= (size_t)ad[k];
                hid_t bt = H5Tget_super(t);
                ixd_make_data(run, pool, bt, ne, p);
                H5Tclose(bt);
                break;
            }
            case H5T_VLEN: {
                hid_t bt = H5Tget_super(t);
                hvl_t v;
                v.len = ixd_rnd(run, 4);
                v.p   = v.len ? pool_alloc(pool, v.len * H5Tget_size(bt)) : NULL;
                ixd_make_data(run, pool, bt, v.len, v.p);
                memcpy(p, &v, sizeof(v));
                H5Tclose(bt);
                break;
            }
            case H5T_ENUM:
                if (ixd_rnd(run, 6))
                    H5Tget_member_value(t, ixd_rnd(run, (uint32_t)H5Tget_nmembers(t)), p);
                else
                    memset(p, 0x55, s); /* no member has this value */
                break;
            case H5T_REFERENCE:
                break;
            default: /* opaque, bitfield */
                for (size_t b = 0; b < s; b++)
                    p[b] = (unsigned char)ixd_rnd(run, 256);
                break;
        }
    }
}

static hid_t
num_type(ixd_t *run)
{
    hid_t t[] = {H5T_STD_I8LE,  H5T_STD_I8BE,  H5T_STD_U8LE,   H5T_STD_I16LE,  H5T_STD_I16BE,  H5T_STD_U16BE,
                 H5T_STD_I32LE, H5T_STD_I32BE, H5T_STD_U32LE,  H5T_STD_I64BE,  H5T_STD_U64LE,  H5T_STD_U64BE,
                 H5T_IEEE_F32LE, H5T_IEEE_F32BE, H5T_IEEE_F64LE, H5T_IEEE_F64BE, H5T_NATIVE_INT, H5T_NATIVE_DOUBLE};
    return t[ixd_rnd(run, sizeof(t) / sizeof(t[0]))];
}

/* A scalar (shape 0), 1-D (1, 2) or 2-D (3) dataspace of at most 4 KiB of ts-byte elements. */
static hid_t
small_space(ixd_t *run, size_t ts, int shape)
{
    hsize_t cap = ts >= 4096 ? 1 : 4096 / ts, dims[2];
    if (shape == 0)
        return H5Screate(H5S_SCALAR);
    if (shape < 3) {
        dims[0] = 1 + ixd_rnd(run, (uint32_t)(cap < 48 ? cap : 48));
        return H5Screate_simple(1, dims, ixd_rnd(run, 2) ? dims : NULL);
    }
    dims[0] = 1 + ixd_rnd(run, 6);
    dims[1] = 1 + ixd_rnd(run, 8);
    if (dims[0] * dims[1] > cap)
        dims[0] = 1, dims[1] = dims[1] < cap ? dims[1] : cap;
    return H5Screate_simple(2, dims, dims);
}

static hid_t
vstr_type(ixd_t *run)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, ixd_rnd(run, 2) ? H5T_CSET_UTF8 : H5T_CSET_ASCII);
    return t;
}

/* One small dataset of the given kind, named after k, in the group run->paths[parent]. */
static void
gen_small(gen_t *g, hid_t f, int kind, int k, int parent)
{
    ixd_t      *run  = g->run;
    ixd_pool_t *pool = &g->pool;
    char    p[1024];
    hid_t   dcpl = H5Pcreate(H5P_DATASET_CREATE), t = H5I_INVALID_HID, s = H5I_INVALID_HID;
    hsize_t dims[2], maxd[2], chunk[2];
    int     write = 1, own_t = 1;
    ixd_child_path(run, p, sizeof(p), run->paths[parent], 2000 + k);
    switch (kind) {
        case SD_NUM:
        case SD_NUM_COMPACT:
            t = num_type(run), own_t = 0;
            s = small_space(run, H5Tget_size(t), (int)ixd_rnd(run, 4));
            if (kind == SD_NUM_COMPACT)
                H5Pset_layout(dcpl, H5D_COMPACT);
            break;
        case SD_BIG: {
            t = num_type(run), own_t = 0;
            size_t ts = H5Tget_size(t);
            int    v  = (int)ixd_rnd(run, 3);
            dims[0]   = v == 0 ? 8 : 4096 / ts + (v == 2);
            dims[1]   = 4096 / ts / 8;
            s         = H5Screate_simple(v == 0 ? 2 : 1, dims, NULL);
            if (ixd_rnd(run, 3) == 0)
                H5Pset_layout(dcpl, H5D_COMPACT);
            break;
        }
        case SD_FSTR:
            t = H5Tcopy(H5T_C_S1);
            H5Tset_size(t, 1 + ixd_rnd(run, 12));
            H5Tset_strpad(t, (H5T_str_t)ixd_rnd(run, 3));
            H5Tset_cset(t, ixd_rnd(run, 2) ? H5T_CSET_UTF8 : H5T_CSET_ASCII);
            s = small_space(run, H5Tget_size(t), (int)ixd_rnd(run, 4));
            if (ixd_rnd(run, 3) == 0)
                H5Pset_layout(dcpl, H5D_COMPACT);
            break;
        case SD_CMPD:
            if (ixd_rnd(run, 2)) { /* packed */
                t = H5Tcreate(H5T_COMPOUND, 15);
                H5Tinsert(t, "i", 0, H5T_STD_I32BE);
                H5Tinsert(t, "d", 4, H5T_IEEE_F64LE);
                H5Tinsert(t, "s", 12, H5T_STD_I16LE);
                H5Tinsert(t, "u", 14, H5T_STD_U8LE);
            }
            else { /* with padding */
                t = H5Tcreate(H5T_COMPOUND, 24);
                H5Tinsert(t, "i", 0, H5T_STD_I32LE);
                H5Tinsert(t, "d", 8, H5T_IEEE_F64BE);
                H5Tinsert(t, "s", 16, H5T_STD_I16BE);
                H5Tinsert(t, "f", 18, H5T_IEEE_F32LE);
            }
            s = small_space(run, H5Tget_size(t), (int)ixd_rnd(run, 4));
            if (ixd_rnd(run, 3) == 0)
                H5Pset_layout(dcpl, H5D_COMPACT);
            break;
        case SD_ARRAY: {
            hsize_t ad[2] = {2, 3};
            int     r     = 1 + (int)ixd_rnd(run, 2);
            hid_t   bt    = ixd_rnd(run, 3) == 0 ? H5T_STD_I16BE : ixd_rnd(run, 2) ? H5T_IEEE_F32LE : H5T_STD_I32LE;
            t             = H5Tarray_create2(bt, (unsigned)r, ad);
            s             = small_space(run, H5Tget_size(t), (int)ixd_rnd(run, 3));
            if (ixd_rnd(run, 3) == 0)
                H5Pset_layout(dcpl, H5D_COMPACT);
            break;
        }
        case SD_NULL:
            t = num_type(run), own_t = 0;
            s = H5Screate(H5S_NULL);
            write = (int)ixd_rnd(run, 2);
            if (ixd_rnd(run, 2)) /* compact: storage allocated, of no bytes */
                H5Pset_layout(dcpl, H5D_COMPACT);
            break;
        case SD_UNWRITTEN: {
            unsigned char fv[8];
            t = num_type(run), own_t = 0;
            s     = small_space(run, H5Tget_size(t), 1 + (int)ixd_rnd(run, 3));
            write = 0;
            int v = (int)ixd_rnd(run, 5);
            if (v >= 1 && v != 3) {
                ixd_make_data(run, pool, t, 1, fv);
                H5Pset_fill_value(dcpl, t, fv);
            }
            if (v == 2 || v == 3)
                H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
            if (v == 3)
                H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
            if (v == 4)
                H5Pset_layout(dcpl, H5D_COMPACT);
            break;
        }
        case SD_CHUNKED: {
            int r = 1 + (int)ixd_rnd(run, 2);
            if (ixd_rnd(run, 4)) {
                t = num_type(run), own_t = 0;
            }
            else {
                t = H5Tcopy(H5T_C_S1);
                H5Tset_size(t, 5);
            }
            for (int i = 0; i < r; i++) {
                dims[i]  = 1 + ixd_rnd(run, r == 1 ? 40 : 6);
                chunk[i] = 1 + ixd_rnd(run, (uint32_t)dims[i]);
                maxd[i]  = i == 0 && ixd_rnd(run, 2) ? H5S_UNLIMITED : dims[i] + ixd_rnd(run, 4);
            }
            s = H5Screate_simple(r, dims, maxd);
            H5Pset_chunk(dcpl, r, chunk);
            switch (ixd_rnd(run, 4)) {
                case 0:
                    break;
                case 1:
                    H5Pset_deflate(dcpl, 1 + ixd_rnd(run, 9));
                    break;
                case 2:
                    H5Pset_shuffle(dcpl);
                    H5Pset_deflate(dcpl, 6);
                    break;
                default:
                    H5Pset_fletcher32(dcpl);
                    H5Pset_deflate(dcpl, 1);
                    break;
            }
            write = ixd_rnd(run, 5) != 0;
            break;
        }
        case SD_COMMITTED: {
            char tp[1024];
            t = H5Tcopy(num_type(run));
            ixd_child_path(run, tp, sizeof(tp), run->paths[ixd_random_group(run)], 3000 + k);
            ASSERT_H5(H5Tcommit2(f, tp, t, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
            ixd_add_path(run, tp, IXD_OTHER);
            s = small_space(run, H5Tget_size(t), (int)ixd_rnd(run, 4));
            break;
        }
        case SD_VLSTR:
            t = vstr_type(run);
            s = small_space(run, 512, (int)ixd_rnd(run, 3)); /* a few strings */
            if (ixd_rnd(run, 3) == 0)
                H5Pset_layout(dcpl, H5D_COMPACT);
            break;
        case SD_EXTERNAL: {
            t = num_type(run), own_t = 0;
            size_t ts = H5Tget_size(t);
            dims[0]   = 1 + ixd_rnd(run, 16);
            /* extendible: external storage only */
            maxd[0]   = ixd_rnd(run, 2) ? dims[0] : dims[0] + 1 + ixd_rnd(run, 4);
            s         = H5Screate_simple(1, dims, maxd);
            ASSERT_H5(H5Pset_external(dcpl, "tree_ext.bin", (off_t)g->ext_off, maxd[0] * ts));
            g->ext_off += maxd[0] * ts + 8;
            break;
        }
        case SD_ENUM: {
            int vals[] = {0, 7, 100, -5};
            t          = H5Tenum_create(ixd_rnd(run, 2) ? H5T_NATIVE_INT : H5T_NATIVE_SHORT);
            for (int i = 0; i < 4; i++) {
                const char *nm[] = {"RED", "GREEN", "BLUE", "NEG"};
                if (H5Tget_size(t) == sizeof(short)) {
                    short v = (short)vals[i];
                    H5Tenum_insert(t, nm[i], &v);
                }
                else
                    H5Tenum_insert(t, nm[i], &vals[i]);
            }
            s = small_space(run, H5Tget_size(t), 1 + (int)ixd_rnd(run, 3));
            break;
        }
        case SD_OPAQUE:
            if (ixd_rnd(run, 2)) {
                t = H5Tcreate(H5T_OPAQUE, 3);
                H5Tset_tag(t, "blob");
            }
            else
                t = H5Tcopy(H5T_STD_B16BE);
            s = small_space(run, H5Tget_size(t), (int)ixd_rnd(run, 4));
            break;
        case SD_REF:
            t = H5T_STD_REF_OBJ, own_t = 0;
            dims[0] = 2 + ixd_rnd(run, 2);
            s       = H5Screate_simple(1, dims, NULL);
            write   = 0;
            break;
        case SD_CMPD_VL: {
            hid_t vs = vstr_type(run);
            t        = H5Tcreate(H5T_COMPOUND, 8 + sizeof(char *));
            H5Tinsert(t, "n", 0, H5T_STD_I32LE);
            H5Tinsert(t, "name", 8, vs);
            H5Tclose(vs);
            s = small_space(run, 512, 1 + (int)ixd_rnd(run, 2));
            break;
        }
        default: /* SD_VLSEQ */
            t = H5Tvlen_create(ixd_rnd(run, 2) ? H5T_STD_I16BE : H5T_NATIVE_INT);
            s = small_space(run, 512, 1 + (int)ixd_rnd(run, 2));
            break;
    }
    hid_t d = H5Dcreate2(f, p, t, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ASSERT_H5(d);
    if (write) {
        hssize_t       np  = H5Sget_simple_extent_npoints(s);
        unsigned char *buf = calloc(1, (size_t)np * H5Tget_size(t) + 1);
        ixd_make_data(run, pool, t, (size_t)np, buf);
        ASSERT_H5(H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
        free(buf);
        ixd_pool_free(pool);
    }
    if (kind == SD_REF) {
        hobj_ref_t refs[3];
        for (hsize_t i = 0; i < dims[0]; i++)
            ASSERT_H5(H5Rcreate(&refs[i], f, i == 0 ? "/" : run->paths[ixd_random_group(run)], H5R_OBJECT, -1));
        ASSERT_H5(H5Dwrite(d, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, refs));
    }
    if (ixd_rnd(run, 2))
        add_attrs(run, d);
    H5Dclose(d);
    H5Sclose(s);
    if (own_t)
        H5Tclose(t);
    H5Pclose(dcpl);
    ixd_add_path(run, p, IXD_SMALL);
}

/* Small datasets of every kind at random places, then other paths to some: a second hard link, a
 * soft link to one, and a path through a soft link to its group. */
static void
gen_small_all(gen_t *g, hid_t f)
{
    ixd_t *run = g->run;
    /* every kind once, then more of the kinds the cache may take */
    static const int more[] = {SD_NUM, SD_NUM_COMPACT, SD_FSTR, SD_CMPD, SD_ARRAY, SD_ENUM, SD_OPAQUE, SD_NUM};
    int              n      = SD_NKINDS + 6 + (int)ixd_rnd(run, 5);
    g->ext_off              = 0;
    for (int k = 0; k < n; k++) {
        int kind = k < SD_NKINDS ? k : more[ixd_rnd(run, sizeof(more) / sizeof(more[0]))];
        gen_small(g, f, kind, k, k == 0 ? 0 : ixd_random_group(run));
    }
    for (int a = 0; a < 3; a++) {
        char p[1024], q[1200];
        int  t = ixd_random_of_kind(run, IXD_SMALL);
        ixd_child_path(run, p, sizeof(p), run->paths[ixd_random_group(run)], 4000 + a);
        if (a == 0) {
            ASSERT_H5(H5Lcreate_hard(f, run->paths[t], f, p, H5P_DEFAULT, H5P_DEFAULT));
            ixd_add_path(run, p, IXD_SMALL);
        }
        else if (a == 1) {
            ASSERT_H5(H5Lcreate_soft(run->paths[t], f, p, H5P_DEFAULT, H5P_DEFAULT));
            ixd_add_path(run, p, IXD_SMALL);
        }
        else {
            const char *slash = strrchr(run->paths[t], '/');
            snprintf(q, sizeof(q), "%.*s", slash == run->paths[t] ? 1 : (int)(slash - run->paths[t]), run->paths[t]);
            ASSERT_H5(H5Lcreate_soft(q, f, p, H5P_DEFAULT, H5P_DEFAULT));
            ixd_add_path(run, p, IXD_LINK);
            snprintf(q, sizeof(q), "%s%s", p, slash);
            ixd_add_path(run, q, IXD_SMALL);
        }
    }
}

int
ixd_gen(const char *dir, unsigned seed)
{
    /* In DIR, so that the external storage file is named relative (as the query finds it). */
    const char *fname = "tree.h5", *ename = "ext.h5", *pname = "paths.txt";
    gen_t      *gs    = calloc(1, sizeof(*gs));
    ixd_t      *run   = calloc(1, sizeof(*run));
    ASSERT(gs && run);
    gs->run  = run;
    run->rng = 0x9E3779B97F4A7C15ull ^ seed;
    if (chdir(dir) != 0) {
        perror(dir);
        return 2;
    }
    remove("tree_ext.bin");
    hid_t ef = H5Fcreate(ename, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_H5(ef);
    hid_t eg = H5Gcreate2(ef, "target", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(H5Gcreate2(eg, "inner", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(eg);
    H5Fclose(ef);

    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (seed % 3 == 1)
        H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    /* Every fourth tree is written in the 1.8-and-later file format throughout (superblock 2,
     * version-2 dataspace messages: 2.x's default), and the next one switches to it half-way
     * (an old superblock over objects of both formats, as appending with newer bounds leaves). */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (seed % 4 == 2)
        H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
    hid_t f = H5Fcreate(fname, H5F_ACC_TRUNC, fcpl, fapl);
    ASSERT_H5(f);
    H5Pclose(fcpl);
    H5Pclose(fapl);
    run->npaths = 0;
    ixd_add_path(run, "/", IXD_GROUP);
    int nobj = 40 + (int)ixd_rnd(run, 120);
    for (int k = 0; k < nobj; k++) {
        if (seed % 4 == 3 && k == nobj / 2)
            ASSERT_H5(H5Fset_libver_bounds(f, H5F_LIBVER_V18, H5F_LIBVER_LATEST));
        char p[1024];
        int  parent = ixd_random_group(run);
        ixd_child_path(run, p, sizeof(p), run->paths[parent], k);
        int what = (int)ixd_rnd(run, 100);
        if (what < 35) {
            int   kind;
            hid_t gcpl = ixd_random_gcpl(run, &kind);
            hid_t g    = H5Gcreate2(f, p, H5P_DEFAULT, gcpl, H5P_DEFAULT);
            ASSERT_H5(g);
            add_attrs(run, g);
            H5Gclose(g);
            H5Pclose(gcpl);
            ixd_add_path(run, p, IXD_GROUP);
        }
        else if (what < 60)
            add_int_dataset(run, f, p, 8, true);
        else if (what < 65) {
            hid_t t = H5Tcopy(H5T_NATIVE_DOUBLE);
            ASSERT_H5(H5Tcommit2(f, p, t, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
            H5Tclose(t);
            ixd_add_path(run, p, IXD_OTHER);
        }
        else if (what < 80) {
            int t = (int)ixd_rnd(run, (uint32_t)run->npaths);
            if (t == 0 || run->kind[t] == IXD_LINK)
                continue;
            ASSERT_H5(H5Lcreate_hard(f, run->paths[t], f, p, H5P_DEFAULT, H5P_DEFAULT));
            ixd_add_path(run, p, run->kind[t]);
        }
        else if (what < 90) {
            int t = (int)ixd_rnd(run, (uint32_t)run->npaths);
            ASSERT_H5(
                H5Lcreate_soft(ixd_rnd(run, 4) ? run->paths[t] : "/no/such/thing", f, p, H5P_DEFAULT, H5P_DEFAULT));
            ixd_add_path(run, p, IXD_LINK);
        }
        else {
            ASSERT_H5(H5Lcreate_external("ext.h5", ixd_rnd(run, 3) ? "/target" : "/missing", f, p, H5P_DEFAULT,
                                         H5P_DEFAULT));
            ixd_add_path(run, p, IXD_LINK);
        }
    }
    /* Every third tree also has a wide group (of the kinds above, 260-323 members: datasets, soft
     * links and hard links to datasets and named datatypes, no groups, so that paths end in it and
     * do not go through it), wider than the index lists at a program's first look-up of one of its
     * names (tb_ix_lookup_link): native looks its names up, and what it finds is kept in the
     * group's partial list, until enough look-ups were made to list it; its whole-list queries list
     * it. */
    if (seed % 3 == 0) {
        int   kind;
        hid_t gcpl = ixd_random_gcpl(run, &kind);
        hid_t w    = H5Gcreate2(f, "/wide", H5P_DEFAULT, gcpl, H5P_DEFAULT);
        ASSERT_H5(w);
        H5Pclose(gcpl);
        ixd_add_path(run, "/wide", IXD_GROUP);
        int nw = 260 + (int)ixd_rnd(run, 64);
        for (int k = 0; k < nw; k++) {
            char p[1024];
            ixd_child_path(run, p, sizeof(p), "/wide", k);
            int what = (int)ixd_rnd(run, 10);
            int t    = what == 9 ? (int)ixd_rnd(run, (uint32_t)run->npaths) : 0;
            if (what == 9 && (run->kind[t] == IXD_DSET || run->kind[t] == IXD_OTHER)) {
                ASSERT_H5(H5Lcreate_hard(f, run->paths[t], f, p, H5P_DEFAULT, H5P_DEFAULT));
                ixd_add_path(run, p, run->kind[t]);
            }
            else if (what == 8) {
                ASSERT_H5(H5Lcreate_soft("/wide", f, p, H5P_DEFAULT, H5P_DEFAULT));
                ixd_add_path(run, p, IXD_LINK);
            }
            else
                add_int_dataset(run, f, p, 4, false);
        }
        H5Gclose(w);
    }
    gen_small_all(gs, f);
    H5Fclose(f);
    FILE *fp = fopen(pname, "w");
    if (!fp)
        return 2;
    for (int i = 0; i < run->npaths; i++)
        fprintf(fp, "%d %s\n", run->kind[i], run->paths[i]);
    fclose(fp);
    for (int i = 0; i < run->npaths; i++)
        free(run->paths[i]);
    free(run);
    free(gs);
    return 0;
}

