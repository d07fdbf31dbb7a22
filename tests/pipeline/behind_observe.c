/* behind_observe.c — with write-behind, chunks still queued must be in the file before anything
 * observes or moves the dataset: H5Ocopy, H5Oget_native_info, H5Lmove, H5Ldelete, H5Oflush.
 * Prints a transcript (run stock and under h5turbo with H5TURBO_WRITE_BEHIND=1; they must match).
 * Usage: tb_behind_observe FILE */
#define H5_USE_114_API_DEFAULT 1
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

#include "../unit/tb_test.h"

#define N 64 /* 64 x 256 int32: 16 chunks of 4 x 256 (4 KiB each), 64 KiB per call */

static long long
sum_of(hid_t f, const char *name)
{
    static int buf[N][256];
    hid_t      d = H5Dopen2(f, name, H5P_DEFAULT);
    if (d < 0)
        return -1;
    ASSERT_H5(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    H5Dclose(d);
    long long s = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < 256; j++)
            s += (long long)buf[i][j] * (i + 1);
    return s;
}

static hid_t
make(hid_t f, const char *name, int seed)
{
    static int buf[N][256];
    hid_t      dcpl = H5Pcreate(H5P_DATASET_CREATE);
    ASSERT_H5(H5Pset_chunk(dcpl, 2, (hsize_t[]){4, 256}));
    ASSERT_H5(H5Pset_shuffle(dcpl));
    ASSERT_H5(H5Pset_deflate(dcpl, 1));
    ASSERT_H5(H5Pset_fletcher32(dcpl));
    hid_t s = H5Screate_simple(2, (hsize_t[]){N, 256}, NULL);
    hid_t d = H5Dcreate2(f, name, H5T_NATIVE_INT, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ASSERT_H5(d);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < 256; j++)
            buf[i][j] = (i * 7 + j * seed) % 1000;
    ASSERT_H5(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
    H5Sclose(s);
    H5Pclose(dcpl);
    return d; /* left open: its chunks may still be queued */
}

int
main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_H5(f);
    hid_t a = make(f, "a", 3), b = make(f, "b", 5), c = make(f, "c", 11);
    ASSERT_H5(H5Ocopy(f, "a", f, "a_copy", H5P_DEFAULT, H5P_DEFAULT));
    H5O_native_info_t ni;
    ASSERT_H5(H5Oget_native_info_by_name(f, "b", &ni, H5O_NATIVE_INFO_META_SIZE, H5P_DEFAULT));
    printf("b chunk index size > 0: %d\n", ni.meta_size.obj.index_size > 0);
    ASSERT_H5(H5Lmove(f, "b", f, "b_moved", H5P_DEFAULT, H5P_DEFAULT));
    ASSERT_H5(H5Ldelete(f, "c", H5P_DEFAULT));
    ASSERT_H5(H5Oflush(a));
    printf("a_copy sum %lld\n", sum_of(f, "a_copy"));
    printf("b_moved sum %lld\n", sum_of(f, "b_moved"));
    H5Dclose(a);
    H5Dclose(b);
    H5Dclose(c);
    ASSERT_H5(H5Fclose(f));
    /* Reopened: what is really in the file. */
    f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
    printf("reopened a sum %lld, a_copy sum %lld, b_moved sum %lld, c exists %d\n", sum_of(f, "a"),
           sum_of(f, "a_copy"), sum_of(f, "b_moved"), (int)H5Lexists(f, "c", H5P_DEFAULT));
    H5Fclose(f);
    return 0;
}
