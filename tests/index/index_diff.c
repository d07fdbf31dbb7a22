/* index_diff.c — differential test of the link/object index and its small-dataset cache: `gen DIR
 * SEED` builds DIR/tree.h5, a random tree (symbol-table, compact and dense groups, creation order
 * tracked or not, hard links to one object by several paths, soft, dangling and external links,
 * datasets, committed datatypes, attributes, and small datasets of every kind: numeric of both
 * byte orders, strings, compound, array, enum, opaque, references, variable-length, null, scalar,
 * 1-D and 2-D spaces, contiguous, compact, chunked with filters, external, unwritten, of committed
 * types, 4 KiB and just over), with DIR/paths.txt listing its paths and DIR/tree_ext.bin holding
 * external raw data; `query FILE PATHS SEED N [rw]` runs, in FILE's directory, random queries
 * (interleaved with modifications and dataset writes when rw) and prints a transcript of every
 * answer: links, objects, attributes, and datasets opened, asked, read whole and in part with
 * many memory types, dataspaces and transfer property lists, revisited often, held open across
 * queries and across H5Fclose. Run under stock HDF5 and under h5turbo; the transcripts must be
 * identical (index_diff.sh). */
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(x)                                                                                           \
    do {                                                                                                   \
        if ((x) < 0) {                                                                                     \
            fprintf(stderr, "index_diff: %s failed at line %d\n", #x, __LINE__);                           \
            exit(2);                                                                                       \
        }                                                                                                  \
    } while (0)

static uint64_t rng_state;
static uint32_t
rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return n ? (uint32_t)(rng_state % n) : 0;
}

/* ------------------------------------------------------------------ paths */
/* Every path of the tree with its kind (is_group): 0 another object (a committed datatype), 1 a
 * group, 2 a soft or external link, 3 a dataset, 4 a small dataset (gen_small) or a path to one.
 * The paths file holds them as "KIND PATH" lines. */
#define MAXP 4096
static char *paths[MAXP];
static int   is_group[MAXP];
static int   npaths;

static void
add_path(const char *p, int grp)
{
    if (npaths < MAXP) {
        paths[npaths]    = strdup(p);
        is_group[npaths] = grp;
        npaths++;
    }
}

static int
random_group(void)
{
    for (;;) {
        int i = (int)rnd((uint32_t)npaths);
        if (is_group[i] == 1)
            return i;
    }
}

static const char *words[] = {"a", "b", "entry", "logs", "value", "time", "zeta", "Alpha", "m10", "m9",
                              "sample", "instrument", "x_1", "x_10", "x_2", "data", "NX", "q", "r", "s"};

static void
child_path(char *out, size_t n, const char *parent, int k)
{
    snprintf(out, n, "%s%s%s_%d", parent, strcmp(parent, "/") ? "/" : "", words[rnd(20)], k);
}

/* ------------------------------------------------------------------ gen */
static hid_t
random_gcpl(int *kind_out)
{
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    int   kind = (int)rnd(5);
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
    *kind_out = kind;
    return gcpl;
}

static void
add_attrs(hid_t obj)
{
    int na = (int)rnd(4);
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
     * one too large to cache, a variable-length string, a compound. */
    int kinds = (int)rnd(32);
    if (kinds & 1) {
        hid_t s = H5Screate(H5S_SCALAR), t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, 7 + rnd(3));
        hid_t a = H5Acreate2(obj, "NX_class", t, s, H5P_DEFAULT, H5P_DEFAULT);
        H5Awrite(a, t, "NXentry\0\0");
        H5Aclose(a), H5Tclose(t), H5Sclose(s);
    }
    if (kinds & 2) {
        hsize_t dims = 5;
        double  v[5] = {1.5, -2, 3.25, 1e300, (double)rnd(100)};
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

static uint64_t
rnd64(void)
{
    rnd(1);
    return rng_state;
}

/* Allocations that a buffer of variable-length data points to, freed after the write. */
#define NPOOL 4096
static void *pool[NPOOL];
static int   npool;

static void *
pool_alloc(size_t n)
{
    if (npool == NPOOL) {
        fprintf(stderr, "index_diff: pool full\n");
        exit(2);
    }
    return pool[npool++] = calloc(1, n ? n : 1);
}

static void
pool_free(void)
{
    while (npool)
        free(pool[--npool]);
}

static void
put_uint(unsigned char *p, size_t size, H5T_order_t order, uint64_t v)
{
    for (size_t i = 0; i < size; i++)
        p[order == H5T_ORDER_BE ? size - 1 - i : i] = (unsigned char)(i < 8 ? v >> (8 * i) : 0);
}

/* An integer of `size` bytes (two's complement bits): zero, -1/max, min, max, small, random. */
static uint64_t
int_value(size_t size, int is_signed)
{
    unsigned bits = (unsigned)(8 * size);
    uint64_t mask = bits >= 64 ? ~0ull : (1ull << bits) - 1;
    switch (rnd(8)) {
        case 0:
            return 0;
        case 1:
            return mask;
        case 2:
            return is_signed ? 1ull << (bits - 1) : 0;
        case 3:
            return is_signed ? mask >> 1 : mask;
        case 4:
            return (uint64_t)((int64_t)rnd(200) - 100) & mask;
        case 5:
            return rnd(1000) & mask;
        default:
            return rnd64() & mask;
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
static void
make_data(hid_t t, size_t n, unsigned char *buf)
{
    H5T_class_t c  = H5Tget_class(t);
    size_t      s  = H5Tget_size(t);
    H5T_order_t no = H5Tget_order(H5T_NATIVE_DOUBLE);
    for (size_t i = 0; i < n; i++) {
        unsigned char *p = buf + i * s;
        switch (c) {
            case H5T_INTEGER:
                put_uint(p, s, H5Tget_order(t), int_value(s, H5Tget_sign(t) == H5T_SGN_2));
                break;
            case H5T_FLOAT: {
                unsigned char tmp[8];
                if (s == 4) {
                    float v = rnd(4) ? fvals[rnd(sizeof(fvals) / sizeof(fvals[0]))]
                                     : (float)((int)rnd(20001) - 10000) / 16.0f;
                    memcpy(tmp, &v, 4);
                }
                else {
                    double v = rnd(4) ? dvals[rnd(sizeof(dvals) / sizeof(dvals[0]))]
                                      : (double)((int)rnd(2000001) - 1000000) / 64.0;
                    memcpy(tmp, &v, 8);
                }
                for (size_t b = 0; b < s && b < 8; b++)
                    p[b] = tmp[H5Tget_order(t) == no ? b : s - 1 - b];
                break;
            }
            case H5T_STRING:
                if (H5Tis_variable_str(t) > 0) {
                    char *v = NULL;
                    if (rnd(8)) {
                        size_t len = rnd(12);
                        v          = pool_alloc(len + 1);
                        for (size_t k = 0; k < len; k++)
                            v[k] = alphabet[rnd(sizeof(alphabet) - 1)];
                    }
                    memcpy(p, &v, sizeof(v));
                }
                else {
                    H5T_str_t pad = H5Tget_strpad(t);
                    size_t    len = rnd((uint32_t)(pad == H5T_STR_NULLTERM ? s : s + 1));
                    memset(p, pad == H5T_STR_SPACEPAD ? ' ' : 0, s);
                    for (size_t k = 0; k < len; k++)
                        p[k] = (unsigned char)alphabet[rnd(sizeof(alphabet) - 1)];
                }
                break;
            case H5T_COMPOUND: {
                int nm = H5Tget_nmembers(t);
                memset(p, 0, s);
                for (int m = 0; m < nm; m++) {
                    hid_t mt = H5Tget_member_type(t, (unsigned)m);
                    make_data(mt, 1, p + H5Tget_member_offset(t, (unsigned)m));
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
                make_data(bt, ne, p);
                H5Tclose(bt);
                break;
            }
            case H5T_VLEN: {
                hid_t bt = H5Tget_super(t);
                hvl_t v;
                v.len = rnd(4);
                v.p   = v.len ? pool_alloc(v.len * H5Tget_size(bt)) : NULL;
                make_data(bt, v.len, v.p);
                memcpy(p, &v, sizeof(v));
                H5Tclose(bt);
                break;
            }
            case H5T_ENUM:
                if (rnd(6))
                    H5Tget_member_value(t, rnd((uint32_t)H5Tget_nmembers(t)), p);
                else
                    memset(p, 0x55, s); /* no member has this value */
                break;
            case H5T_REFERENCE:
                break;
            default: /* opaque, bitfield */
                for (size_t b = 0; b < s; b++)
                    p[b] = (unsigned char)rnd(256);
                break;
        }
    }
}

static hid_t
num_type(void)
{
    hid_t t[] = {H5T_STD_I8LE,  H5T_STD_I8BE,  H5T_STD_U8LE,   H5T_STD_I16LE,  H5T_STD_I16BE,  H5T_STD_U16BE,
                 H5T_STD_I32LE, H5T_STD_I32BE, H5T_STD_U32LE,  H5T_STD_I64BE,  H5T_STD_U64LE,  H5T_STD_U64BE,
                 H5T_IEEE_F32LE, H5T_IEEE_F32BE, H5T_IEEE_F64LE, H5T_IEEE_F64BE, H5T_NATIVE_INT, H5T_NATIVE_DOUBLE};
    return t[rnd(sizeof(t) / sizeof(t[0]))];
}

/* A scalar (shape 0), 1-D (1, 2) or 2-D (3) dataspace of at most 4 KiB of ts-byte elements. */
static hid_t
small_space(size_t ts, int shape)
{
    hsize_t cap = ts >= 4096 ? 1 : 4096 / ts, dims[2];
    if (shape == 0)
        return H5Screate(H5S_SCALAR);
    if (shape < 3) {
        dims[0] = 1 + rnd((uint32_t)(cap < 48 ? cap : 48));
        return H5Screate_simple(1, dims, rnd(2) ? dims : NULL);
    }
    dims[0] = 1 + rnd(6);
    dims[1] = 1 + rnd(8);
    if (dims[0] * dims[1] > cap)
        dims[0] = 1, dims[1] = dims[1] < cap ? dims[1] : cap;
    return H5Screate_simple(2, dims, dims);
}

static hid_t
vstr_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, rnd(2) ? H5T_CSET_UTF8 : H5T_CSET_ASCII);
    return t;
}

static hsize_t ext_off; /* where the next external dataset starts in tree_ext.bin */

/* One small dataset of the given kind, named after k, in the group paths[parent]. */
static void
gen_small(hid_t f, int kind, int k, int parent)
{
    char    p[1024];
    hid_t   dcpl = H5Pcreate(H5P_DATASET_CREATE), t = H5I_INVALID_HID, s = H5I_INVALID_HID;
    hsize_t dims[2], maxd[2], chunk[2];
    int     write = 1, own_t = 1;
    child_path(p, sizeof(p), paths[parent], 2000 + k);
    switch (kind) {
        case SD_NUM:
        case SD_NUM_COMPACT:
            t = num_type(), own_t = 0;
            s = small_space(H5Tget_size(t), (int)rnd(4));
            if (kind == SD_NUM_COMPACT)
                H5Pset_layout(dcpl, H5D_COMPACT);
            break;
        case SD_BIG: {
            t = num_type(), own_t = 0;
            size_t ts = H5Tget_size(t);
            int    v  = (int)rnd(3);
            dims[0]   = v == 0 ? 8 : 4096 / ts + (v == 2);
            dims[1]   = 4096 / ts / 8;
            s         = H5Screate_simple(v == 0 ? 2 : 1, dims, NULL);
            if (rnd(3) == 0)
                H5Pset_layout(dcpl, H5D_COMPACT);
            break;
        }
        case SD_FSTR:
            t = H5Tcopy(H5T_C_S1);
            H5Tset_size(t, 1 + rnd(12));
            H5Tset_strpad(t, (H5T_str_t)rnd(3));
            H5Tset_cset(t, rnd(2) ? H5T_CSET_UTF8 : H5T_CSET_ASCII);
            s = small_space(H5Tget_size(t), (int)rnd(4));
            if (rnd(3) == 0)
                H5Pset_layout(dcpl, H5D_COMPACT);
            break;
        case SD_CMPD:
            if (rnd(2)) { /* packed */
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
            s = small_space(H5Tget_size(t), (int)rnd(4));
            if (rnd(3) == 0)
                H5Pset_layout(dcpl, H5D_COMPACT);
            break;
        case SD_ARRAY: {
            hsize_t ad[2] = {2, 3};
            int     r     = 1 + (int)rnd(2);
            hid_t   bt    = rnd(3) == 0 ? H5T_STD_I16BE : rnd(2) ? H5T_IEEE_F32LE : H5T_STD_I32LE;
            t             = H5Tarray_create2(bt, (unsigned)r, ad);
            s             = small_space(H5Tget_size(t), (int)rnd(3));
            if (rnd(3) == 0)
                H5Pset_layout(dcpl, H5D_COMPACT);
            break;
        }
        case SD_NULL:
            t = num_type(), own_t = 0;
            s = H5Screate(H5S_NULL);
            write = (int)rnd(2);
            if (rnd(2)) /* compact: storage allocated, of no bytes */
                H5Pset_layout(dcpl, H5D_COMPACT);
            break;
        case SD_UNWRITTEN: {
            unsigned char fv[8];
            t = num_type(), own_t = 0;
            s     = small_space(H5Tget_size(t), 1 + (int)rnd(3));
            write = 0;
            int v = (int)rnd(5);
            if (v >= 1 && v != 3) {
                make_data(t, 1, fv);
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
            int r = 1 + (int)rnd(2);
            if (rnd(4)) {
                t = num_type(), own_t = 0;
            }
            else {
                t = H5Tcopy(H5T_C_S1);
                H5Tset_size(t, 5);
            }
            for (int i = 0; i < r; i++) {
                dims[i]  = 1 + rnd(r == 1 ? 40 : 6);
                chunk[i] = 1 + rnd((uint32_t)dims[i]);
                maxd[i]  = i == 0 && rnd(2) ? H5S_UNLIMITED : dims[i] + rnd(4);
            }
            s = H5Screate_simple(r, dims, maxd);
            H5Pset_chunk(dcpl, r, chunk);
            switch (rnd(4)) {
                case 0:
                    break;
                case 1:
                    H5Pset_deflate(dcpl, 1 + rnd(9));
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
            write = rnd(5) != 0;
            break;
        }
        case SD_COMMITTED: {
            char tp[1024];
            t = H5Tcopy(num_type());
            child_path(tp, sizeof(tp), paths[random_group()], 3000 + k);
            CHECK(H5Tcommit2(f, tp, t, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
            add_path(tp, 0);
            s = small_space(H5Tget_size(t), (int)rnd(4));
            break;
        }
        case SD_VLSTR:
            t = vstr_type();
            s = small_space(512, (int)rnd(3)); /* a few strings */
            if (rnd(3) == 0)
                H5Pset_layout(dcpl, H5D_COMPACT);
            break;
        case SD_EXTERNAL: {
            t = num_type(), own_t = 0;
            size_t ts = H5Tget_size(t);
            dims[0]   = 1 + rnd(16);
            maxd[0]   = rnd(2) ? dims[0] : dims[0] + 1 + rnd(4); /* extendible: external storage only */
            s         = H5Screate_simple(1, dims, maxd);
            CHECK(H5Pset_external(dcpl, "tree_ext.bin", (off_t)ext_off, maxd[0] * ts));
            ext_off += maxd[0] * ts + 8;
            break;
        }
        case SD_ENUM: {
            int vals[] = {0, 7, 100, -5};
            t          = H5Tenum_create(rnd(2) ? H5T_NATIVE_INT : H5T_NATIVE_SHORT);
            for (int i = 0; i < 4; i++) {
                const char *nm[] = {"RED", "GREEN", "BLUE", "NEG"};
                if (H5Tget_size(t) == sizeof(short)) {
                    short v = (short)vals[i];
                    H5Tenum_insert(t, nm[i], &v);
                }
                else
                    H5Tenum_insert(t, nm[i], &vals[i]);
            }
            s = small_space(H5Tget_size(t), 1 + (int)rnd(3));
            break;
        }
        case SD_OPAQUE:
            if (rnd(2)) {
                t = H5Tcreate(H5T_OPAQUE, 3);
                H5Tset_tag(t, "blob");
            }
            else
                t = H5Tcopy(H5T_STD_B16BE);
            s = small_space(H5Tget_size(t), (int)rnd(4));
            break;
        case SD_REF:
            t = H5T_STD_REF_OBJ, own_t = 0;
            dims[0] = 2 + rnd(2);
            s       = H5Screate_simple(1, dims, NULL);
            write   = 0;
            break;
        case SD_CMPD_VL: {
            hid_t vs = vstr_type();
            t        = H5Tcreate(H5T_COMPOUND, 8 + sizeof(char *));
            H5Tinsert(t, "n", 0, H5T_STD_I32LE);
            H5Tinsert(t, "name", 8, vs);
            H5Tclose(vs);
            s = small_space(512, 1 + (int)rnd(2));
            break;
        }
        default: /* SD_VLSEQ */
            t = H5Tvlen_create(rnd(2) ? H5T_STD_I16BE : H5T_NATIVE_INT);
            s = small_space(512, 1 + (int)rnd(2));
            break;
    }
    hid_t d = H5Dcreate2(f, p, t, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(d);
    if (write) {
        hssize_t       np  = H5Sget_simple_extent_npoints(s);
        unsigned char *buf = calloc(1, (size_t)np * H5Tget_size(t) + 1);
        make_data(t, (size_t)np, buf);
        CHECK(H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
        free(buf);
        pool_free();
    }
    if (kind == SD_REF) {
        hobj_ref_t refs[3];
        for (hsize_t i = 0; i < dims[0]; i++)
            CHECK(H5Rcreate(&refs[i], f, i == 0 ? "/" : paths[random_group()], H5R_OBJECT, -1));
        CHECK(H5Dwrite(d, H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, refs));
    }
    if (rnd(2))
        add_attrs(d);
    H5Dclose(d);
    H5Sclose(s);
    if (own_t)
        H5Tclose(t);
    H5Pclose(dcpl);
    add_path(p, 4);
}

static int
random_kind(int kind)
{
    for (;;) {
        int i = (int)rnd((uint32_t)npaths);
        if (is_group[i] == kind)
            return i;
    }
}

/* Small datasets of every kind at random places, then other paths to some: a second hard link, a
 * soft link to one, and a path through a soft link to its group. */
static void
gen_small_all(hid_t f)
{
    /* every kind once, then more of the kinds the cache may take */
    static const int more[] = {SD_NUM, SD_NUM_COMPACT, SD_FSTR, SD_CMPD, SD_ARRAY, SD_ENUM, SD_OPAQUE, SD_NUM};
    int              n      = SD_NKINDS + 6 + (int)rnd(5);
    ext_off                 = 0;
    for (int k = 0; k < n; k++) {
        int kind = k < SD_NKINDS ? k : more[rnd(sizeof(more) / sizeof(more[0]))];
        gen_small(f, kind, k, k == 0 ? 0 : random_group());
    }
    for (int a = 0; a < 3; a++) {
        char p[1024], q[1200];
        int  t = random_kind(4);
        child_path(p, sizeof(p), paths[random_group()], 4000 + a);
        if (a == 0) {
            CHECK(H5Lcreate_hard(f, paths[t], f, p, H5P_DEFAULT, H5P_DEFAULT));
            add_path(p, 4);
        }
        else if (a == 1) {
            CHECK(H5Lcreate_soft(paths[t], f, p, H5P_DEFAULT, H5P_DEFAULT));
            add_path(p, 4);
        }
        else {
            const char *slash = strrchr(paths[t], '/');
            snprintf(q, sizeof(q), "%.*s", slash == paths[t] ? 1 : (int)(slash - paths[t]), paths[t]);
            CHECK(H5Lcreate_soft(q, f, p, H5P_DEFAULT, H5P_DEFAULT));
            add_path(p, 2);
            snprintf(q, sizeof(q), "%s%s", p, slash);
            add_path(q, 4);
        }
    }
}

static int
gen(const char *dir, unsigned seed)
{
    /* In DIR, so that the external storage file is named relative (as the query finds it). */
    const char *fname = "tree.h5", *ename = "ext.h5", *pname = "paths.txt";
    rng_state         = 0x9E3779B97F4A7C15ull ^ seed;
    if (chdir(dir) != 0) {
        perror(dir);
        return 2;
    }
    remove("tree_ext.bin");
    hid_t ef = H5Fcreate(ename, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(ef);
    hid_t eg = H5Gcreate2(ef, "target", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(H5Gcreate2(eg, "inner", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Gclose(eg);
    H5Fclose(ef);

    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (seed % 3 == 1)
        H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    hid_t f = H5Fcreate(fname, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    CHECK(f);
    H5Pclose(fcpl);
    npaths = 0;
    add_path("/", 1);
    int nobj = 40 + (int)rnd(120);
    for (int k = 0; k < nobj; k++) {
        char p[1024];
        int  parent = random_group();
        child_path(p, sizeof(p), paths[parent], k);
        int what = (int)rnd(100);
        if (what < 35) {
            int   kind;
            hid_t gcpl = random_gcpl(&kind);
            hid_t g    = H5Gcreate2(f, p, H5P_DEFAULT, gcpl, H5P_DEFAULT);
            CHECK(g);
            add_attrs(g);
            H5Gclose(g);
            H5Pclose(gcpl);
            add_path(p, 1);
        }
        else if (what < 60) {
            hsize_t dims = 1 + rnd(8);
            hid_t   s    = H5Screate_simple(1, &dims, NULL);
            hid_t   d    = H5Dcreate2(f, p, H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            CHECK(d);
            add_attrs(d);
            H5Dclose(d);
            H5Sclose(s);
            add_path(p, 3);
        }
        else if (what < 65) {
            hid_t t = H5Tcopy(H5T_NATIVE_DOUBLE);
            CHECK(H5Tcommit2(f, p, t, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
            H5Tclose(t);
            add_path(p, 0);
        }
        else if (what < 80) {
            int t = (int)rnd((uint32_t)npaths);
            if (t == 0 || is_group[t] == 2)
                continue;
            CHECK(H5Lcreate_hard(f, paths[t], f, p, H5P_DEFAULT, H5P_DEFAULT));
            add_path(p, is_group[t]);
        }
        else if (what < 90) {
            int t = (int)rnd((uint32_t)npaths);
            CHECK(H5Lcreate_soft(rnd(4) ? paths[t] : "/no/such/thing", f, p, H5P_DEFAULT, H5P_DEFAULT));
            add_path(p, 2);
        }
        else {
            CHECK(H5Lcreate_external("ext.h5", rnd(3) ? "/target" : "/missing", f, p, H5P_DEFAULT, H5P_DEFAULT));
            add_path(p, 2);
        }
    }
    gen_small_all(f);
    H5Fclose(f);
    FILE *fp = fopen(pname, "w");
    if (!fp)
        return 2;
    for (int i = 0; i < npaths; i++)
        fprintf(fp, "%d %s\n", is_group[i], paths[i]);
    fclose(fp);
    return 0;
}

/* ------------------------------------------------------------------ transcript */
static int rw_mode; /* see query(): file addresses of objects created during a read-write run */

static void
print_token(const H5O_token_t *t)
{
    if (rw_mode) {
        printf("*");
        return;
    }
    for (int i = 0; i < 8; i++)
        printf("%02x", t->__data[i]);
}

static void
print_linfo(const H5L_info2_t *li)
{
    printf("type=%d cset=%d corder=%s%lld ", (int)li->type, (int)li->cset, li->corder_valid ? "" : "-",
           li->corder_valid ? (long long)li->corder : 0LL);
    if (li->type == H5L_TYPE_HARD)
        print_token(&li->u.token);
    else
        printf("vs=%zu", li->u.val_size);
}

static unsigned long root_fileno;

static void
print_oinfo(const H5O_info2_t *oi, unsigned fields)
{
    if (fields & H5O_INFO_BASIC) {
        printf("fileno=%s tok=", oi->fileno == root_fileno ? "same" : "other");
        print_token(&oi->token);
        printf(" type=%d rc=%u ", (int)oi->type, oi->rc);
    }
    else {
        H5O_token_t undef = H5O_TOKEN_UNDEF;
        printf("type=%d rc=%u tokundef=%d ", (int)oi->type, oi->rc, memcmp(&oi->token, &undef, sizeof(undef)) == 0);
    }
    if ((fields & H5O_INFO_TIME) && !rw_mode)
        printf("t=%lld,%lld,%lld,%lld ", (long long)oi->atime, (long long)oi->mtime, (long long)oi->ctime,
               (long long)oi->btime);
    printf("na=%llu", (unsigned long long)oi->num_attrs);
}

/* Iteration callbacks: print each call; stop (or fail) after a chosen number of calls. */
typedef struct cb_state {
    int n, stop_at, stop_ret;
} cb_state_t;

static herr_t
stop_or_go(cb_state_t *s)
{
    if (++s->n == s->stop_at)
        return s->stop_ret;
    return 0;
}

static void
print_id(hid_t id)
{
    char name[512] = "";
    H5Iget_name(id, name, sizeof(name));
    printf("[%d %s] ", (int)H5Iget_type(id), name);
}

static herr_t
link_cb(hid_t g, const char *name, const H5L_info2_t *li, void *op_data)
{
    cb_state_t *s = op_data;
    if (s->n == 0)
        print_id(g);
    printf("  L %s ", name);
    print_linfo(li);
    printf("\n");
    return stop_or_go(s);
}

static unsigned visit_fields;
static herr_t
obj_cb(hid_t o, const char *name, const H5O_info2_t *oi, void *op_data)
{
    cb_state_t *s = op_data;
    if (s->n == 0)
        print_id(o);
    printf("  O %s ", name);
    print_oinfo(oi, visit_fields);
    printf("\n");
    return stop_or_go(s);
}

static herr_t
link1_cb(hid_t g, const char *name, const H5L_info1_t *li, void *op_data)
{
    (void)g;
    printf("  L1 %s type=%d addr=%llu\n", name, (int)li->type,
           li->type == H5L_TYPE_HARD && !rw_mode ? (unsigned long long)li->u.address : 0ULL);
    return stop_or_go(op_data);
}

static herr_t
obj1_cb(hid_t o, const char *name, const H5O_info1_t *oi, void *op_data)
{
    (void)o;
    printf("  O1 %s type=%d rc=%u addr=%llu na=%llu\n", name, (int)oi->type, oi->rc,
           rw_mode ? 0ULL : (unsigned long long)oi->addr, (unsigned long long)oi->num_attrs);
    return stop_or_go(op_data);
}

static const char *
random_name(void)
{
    static char buf[1200];
    int         r = (int)rnd(20);
    if (r == 0)
        return "/no_such";
    if (r == 1) {
        snprintf(buf, sizeof(buf), "%s/missing_child", paths[rnd((uint32_t)npaths)]);
        return buf;
    }
    if (r == 2) {
        snprintf(buf, sizeof(buf), "missing/%s", words[rnd(20)]);
        return buf;
    }
    const char *p = paths[rnd((uint32_t)npaths)];
    if (r == 3 && strcmp(p, "/")) {
        snprintf(buf, sizeof(buf), "%s/", p);
        return buf;
    }
    if (r == 4 && strcmp(p, "/")) {
        snprintf(buf, sizeof(buf), "/%s", p); /* "//a/b" */
        return buf;
    }
    if (r == 5 && strcmp(p, "/")) {
        snprintf(buf, sizeof(buf), "%s/inner", p); /* through soft or external links too */
        return buf;
    }
    return p;
}

static H5_index_t
rnd_idx(void)
{
    return rnd(2) ? H5_INDEX_NAME : H5_INDEX_CRT_ORDER;
}
static H5_iter_order_t
rnd_order(void)
{
    return (H5_iter_order_t)rnd(3);
}
static unsigned
rnd_fields(void)
{
    static const unsigned f[] = {H5O_INFO_BASIC, H5O_INFO_ALL, H5O_INFO_NUM_ATTRS, H5O_INFO_BASIC | H5O_INFO_TIME,
                                 0};
    return f[rnd(5)];
}

static void
stop_rule(cb_state_t *s)
{
    s->n        = 0;
    int r       = (int)rnd(6);
    s->stop_at  = r == 0 ? 1 + (int)rnd(5) : r == 1 ? 1 + (int)rnd(3) : -1;
    s->stop_ret = r == 0 ? 1 + (int)rnd(3) : -1;
}

static void
modify(hid_t f, int k, int *ok)
{
    char p[1200];
    int  what = (int)rnd(9);
    int  src  = (int)rnd((uint32_t)npaths);
    int  grp  = random_group();
    child_path(p, sizeof(p), paths[grp], 1000 + k);
    herr_t r = -1;
    switch (what) {
        case 0: {
            int   kind;
            hid_t gcpl = random_gcpl(&kind);
            hid_t g    = H5Gcreate2(f, p, H5P_DEFAULT, gcpl, H5P_DEFAULT);
            H5Pclose(gcpl);
            if (g >= 0) {
                add_path(p, 1);
                H5Gclose(g);
                r = 0;
            }
            break;
        }
        case 1:
            if ((r = H5Lcreate_hard(f, paths[src], f, p, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
                add_path(p, is_group[src]);
            break;
        case 2:
            if ((r = H5Lcreate_soft(paths[src], f, p, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
                add_path(p, 2);
            break;
        case 3:
            if (src)
                r = H5Ldelete(f, paths[src], H5P_DEFAULT);
            break;
        case 4:
            if (src && (r = H5Lmove(f, paths[src], f, p, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
                add_path(p, is_group[src]);
            break;
        case 5:
            if (src && (r = H5Lcopy(f, paths[src], f, p, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
                add_path(p, is_group[src]);
            break;
        case 6: {
            hid_t o = H5Oopen(f, paths[src], H5P_DEFAULT);
            if (o >= 0) {
                hid_t s = H5Screate(H5S_SCALAR);
                char  an[32];
                snprintf(an, sizeof(an), "new%d", k);
                hid_t a = H5Acreate2(o, an, H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT);
                r       = a;
                if (a >= 0)
                    H5Aclose(a);
                H5Sclose(s);
                H5Oclose(o);
            }
            break;
        }
        case 7:
            r = H5Adelete_by_name(f, paths[src], "attr0", H5P_DEFAULT);
            break;
        default:
            if (src && (r = H5Ocopy(f, paths[src], f, p, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
                add_path(p, is_group[src]);
            break;
    }
    printf("MOD %d %s -> %s: %d\n", what, paths[src], p, r >= 0);
    *ok += r >= 0;
}

static const char *attr_names[] = {"attr0", "attr1", "attr3", "NX_class", "vec", "big", "vstr", "cmp", "nope"};

/* Everything an application asks of an open attribute, the way loaders and h5py do. */
static void
print_attr(hid_t f, hid_t a)
{
    char       nb[1024] = "", an[8] = "";
    H5A_info_t ai;
    ssize_t    nlen = H5Aget_name(a, sizeof(an), an);
    H5Iget_name(a, nb, sizeof(nb));
    printf(" aname=%s/%zd path=%s", an, nlen, nb);
    if (H5Aget_info(a, &ai) >= 0)
        printf(" info=%d/%lld/%d/%llu", (int)ai.corder_valid, (long long)ai.corder, (int)ai.cset,
               (unsigned long long)ai.data_size);
    printf(" nobj=%zd/%zd", H5Fget_obj_count(f, H5F_OBJ_ATTR), H5Fget_obj_count(f, H5F_OBJ_ALL));
    hid_t t = H5Aget_type(a), s = H5Aget_space(a);
    if (t < 0 || s < 0) {
        printf(" type/space failed\n");
        return;
    }
    hssize_t      np = H5Sget_simple_extent_npoints(s);
    size_t        ts = H5Tget_size(t);
    unsigned char buf[1024];
    printf(" class=%d size=%zu np=%lld vstr=%d", (int)H5Tget_class(t), ts, (long long)np, (int)H5Tis_variable_str(t));
    if (np > 0 && (size_t)np * ts <= sizeof(buf) && H5Tget_class(t) != H5T_VLEN && H5Tis_variable_str(t) == 0) {
        memset(buf, 0, sizeof(buf));
        printf(" read=%d:", (int)H5Aread(a, t, buf));
        for (size_t i = 0; i < (size_t)np * ts && i < 48; i++)
            printf("%02x", buf[i]);
        /* and converted, as a loader reading into its own type does */
        hid_t mt = H5I_INVALID_HID;
        if (H5Tget_class(t) == H5T_INTEGER)
            mt = H5Tcopy(H5T_NATIVE_LLONG);
        else if (H5Tget_class(t) == H5T_FLOAT)
            mt = H5Tcopy(H5T_NATIVE_FLOAT);
        else if (H5Tget_class(t) == H5T_STRING) {
            mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, 4);
        }
        else if (H5Tget_class(t) == H5T_COMPOUND) {
            mt = H5Tcreate(H5T_COMPOUND, sizeof(double));
            H5Tinsert(mt, "d", 0, H5T_NATIVE_DOUBLE);
        }
        if (mt >= 0) {
            memset(buf, 0, sizeof(buf));
            printf(" conv=%d:", (int)H5Aread(a, mt, buf));
            for (size_t i = 0; i < (size_t)np * H5Tget_size(mt) && i < 48; i++)
                printf("%02x", buf[i]);
            H5Tclose(mt);
        }
    }
    else if (np == 1 && H5Tis_variable_str(t) > 0) {
        char *v = NULL;
        printf(" read=%d", (int)H5Aread(a, t, &v));
        printf(":%s", v ? v : "(null)");
        H5free_memory(v);
    }
    printf(" storage=%llu", (unsigned long long)H5Aget_storage_size(a));
    H5Tclose(t);
    H5Sclose(s);
}

/* ------------------------------------------------------------------ datasets */
/* What loaders ask of a dataset, answered from the small-dataset cache for lazy datasets: every
 * answer printed, every buffer filled with a pattern first (zeros where it will hold pointers) and
 * followed by guard bytes, so that bytes a read does not write are seen too. */
#define GUARD 16
#define BLIND_CAP 8192 /* elements: more than any dataset of the tree has, even extended */

static uint64_t
fnv(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t             h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* Whether t has a variable-length part (what = 0) or a reference (what = 1) anywhere in it. */
static int
type_has(hid_t t, int what)
{
    H5T_class_t c = H5Tget_class(t);
    int         r = 0;
    if (what == 0 && (c == H5T_VLEN || (c == H5T_STRING && H5Tis_variable_str(t) > 0)))
        return 1;
    if (what == 1 && c == H5T_REFERENCE)
        return 1;
    if (c == H5T_COMPOUND) {
        for (int m = 0; m < H5Tget_nmembers(t) && !r; m++) {
            hid_t mt = H5Tget_member_type(t, (unsigned)m);
            r        = type_has(mt, what);
            H5Tclose(mt);
        }
    }
    else if (c == H5T_ARRAY || c == H5T_VLEN) {
        hid_t bt = H5Tget_super(t);
        r        = type_has(bt, what);
        H5Tclose(bt);
    }
    return r;
}

static void
print_elem(hid_t t, const unsigned char *p)
{
    H5T_class_t c = H5Tget_class(t);
    if (c == H5T_STRING && H5Tis_variable_str(t) > 0) {
        char *v;
        memcpy(&v, p, sizeof(v));
        printf(v ? "'%s'" : "%s", v ? v : "NULL");
    }
    else if (c == H5T_VLEN) {
        hvl_t v;
        hid_t bt = H5Tget_super(t);
        memcpy(&v, p, sizeof(v));
        printf("[%zu:", v.len);
        for (size_t i = 0; i < v.len; i++)
            print_elem(bt, (const unsigned char *)v.p + i * H5Tget_size(bt)), printf(" ");
        printf("]");
        H5Tclose(bt);
    }
    else if (c == H5T_COMPOUND) {
        printf("{");
        for (int m = 0; m < H5Tget_nmembers(t); m++) {
            char *nm = H5Tget_member_name(t, (unsigned)m);
            hid_t mt = H5Tget_member_type(t, (unsigned)m);
            printf("%s=", nm);
            print_elem(mt, p + H5Tget_member_offset(t, (unsigned)m));
            printf(" ");
            H5Tclose(mt);
            H5free_memory(nm);
        }
        printf("}");
    }
    else if (c == H5T_ARRAY) {
        hsize_t ad[H5S_MAX_RANK];
        int     r  = H5Tget_array_dims2(t, ad);
        size_t  ne = 1;
        hid_t   bt = H5Tget_super(t);
        for (int k = 0; k < r; k++)
            ne *= (size_t)ad[k];
        printf("(");
        for (size_t i = 0; i < ne; i++)
            print_elem(bt, p + i * H5Tget_size(bt)), printf(" ");
        printf(")");
        H5Tclose(bt);
    }
    else
        for (size_t b = 0; b < H5Tget_size(t); b++)
            printf("%02x", p[b]);
}

static hsize_t
dset_npoints(hid_t d)
{
    hid_t    s = H5Dget_space(d);
    hssize_t n = s >= 0 ? H5Sget_simple_extent_npoints(s) : 0;
    if (s >= 0)
        H5Sclose(s);
    return n > 0 ? (hsize_t)n : 0;
}

/* H5Dread into a buffer of ncap elements of mt; nshow of them are printed (and hashed with the
 * guard bytes after them); nshow == (hsize_t)-1: as many as the dataset has, asked after the
 * read. References and variable-length data are printed by value, never by pointer. */
static void
do_read(hid_t d, hid_t mt, hid_t ms, hid_t fs, hid_t dxpl, hsize_t ncap, hsize_t nshow)
{
    size_t         es  = H5Tget_size(mt);
    int            vl  = type_has(mt, 0);
    int            ref = H5Tequal(mt, H5T_STD_REF) > 0;
    size_t         n   = (size_t)ncap * es;
    unsigned char *buf = malloc(n + GUARD);
    memset(buf, vl || ref ? 0 : 0xA5, n);
    memset(buf + n, 0x5A, GUARD);
    herr_t r = H5Dread(d, mt, ms, fs, dxpl, buf);
    printf(" r=%s", r < 0 ? "ERR" : "ok");
    if (nshow == (hsize_t)-1) {
        nshow = dset_npoints(d);
        if (nshow > ncap) {
            fprintf(stderr, "index_diff: dataset larger than the blind read's buffer\n");
            exit(2);
        }
    }
    if (ref) {
        for (hsize_t i = 0; i < nshow && r >= 0; i++) {
            H5R_ref_t *rf = (H5R_ref_t *)(void *)(buf + i * es);
            char       nm[1024];
            ssize_t    l = H5Rget_obj_name(rf, H5P_DEFAULT, nm, sizeof(nm));
            printf(" ref%d:%s", (int)H5Rget_type(rf), l >= 0 ? nm : "ERR");
            H5Rdestroy(rf);
        }
    }
    else if (vl) {
        printf(" ");
        for (hsize_t i = 0; i < nshow && r >= 0; i++)
            print_elem(mt, buf + i * es), printf(",");
        hid_t sp = H5Screate_simple(1, &ncap, NULL);
        H5Treclaim(mt, sp, H5P_DEFAULT, buf);
        H5Sclose(sp);
    }
    else if (rw_mode && type_has(mt, 1))
        printf(" *"); /* file addresses */
    else {
        size_t m = (size_t)nshow * es;
        printf(" n=%zu ", m);
        for (size_t i = 0; i < m && i < 40; i++)
            printf("%02x", buf[i]);
        printf("%s h=%016llx", m > 40 ? ".." : "", (unsigned long long)fnv(buf, m + GUARD));
        if (r >= 0 && H5Tequal(mt, H5T_NATIVE_DOUBLE) > 0)
            for (size_t i = 0; i < 4 && (i + 1) * 8 <= m; i++) {
                double v;
                memcpy(&v, buf + i * 8, 8);
                printf(" %.17g", v);
            }
        else if (r >= 0 && H5Tequal(mt, H5T_NATIVE_INT) > 0)
            for (size_t i = 0; i < 4 && (i + 1) * sizeof(int) <= m; i++) {
                int v;
                memcpy(&v, buf + i * sizeof(int), sizeof(int));
                printf(" %d", v);
            }
    }
    /* what a read writes past the selection it was given */
    printf(" g=%08llx", (unsigned long long)(fnv(buf + n, GUARD) & 0xffffffffu));
    free(buf);
}

/* A whole read (H5S_ALL, H5S_ALL), sized from the dataspace first or read blind. */
static void
read_whole(hid_t d, hid_t mt, const char *label, hid_t dxpl)
{
    int     blind = (int)rnd(2);
    hsize_t n     = blind ? BLIND_CAP : dset_npoints(d);
    printf("  read(%s%s)", label, blind ? ",blind" : "");
    do_read(d, mt, H5S_ALL, H5S_ALL, dxpl, n, blind ? (hsize_t)-1 : n);
    printf("\n");
}

enum {
    MT_FILE, MT_NATIVE, MT_DOUBLE, MT_INT, MT_SHORT, MT_FLOAT, MT_UCHAR, MT_LLONG, MT_ULLONG, MT_I32BE, MT_F64BE,
    MT_SCHAR, MT_STR4, MT_STR16SP, MT_VSTR, MT_CMPD_SUB, MT_CMPD_REV, MT_ARR_INT, MT_ARR_DBL, MT_REF, MT_VLEN_INT,
    MT_N
};
static const char *mt_names[] = {"file",  "native", "double", "int",   "short", "float",   "uchar",
                                 "llong", "ullong", "i32be",  "f64be", "schar", "str4",    "str16sp",
                                 "vstr",  "cmpd_sub", "cmpd_rev", "arr_int", "arr_dbl", "ref", "vlen_int"};

/* The memory type k for reading a dataset of file type ft (a new type, to close), or -1. */
static hid_t
make_mem_type(hid_t ft, int k)
{
    H5T_class_t c = H5Tget_class(ft);
    hid_t       t;
    switch (k) {
        case MT_FILE:
            return H5Tcopy(ft);
        case MT_NATIVE:
            return H5Tget_native_type(ft, H5T_DIR_DEFAULT);
        case MT_DOUBLE:
            return H5Tcopy(H5T_NATIVE_DOUBLE);
        case MT_INT:
            return H5Tcopy(H5T_NATIVE_INT);
        case MT_SHORT:
            return H5Tcopy(H5T_NATIVE_SHORT);
        case MT_FLOAT:
            return H5Tcopy(H5T_NATIVE_FLOAT);
        case MT_UCHAR:
            return H5Tcopy(H5T_NATIVE_UCHAR);
        case MT_LLONG:
            return H5Tcopy(H5T_NATIVE_LLONG);
        case MT_ULLONG:
            return H5Tcopy(H5T_NATIVE_ULLONG);
        case MT_I32BE:
            return H5Tcopy(H5T_STD_I32BE);
        case MT_F64BE:
            return H5Tcopy(H5T_IEEE_F64BE);
        case MT_SCHAR:
            return H5Tcopy(H5T_NATIVE_SCHAR);
        case MT_STR4:
        case MT_STR16SP:
            t = H5Tcopy(H5T_C_S1);
            H5Tset_size(t, k == MT_STR4 ? 4 : 16);
            if (k == MT_STR16SP)
                H5Tset_strpad(t, H5T_STR_SPACEPAD);
            return t;
        case MT_VSTR:
            t = H5Tcopy(H5T_C_S1);
            H5Tset_size(t, H5T_VARIABLE);
            return t;
        case MT_CMPD_SUB: /* one member, native: needs a background buffer */
        case MT_CMPD_REV: /* every member, native, in reverse order */
            if (c != H5T_COMPOUND) {
                t = H5Tcreate(H5T_COMPOUND, sizeof(double));
                H5Tinsert(t, "d", 0, H5T_NATIVE_DOUBLE);
                return t;
            }
            else {
                int    nm = H5Tget_nmembers(ft) > 16 ? 16 : H5Tget_nmembers(ft), first = k == MT_CMPD_SUB ? nm > 1 : 0;
                int    last = k == MT_CMPD_SUB ? first : nm - 1;
                size_t off = 0, sz = 0;
                hid_t  mts[16];
                for (int m = first; m <= last; m++) {
                    hid_t mt = H5Tget_member_type(ft, (unsigned)m);
                    mts[m]   = H5Tget_native_type(mt, H5T_DIR_DEFAULT);
                    sz += H5Tget_size(mts[m]);
                    H5Tclose(mt);
                }
                t = H5Tcreate(H5T_COMPOUND, sz);
                for (int m = last; m >= first; m--) {
                    char *mn = H5Tget_member_name(ft, (unsigned)m);
                    H5Tinsert(t, mn, off, mts[m]);
                    off += H5Tget_size(mts[m]);
                    H5Tclose(mts[m]);
                    H5free_memory(mn);
                }
                return t;
            }
        case MT_ARR_INT:
        case MT_ARR_DBL: {
            hsize_t ad[H5S_MAX_RANK] = {2};
            int     r                = c == H5T_ARRAY ? H5Tget_array_dims2(ft, ad) : 1;
            return H5Tarray_create2(k == MT_ARR_INT ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, (unsigned)r, ad);
        }
        case MT_REF:
            return H5Tcopy(H5T_STD_REF);
        default:
            return H5Tvlen_create(H5T_NATIVE_INT);
    }
}

/* A memory type a loader would use for this class of file type, sometimes any (the read must then
 * fail alike). */
static int
pick_mem_type(hid_t ft)
{
    static const int num[] = {MT_FILE, MT_NATIVE, MT_DOUBLE, MT_INT,   MT_SHORT,  MT_FLOAT,
                              MT_UCHAR, MT_LLONG, MT_ULLONG, MT_I32BE, MT_F64BE, MT_SCHAR};
    static const int str[] = {MT_FILE, MT_NATIVE, MT_STR4, MT_STR16SP, MT_VSTR};
    static const int cmp[] = {MT_FILE, MT_NATIVE, MT_CMPD_SUB, MT_CMPD_REV};
    static const int arr[] = {MT_FILE, MT_NATIVE, MT_ARR_INT, MT_ARR_DBL};
    static const int enm[] = {MT_FILE, MT_NATIVE, MT_INT, MT_UCHAR};
    static const int ref[] = {MT_FILE, MT_REF};
    static const int vln[] = {MT_FILE, MT_NATIVE, MT_VLEN_INT};
    if (rnd(4) == 0)
        return (int)rnd(MT_N);
    switch (H5Tget_class(ft)) {
        case H5T_INTEGER:
        case H5T_FLOAT:
            return num[rnd(sizeof(num) / sizeof(num[0]))];
        case H5T_STRING:
            return str[rnd(sizeof(str) / sizeof(str[0]))];
        case H5T_COMPOUND:
            return cmp[rnd(sizeof(cmp) / sizeof(cmp[0]))];
        case H5T_ARRAY:
            return arr[rnd(sizeof(arr) / sizeof(arr[0]))];
        case H5T_ENUM:
            return enm[rnd(sizeof(enm) / sizeof(enm[0]))];
        case H5T_REFERENCE:
            return ref[rnd(2)];
        case H5T_VLEN:
            return vln[rnd(3)];
        default:
            return enm[rnd(sizeof(enm) / sizeof(enm[0]))];
    }
}

/* A whole read with a memory type picked for the dataset's type. */
static void
read_picked(hid_t d)
{
    hid_t ft = H5Dget_type(d);
    int   k  = pick_mem_type(ft);
    hid_t mt = make_mem_type(ft, k);
    if (mt < 0)
        printf("  read(%s) no type\n", mt_names[k]);
    else
        read_whole(d, mt, mt_names[k], H5P_DEFAULT), H5Tclose(mt);
    H5Tclose(ft);
}

static void
print_type(hid_t t)
{
    H5T_class_t c = H5Tget_class(t);
    printf(" class=%d size=%zu order=%d", (int)c, H5Tget_size(t), (int)H5Tget_order(t));
    if (c == H5T_INTEGER)
        printf(" sign=%d", (int)H5Tget_sign(t));
    if (c == H5T_FLOAT || c == H5T_INTEGER)
        printf(" prec=%zu", H5Tget_precision(t));
    if (c == H5T_STRING)
        printf(" vstr=%d pad=%d cset=%d", (int)H5Tis_variable_str(t), (int)H5Tget_strpad(t), (int)H5Tget_cset(t));
    if (c == H5T_COMPOUND || c == H5T_ENUM) {
        int nm = H5Tget_nmembers(t);
        printf(" nm=%d", nm);
        for (int m = 0; m < nm; m++) {
            char *mn = H5Tget_member_name(t, (unsigned)m);
            printf(" %s", mn);
            if (c == H5T_COMPOUND)
                printf("@%zu", H5Tget_member_offset(t, (unsigned)m));
            H5free_memory(mn);
        }
    }
    if (c == H5T_ARRAY) {
        hsize_t ad[H5S_MAX_RANK];
        int     r = H5Tget_array_dims2(t, ad);
        printf(" adims=");
        for (int k = 0; k < r; k++)
            printf("%llu,", (unsigned long long)ad[k]);
    }
    if (c == H5T_OPAQUE) {
        char *tag = H5Tget_tag(t);
        printf(" tag=%s", tag ? tag : "");
        H5free_memory(tag);
    }
    printf(" eq(double,int)=%d,%d committed=%d", (int)H5Tequal(t, H5T_NATIVE_DOUBLE), (int)H5Tequal(t, H5T_NATIVE_INT),
           (int)H5Tcommitted(t));
    size_t en = 0;
    if (H5Tencode(t, NULL, &en) >= 0 && en > 0) {
        unsigned char *eb = malloc(en);
        H5Tencode(t, eb, &en);
        printf(" enc=%zu:%016llx", en, (unsigned long long)fnv(eb, en));
        free(eb);
    }
    else
        printf(" enc=ERR");
    hid_t nt = H5Tget_native_type(t, H5T_DIR_DEFAULT);
    printf(" native=%d", nt >= 0);
    if (nt >= 0) {
        printf("/%d/%zu", (int)H5Tget_class(nt), H5Tget_size(nt));
        H5Tclose(nt);
    }
}

static void
ds_space(hid_t d)
{
    hid_t s = H5Dget_space(d);
    printf("  space:");
    if (s < 0) {
        printf(" ERR\n");
        return;
    }
    hsize_t dims[H5S_MAX_RANK], maxd[H5S_MAX_RANK];
    int     rank = H5Sget_simple_extent_dims(s, dims, maxd);
    printf(" cls=%d rank=%d", (int)H5Sget_simple_extent_type(s), rank);
    for (int i = 0; i < rank; i++)
        printf(" %llu/%lld", (unsigned long long)dims[i], maxd[i] == H5S_UNLIMITED ? -1LL : (long long)maxd[i]);
    printf(" npts=%lld sel=%d", (long long)H5Sget_select_npoints(s), (int)H5Sget_select_type(s));
    size_t en = 0;
    if (H5Sencode2(s, NULL, &en, H5P_DEFAULT) >= 0 && en > 0) {
        unsigned char *eb = malloc(en);
        H5Sencode2(s, eb, &en, H5P_DEFAULT);
        printf(" enc=%zu:%016llx", en, (unsigned long long)fnv(eb, en));
        free(eb);
    }
    printf(" ref=%d\n", H5Iget_ref(s));
    H5Sclose(s);
}

static void
ds_type(hid_t d)
{
    hid_t t = H5Dget_type(d);
    printf("  type:");
    if (t >= 0) {
        char nb[256] = "";
        print_type(t);
        H5Iget_name(t, nb, sizeof(nb));
        printf(" tname=%s tref=%d", nb, H5Iget_ref(t));
        /* the type a dataset hands out is read-only */
        printf(" setsize=%d", (int)H5Tset_size(t, H5Tget_size(t)));
        H5Tclose(t);
    }
    else
        printf(" ERR");
    printf("\n");
}

static void
ds_storage(hid_t d)
{
    H5D_space_status_t st = H5D_SPACE_STATUS_ERROR;
    herr_t             r  = H5Dget_space_status(d, &st);
    haddr_t            a  = H5Dget_offset(d);
    printf("  storage=%llu status=%d/%d offset=", (unsigned long long)H5Dget_storage_size(d), (int)r, (int)st);
    if (a == HADDR_UNDEF)
        printf("undef\n");
    else if (rw_mode)
        printf("*\n");
    else
        printf("%llu\n", (unsigned long long)a);
}

/* Whole reads with explicit dataspaces: the same shape selecting all, a 1-D one of as many points,
 * the file's space selected all by a hyperslab, a larger memory buffer partly selected. */
static void
ds_read_spaces(hid_t d)
{
    hid_t ft = H5Dget_type(d), fs = H5Dget_space(d), ms, fsel;
    int   v     = (int)rnd(6);
    int   cls   = (int)H5Sget_simple_extent_type(fs);
    int   ptrs  = type_has(ft, 0) || type_has(ft, 1);
    hsize_t n   = (hsize_t)H5Sget_simple_extent_npoints(fs), cap = n, dims[H5S_MAX_RANK], start[H5S_MAX_RANK] = {0};
    int   rank  = H5Sget_simple_extent_dims(fs, dims, NULL);
    int   k     = rnd(2) ? MT_FILE : pick_mem_type(ft);
    hid_t mt    = make_mem_type(ft, k);
    if (v == 5 && (ptrs || type_has(mt, 0) || H5Tequal(mt, H5T_STD_REF) > 0))
        v = 1; /* memory left unselected must not hold pointers */
    if (v == 3 && cls != H5S_SIMPLE)
        v = 0;
    fsel = fs;
    switch (v) {
        case 0: /* both: the same shape, all */
            ms = H5Scopy(fs);
            H5Sselect_all(ms);
            break;
        case 1: /* memory: 1-D of as many points, file: H5S_ALL */
            ms = cls == H5S_NULL ? H5Screate(H5S_NULL) : H5Screate_simple(1, &n, NULL);
            fsel = H5S_ALL;
            break;
        case 2: /* memory: H5S_ALL, file: all */
            ms = H5S_ALL;
            break;
        case 3: /* file: every point, as a hyperslab */
            H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, dims, NULL);
            ms = H5Scopy(fs);
            break;
        case 4: /* memory: the same shape with its own selection of all, file: the dataset's space */
            ms = H5Scopy(fs);
            H5Sselect_none(ms);
            H5Sselect_all(ms);
            break;
        default: { /* memory: 3 more points, the dataset's at offset 2 */
            hsize_t big = n + 3, off = 2;
            ms          = H5Screate_simple(1, &big, NULL);
            if (cls == H5S_NULL)
                H5Sselect_none(ms);
            else
                H5Sselect_hyperslab(ms, H5S_SELECT_SET, &off, NULL, &n, NULL);
            cap = big;
            break;
        }
    }
    printf("  read_spaces(%d,%s,rank=%d)", v, mt_names[k], rank);
    if (mt < 0)
        printf(" no type");
    else
        do_read(d, mt, ms, fsel, H5P_DEFAULT, cap, cap), H5Tclose(mt);
    printf("\n");
    if (ms != H5S_ALL)
        H5Sclose(ms);
    H5Sclose(fs);
    H5Tclose(ft);
}

/* Part of a dataset: a hyperslab (strided or not), points, nothing, or a union of two blocks. */
static void
ds_read_part(hid_t d)
{
    hid_t   ft = H5Dget_type(d), fs = H5Dget_space(d), ms;
    hsize_t dims[H5S_MAX_RANK], start[H5S_MAX_RANK], count[H5S_MAX_RANK], stride[H5S_MAX_RANK];
    int     rank = H5Sget_simple_extent_dims(fs, dims, NULL), cls = (int)H5Sget_simple_extent_type(fs);
    int     v    = (int)rnd(4);
    int     k    = rnd(2) ? MT_FILE : pick_mem_type(ft);
    hid_t   mt   = make_mem_type(ft, k);
    if (cls == H5S_SCALAR)
        v = 2 + (int)rnd(2); /* none or all */
    else if (cls == H5S_NULL || dset_npoints(d) == 0)
        v = 2;
    switch (v) {
        case 0:
        case 3:
            for (int i = 0; i < rank; i++) {
                start[i]  = rnd((uint32_t)dims[i]);
                stride[i] = 1 + rnd(2);
                count[i]  = 1 + rnd((uint32_t)((dims[i] - start[i] + stride[i] - 1) / stride[i]));
            }
            if (cls == H5S_SCALAR)
                H5Sselect_all(fs);
            else
                H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, stride, count, NULL);
            if (v == 3 && cls != H5S_SCALAR) {
                for (int i = 0; i < rank; i++)
                    start[i] = rnd((uint32_t)dims[i]), count[i] = 1;
                H5Sselect_hyperslab(fs, H5S_SELECT_OR, start, NULL, count, NULL);
            }
            break;
        case 1: {
            hsize_t coords[5 * H5S_MAX_RANK];
            size_t  np = 1 + rnd(5);
            for (size_t p = 0; p < np; p++)
                for (int i = 0; i < rank; i++)
                    coords[p * (size_t)rank + (size_t)i] = rnd((uint32_t)dims[i]);
            H5Sselect_elements(fs, H5S_SELECT_SET, np, coords);
            break;
        }
        default:
            H5Sselect_none(fs);
            break;
    }
    hsize_t n = (hsize_t)H5Sget_select_npoints(fs), one = n ? n : 1;
    ms        = H5Screate_simple(1, &one, NULL);
    if (n == 0)
        H5Sselect_none(ms);
    printf("  read_part(%d,%s) n=%llu", v, mt_names[k], (unsigned long long)n);
    if (mt < 0)
        printf(" no type");
    else
        do_read(d, mt, ms, fs, H5P_DEFAULT, one, n), H5Tclose(mt);
    printf("\n");
    H5Sclose(ms);
    H5Sclose(fs);
    H5Tclose(ft);
}

static void
ds_dcpl(hid_t d)
{
    hid_t dcpl = H5Dget_create_plist(d);
    printf("  dcpl=%d", dcpl >= 0);
    if (dcpl >= 0) {
        H5D_layout_t        lay = H5Pget_layout(dcpl);
        int                 nf  = H5Pget_nfilters(dcpl);
        H5D_alloc_time_t    at  = H5D_ALLOC_TIME_ERROR;
        H5D_fill_time_t     ftm = H5D_FILL_TIME_ERROR;
        H5D_fill_value_t    fv  = H5D_FILL_VALUE_ERROR;
        hbool_t             tt  = 0;
        H5Pget_alloc_time(dcpl, &at);
        H5Pget_fill_time(dcpl, &ftm);
        H5Pfill_value_defined(dcpl, &fv);
        H5Pget_obj_track_times(dcpl, &tt);
        printf(" layout=%d nfilters=%d", (int)lay, nf);
        for (int i = 0; i < nf; i++) {
            unsigned     flags, cd[8];
            size_t       ncd = 8;
            char         fname[64] = "";
            H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof(fname), fname, NULL);
            printf(" f%d=%d/%u/%zu", i, (int)id, flags, ncd);
        }
        if (lay == H5D_CHUNKED) {
            hsize_t cd[H5S_MAX_RANK];
            int     r = H5Pget_chunk(dcpl, H5S_MAX_RANK, cd);
            printf(" chunk=");
            for (int i = 0; i < r; i++)
                printf("%llu,", (unsigned long long)cd[i]);
        }
        int ne = H5Pget_external_count(dcpl);
        printf(" ext=%d", ne);
        if (ne > 0) {
            char    en[64] = "";
            off_t   off    = 0;
            hsize_t sz     = 0;
            H5Pget_external(dcpl, 0, sizeof(en), en, &off, &sz);
            printf(":%s@%lld+%llu", en, (long long)off, (unsigned long long)sz);
        }
        printf(" alloc=%d filltime=%d fill=%d times=%d", (int)at, (int)ftm, (int)fv, (int)tt);
        hid_t ft = H5Dget_type(d);
        if (!type_has(ft, 0) && !type_has(ft, 1) && H5Tget_size(ft) <= 256) {
            unsigned char fb[256];
            memset(fb, 0xA5, sizeof(fb));
            printf(" fillvalue=%d:", (int)H5Pget_fill_value(dcpl, ft, fb));
            for (size_t i = 0; i < H5Tget_size(ft) && i < sizeof(fb); i++)
                printf("%02x", fb[i]);
        }
        H5Tclose(ft);
        printf(" eqdef=%d", (int)H5Pequal(dcpl, H5P_DATASET_CREATE_DEFAULT));
        H5Pclose(dcpl);
    }
    printf("\n");
}

static void
ds_dapl(hid_t d)
{
    hid_t dapl = H5Dget_access_plist(d);
    printf("  dapl=%d", dapl >= 0);
    if (dapl >= 0) {
        size_t         nslots = 0, nbytes = 0;
        double         w0 = 0;
        char           pre[64] = "";
        H5D_vds_view_t view    = H5D_VDS_ERROR;
        H5Pget_chunk_cache(dapl, &nslots, &nbytes, &w0);
        printf(" cache=%zu/%zu/%g prefix=%zd:%s", nslots, nbytes, w0, H5Pget_efile_prefix(dapl, pre, sizeof(pre)), pre);
        H5Pget_virtual_view(dapl, &view);
        printf(" view=%d", (int)view);
        H5Pclose(dapl);
    }
    printf("\n");
}

static void
ds_oinfo(hid_t d)
{
    H5O_info2_t       oi;
    H5O_native_info_t ni;
    unsigned          fl = rnd_fields();
    herr_t            r  = rnd(3) ? H5Oget_info3(d, &oi, fl) : H5Oget_info_by_name3(d, ".", &oi, fl, H5P_DEFAULT);
    printf("  oinfo(%u) r=%d ", fl, (int)r);
    if (r >= 0)
        print_oinfo(&oi, fl);
    /* header layout: HDF5 rewrites headers it reads in a read-write run, so only read-only */
    r = H5Oget_native_info(d, &ni, H5O_NATIVE_INFO_ALL);
    printf(" native r=%d", (int)r);
    if (r >= 0 && !rw_mode)
        printf(" v=%u nmesgs=%u nchunks=%u total=%llu free=%llu obj=%llu attr=%llu", ni.hdr.version, ni.hdr.nmesgs,
               ni.hdr.nchunks, (unsigned long long)ni.hdr.space.total, (unsigned long long)ni.hdr.space.free,
               (unsigned long long)ni.meta_size.obj.index_size, (unsigned long long)ni.meta_size.attr.heap_size);
    printf("\n");
}

static herr_t
aname_cb(hid_t loc, const char *name, const H5A_info_t *ai, void *op_data)
{
    (void)loc, (void)op_data;
    printf(" %s/%llu", name, (unsigned long long)ai->data_size);
    return 0;
}

static void
ds_attrs(hid_t f, hid_t d)
{
    const char *an = attr_names[rnd(sizeof(attr_names) / sizeof(attr_names[0]))];
    hsize_t         idx = 0;
    H5_index_t      it  = rnd_idx();
    H5_iter_order_t o   = rnd_order();
    printf("  Aexists(%s)=%d", an, (int)H5Aexists(d, an));
    hid_t a = H5Aopen(d, an, H5P_DEFAULT);
    printf(" Aopen=%d", a >= 0);
    if (a >= 0)
        print_attr(f, a), H5Aclose(a);
    printf(" iterate(%d,%d):", (int)it, (int)o);
    herr_t r = H5Aiterate2(d, it, o, &idx, aname_cb, NULL);
    printf(" -> %d", (int)r);
    a = H5Aopen_by_idx(d, ".", H5_INDEX_NAME, H5_ITER_INC, 0, H5P_DEFAULT, H5P_DEFAULT);
    printf(" byidx0=%d", a >= 0);
    if (a >= 0) {
        char nb[64] = "";
        H5Aget_name(a, sizeof(nb), nb);
        printf(":%s", nb);
        H5Aclose(a);
    }
    printf("\n");
}

static void
ds_names(hid_t d)
{
    char    nb[1024] = "", sb[6] = "";
    ssize_t l        = H5Iget_name(d, sb, sizeof(sb));
    H5Iget_name(d, nb, sizeof(nb));
    printf("  name=%zd:%s|%s itype=%d ref=%d valid=%d", l, sb, nb, (int)H5Iget_type(d), H5Iget_ref(d),
           (int)H5Iis_valid(d));
    hid_t fid = H5Iget_file_id(d);
    printf(" fid=%d", fid >= 0);
    if (fid >= 0) {
        unsigned intent = 0;
        H5Fget_intent(fid, &intent);
        printf(" intent=%u nobj=%zd/%zd/%zd", intent, H5Fget_obj_count(fid, H5F_OBJ_DATASET),
               H5Fget_obj_count(fid, H5F_OBJ_ALL), H5Fget_obj_count(fid, H5F_OBJ_FILE));
        H5Fclose(fid);
    }
    printf("\n");
}

static void
ds_counts(hid_t f)
{
    hid_t   ids[16];
    ssize_t n = H5Fget_obj_ids(f, H5F_OBJ_DATASET, 16, ids);
    printf("  nobj=%zd/%zd/%zd ids=%zd", H5Fget_obj_count(f, H5F_OBJ_DATASET), H5Fget_obj_count(f, H5F_OBJ_ALL),
           H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_DATASET), n);
    for (ssize_t i = 0; i < n; i++) {
        char nb[1024] = "";
        H5Iget_name(ids[i], nb, sizeof(nb));
        printf(" %s", nb);
    }
    printf("\n");
}

/* How a loader names a dataset: by absolute path mostly, else relative to the root or to its group,
 * with doubled or trailing slashes, through ".", or with a dataset access property list. */
static hid_t
open_dset(hid_t f, const char *p)
{
    char        name[2600];
    hid_t       loc = f, dapl = H5P_DEFAULT, d;
    int         v   = (int)rnd(14);
    const char *how = "abs";
    snprintf(name, sizeof(name), "%s", p);
    if (v == 8 && p[0] == '/' && p[1]) {
        how = "rel";
        snprintf(name, sizeof(name), "%s", p + 1);
    }
    else if (v == 9) {
        const char *slash = strrchr(p, '/');
        char        parent[1200];
        how = "grp";
        if (slash) {
            snprintf(parent, sizeof(parent), "%.*s", slash == p ? 1 : (int)(slash - p), p);
            if ((loc = H5Gopen2(f, parent, H5P_DEFAULT)) < 0)
                loc = f;
            else
                snprintf(name, sizeof(name), "%s", slash + 1);
        }
    }
    else if (v == 10) {
        size_t j = 0;
        how      = "dbl";
        for (const char *c = p; *c && j + 2 < sizeof(name); c++) {
            name[j++] = *c;
            if (*c == '/')
                name[j++] = '/';
        }
        name[j] = 0;
    }
    else if (v == 11) {
        how = "dot";
        snprintf(name, sizeof(name), "/.%s", p);
    }
    else if (v == 12) {
        how = "slash";
        snprintf(name, sizeof(name), "%s/", p);
    }
    else if (v == 13) {
        how  = "dapl";
        dapl = H5Pcreate(H5P_DATASET_ACCESS);
        H5Pset_chunk_cache(dapl, 7, 4096, 0.5);
    }
    d = H5Dopen2(loc, name, dapl);
    printf(" open(%s)=%d", how, d >= 0);
    if (loc != f)
        H5Gclose(loc);
    if (dapl != H5P_DEFAULT)
        H5Pclose(dapl);
    return d;
}

/* The datasets the queries come back to (so that the cache takes them and then answers): a small
 * set of the small ones, one replaced every 25 queries. */
#define NHOT 8
static int hot[NHOT], nhot;

static void
hot_replace(int slot)
{
    for (int tries = 0; tries < 10000; tries++) {
        int i = (int)rnd((uint32_t)npaths);
        if (is_group[i] == 4) {
            hot[slot] = i;
            return;
        }
    }
}

static const char *
pick_dset(void)
{
    int r = (int)rnd(20);
    if (r < 15 && nhot)
        return paths[hot[rnd((uint32_t)nhot)]];
    if (r < 19)
        for (int tries = 0; tries < 10000; tries++) {
            int i = (int)rnd((uint32_t)npaths);
            if (is_group[i] >= 3)
                return paths[i];
        }
    return random_name();
}

/* Datasets held open across queries (and at last across H5Fclose). */
#define NHELD 3
static hid_t held[NHELD] = {H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID};
static char  held_name[NHELD][1200];

enum { NSUB = 23 };

/* A sub-operation: half of the time one of those a lazy dataset answers itself (space, type,
 * storage, whole reads) or must refuse to (a transfer property list of its own), so that sequences
 * of them come before anything that opens it for real. */
static int
rnd_sub(void)
{
    static const int lazy[] = {0, 1, 2, 3, 4, 5, 6, 8, 9};
    return rnd(2) ? lazy[rnd(sizeof(lazy) / sizeof(lazy[0]))] : (int)rnd(NSUB);
}

/* One thing an application does with an open dataset; *dp may be replaced by another handle to
 * the same dataset (opened twice, the first closed). */
static void
dset_sub(hid_t f, hid_t *dp, const char *p, int sub)
{
    hid_t d = *dp;
    switch (sub) {
        case 0:
            ds_space(d);
            break;
        case 1:
            ds_type(d);
            break;
        case 2:
            ds_storage(d);
            break;
        case 3: {
            hid_t ft = H5Dget_type(d);
            read_whole(d, ft, "file", H5P_DEFAULT);
            H5Tclose(ft);
            break;
        }
        case 4:
        case 5:
            read_picked(d);
            break;
        case 6:
            ds_read_spaces(d);
            break;
        case 7:
            ds_read_part(d);
            break;
        case 8: { /* a transfer property list of its own: nothing set, a buffer size, transforms */
            hid_t       dxpl = H5Pcreate(H5P_DATASET_XFER), ft = H5Dget_type(d);
            int         v = (int)rnd(5), k = pick_mem_type(ft);
            hid_t       mt = make_mem_type(ft, k);
            const char *vn[] = {"dxpl", "dxpl-buf", "dxpl-xform", "dxpl-edc", "dxpl-xform2"};
            char        label[64];
            /* HDF5 1.14.5 leaks the variable-length data or references (and the file ID each
             * holds) it converted when the transform then fails: no transform with those */
            if ((v == 2 || v == 4) &&
                (type_has(ft, 0) || type_has(ft, 1) || (mt >= 0 && (type_has(mt, 0) || type_has(mt, 1)))))
                v = 0;
            if (v == 1)
                H5Pset_buffer(dxpl, 1 << 20, NULL, NULL);
            else if (v == 2 || v == 4)
                H5Pset_data_transform(dxpl, v == 2 ? "2*x+1" : "x-1");
            else if (v == 3)
                H5Pset_edc_check(dxpl, H5Z_DISABLE_EDC);
            snprintf(label, sizeof(label), "%s,%s", vn[v], mt_names[k]);
            if (mt < 0)
                printf("  read(%s) no type\n", label);
            else
                read_whole(d, mt, label, dxpl), H5Tclose(mt);
            H5Tclose(ft);
            H5Pclose(dxpl);
            break;
        }
        case 9: { /* twice in a row, the same way */
            hid_t ft = H5Dget_type(d);
            int   k  = pick_mem_type(ft);
            hid_t mt = make_mem_type(ft, k);
            if (mt >= 0) {
                read_whole(d, mt, mt_names[k], H5P_DEFAULT);
                read_whole(d, mt, mt_names[k], H5P_DEFAULT);
                H5Tclose(mt);
            }
            H5Tclose(ft);
            break;
        }
        case 10:
            ds_dcpl(d);
            break;
        case 11:
            ds_dapl(d);
            break;
        case 12:
            ds_oinfo(d);
            break;
        case 13:
            ds_attrs(f, d);
            break;
        case 14:
            ds_names(d);
            break;
        case 15:
            ds_counts(f);
            break;
        case 16: { /* opened again, read through the second handle, one of the two closed */
            printf("  again:");
            hid_t d2 = open_dset(f, p);
            printf("\n");
            if (d2 >= 0) {
                hid_t ft = H5Dget_type(d2);
                read_whole(d2, ft, "file", H5P_DEFAULT);
                H5Tclose(ft);
                ds_counts(f);
                if (rnd(2))
                    printf("  close2=%d\n", (int)H5Dclose(d2));
                else {
                    printf("  close1=%d\n", (int)H5Dclose(d));
                    *dp = d2;
                }
            }
            break;
        }
        case 17: { /* no buffer: fine for nothing selected only */
            hid_t ft = H5Dget_type(d), fs = H5Dget_space(d), ms;
            printf("  nullbuf=%d", (int)H5Dread(d, ft, H5S_ALL, H5S_ALL, H5P_DEFAULT, NULL));
            H5Sselect_none(fs);
            ms = H5Scopy(fs);
            printf(",%d\n", (int)H5Dread(d, ft, ms, fs, H5P_DEFAULT, NULL));
            H5Sclose(ms), H5Sclose(fs), H5Tclose(ft);
            break;
        }
        case 18: {
            hid_t   ft = H5Dget_type(d), fs = H5Dget_space(d);
            hsize_t sz = 0;
            /* HDF5 1.14.5 crashes on a scalar dataspace here (H5S_select_elements of rank 0) */
            if (H5Sget_simple_extent_type(fs) == H5S_SCALAR)
                printf("  vlen_buf_size: scalar\n");
            else {
                herr_t r = H5Dvlen_get_buf_size(d, ft, fs, &sz);
                printf("  vlen_buf_size=%d:%llu\n", (int)r, (unsigned long long)sz);
            }
            H5Sclose(fs), H5Tclose(ft);
            break;
        }
        case 19: { /* the whole dataset rewritten (fails in a read-only run), then read back */
            hid_t          ft = H5Dget_type(d);
            hsize_t        n  = dset_npoints(d);
            unsigned char *buf;
            if (type_has(ft, 1)) {
                printf("  write: references, not rewritten\n");
                H5Tclose(ft);
                break;
            }
            buf = calloc(1, (size_t)n * H5Tget_size(ft) + 1);
            make_data(ft, (size_t)n, buf);
            printf("  write=%d\n", (int)H5Dwrite(d, ft, H5S_ALL, H5S_ALL, H5P_DEFAULT, n ? buf : NULL));
            free(buf);
            pool_free();
            read_whole(d, ft, "file", H5P_DEFAULT);
            H5Tclose(ft);
            break;
        }
        case 20: { /* a new extent (fails unless read-write and extendible), flushed */
            hid_t   fs = H5Dget_space(d);
            hsize_t dims[H5S_MAX_RANK], maxd[H5S_MAX_RANK];
            int     rank = H5Sget_simple_extent_dims(fs, dims, maxd);
            for (int i = 0; i < rank; i++) {
                hsize_t lim = maxd[i] == H5S_UNLIMITED ? dims[i] + 3 : maxd[i];
                dims[i]     = 1 + rnd((uint32_t)lim);
            }
            H5Sclose(fs);
            printf("  set_extent=%d", rank > 0 ? (int)H5Dset_extent(d, dims) : -9);
            printf(" flush=%d\n", (int)H5Dflush(d));
            ds_space(d);
            break;
        }
        case 21: { /* the dataset as a location */
            hid_t o = H5Oopen(d, ".", H5P_DEFAULT);
            printf("  Oopen(.)=%d", o >= 0);
            if (o >= 0) {
                /* Its name: native derives it from the dataset's, which the index opened. */
                H5O_info2_t oi;
                char        on[1024] = "";
                H5Iget_name(o, on, sizeof(on));
                printf(":%d:%s", (int)H5Iget_type(o), on);
                if (H5Oget_info3(o, &oi, H5O_INFO_BASIC) >= 0)
                    printf(":"), print_oinfo(&oi, H5O_INFO_BASIC);
                H5Oclose(o);
            }
            printf(" Lexists(x)=%d\n", (int)H5Lexists(d, "x", H5P_DEFAULT));
            break;
        }
        default: { /* chunks */
            hsize_t nc = 0, off[H5S_MAX_RANK] = {0}, sz = 0;
            herr_t  r  = H5Dget_num_chunks(d, H5S_ALL, &nc);
            printf("  chunks=%d:%llu", (int)r, (unsigned long long)nc);
            if (r >= 0 && nc > 0) {
                unsigned fm = 0;
                haddr_t  a  = HADDR_UNDEF;
                r           = H5Dget_chunk_info(d, H5S_ALL, 0, off, &fm, &a, &sz);
                printf(" info=%d:%llu,%u,%llu", (int)r, (unsigned long long)off[0], fm, (unsigned long long)sz);
                if (!rw_mode)
                    printf(",%llu", (unsigned long long)a);
                r = H5Dget_chunk_storage_size(d, off, &sz);
                printf(" size=%d:%llu", (int)r, (unsigned long long)sz);
            }
            printf("\n");
            break;
        }
    }
}

/* What a loader does: the link, the dataset, its space, type and storage, and whole reads with the
 * file's type, as double, as another native type, with explicit spaces, and part of it. */
static void
dset_loader(hid_t f)
{
    const char *p = pick_dset();
    printf("DLOAD %s Lexists=%d", p, (int)H5Lexists(f, p, H5P_DEFAULT));
    hid_t d = H5Dopen2(f, p, H5P_DEFAULT);
    printf(" Dopen=%d\n", d >= 0);
    if (d < 0)
        return;
    ds_space(d);
    ds_type(d);
    ds_storage(d);
    hid_t       ft = H5Dget_type(d);
    H5T_class_t c  = H5Tget_class(ft);
    read_whole(d, ft, "file", H5P_DEFAULT);
    if (c == H5T_INTEGER || c == H5T_FLOAT) {
        hid_t alt[4];
        alt[0] = H5T_NATIVE_INT, alt[1] = H5T_NATIVE_SHORT, alt[2] = H5T_NATIVE_FLOAT, alt[3] = H5T_NATIVE_UCHAR;
        int k  = (int)rnd(4);
        read_whole(d, H5T_NATIVE_DOUBLE, "double", H5P_DEFAULT);
        read_whole(d, alt[k], k == 0 ? "int" : k == 1 ? "short" : k == 2 ? "float" : "uchar", H5P_DEFAULT);
    }
    else
        read_picked(d);
    H5Tclose(ft);
    ds_read_spaces(d);
    ds_read_part(d);
    printf("  close=%d\n", (int)H5Dclose(d));
}

/* A dataset opened some way, then a random sequence of what applications do with it; sometimes
 * kept open for later queries. */
static void
dset_probe(hid_t f)
{
    const char *p = pick_dset();
    printf("DPROBE %s", p);
    hid_t d = open_dset(f, p);
    printf("\n");
    if (d < 0)
        return;
    int nsub = 1 + (int)rnd(7);
    for (int i = 0; i < nsub; i++)
        dset_sub(f, &d, p, rnd_sub());
    int slot = (int)rnd(4 * NHELD);
    if (slot < NHELD && held[slot] < 0) {
        held[slot] = d;
        snprintf(held_name[slot], sizeof(held_name[slot]), "%s", p);
        printf("  held%d\n", slot);
    }
    else
        printf("  close=%d\n", (int)H5Dclose(d));
}

/* A dataset held open since an earlier query (its links may have changed since, in a read-write
 * run): a few things done with it, then maybe closed. */
static void
dset_held(hid_t f)
{
    int slot = (int)rnd(NHELD);
    printf("DHELD %d", slot);
    if (held[slot] < 0) {
        printf(" none\n");
        return;
    }
    printf(" %s\n", held_name[slot]);
    int nsub = 1 + (int)rnd(3);
    for (int i = 0; i < nsub; i++)
        dset_sub(f, &held[slot], held_name[slot], rnd_sub());
    if (rnd(2)) {
        printf("  close=%d\n", (int)H5Dclose(held[slot]));
        held[slot] = H5I_INVALID_HID;
    }
}

static int
query(const char *fname, const char *pname, unsigned seed, int nq, int rw)
{
    FILE *fp = fopen(pname, "r");
    char  line[1200];
    if (!fp)
        return 2;
    npaths = 0;
    while (fgets(line, sizeof(line), fp)) {
        line[strcspn(line, "\n")] = 0;
        add_path(line + 2, line[0] - '0');
    }
    fclose(fp);
    /* In the file's directory, where the external storage file of a dataset is found (its name is
     * relative, and HDF5 takes such names relative to the current directory). */
    const char *slash = strrchr(fname, '/');
    if (slash) {
        char dir[4096];
        snprintf(dir, sizeof(dir), "%.*s", slash == fname ? 1 : (int)(slash - fname), fname);
        if (chdir(dir) != 0) {
            perror(dir);
            return 2;
        }
        fname = slash + 1;
    }
    rng_state = 0xD1B54A32D192ED03ull ^ ((uint64_t)seed << 20);
    nhot      = 0;
    for (int i = 0; i < npaths && nhot < NHOT; i++)
        if (is_group[i] == 4)
            hot_replace(nhot++);
    /* In a read-write run, objects created get the clock's time, and their file addresses depend
     * on which object headers were read before (HDF5 rewrites some headers it reads, merging null
     * messages), which the index changes: neither is printed. */
    rw_mode = rw;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fopen(fname, rw ? H5F_ACC_RDWR : H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK(f);
    H5O_info2_t ri;
    CHECK(H5Oget_info3(f, &ri, H5O_INFO_BASIC));
    root_fileno = ri.fileno;
    int mods    = 0;
    for (int q = 0; q < nq; q++) {
        if (rw && rnd(10) == 0)
            modify(f, q, &mods);
        if (q % 25 == 24 && nhot)
            hot_replace((int)rnd(NHOT));
        const char *name = random_name();
        /* The location: the file, or a group opened by a random path. */
        hid_t loc = f;
        if (rnd(8) == 0) {
            /* A group of the other file, reached through an external link: the index of this
             * file must not answer for it. */
            int e = (int)rnd((uint32_t)npaths);
            if (is_group[e] == 2 && (loc = H5Gopen2(f, paths[e], H5P_DEFAULT)) >= 0)
                name = rnd(2) ? "inner" : "/target/inner";
            else
                loc = f;
        }
        else if (rnd(3) == 0) {
            int g = random_group();
            loc   = H5Gopen2(f, paths[g], H5P_DEFAULT);
            if (loc < 0)
                loc = f;
            else if (name[0] != '/')
                name = words[rnd(20)];
        }
        int        op = (int)rnd(34);
        cb_state_t s;
        herr_t     r;
        printf("Q%d op=%d loc=%s name=%s: ", q, op, loc == f ? "file" : "grp", name);
        switch (op) {
            case 0:
                printf("Lexists=%d\n", (int)H5Lexists(loc, name, H5P_DEFAULT));
                break;
            case 1: {
                H5L_info2_t li;
                r = H5Lget_info2(loc, name, &li, H5P_DEFAULT);
                printf("Lget_info r=%d ", r);
                if (r >= 0)
                    print_linfo(&li);
                printf("\n");
                break;
            }
            case 2: {
                H5L_info2_t li;
                H5_index_t  it = rnd_idx();
                H5_iter_order_t o = rnd_order();
                hsize_t     n  = rnd(6);
                r = H5Lget_info_by_idx2(loc, rnd(2) ? "." : name, it, o, n, &li, H5P_DEFAULT);
                printf("Lget_info_by_idx(%d,%d,%llu) r=%d ", it, o, (unsigned long long)n, r);
                if (r >= 0)
                    print_linfo(&li);
                char    nb[16] = "";
                ssize_t len    = H5Lget_name_by_idx(loc, ".", it, o, n, nb, rnd(2) ? sizeof(nb) : 4, H5P_DEFAULT);
                printf(" name_by_idx=%zd '%s'\n", len, len >= 0 ? nb : "");
                break;
            }
            case 3: {
                char buf[64];
                memset(buf, 'x', sizeof(buf));
                size_t sz = rnd(2) ? sizeof(buf) : 5;
                r         = H5Lget_val(loc, name, buf, sz, H5P_DEFAULT);
                printf("Lget_val r=%d ", r);
                if (r >= 0)
                    for (size_t i = 0; i < sz; i++)
                        printf("%02x", (unsigned char)buf[i]);
                printf("\n");
                break;
            }
            case 4:
            case 5: {
                H5_index_t      it  = rnd_idx();
                H5_iter_order_t o   = rnd_order();
                hsize_t         idx = rnd(3) == 0 ? rnd(8) : 0;
                stop_rule(&s);
                printf("Literate(%d,%d,%llu)\n", it, o, (unsigned long long)idx);
                if (op == 4)
                    r = H5Literate2(loc, it, o, &idx, link_cb, &s);
                else
                    r = H5Literate_by_name2(loc, name, it, o, &idx, link_cb, &s, H5P_DEFAULT);
                printf("  -> r=%d idx=%llu\n", r, (unsigned long long)idx);
                break;
            }
            case 6: {
                H5_index_t      it = rnd_idx();
                H5_iter_order_t o  = rnd_order();
                stop_rule(&s);
                printf("Lvisit(%d,%d)\n", it, o);
                r = rnd(2) ? H5Lvisit2(loc, it, o, link_cb, &s) : H5Lvisit_by_name2(loc, name, it, o, link_cb, &s, H5P_DEFAULT);
                printf("  -> r=%d\n", r);
                break;
            }
            case 7: {
                H5O_info2_t oi;
                unsigned    fl = rnd_fields();
                r              = rnd(2) ? H5Oget_info_by_name3(loc, name, &oi, fl, H5P_DEFAULT)
                                        : H5Oget_info3(loc, &oi, fl);
                printf("Oget_info(%u) r=%d ", fl, r);
                if (r >= 0)
                    print_oinfo(&oi, fl);
                printf("\n");
                break;
            }
            case 8: {
                H5O_info2_t     oi;
                unsigned        fl = rnd_fields();
                H5_index_t      it = rnd_idx();
                H5_iter_order_t o  = rnd_order();
                hsize_t         n  = rnd(5);
                r = H5Oget_info_by_idx3(loc, rnd(2) ? "." : name, it, o, n, &oi, fl, H5P_DEFAULT);
                printf("Oget_info_by_idx(%d,%d,%llu,%u) r=%d ", it, o, (unsigned long long)n, fl, r);
                if (r >= 0)
                    print_oinfo(&oi, fl);
                printf("\n");
                break;
            }
            case 9:
                printf("Oexists=%d\n", (int)H5Oexists_by_name(loc, name, H5P_DEFAULT));
                break;
            case 10: {
                H5_index_t      it = rnd_idx();
                H5_iter_order_t o  = rnd_order();
                visit_fields       = rnd_fields();
                stop_rule(&s);
                printf("Ovisit(%d,%d,%u)\n", it, o, visit_fields);
                r = rnd(2) ? H5Ovisit3(loc, it, o, obj_cb, &s, visit_fields)
                           : H5Ovisit_by_name3(loc, name, it, o, obj_cb, &s, visit_fields, H5P_DEFAULT);
                printf("  -> r=%d\n", r);
                break;
            }
            case 11: {
                H5G_info_t gi;
                r = rnd(2) ? H5Gget_info(loc, &gi) : H5Gget_info_by_name(loc, name, &gi, H5P_DEFAULT);
                printf("Gget_info r=%d", r);
                if (r >= 0)
                    printf(" st=%d n=%llu maxc=%lld m=%d", (int)gi.storage_type, (unsigned long long)gi.nlinks,
                           (long long)gi.max_corder, (int)gi.mounted);
                printf("\n");
                break;
            }
            case 12: {
                hsize_t idx = 0;
                stop_rule(&s);
                H5_index_t      it = rnd_idx();
                H5_iter_order_t o  = rnd_order();
                printf("Literate1(%d,%d)\n", it, o);
                r = H5Literate1(loc, it, o, &idx, link1_cb, &s);
                printf("  -> r=%d idx=%llu\n", r, (unsigned long long)idx);
                break;
            }
            case 13: {
                stop_rule(&s);
                H5_index_t      it = rnd_idx();
                H5_iter_order_t o  = rnd_order();
                printf("Ovisit1(%d,%d)\n", it, o);
                r = H5Ovisit1(loc, it, o, obj1_cb, &s);
                printf("  -> r=%d\n", r);
                break;
            }
            case 14: {
                H5O_info1_t oi;
                r = H5Oget_info_by_name1(loc, name, &oi, H5P_DEFAULT);
                printf("Oget_info1 r=%d", r);
                if (r >= 0)
                    printf(" type=%d rc=%u addr=%llu na=%llu hdr.nmesgs=%u", (int)oi.type, oi.rc,
                           rw_mode ? 0ULL : (unsigned long long)oi.addr, (unsigned long long)oi.num_attrs,
                           rw_mode ? 0u : oi.hdr.nmesgs);
                printf("\n");
                break;
            }
            case 15: {
                hid_t o = H5Oopen(loc, name, H5P_DEFAULT);
                printf("Oopen r=%d", o >= 0);
                if (o >= 0) {
                    H5O_info2_t oi;
                    char        nb[1024] = "";
                    H5Iget_name(o, nb, sizeof(nb));
                    H5Oget_info3(o, &oi, H5O_INFO_BASIC);
                    printf(" itype=%d name=%s ", (int)H5Iget_type(o), nb);
                    print_oinfo(&oi, H5O_INFO_BASIC);
                    H5Oclose(o);
                }
                printf("\n");
                break;
            }
            case 17:
            case 18: {
                hid_t o = op == 17 ? H5Dopen2(loc, name, H5P_DEFAULT) : H5Topen2(loc, name, H5P_DEFAULT);
                printf("%s r=%d", op == 17 ? "Dopen" : "Topen", o >= 0);
                if (o >= 0) {
                    char nb[1024] = "", an[64] = "";
                    printf(" len=%zd", H5Iget_name(o, nb, 8));
                    H5Iget_name(o, nb, sizeof(nb));
                    printf(" name=%s", nb);
                    if (H5Aexists(o, "attr0") > 0) {
                        hid_t a = H5Aopen(o, "attr0", H5P_DEFAULT);
                        H5Iget_name(a, nb, sizeof(nb));
                        H5Aget_name(a, sizeof(an), an);
                        printf(" attr=%s on %s", an, nb);
                        H5Aclose(a);
                    }
                    H5Oclose(o);
                }
                printf("\n");
                break;
            }
            case 19:
            case 20: {
                const char *an = attr_names[rnd(sizeof(attr_names) / sizeof(attr_names[0]))];
                printf("Aexists(%s)=%d", an, (int)H5Aexists_by_name(loc, name, an, H5P_DEFAULT));
                hid_t a = H5Aopen_by_name(loc, name, an, H5P_DEFAULT, H5P_DEFAULT);
                printf(" Aopen=%d", a >= 0);
                if (a >= 0) {
                    print_attr(f, a);
                    if (op == 20) {
                        /* The attribute as a location, after which it is the real one. */
                        H5O_info2_t oi;
                        printf(" Oinfo=%d", (int)H5Oget_info3(a, &oi, H5O_INFO_BASIC));
                        print_oinfo(&oi, H5O_INFO_BASIC);
                        print_attr(f, a);
                    }
                    H5Aclose(a);
                }
                printf("\n");
                break;
            }
            case 21: {
                /* A group opened by path, then H5Aopen on it (BY_SELF), two attributes open at once,
                 * and the IDs H5Fget_obj_ids hands out for them. */
                hid_t g = H5Oopen(loc, name, H5P_DEFAULT);
                printf("Oopen+Aopen r=%d", g >= 0);
                if (g >= 0) {
                    printf(" Aexists=%d", (int)H5Aexists(g, "NX_class"));
                    hid_t a1 = H5Aopen(g, "NX_class", H5P_DEFAULT), a2 = H5Aopen(g, "attr0", H5P_DEFAULT);
                    printf(" a1=%d a2=%d", a1 >= 0, a2 >= 0);
                    hid_t   ids[8];
                    ssize_t n = H5Fget_obj_ids(f, H5F_OBJ_ATTR, 8, ids);
                    printf(" ids=%zd", n);
                    for (ssize_t i = 0; i < n; i++) {
                        char nb[256] = "";
                        H5Aget_name(ids[i], sizeof(nb), nb);
                        printf(" %s", nb);
                    }
                    if (a1 >= 0)
                        print_attr(f, a1), H5Aclose(a1);
                    if (a2 >= 0)
                        print_attr(f, a2), H5Aclose(a2);
                    H5Oclose(g);
                }
                printf("\n");
                break;
            }
            case 22:
            case 23:
            case 24:
            case 25:
                dset_loader(f);
                break;
            case 26:
            case 27:
            case 28:
            case 29:
            case 30:
            case 31:
            case 32:
                dset_probe(f);
                break;
            case 33:
                dset_held(f);
                break;
            default: {
                hid_t g = H5Gopen2(loc, name, H5P_DEFAULT);
                printf("Gopen r=%d", g >= 0);
                if (g >= 0) {
                    char nb[1024] = "";
                    H5Iget_name(g, nb, sizeof(nb));
                    printf(" name=%s exists(x)=%d", nb, (int)H5Lexists(g, "x_1", H5P_DEFAULT));
                    H5Gclose(g);
                }
                printf("\n");
                break;
            }
        }
        if (loc != f)
            H5Gclose(loc);
    }
    printf("mods=%d\n", mods);
    /* Attributes still open when the file is closed: they keep it open, and still answer. Not of
     * the root group (by any path): while an attribute of that name is open on another object,
     * stock HDF5 1.14.5 opens it for the root group too, which has none. */
    hid_t late[3];
    int   nlate = 0;
    for (int k = 0; k < npaths && nlate < 3; k++) {
        const char *an = rnd(2) ? "NX_class" : "attr0";
        H5O_info2_t oi;
        if (H5Oget_info_by_name3(f, paths[k], &oi, H5O_INFO_BASIC, H5P_DEFAULT) >= 0 && oi.fileno == root_fileno &&
            memcmp(&oi.token, &ri.token, sizeof(oi.token)) == 0)
            continue;
        hid_t a = H5Aopen_by_name(f, paths[k], an, H5P_DEFAULT, H5P_DEFAULT);
        if (a >= 0) {
            printf("late%d: %s of %s\n", nlate, an, paths[k]);
            late[nlate++] = a;
        }
    }
    printf("late=%d\n", nlate);
    /* Datasets too: the ones held open and two more, one read whole first (it may be lazy). */
    hid_t lated[NHELD + 2];
    int   nlated = 0;
    for (int k = 0; k < NHELD; k++)
        if (held[k] >= 0) {
            printf("lateD%d: held %s\n", nlated, held_name[k]);
            lated[nlated++] = held[k];
        }
    for (int k = 0; k < 2; k++) {
        const char *p = pick_dset();
        hid_t       d = H5Dopen2(f, p, H5P_DEFAULT);
        if (d >= 0) {
            printf("lateD%d: %s\n", nlated, p);
            if (rnd(2))
                read_picked(d);
            lated[nlated++] = d;
        }
    }
    printf("lateD=%d nobj=%zd/%zd\n", nlated, H5Fget_obj_count(f, H5F_OBJ_DATASET), H5Fget_obj_count(f, H5F_OBJ_ALL));
    H5Fclose(f);
    for (int k = 0; k < nlate; k++) {
        printf("late%d:", k);
        print_attr(f, late[k]);
        printf("\n");
        H5Aclose(late[k]);
    }
    for (int k = 0; k < nlated; k++) {
        hid_t d = lated[k], ft;
        printf("lateD%d:\n", k);
        switch (rnd(3)) { /* sometimes a read first, before anything else is asked */
            case 0:
                read_whole(d, H5T_NATIVE_DOUBLE, "double", H5P_DEFAULT);
                break;
            case 1:
                read_picked(d);
                break;
            default:
                break;
        }
        ft = H5Dget_type(d);
        ds_space(d);
        ds_type(d);
        ds_storage(d);
        read_whole(d, ft, "file", H5P_DEFAULT);
        read_picked(d);
        ds_read_part(d);
        ds_names(d);
        ds_oinfo(d);
        ds_dcpl(d);
        H5Tclose(ft);
        printf("  close=%d\n", (int)H5Dclose(d));
    }
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc >= 4 && !strcmp(argv[1], "gen"))
        return gen(argv[2], (unsigned)strtoul(argv[3], NULL, 10));
    if (argc >= 6 && !strcmp(argv[1], "query"))
        return query(argv[2], argv[3], (unsigned)strtoul(argv[4], NULL, 10), atoi(argv[5]),
                     argc >= 7 && !strcmp(argv[6], "rw"));
    fprintf(stderr, "usage: index_diff gen DIR SEED | query FILE PATHS SEED N [rw]\n");
    return 2;
}
