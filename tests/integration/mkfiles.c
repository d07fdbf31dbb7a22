/* mkfiles.c — writes the integration tests' HDF5 files with stock HDF5: chunked+filtered,
 * compact, contiguous, virtual (VDS), external/soft/dangling links, attributes, compound and
 * variable-length types, references. Usage: tb_mkfiles DIR */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/tb_test.h"

static char dir[4096];

static const char *
path(const char *name)
{
    static char buf[8192];
    snprintf(buf, sizeof(buf), "%s/%s", dir, name);
    return buf;
}

static void
str_attr(hid_t loc, const char *name, const char *val)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    ASSERT_H5(H5Tset_size(t, strlen(val)));
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(loc, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_H5(a);
    ASSERT_H5(H5Awrite(a, t, val));
    H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
}

static void
dset(hid_t loc, const char *name, hid_t type, int rank, const hsize_t *dims, hid_t dcpl, const void *buf)
{
    hid_t s = H5Screate_simple(rank, dims, NULL);
    hid_t d = H5Dcreate2(loc, name, type, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ASSERT_H5(d);
    if (buf)
        ASSERT_H5(H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    H5Dclose(d);
    H5Sclose(s);
}

static void
make_attrs(void)
{
    hid_t f = H5Fcreate(path("attrs.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_H5(f);
    str_attr(f, "NX_class", "NXroot");
    for (int e = 0; e < 3; e++) {
        char name[64];
        snprintf(name, sizeof(name), "entry%d", e);
        hid_t g = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        str_attr(g, "NX_class", "NXentry");
        hid_t   s  = H5Screate_simple(1, (hsize_t[]){4}, NULL);
        hid_t   a  = H5Acreate2(g, "vector", H5T_NATIVE_DOUBLE, s, H5P_DEFAULT, H5P_DEFAULT);
        double  v[4] = {1.5, 2.5, e, -1};
        ASSERT_H5(H5Awrite(a, H5T_NATIVE_DOUBLE, v));
        H5Aclose(a);
        H5Sclose(s);
        int data[10];
        for (int i = 0; i < 10; i++)
            data[i] = i * (e + 1);
        dset(g, "value", H5T_NATIVE_INT, 1, (hsize_t[]){10}, H5P_DEFAULT, data);
        H5Gclose(g);
    }
    H5Fclose(f);
}

static void
make_layouts(void)
{
    hid_t f = H5Fcreate(path("layouts.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_H5(f);
    static float img[37][53];
    for (int i = 0; i < 37; i++)
        for (int j = 0; j < 53; j++)
            img[i][j] = (float)(i * 100 + j % 7);
    hsize_t dims[2] = {37, 53};
    dset(f, "contiguous", H5T_NATIVE_FLOAT, 2, dims, H5P_DEFAULT, img);

    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    ASSERT_H5(H5Pset_chunk(dcpl, 2, (hsize_t[]){10, 16}));
    ASSERT_H5(H5Pset_shuffle(dcpl));
    ASSERT_H5(H5Pset_deflate(dcpl, 1));
    ASSERT_H5(H5Pset_fletcher32(dcpl));
    float fill = -7.0f;
    ASSERT_H5(H5Pset_fill_value(dcpl, H5T_NATIVE_FLOAT, &fill));
    dset(f, "chunked_filtered", H5T_NATIVE_FLOAT, 2, dims, dcpl, img);
    H5Pclose(dcpl);

    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    ASSERT_H5(H5Pset_chunk(dcpl, 1, (hsize_t[]){7}));
    hsize_t maxd = H5S_UNLIMITED, cur = 20;
    hid_t   s = H5Screate_simple(1, &cur, &maxd);
    hid_t   d = H5Dcreate2(f, "extendible", H5T_STD_I64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    long long v[20];
    for (int i = 0; i < 20; i++)
        v[i] = (long long)i * i;
    ASSERT_H5(H5Dwrite(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
    H5Dclose(d);
    H5Sclose(s);
    H5Pclose(dcpl);

    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    ASSERT_H5(H5Pset_layout(dcpl, H5D_COMPACT));
    short small[12];
    for (int i = 0; i < 12; i++)
        small[i] = (short)(i - 6);
    dset(f, "compact", H5T_NATIVE_SHORT, 1, (hsize_t[]){12}, dcpl, small);
    H5Pclose(dcpl);
    H5Fclose(f);
}

static void
make_vds(void)
{
    for (int k = 0; k < 2; k++) {
        char name[64];
        snprintf(name, sizeof(name), "vds_src%d.h5", k);
        hid_t f = H5Fcreate(path(name), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        int   v[6];
        for (int i = 0; i < 6; i++)
            v[i] = k * 100 + i;
        dset(f, "data", H5T_NATIVE_INT, 1, (hsize_t[]){6}, H5P_DEFAULT, v);
        H5Fclose(f);
    }
    hid_t f    = H5Fcreate(path("vds.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t vsp  = H5Screate_simple(2, (hsize_t[]){2, 6}, NULL);
    hid_t ssp  = H5Screate_simple(1, (hsize_t[]){6}, NULL);
    int   fill = -1;
    H5Pset_fill_value(dcpl, H5T_NATIVE_INT, &fill);
    for (hsize_t k = 0; k < 2; k++) {
        char name[64];
        snprintf(name, sizeof(name), "vds_src%d.h5", (int)k);
        ASSERT_H5(H5Sselect_hyperslab(vsp, H5S_SELECT_SET, (hsize_t[]){k, 0}, NULL, (hsize_t[]){1, 6}, NULL));
        ASSERT_H5(H5Pset_virtual(dcpl, vsp, name, "data", ssp));
    }
    hid_t all = H5Screate_simple(2, (hsize_t[]){2, 6}, NULL);
    hid_t d   = H5Dcreate2(f, "virtual", H5T_NATIVE_INT, all, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ASSERT_H5(d);
    H5Dclose(d);
    H5Sclose(all);
    H5Sclose(vsp);
    H5Sclose(ssp);
    H5Pclose(dcpl);
    H5Fclose(f);
}

static void
make_links(void)
{
    hid_t f = H5Fcreate(path("links.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g = H5Gcreate2(f, "group", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int   v[3] = {1, 2, 3};
    dset(g, "data", H5T_NATIVE_INT, 1, (hsize_t[]){3}, H5P_DEFAULT, v);
    ASSERT_H5(H5Lcreate_hard(g, "data", f, "hard_alias", H5P_DEFAULT, H5P_DEFAULT));
    ASSERT_H5(H5Lcreate_soft("/group/data", f, "soft", H5P_DEFAULT, H5P_DEFAULT));
    ASSERT_H5(H5Lcreate_soft("/nowhere", f, "dangling", H5P_DEFAULT, H5P_DEFAULT));
    ASSERT_H5(H5Lcreate_external("attrs.h5", "/entry1", f, "external", H5P_DEFAULT, H5P_DEFAULT));
    /* A group tracking creation order, with more links than a compact group holds. */
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    hid_t dense = H5Gcreate2(f, "dense", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    for (int i = 40; i > 0; i--) {
        char name[32];
        snprintf(name, sizeof(name), "g%02d", i);
        H5Gclose(H5Gcreate2(dense, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    }
    H5Gclose(dense);
    H5Pclose(gcpl);
    hid_t t = H5Tcopy(H5T_NATIVE_DOUBLE);
    ASSERT_H5(H5Tcommit2(f, "committed_type", t, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    H5Tclose(t);
    H5Gclose(g);
    H5Fclose(f);
}

typedef struct rec {
    int    id;
    double x;
    char   tag[8];
} rec_t;

static void
make_types(void)
{
    hid_t f = H5Fcreate(path("types.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t tag = H5Tcopy(H5T_C_S1);
    H5Tset_size(tag, 8);
    hid_t ct = H5Tcreate(H5T_COMPOUND, sizeof(rec_t));
    H5Tinsert(ct, "id", HOFFSET(rec_t, id), H5T_NATIVE_INT);
    H5Tinsert(ct, "x", HOFFSET(rec_t, x), H5T_NATIVE_DOUBLE);
    H5Tinsert(ct, "tag", HOFFSET(rec_t, tag), tag);
    rec_t r[5];
    for (int i = 0; i < 5; i++) {
        r[i].id = i;
        r[i].x  = i / 3.0;
        snprintf(r[i].tag, sizeof(r[i].tag), "t%d", i);
    }
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, (hsize_t[]){2});
    H5Pset_deflate(dcpl, 4);
    dset(f, "compound", ct, 1, (hsize_t[]){5}, dcpl, r);
    H5Pclose(dcpl);

    hid_t vt = H5Tvlen_create(H5T_NATIVE_INT);
    int   a0[1] = {7}, a1[3] = {1, 2, 3}, a2[2] = {-4, 5};
    hvl_t vl[3] = {{1, a0}, {3, a1}, {2, a2}};
    dset(f, "vlen_int", vt, 1, (hsize_t[]){3}, H5P_DEFAULT, vl);

    hid_t       st = H5Tcopy(H5T_C_S1);
    H5Tset_size(st, H5T_VARIABLE);
    const char *strs[3] = {"alpha", "", "a somewhat longer string"};
    dset(f, "vlen_str", st, 1, (hsize_t[]){3}, H5P_DEFAULT, strs);

    hid_t et = H5Tenum_create(H5T_NATIVE_UCHAR);
    unsigned char ev = 0;
    H5Tenum_insert(et, "LOW", &ev);
    ev = 1;
    H5Tenum_insert(et, "HIGH", &ev);
    unsigned char evs[4] = {0, 1, 1, 0};
    dset(f, "enum", et, 1, (hsize_t[]){4}, H5P_DEFAULT, evs);

    hid_t at = H5Tarray_create2(H5T_NATIVE_SHORT, 1, (hsize_t[]){3});
    short av[2][3] = {{1, 2, 3}, {4, 5, 6}};
    dset(f, "array", at, 1, (hsize_t[]){2}, H5P_DEFAULT, av);

    H5Tclose(at);
    H5Tclose(et);
    H5Tclose(st);
    H5Tclose(vt);
    H5Tclose(ct);
    H5Tclose(tag);
    H5Fclose(f);
}

static void
make_refs(void)
{
    hid_t f = H5Fcreate(path("refs.h5"), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g = H5Gcreate2(f, "target_group", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int   v[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    dset(f, "target_data", H5T_NATIVE_INT, 1, (hsize_t[]){8}, H5P_DEFAULT, v);
    hobj_ref_t oref[2];
    ASSERT_H5(H5Rcreate(&oref[0], f, "target_group", H5R_OBJECT, -1));
    ASSERT_H5(H5Rcreate(&oref[1], f, "target_data", H5R_OBJECT, -1));
    dset(f, "obj_refs", H5T_STD_REF_OBJ, 1, (hsize_t[]){2}, H5P_DEFAULT, oref);
    hid_t d  = H5Dopen2(f, "target_data", H5P_DEFAULT);
    hid_t sp = H5Dget_space(d);
    H5Sselect_hyperslab(sp, H5S_SELECT_SET, (hsize_t[]){2}, NULL, (hsize_t[]){3}, NULL);
    hdset_reg_ref_t rref;
    ASSERT_H5(H5Rcreate(&rref, f, "target_data", H5R_DATASET_REGION, sp));
    dset(f, "region_refs", H5T_STD_REF_DSETREG, 1, (hsize_t[]){1}, H5P_DEFAULT, &rref);
    H5R_ref_t nref;
    ASSERT_H5(H5Rcreate_object(f, "target_group", H5P_DEFAULT, &nref));
    dset(f, "new_refs", H5T_STD_REF, 1, (hsize_t[]){1}, H5P_DEFAULT, &nref);
    H5Rdestroy(&nref);
    H5Sclose(sp);
    H5Dclose(d);
    H5Gclose(g);
    H5Fclose(f);
}

int
main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    snprintf(dir, sizeof(dir), "%s", argv[1]);
    make_attrs();
    make_layouts();
    make_vds();
    make_links();
    make_types();
    make_refs();
    printf("attrs.h5 layouts.h5 vds.h5 links.h5 types.h5 refs.h5\n");
    return 0;
}
