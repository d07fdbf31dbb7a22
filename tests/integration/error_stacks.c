/* error_stacks.c — calls that fail, with HDF5's default error reporting on: each prints its error
 * stack on stderr, which a stock run and an h5turbo run must print the same (once, the same
 * frames). Opens of missing objects by every kind of location, reads with impossible types, an
 * iteration whose callback fails, files that cannot be created or opened; on a file made here,
 * opened read-only (what the index answers) and read-write. Usage: tb_error_stacks FILE make|read|write */
#define H5_USE_114_API_DEFAULT 1
#include <hdf5.h>
#include <stdio.h>
#include <string.h>

static herr_t
fail_cb(hid_t g, const char *name, const H5L_info2_t *info, void *op_data)
{
    (void)g;
    (void)info;
    (void)op_data;
    return strcmp(name, "d") == 0 ? -1 : 0;
}

static herr_t
afail_cb(hid_t loc, const char *name, const H5A_info_t *info, void *op_data)
{
    (void)loc;
    (void)name;
    (void)info;
    (void)op_data;
    return -1;
}

/* Each step: what it is, on stderr before the stack it prints (stdout and stderr are one stream
 * for the comparison). */
#define STEP(what, call)                                                                             \
    do {                                                                                             \
        fprintf(stderr, "== %s\n", what);                                                            \
        fflush(stderr);                                                                              \
        long long r_ = (long long)(call);                                                            \
        fprintf(stderr, "-> %s\n", r_ < 0 ? "failed" : "succeeded");                                 \
    } while (0)

static void
make(const char *path)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g = H5Gcreate2(f, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t s = H5Screate_simple(1, (hsize_t[]){4}, NULL);
    hid_t d = H5Dcreate2(g, "d", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int   v[4] = {1, 2, 3, 4};
    H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
    hid_t a = H5Acreate2(g, "units", H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT, v);
    H5Aclose(a);
    H5Gcreate2(g, "sub", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dclose(d);
    H5Sclose(s);
    H5Gclose(g);
    H5Fclose(f);
}

static void
probe(const char *path, unsigned flags)
{
    hid_t f = H5Fopen(path, flags, H5P_DEFAULT);
    hid_t g = H5Gopen2(f, "g", H5P_DEFAULT);
    hid_t d = H5Dopen2(g, "d", H5P_DEFAULT);
    hid_t a = H5Aopen(g, "units", H5P_DEFAULT);
    hid_t c = H5Tcreate(H5T_COMPOUND, 8); /* (no members: no conversion to or from it) */
    char  name[64];
    STEP("H5Gopen2 missing from the file", H5Gopen2(f, "nogroup", H5P_DEFAULT));
    STEP("H5Gopen2 missing below a group", H5Gopen2(g, "sub/none", H5P_DEFAULT));
    STEP("H5Dopen2 missing, relative", H5Dopen2(g, "none", H5P_DEFAULT));
    STEP("H5Dopen2 of a group", H5Dopen2(f, "/g/sub", H5P_DEFAULT));
    STEP("H5Oopen missing", H5Oopen(f, "/g/none", H5P_DEFAULT));
    STEP("H5Aopen missing", H5Aopen(g, "none", H5P_DEFAULT));
    STEP("H5Aopen_by_name missing object", H5Aopen_by_name(f, "/none", "units", H5P_DEFAULT, H5P_DEFAULT));
    STEP("H5Aopen_by_name \".\" missing", H5Aopen_by_name(g, ".", "none", H5P_DEFAULT, H5P_DEFAULT));
    STEP("H5Aexists on a missing object", H5Aexists_by_name(f, "/none", "units", H5P_DEFAULT));
    STEP("H5Aread into a memberless compound", H5Aread(a, c, name));
    STEP("H5Dread into a memberless compound", H5Dread(d, c, H5S_ALL, H5S_ALL, H5P_DEFAULT, name));
    STEP("H5Literate2 whose callback fails", H5Literate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, fail_cb, NULL));
    STEP("H5Aiterate2 whose callback fails", H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, afail_cb, NULL));
    STEP("H5Oget_info_by_name3 missing", H5Oget_info_by_name3(f, "/g/none", &(H5O_info2_t){0}, H5O_INFO_BASIC,
                                                              H5P_DEFAULT));
    STEP("H5Lget_info2 missing", H5Lget_info2(g, "none", &(H5L_info2_t){0}, H5P_DEFAULT));
    STEP("H5Lget_name_by_idx past the end", H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, 9, name,
                                                                sizeof(name), H5P_DEFAULT));
    STEP("H5Gget_info_by_name missing", H5Gget_info_by_name(f, "/none", &(H5G_info_t){0}, H5P_DEFAULT));
    /* (not H5Fopen of a missing file: with HDF5_VOL_CONNECTOR set, HDF5 itself skips its search of
     * the plugin folder for another connector, and fails on the line after stock's) */
    STEP("H5Fcreate in a missing folder", H5Fcreate("none/e.h5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    STEP("H5Fis_accessible of a missing file", H5Fis_accessible("none.h5", H5P_DEFAULT));
    H5Tclose(c);
    H5Aclose(a);
    H5Dclose(d);
    H5Gclose(g);
    H5Fclose(f);
}

int
main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    if (strcmp(argv[2], "make") == 0)
        make(argv[1]);
    else
        probe(argv[1], strcmp(argv[2], "write") == 0 ? H5F_ACC_RDWR : H5F_ACC_RDONLY);
    return 0;
}
