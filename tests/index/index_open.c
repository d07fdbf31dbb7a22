/* index_open.c — one process of the concurrency test: `index_open FILE` opens FILE read-only,
 * visits every object and iterates the root, printing what it sees (compared with stock HDF5);
 * `index_open --check-sidecar FILE` exits 0 when FILE's sidecar is valid and describes FILE as it
 * is now (stat identity, EOA, root token), 1 otherwise. */
#include "index_int.h"

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

static int
check_sidecar(const char *file)
{
    char              real[4096];
    void             *buf;
    size_t            n;
    h5t_ix_identity_t id, now;
    struct stat       st;
    if (!realpath(file, real) || h5t_sidecar_read_file(real, &buf, &n) != H5T_OK) {
        fprintf(stderr, "no sidecar for %s\n", file);
        return 1;
    }
    if (h5t_sidecar_decode(buf, n, &id, NULL) != H5T_OK) {
        fprintf(stderr, "sidecar of %s does not decode\n", file);
        return 1;
    }
    free(buf);
    memset(&now, 0, sizeof(now));
    stat(real, &st);
    now.dev      = (uint64_t)st.st_dev;
    now.ino      = (uint64_t)st.st_ino;
    now.size     = (uint64_t)st.st_size;
    now.mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    hid_t f      = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    haddr_t     eoa;
    H5O_info2_t oi;
    if (f < 0 || H5Fget_eoa(f, &eoa) < 0 || H5Oget_info3(f, &oi, H5O_INFO_BASIC) < 0)
        return 1;
    H5Fclose(f);
    now.eoa = eoa;
    memcpy(now.root_token, &oi.token, sizeof(now.root_token));
    if (memcmp(&now, &id, sizeof(id)) != 0) {
        fprintf(stderr, "sidecar of %s describes another version of it\n", file);
        return 1;
    }
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

int
main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--check-sidecar") == 0)
        return check_sidecar(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--twice") == 0)
        return twice(argv[2]);
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
