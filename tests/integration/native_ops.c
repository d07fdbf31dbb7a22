/* native_ops.c — native-only and deprecated HDF5 calls (direct chunk read/write, chunk iteration
 * and queries, H5Oget_native_info, H5Oget_info1, H5Literate1, H5Ovisit1, H5Fget_info2, file
 * image, H5Fget_vfd_handle) print a transcript; run stock and under h5turbo and diff it.
 * Usage: tb_native_ops FILE */
#define H5_USE_114_API_DEFAULT 1
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/tb_test.h"

static herr_t
chunk_cb(const hsize_t *offset, unsigned filter_mask, haddr_t addr, hsize_t size, void *op_data)
{
    (void)addr; /* addresses may legitimately differ only if allocation differs: printed below */
    (void)op_data;
    printf("chunk_iter: offset %llu,%llu mask %u size in (0, raw): %d\n", (unsigned long long)offset[0],
           (unsigned long long)offset[1], filter_mask, size > 0 && size < 16 * sizeof(int));
    return 0;
}

static herr_t
literate1_cb(hid_t g, const char *name, const H5L_info1_t *info, void *op_data)
{
    (void)g;
    (void)op_data;
    printf("H5Literate1: %s type %d\n", name, (int)info->type);
    return 0;
}

static herr_t
ovisit1_cb(hid_t o, const char *name, const H5O_info1_t *info, void *op_data)
{
    (void)o;
    (void)op_data;
    printf("H5Ovisit1: %s type %d rc %u\n", name, (int)info->type, info->rc);
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_H5(f);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    ASSERT_H5(H5Pset_chunk(dcpl, 2, (hsize_t[]){4, 4}));
    ASSERT_H5(H5Pset_deflate(dcpl, 1));
    hid_t s = H5Screate_simple(2, (hsize_t[]){8, 8}, NULL);
    hid_t d = H5Dcreate2(f, "chunked", H5T_NATIVE_INT, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ASSERT_H5(d);
    int data[64];
    for (int i = 0; i < 64; i++)
        data[i] = i * 3;
    ASSERT_H5(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data));
    ASSERT_H5(H5Dflush(d));

    /* Direct chunk read of what the library wrote, and direct chunk write of it elsewhere. */
    hsize_t  nbytes = 0;
    uint32_t mask   = 99;
    ASSERT_H5(H5Dget_chunk_storage_size(d, (hsize_t[]){4, 4}, &nbytes));
    /* Compressed sizes depend on the DEFLATE implementation that wrote the chunk (h5turbo's
     * pipeline uses ISA-L/libdeflate, HDF5 zlib): print only what every implementation shares. */
    printf("chunk storage size in (0, raw): %d\n", nbytes > 0 && nbytes < 16 * sizeof(int));
    unsigned char *buf = malloc(nbytes);
    ASSERT_H5(H5Dread_chunk(d, H5P_DEFAULT, (hsize_t[]){4, 4}, &mask, buf));
    printf("read_chunk mask %u first byte %u\n", mask, buf[0]);
    hid_t d2 = H5Dcreate2(f, "direct", H5T_NATIVE_INT, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ASSERT_H5(H5Dwrite_chunk(d2, H5P_DEFAULT, 0, (hsize_t[]){0, 0}, nbytes, buf));
    int back[64];
    ASSERT_H5(H5Dread(d2, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back));
    printf("direct write then read: %d %d %d\n", back[0], back[1], back[3 * 8 + 3]);
    hsize_t nchunks = 0;
    ASSERT_H5(H5Dget_num_chunks(d, H5S_ALL, &nchunks));
    printf("num_chunks %llu\n", (unsigned long long)nchunks);
    hsize_t off[2];
    unsigned fm;
    haddr_t  addr;
    hsize_t  sz;
    ASSERT_H5(H5Dget_chunk_info(d, H5S_ALL, 2, off, &fm, &addr, &sz));
    printf("chunk_info 2: %llu,%llu mask %u size in (0, raw): %d\n", (unsigned long long)off[0],
           (unsigned long long)off[1], fm, sz > 0 && sz < 16 * sizeof(int));
    ASSERT_H5(H5Dchunk_iter(d, H5P_DEFAULT, chunk_cb, NULL));
    free(buf);

    ASSERT_H5(H5Gclose(H5Gcreate2(f, "grp", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)));
    ASSERT_H5(H5Lcreate_soft("/chunked", f, "grp/soft", H5P_DEFAULT, H5P_DEFAULT));
    H5O_native_info_t ni;
    ASSERT_H5(H5Oget_native_info(d, &ni, H5O_NATIVE_INFO_ALL));
    printf("native_info: hdr version %u nmesgs %u\n", ni.hdr.version, ni.hdr.nmesgs);
    H5O_info1_t oi1;
    ASSERT_H5(H5Oget_info1(d, &oi1));
    printf("H5Oget_info1: type %d rc %u num_attrs %llu\n", (int)oi1.type, oi1.rc, (unsigned long long)oi1.num_attrs);
    ASSERT_H5(H5Oget_info_by_name1(f, "grp", &oi1, H5P_DEFAULT));
    printf("H5Oget_info_by_name1: type %d\n", (int)oi1.type);
    hsize_t idx = 0;
    ASSERT_H5(H5Literate1(f, H5_INDEX_NAME, H5_ITER_INC, &idx, literate1_cb, NULL));
    printf("H5Literate1 idx out %llu\n", (unsigned long long)idx);
    ASSERT_H5(H5Ovisit1(f, H5_INDEX_NAME, H5_ITER_INC, ovisit1_cb, NULL));
    H5F_info2_t fi;
    ASSERT_H5(H5Fget_info2(f, &fi));
    printf("H5Fget_info2: super version %u\n", fi.super.version);
    void *handle = NULL;
    ASSERT_H5(H5Fget_vfd_handle(f, H5P_DEFAULT, &handle));
    printf("vfd handle %s\n", handle ? "non-null" : "null");
    ASSERT_H5(H5Fflush(f, H5F_SCOPE_GLOBAL));
    ssize_t img = H5Fget_file_image(f, NULL, 0);
    printf("file image size positive: %d\n", img > 0);
    ASSERT_H5(H5Dclose(d2));
    ASSERT_H5(H5Dclose(d));
    ASSERT_H5(H5Sclose(s));
    ASSERT_H5(H5Pclose(dcpl));
    printf("open objects before close: %zd\n", H5Fget_obj_count(f, H5F_OBJ_ALL));
    ASSERT_H5(H5Fclose(f));
    printf("done\n");
    return 0;
}
