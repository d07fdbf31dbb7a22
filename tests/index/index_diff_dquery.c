/* index_diff_dquery.c — for the small-dataset scenario of the index's differential test, each
 * thing an application asks of one open dataset (space, type, storage, whole reads with many memory
 * types, dataspaces and transfer lists, partial reads, creation and access lists, info, attributes,
 * names, counts) and how its answer is printed. */
#include "index_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
int
ixd_type_has(hid_t t, int what)
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
            r        = ixd_type_has(mt, what);
            H5Tclose(mt);
        }
    }
    else if (c == H5T_ARRAY || c == H5T_VLEN) {
        hid_t bt = H5Tget_super(t);
        r        = ixd_type_has(bt, what);
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

hsize_t
ixd_dset_npoints(hid_t d)
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
do_read(ixd_t *run, hid_t d, hid_t mt, hid_t ms, hid_t fs, hid_t dxpl, hsize_t ncap, hsize_t nshow)
{
    size_t         es  = H5Tget_size(mt);
    int            vl  = ixd_type_has(mt, 0);
    int            ref = H5Tequal(mt, H5T_STD_REF) > 0;
    size_t         n   = (size_t)ncap * es;
    unsigned char *buf = malloc(n + GUARD);
    memset(buf, vl || ref ? 0 : 0xA5, n);
    memset(buf + n, 0x5A, GUARD);
    herr_t r = H5Dread(d, mt, ms, fs, dxpl, buf);
    printf(" r=%s", r < 0 ? "ERR" : "ok");
    if (nshow == (hsize_t)-1) {
        nshow = ixd_dset_npoints(d);
        ASSERT_MSG(nshow <= ncap, "dataset of %llu elements, larger than the blind read's buffer",
                   (unsigned long long)nshow);
    }
    if (ref) {
        for (hsize_t i = 0; i < nshow && r >= 0; i++) {
            H5R_ref_t *rf = (H5R_ref_t *)(void *)(buf + i * es);
            char       nm[1024] = ""; /* (a nameless object: nothing is written) */
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
    else if (run->rw && ixd_type_has(mt, 1))
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
void
ixd_read_whole(ixd_t *run, hid_t d, hid_t mt, const char *label, hid_t dxpl)
{
    int     blind = (int)ixd_rnd(run, 2);
    hsize_t n     = blind ? BLIND_CAP : ixd_dset_npoints(d);
    printf("  read(%s%s)", label, blind ? ",blind" : "");
    do_read(run, d, mt, H5S_ALL, H5S_ALL, dxpl, n, blind ? (hsize_t)-1 : n);
    printf("\n");
}

enum {
    MT_FILE, MT_NATIVE, MT_DOUBLE, MT_INT, MT_SHORT, MT_FLOAT, MT_UCHAR, MT_LLONG, MT_ULLONG, MT_I32BE, MT_F64BE,
    MT_SCHAR, MT_STR4, MT_STR16SP, MT_VSTR, MT_CMPD_SUB, MT_CMPD_REV, MT_ARR_INT, MT_ARR_DBL, MT_REF, MT_VLEN_INT,
    MT_N
};
const char *const ixd_mt_names[] = {"file",  "native", "double",   "int",      "short",   "float",   "uchar",
                                    "llong", "ullong", "i32be",    "f64be",    "schar",   "str4",    "str16sp",
                                    "vstr",  "cmpd_sub", "cmpd_rev", "arr_int", "arr_dbl", "ref", "vlen_int"};
_Static_assert(sizeof(ixd_mt_names) / sizeof(ixd_mt_names[0]) == MT_N, "a memory type without a name");

/* The memory type k for reading a dataset of file type ft (a new type, to close), or -1. */
hid_t
ixd_make_mem_type(hid_t ft, int k)
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
int
ixd_pick_mem_type(ixd_t *run, hid_t ft)
{
    static const int num[] = {MT_FILE, MT_NATIVE, MT_DOUBLE, MT_INT,   MT_SHORT,  MT_FLOAT,
                              MT_UCHAR, MT_LLONG, MT_ULLONG, MT_I32BE, MT_F64BE, MT_SCHAR};
    static const int str[] = {MT_FILE, MT_NATIVE, MT_STR4, MT_STR16SP, MT_VSTR};
    static const int cmp[] = {MT_FILE, MT_NATIVE, MT_CMPD_SUB, MT_CMPD_REV};
    static const int arr[] = {MT_FILE, MT_NATIVE, MT_ARR_INT, MT_ARR_DBL};
    static const int enm[] = {MT_FILE, MT_NATIVE, MT_INT, MT_UCHAR};
    static const int ref[] = {MT_FILE, MT_REF};
    static const int vln[] = {MT_FILE, MT_NATIVE, MT_VLEN_INT};
    if (ixd_rnd(run, 4) == 0)
        return (int)ixd_rnd(run, MT_N);
    switch (H5Tget_class(ft)) {
        case H5T_INTEGER:
        case H5T_FLOAT:
            return num[ixd_rnd(run, sizeof(num) / sizeof(num[0]))];
        case H5T_STRING:
            return str[ixd_rnd(run, sizeof(str) / sizeof(str[0]))];
        case H5T_COMPOUND:
            return cmp[ixd_rnd(run, sizeof(cmp) / sizeof(cmp[0]))];
        case H5T_ARRAY:
            return arr[ixd_rnd(run, sizeof(arr) / sizeof(arr[0]))];
        case H5T_ENUM:
            return enm[ixd_rnd(run, sizeof(enm) / sizeof(enm[0]))];
        case H5T_REFERENCE:
            return ref[ixd_rnd(run, 2)];
        case H5T_VLEN:
            return vln[ixd_rnd(run, 3)];
        default:
            return enm[ixd_rnd(run, sizeof(enm) / sizeof(enm[0]))];
    }
}

/* A whole read with a memory type picked for the dataset's type. */
void
ixd_read_picked(ixd_t *run, hid_t d)
{
    hid_t ft = H5Dget_type(d);
    int   k  = ixd_pick_mem_type(run, ft);
    hid_t mt = ixd_make_mem_type(ft, k);
    if (mt < 0)
        printf("  read(%s) no type\n", ixd_mt_names[k]);
    else
        ixd_read_whole(run, d, mt, ixd_mt_names[k], H5P_DEFAULT), H5Tclose(mt);
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

void
ixd_ds_space(hid_t d)
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

void
ixd_ds_type(hid_t d)
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

void
ixd_ds_storage(ixd_t *run, hid_t d)
{
    H5D_space_status_t st = H5D_SPACE_STATUS_ERROR;
    herr_t             r  = H5Dget_space_status(d, &st);
    haddr_t            a  = H5Dget_offset(d);
    printf("  storage=%llu status=%d/%d offset=", (unsigned long long)H5Dget_storage_size(d), (int)r, (int)st);
    if (a == HADDR_UNDEF)
        printf("undef\n");
    else if (run->rw)
        printf("*\n");
    else
        printf("%llu\n", (unsigned long long)a);
}

/* Whole reads with explicit dataspaces: the same shape selecting all, a 1-D one of as many points,
 * the file's space selected all by a hyperslab, a larger memory buffer partly selected. */
void
ixd_ds_read_spaces(ixd_t *run, hid_t d)
{
    hid_t ft = H5Dget_type(d), fs = H5Dget_space(d), ms, fsel;
    int   v     = (int)ixd_rnd(run, 8);
    int   cls   = (int)H5Sget_simple_extent_type(fs);
    int   ptrs  = ixd_type_has(ft, 0) || ixd_type_has(ft, 1);
    hsize_t n   = (hsize_t)H5Sget_simple_extent_npoints(fs), cap = n, dims[H5S_MAX_RANK], start[H5S_MAX_RANK] = {0};
    int   rank  = H5Sget_simple_extent_dims(fs, dims, NULL);
    int   k     = ixd_rnd(run, 2) ? MT_FILE : ixd_pick_mem_type(run, ft);
    hid_t mt    = ixd_make_mem_type(ft, k);
    if (v == 5 && (ptrs || ixd_type_has(mt, 0) || H5Tequal(mt, H5T_STD_REF) > 0))
        v = 1; /* memory left unselected must not hold pointers */
    if ((v == 3 || v == 6 || v == 7) && cls != H5S_SIMPLE)
        v = 0;
    if (v == 6 && n > 4096)
        v = 3;
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
        case 3: /* file: every point, as a hyperslab; sometimes moved out of the extent by an
                 * offset (native refuses the read; so must a lazy dataset) */
            H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, dims, NULL);
            if (rank > 0 && ixd_rnd(run, 3) == 0) {
                hssize_t off[H5S_MAX_RANK] = {0};
                off[0]                     = 1;
                H5Soffset_simple(fs, off);
            }
            ms = H5Scopy(fs);
            break;
        case 4: /* memory: the same shape with its own selection of all, file: the dataset's space */
            ms = H5Scopy(fs);
            H5Sselect_none(ms);
            H5Sselect_all(ms);
            break;
        case 6: { /* file: every point, as points in reverse order; memory: 1-D */
            hsize_t *c = malloc(sizeof(hsize_t) * (size_t)(n ? n : 1) * (size_t)rank);
            for (hsize_t p = 0; p < n; p++) {
                hsize_t lin = n - 1 - p;
                for (int j = rank - 1; j >= 0; j--) {
                    c[p * (hsize_t)rank + (hsize_t)j] = lin % dims[j];
                    lin /= dims[j];
                }
            }
            if (n)
                H5Sselect_elements(fs, H5S_SELECT_SET, (size_t)n, c);
            free(c);
            ms = H5Screate_simple(1, &n, NULL);
            break;
        }
        case 7: { /* file: every point, as two hyperslab blocks OR'ed (the second first); memory: 1-D */
            hsize_t cnt[H5S_MAX_RANK], st2[H5S_MAX_RANK] = {0};
            for (int j = 0; j < rank; j++)
                cnt[j] = dims[j];
            hsize_t half = dims[0] / 2;
            st2[0]       = half;
            cnt[0]       = dims[0] - half;
            H5Sselect_hyperslab(fs, H5S_SELECT_SET, st2, NULL, cnt, NULL);
            if (half) {
                cnt[0] = half;
                H5Sselect_hyperslab(fs, H5S_SELECT_OR, start, NULL, cnt, NULL);
            }
            ms = H5Screate_simple(1, &n, NULL);
            break;
        }
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
    printf("  read_spaces(%d,%s,rank=%d)", v, ixd_mt_names[k], rank);
    if (mt < 0)
        printf(" no type");
    else
        do_read(run, d, mt, ms, fsel, H5P_DEFAULT, cap, cap), H5Tclose(mt);
    printf("\n");
    if (ms != H5S_ALL)
        H5Sclose(ms);
    H5Sclose(fs);
    H5Tclose(ft);
}

/* Part of a dataset: a hyperslab (strided or not), points, nothing, or a union of two blocks. */
void
ixd_ds_read_part(ixd_t *run, hid_t d)
{
    hid_t   ft = H5Dget_type(d), fs = H5Dget_space(d), ms;
    hsize_t dims[H5S_MAX_RANK], start[H5S_MAX_RANK], count[H5S_MAX_RANK], stride[H5S_MAX_RANK];
    int     rank = H5Sget_simple_extent_dims(fs, dims, NULL), cls = (int)H5Sget_simple_extent_type(fs);
    int     v    = (int)ixd_rnd(run, 4);
    int     k    = ixd_rnd(run, 2) ? MT_FILE : ixd_pick_mem_type(run, ft);
    hid_t   mt   = ixd_make_mem_type(ft, k);
    if (cls == H5S_SCALAR)
        v = 2 + (int)ixd_rnd(run, 2); /* none or all */
    else if (cls == H5S_NULL || ixd_dset_npoints(d) == 0)
        v = 2;
    switch (v) {
        case 0:
        case 3:
            for (int i = 0; i < rank; i++) {
                start[i]  = ixd_rnd(run, (uint32_t)dims[i]);
                stride[i] = 1 + ixd_rnd(run, 2);
                count[i]  = 1 + ixd_rnd(run, (uint32_t)((dims[i] - start[i] + stride[i] - 1) / stride[i]));
            }
            if (cls == H5S_SCALAR)
                H5Sselect_all(fs);
            else
                H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, stride, count, NULL);
            if (v == 3 && cls != H5S_SCALAR) {
                for (int i = 0; i < rank; i++)
                    start[i] = ixd_rnd(run, (uint32_t)dims[i]), count[i] = 1;
                H5Sselect_hyperslab(fs, H5S_SELECT_OR, start, NULL, count, NULL);
            }
            break;
        case 1: {
            hsize_t coords[5 * H5S_MAX_RANK];
            size_t  np = 1 + ixd_rnd(run, 5);
            for (size_t p = 0; p < np; p++)
                for (int i = 0; i < rank; i++)
                    coords[p * (size_t)rank + (size_t)i] = ixd_rnd(run, (uint32_t)dims[i]);
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
    printf("  read_part(%d,%s) n=%llu", v, ixd_mt_names[k], (unsigned long long)n);
    if (mt < 0)
        printf(" no type");
    else
        do_read(run, d, mt, ms, fs, H5P_DEFAULT, one, n), H5Tclose(mt);
    printf("\n");
    H5Sclose(ms);
    H5Sclose(fs);
    H5Tclose(ft);
}

void
ixd_ds_dcpl(hid_t d)
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
        if (!ixd_type_has(ft, 0) && !ixd_type_has(ft, 1) && H5Tget_size(ft) <= 256) {
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

void
ixd_ds_dapl(hid_t d)
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
        /* and the whole list as H5Pencode2 gives it (every property, in its order) */
        size_t enc = 0;
        if (H5Pencode2(dapl, NULL, &enc, H5P_DEFAULT) >= 0 && enc > 0) {
            unsigned char *b = malloc(enc);
            uint32_t       h = 2166136261u;
            if (b && H5Pencode2(dapl, b, &enc, H5P_DEFAULT) >= 0)
                for (size_t i = 0; i < enc; i++)
                    h = (h ^ b[i]) * 16777619u;
            printf(" enc=%zu/%08x", enc, h);
            free(b);
        }
        H5Pclose(dapl);
    }
    printf("\n");
}

void
ixd_ds_oinfo(ixd_t *run, hid_t d)
{
    H5O_info2_t       oi;
    H5O_native_info_t ni;
    unsigned          fl = ixd_rnd_fields(run);
    herr_t            r  = ixd_rnd(run, 3) ? H5Oget_info3(d, &oi, fl)
                                           : H5Oget_info_by_name3(d, ".", &oi, fl, H5P_DEFAULT);
    printf("  oinfo(%u) r=%d ", fl, (int)r);
    if (r >= 0)
        ixd_print_oinfo(run, &oi, fl);
    /* header layout: HDF5 rewrites headers it reads in a read-write run, so only read-only */
    r = H5Oget_native_info(d, &ni, H5O_NATIVE_INFO_ALL);
    printf(" native r=%d", (int)r);
    if (r >= 0 && !run->rw)
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

void
ixd_ds_attrs(ixd_t *run, hid_t f, hid_t d)
{
    const char *an = ixd_random_attr_name(run);
    hsize_t         idx = 0;
    H5_index_t      it  = ixd_rnd_idx(run);
    H5_iter_order_t o   = ixd_rnd_order(run);
    printf("  Aexists(%s)=%d", an, (int)H5Aexists(d, an));
    hid_t a = H5Aopen(d, an, H5P_DEFAULT);
    printf(" Aopen=%d", a >= 0);
    if (a >= 0)
        ixd_print_attr(f, a), H5Aclose(a);
    printf(" iterate(%d,%d):", (int)it, (int)o);
    herr_t r = H5Aiterate2(d, it, o, &idx, aname_cb, NULL);
    printf(" -> %d", (int)r);
    a = H5Aopen_by_idx(d, ".", H5_INDEX_NAME, H5_ITER_INC, 0, H5P_DEFAULT, H5P_DEFAULT);
    printf(" byidx0=%d", a >= 0);
    if (a >= 0) {
        char nb[64] = "", pb[1024] = "";
        H5Aget_name(a, sizeof(nb), nb);
        H5Iget_name(a, pb, sizeof(pb)); /* (the dataset's path: the index's when it opened it) */
        printf(":%s@%s", nb, pb);
        H5Aclose(a);
    }
    /* napi5's form: by name from the object itself, "." (or "./."); named by the object's path. */
    const char *self = strlen(an) % 2 ? "." : "./.";
    a                = H5Aopen_by_name(d, self, an, H5P_DEFAULT, H5P_DEFAULT);
    printf(" byname(%s)=%d", self, a >= 0);
    if (a >= 0)
        ixd_print_attr(f, a), H5Aclose(a);
    printf("\n");
}

void
ixd_ds_names(hid_t d)
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

void
ixd_ds_counts(hid_t f)
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
