/* index_open.c — one process of the concurrency test: `index_open FILE` opens FILE read-only,
 * visits every object and iterates the root, printing what it sees (compared with stock HDF5);
 * `--values FILE` prints every attribute value and small dataset content as the index's caches
 * serve them; `--twice FILE` opens it twice in one process; `--make FILE VARIANT [GROUPS]` writes a
 * small NeXus-like file whose values depend on VARIANT and whose size does not (GROUPS more empty
 * groups make its sidecar as large as wanted); `--retarget SIDECAR
 * FILE` forges a sidecar for FILE (the security tests' attacker); `--maps FILE...` opens each file
 * in turn and prints how many mappings of sidecars the process holds once the open returned. */
#include "index_model.h"
#include "sidecar_format.h"

#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static herr_t
obj_cb(hid_t o, const char *name, const H5O_info2_t *oi, void *op_data)
{
    (void)o, (void)op_data;
    printf("O %s %d %u %llu\n", name, (int)oi->type, oi->rc, (unsigned long long)oi->num_attrs);
    return 0;
}

static herr_t
link_cb(hid_t g, const char *name, const H5L_info2_t *li, void *op_data)
{
    (void)g, (void)op_data;
    printf("L %s %d\n", name, (int)li->type);
    return 0;
}

/* --values: every attribute and every small dataset, read the way the index's caches serve them
 * (attributes by name from the file, datasets by absolute path, whole reads), printed in hex. */
static hid_t values_file;

static void
hex(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02x", p[i]);
    printf("\n");
}

static herr_t
attr_cb(hid_t o, const char *aname, const H5A_info_t *ai, void *op_data)
{
    (void)o, (void)ai;
    const char *path = op_data;
    hid_t       a    = H5Aopen_by_name(values_file, path, aname, H5P_DEFAULT, H5P_DEFAULT);
    hid_t       t    = a >= 0 ? H5Aget_type(a) : H5I_INVALID_HID;
    hid_t       s    = a >= 0 ? H5Aget_space(a) : H5I_INVALID_HID;
    hssize_t    n    = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
    size_t      ts   = t >= 0 ? H5Tget_size(t) : 0;
    printf("A %s @%s ", path, aname);
    if (n >= 0 && ts && H5Tdetect_class(t, H5T_VLEN) == 0 && H5Tis_variable_str(t) == 0 &&
        H5Tdetect_class(t, H5T_REFERENCE) == 0 && (size_t)n * ts <= 65536) {
        unsigned char *buf = calloc(1, (size_t)n * ts + 1);
        if (buf && H5Aread(a, t, buf) >= 0)
            hex(buf, (size_t)n * ts);
        else
            printf("unreadable\n");
        free(buf);
    }
    else
        printf("skipped\n");
    if (s >= 0)
        H5Sclose(s);
    if (t >= 0)
        H5Tclose(t);
    if (a >= 0)
        H5Aclose(a);
    return 0;
}

static herr_t
values_cb(hid_t o, const char *name, const H5O_info2_t *oi, void *op_data)
{
    (void)o, (void)op_data;
    char path[4096];
    snprintf(path, sizeof(path), "%s%s", strcmp(name, ".") == 0 ? "" : "/", strcmp(name, ".") == 0 ? "/" : name);
    hsize_t idx = 0;
    H5Aiterate_by_name(values_file, path, H5_INDEX_NAME, H5_ITER_INC, &idx, attr_cb, path, H5P_DEFAULT);
    if (oi->type != H5O_TYPE_DATASET)
        return 0;
    hid_t    d  = H5Dopen2(values_file, path, H5P_DEFAULT);
    hid_t    t  = d >= 0 ? H5Dget_type(d) : H5I_INVALID_HID;
    hid_t    s  = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
    hssize_t n  = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
    size_t   ts = t >= 0 ? H5Tget_size(t) : 0;
    printf("D %s ", path);
    if (n >= 0 && ts && H5Tdetect_class(t, H5T_VLEN) == 0 && H5Tis_variable_str(t) == 0 &&
        H5Tdetect_class(t, H5T_REFERENCE) == 0 && (size_t)n * ts <= 4096) {
        unsigned char *buf = calloc(1, (size_t)n * ts + 1);
        if (buf && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0)
            hex(buf, (size_t)n * ts);
        else
            printf("unreadable\n");
        free(buf);
    }
    else
        printf("skipped\n");
    if (s >= 0)
        H5Sclose(s);
    if (t >= 0)
        H5Tclose(t);
    if (d >= 0)
        H5Dclose(d);
    return 0;
}

static int
values(const char *file)
{
    values_file = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (values_file < 0)
        return 1;
    int bad = H5Ovisit3(values_file, H5_INDEX_NAME, H5_ITER_INC, values_cb, NULL, H5O_INFO_BASIC) < 0;
    H5Fclose(values_file);
    return bad;
}

/* --make FILE VARIANT [GROUPS]: a small NeXus-like file whose attribute values and small dataset
 * contents depend on VARIANT while its size and layout do not (an attacker's forged copy, or the
 * next version of a file written with the same shape), with GROUPS empty groups in /entry/many. */
static int
make(const char *file, int variant, int ngroups)
{
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    hid_t f    = H5Fcreate(file, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    if (f < 0)
        return 1;
    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, 6);
    hid_t scalar = H5Screate(H5S_SCALAR);
    struct {
        const char *obj, *name, *val[2];
    } attrs[] = {{"/", "NX_class", {"NXroot", "NXroot"}},
                 {"/entry", "NX_class", {"NXentry", "NXentry"}},
                 {"/entry/data", "units", {"counts", "forged"}},
                 {"/entry/log", "NX_class", {"NXlog!", "NXlog?"}}};
    hid_t g1 = H5Gcreate2(f, "/entry", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t g2 = H5Gcreate2(f, "/entry/log", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    int   data[16];
    double v[8];
    for (int i = 0; i < 16; i++)
        data[i] = variant * 1000 + i;
    for (int i = 0; i < 8; i++)
        v[i] = variant + i * 0.5;
    hsize_t n16 = 16, n8 = 8;
    hid_t   s16 = H5Screate_simple(1, &n16, NULL), s8 = H5Screate_simple(1, &n8, NULL);
    hid_t   d   = H5Dcreate2(f, "/entry/data", H5T_NATIVE_INT, s16, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    H5Dclose(d);
    const char *logs[] = {"/entry/log/value", "/entry/log/time"};
    for (int k = 0; k < 2; k++) {
        d = H5Dcreate2(f, logs[k], H5T_NATIVE_DOUBLE, s8, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
        H5Dclose(d);
    }
    for (size_t k = 0; k < sizeof(attrs) / sizeof(attrs[0]); k++) {
        char val[8] = {0};
        memcpy(val, attrs[k].val[variant ? 1 : 0], strlen(attrs[k].val[0]) < 6 ? strlen(attrs[k].val[0]) : 6);
        hid_t a = H5Acreate_by_name(f, attrs[k].obj, attrs[k].name, str, scalar, H5P_DEFAULT, H5P_DEFAULT,
                                    H5P_DEFAULT);
        H5Awrite(a, str, val);
        H5Aclose(a);
    }
    if (ngroups > 0) {
        hid_t many = H5Gcreate2(f, "/entry/many", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        for (int i = 0; i < ngroups && many >= 0; i++) {
            char name[32];
            snprintf(name, sizeof(name), "group_%06d", i);
            hid_t g = H5Gcreate2(many, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            if (g < 0 || H5Gclose(g) < 0) {
                H5Gclose(many);
                return 1;
            }
        }
        if (many < 0 || H5Gclose(many) < 0)
            return 1;
    }
    H5Sclose(s16);
    H5Sclose(s8);
    H5Sclose(scalar);
    H5Tclose(str);
    H5Gclose(g2);
    H5Gclose(g1);
    return H5Fclose(f) < 0;
}

/* --retarget SIDECAR FILE: what an attacker does to a sidecar built for a forged copy: rewrites
 * its identity to FILE's (stat of the path: device, inode, size, mtime, ctime; the in-file
 * fingerprint is kept, a copy of the same shape has the same) and fixes the checksum. */
static int
retarget(const char *sidecar, const char *file)
{
    FILE       *fp = fopen(sidecar, "rb");
    struct stat st;
    if (!fp || stat(file, &st) != 0)
        return 1;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    rewind(fp);
    uint8_t *b = malloc((size_t)n);
    if (!b || fread(b, 1, (size_t)n, fp) != (size_t)n)
        return 1;
    fclose(fp);
    SC_PUT(b, HDR, DEV, (uint64_t)st.st_dev);
    SC_PUT(b, HDR, INO, (uint64_t)st.st_ino);
    SC_PUT(b, HDR, SIZE, (uint64_t)st.st_size);
    SC_PUT(b, HDR, MTIME, (uint64_t)((int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec));
    SC_PUT(b, HDR, CTIME, (uint64_t)((int64_t)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec));
    uint64_t chk = tb_sidecar_checksum(b, (size_t)n - SC_TRAILER);
    memcpy(b + n - SC_TRAILER, &chk, 8);
    fp = fopen(sidecar, "wb");
    if (!fp || fwrite(b, 1, (size_t)n, fp) != (size_t)n || fclose(fp) != 0)
        return 1;
    free(b);
    return 0;
}

/* The same file opened twice in one process: both opens answer alike, and closing one leaves
 * the other working (they share one index). */
static int
twice(const char *file)
{
    hid_t a = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t b = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (a < 0 || b < 0)
        return 1;
    if (H5Ovisit3(a, H5_INDEX_NAME, H5_ITER_INC, obj_cb, NULL, H5O_INFO_BASIC | H5O_INFO_NUM_ATTRS) < 0)
        return 1;
    H5Fclose(a);
    if (H5Ovisit3(b, H5_INDEX_NAME, H5_ITER_INC, obj_cb, NULL, H5O_INFO_BASIC | H5O_INFO_NUM_ATTRS) < 0)
        return 1;
    hsize_t idx = 0;
    if (H5Literate2(b, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, link_cb, NULL) < 0)
        return 1;
    H5Fclose(b);
    return 0;
}

/* --maps: the lines of /proc/self/maps naming a sidecar (a mapping that outlived its decode). */
static int
sidecar_maps(void)
{
    FILE *m = fopen("/proc/self/maps", "r");
    char  line[4096];
    int   n = 0;
    if (!m)
        return -1;
    while (fgets(line, sizeof(line), m))
        n += strstr(line, ".h5turbo-index") != NULL;
    fclose(m);
    return n;
}

static int
maps(int nfiles, char **files)
{
    int bad = 0;
    for (int i = 0; i < nfiles; i++) {
        hid_t f = H5Fopen(files[i], H5F_ACC_RDONLY, H5P_DEFAULT);
        if (f < 0)
            return 1;
        printf("%s: sidecar mappings after its open: %d\n", files[i], sidecar_maps());
        bad |= H5Ovisit3(f, H5_INDEX_NAME, H5_ITER_INC, obj_cb, NULL, H5O_INFO_BASIC) < 0;
        H5Fclose(f);
    }
    return bad;
}

int
main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--values") == 0)
        return values(argv[2]);
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "--make") == 0)
        return make(argv[2], atoi(argv[3]), argc == 5 ? atoi(argv[4]) : 0);
    if (argc == 4 && strcmp(argv[1], "--retarget") == 0)
        return retarget(argv[2], argv[3]);
    if (argc == 3 && strcmp(argv[1], "--twice") == 0)
        return twice(argv[2]);
    if (argc >= 3 && strcmp(argv[1], "--maps") == 0)
        return maps(argc - 2, argv + 2);
    if (argc != 2)
        return 2;
    hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return 1;
    if (H5Ovisit3(f, H5_INDEX_NAME, H5_ITER_INC, obj_cb, NULL, H5O_INFO_BASIC | H5O_INFO_NUM_ATTRS) < 0)
        return 1;
    hsize_t idx = 0;
    if (H5Literate2(f, H5_INDEX_NAME, H5_ITER_NATIVE, &idx, link_cb, NULL) < 0)
        return 1;
    H5Fclose(f);
    return 0;
}
