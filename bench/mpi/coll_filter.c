/* coll_filter.c — parallel HDF5's collective filtered path (issue #16's "faster filters"): every
 * rank writes its own frames of one chunked dataset (a frame per chunk; shuffle + DEFLATE at
 * LEVEL, + fletcher32 when asked) with one collective H5Dwrite through the MPI-IO driver, then
 * reads them back collectively. Prints the slowest rank's write and read seconds (wall, from the
 * call to its return on every rank) and a checksum of what was read, which must equal what was
 * written. Frames: 256 x 512 uint16, detector-like (a smooth background, noise, sparse hits).
 * Usage: mpiexec -n N coll_filter FILE FRAMES_PER_RANK LEVEL FLETCHER(0|1) */
#include <hdf5.h>
#include <mpi.h>

#include "tb_mpi_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define NY 256
#define NX 512


static uint16_t
pixel(uint64_t frame, uint64_t y, uint64_t x)
{
    uint64_t h = (frame * 1000003u + y * 7919u + x) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    uint16_t v = (uint16_t)(1000 + (y + x) / 8 + (h & 15)); /* background and noise */
    if ((h >> 20) % 997 == 0)
        v = (uint16_t)(v + 20000); /* a hit */
    return v;
}

int
main(int argc, char **argv)
{
    int nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_g);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 5) {
        if (rank_g == 0)
            fprintf(stderr, "usage: coll_filter FILE FRAMES_PER_RANK LEVEL FLETCHER\n");
        MPI_Finalize();
        return 2;
    }
    hsize_t per = (hsize_t)atoi(argv[2]);
    int     level = atoi(argv[3]), fletcher = atoi(argv[4]);
    hid_t   fapl  = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(file);
    hsize_t dims[3] = {per * (hsize_t)nranks, NY, NX}, chunk[3] = {1, NY, NX};
    hid_t   space = H5Screate_simple(3, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(H5Pset_chunk(dcpl, 3, chunk));
    CHECK(H5Pset_shuffle(dcpl));
    CHECK(H5Pset_deflate(dcpl, (unsigned)level));
    if (fletcher)
        CHECK(H5Pset_fletcher32(dcpl));
    hid_t dset = H5Dcreate2(file, "data", H5T_NATIVE_UINT16, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(dset);
    size_t    n   = (size_t)per * NY * NX;
    uint16_t *buf = malloc(n * sizeof(*buf));
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 3);
    uint64_t sum_w = 0;
    for (hsize_t f = 0; f < per; f++)
        for (hsize_t y = 0; y < NY; y++)
            for (hsize_t x = 0; x < NX; x++)
                sum_w += buf[(f * NY + y) * NX + x] = pixel((uint64_t)rank_g * per + f, y, x);
    hsize_t start[3] = {(hsize_t)rank_g * per, 0, 0}, count[3] = {per, NY, NX};
    CHECK(H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL));
    hid_t mspace = H5Screate_simple(3, count, NULL), dxpl = H5Pcreate(H5P_DATASET_XFER);
    CHECK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    CHECK(H5Dwrite(dset, H5T_NATIVE_UINT16, mspace, space, dxpl, buf));
    double tw = MPI_Wtime() - t0;
    CHECK(H5Dclose(dset));
    CHECK(H5Fclose(file));

    file = H5Fopen(argv[1], H5F_ACC_RDONLY, fapl);
    CHECK(file);
    dset = H5Dopen2(file, "data", H5P_DEFAULT);
    CHECK(dset);
    for (size_t i = 0; i < n; i++)
        buf[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    CHECK(H5Dread(dset, H5T_NATIVE_UINT16, mspace, space, dxpl, buf));
    double   tr    = MPI_Wtime() - t0;
    uint64_t sum_r = 0;
    for (size_t i = 0; i < n; i++)
        sum_r += buf[i];
    hsize_t stored = H5Dget_storage_size(dset);
    CHECK(H5Dclose(dset));
    CHECK(H5Fclose(file));

    double   wmax, rmax;
    uint64_t sums[2] = {sum_w, sum_r}, tot[2];
    MPI_Reduce(&tw, &wmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&tr, &rmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(sums, tot, 2, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank_g == 0) {
        printf("%.4f %.4f %" PRIu64 " %" PRIu64 "\n", wmax, rmax, tot[1], (uint64_t)stored);
        if (tot[0] != tot[1]) {
            fprintf(stderr, "read back %" PRIu64 ", wrote %" PRIu64 "\n", tot[1], tot[0]);
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
    }
    free(buf);
    H5Pclose(dxpl);
    H5Sclose(mspace);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Pclose(fapl);
    MPI_Finalize();
    return 0;
}
