/* test_blosc_plugin.c — h5turbo's Blosc plugin loaded by HDF5 from HDF5_PLUGIN_PATH: a
 * one-element dataset with the filter mandatory writes and reads back (hdf5-blosc fails there),
 * set_local records hdf5-blosc's cd_values, multi-block chunks round-trip, and a corrupt or
 * truncated chunk fails the read with a message naming the Blosc filter. */
#include "tb_test.h"

#include <hdf5.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOSC_ID 32001

static hid_t
make_dataset(hid_t file, const char *name, hid_t type, int rank, const hsize_t *dims, const hsize_t *chunk,
             size_t ncd, const unsigned *cd)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), space = H5Screate_simple(rank, dims, NULL);
    ASSERT(H5Pset_chunk(dcpl, rank, chunk) >= 0);
    ASSERT(H5Pset_filter(dcpl, BLOSC_ID, H5Z_FLAG_MANDATORY, ncd, cd) >= 0);
    hid_t ds = H5Dcreate2(file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ASSERT(ds >= 0);
    H5Pclose(dcpl), H5Sclose(space);
    return ds;
}

static void
get_cd(hid_t ds, unsigned *cd, size_t *n)
{
    hid_t    dcpl = H5Dget_create_plist(ds);
    unsigned flags;
    ASSERT(H5Pget_filter_by_id2(dcpl, BLOSC_ID, &flags, n, cd, 0, NULL, NULL) >= 0);
    H5Pclose(dcpl);
}

static int saw_blosc_msg;

static herr_t
walk_cb(unsigned n, const H5E_error2_t *e, void *arg)
{
    (void)n, (void)arg;
    if (e->desc && strstr(e->desc, "Blosc filter (32001)"))
        saw_blosc_msg = 1;
    return 0;
}

/* Reads ds expecting failure, and a message of ours on the error stack. */
static void
expect_read_error(hid_t ds, void *buf)
{
    herr_t rc = -1;
    H5E_BEGIN_TRY { rc = H5Dread(ds, H5T_NATIVE_UINT16, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf); }
    H5E_END_TRY
    ASSERT(rc < 0);
    /* Read again with the stack kept, to look at it. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    ASSERT(H5Dread(ds, H5T_NATIVE_UINT16, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0);
    saw_blosc_msg = 0;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, walk_cb, NULL);
    if (!saw_blosc_msg)
        H5Eprint2(H5E_DEFAULT, stderr); /* show what was there instead */
    ASSERT(saw_blosc_msg);
    H5Eclear2(H5E_DEFAULT);
}

int
main(void)
{
    htri_t avail = H5Zfilter_avail(BLOSC_ID);
    ASSERT(avail > 0);
    const char *fname = "test_blosc_plugin.h5";
    hid_t       file  = H5Fcreate(fname, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT(file >= 0);

    /* One float64, filter mandatory: a valid frame even though it cannot compress. */
    hsize_t one = 1;
    double  v = 3.25, r = 0;
    hid_t   ds = make_dataset(file, "one", H5T_IEEE_F64LE, 1, &one, &one, 0, NULL);
    ASSERT(H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) >= 0);
    ASSERT(H5Dflush(ds) >= 0);
    hsize_t  off0 = 0, stored = 0;
    unsigned mask = 99;
    ASSERT(H5Dget_chunk_storage_size(ds, &off0, &stored) >= 0);
    ASSERT_EQ(stored, 8 + 16); /* the value behind a Blosc header */
    uint8_t raw[64];
    ASSERT(H5Dread_chunk(ds, H5P_DEFAULT, &off0, &mask, raw) >= 0);
    ASSERT_EQ(mask, 0); /* filtered, not skipped */
    ASSERT_EQ(raw[0], 2);
    ASSERT(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &r) >= 0);
    ASSERT(r == v);

    /* cd_values: [0..3] from set_local, the user's [4..6] kept; none given means only four. */
    unsigned cd[8];
    size_t   n = 8;
    get_cd(ds, cd, &n);
    ASSERT_EQ(n, 4);
    ASSERT(cd[0] == 2 && cd[1] == 2 && cd[2] == 8 && cd[3] == 8);
    H5Dclose(ds);
    hsize_t  dims[2] = {100, 300}, chunk[2] = {64, 128};
    unsigned user[7] = {0, 0, 0, 0, 7, 2, 1};
    ds               = make_dataset(file, "u16", H5T_STD_U16LE, 2, dims, chunk, 7, user);
    n                = 8;
    get_cd(ds, cd, &n);
    ASSERT_EQ(n, 7);
    ASSERT(cd[0] == 2 && cd[1] == 2 && cd[2] == 2 && cd[3] == 64 * 128 * 2 && cd[4] == 7 && cd[5] == 2 && cd[6] == 1);
    uint16_t *w = malloc(100 * 300 * 2), *b = malloc(100 * 300 * 2);
    ASSERT(w && b);
    for (int i = 0; i < 100 * 300; i++)
        w[i] = (uint16_t)(i % 1000);
    ASSERT(H5Dwrite(ds, H5T_NATIVE_UINT16, H5S_ALL, H5S_ALL, H5P_DEFAULT, w) >= 0);
    ASSERT(H5Dread(ds, H5T_NATIVE_UINT16, H5S_ALL, H5S_ALL, H5P_DEFAULT, b) >= 0);
    ASSERT(memcmp(w, b, 100 * 300 * 2) == 0);

    /* Array of 4 int32: shuffled by the base type; a 300-byte compound: as bytes. */
    hsize_t adim = 4;
    hid_t   at   = H5Tarray_create2(H5T_STD_I32LE, 1, &adim);
    hsize_t d1 = 50, c1 = 10;
    hid_t   dsa = make_dataset(file, "arr", at, 1, &d1, &c1, 0, NULL);
    n           = 8;
    get_cd(dsa, cd, &n);
    ASSERT(cd[2] == 4 && cd[3] == 160);
    hid_t ct = H5Tcreate(H5T_COMPOUND, 300);
    H5Tinsert(ct, "a", 0, H5T_STD_U8LE);
    hid_t dsc = make_dataset(file, "big_cmpd", ct, 1, &d1, &c1, 0, NULL);
    n         = 8;
    get_cd(dsc, cd, &n);
    ASSERT(cd[2] == 1 && cd[3] == 3000);
    H5Dclose(dsa), H5Dclose(dsc), H5Tclose(at), H5Tclose(ct);

    /* Out-of-range settings are refused when the dataset is created. */
    unsigned bad[7] = {0, 0, 0, 0, 5, 1, 9};
    hid_t    dcpl = H5Pcreate(H5P_DATASET_CREATE), space = H5Screate_simple(1, &d1, NULL);
    H5Pset_chunk(dcpl, 1, &c1);
    H5Pset_filter(dcpl, BLOSC_ID, H5Z_FLAG_MANDATORY, 7, bad);
    hid_t dbad;
    H5E_BEGIN_TRY { dbad = H5Dcreate2(file, "bad", H5T_STD_U8LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT); }
    H5E_END_TRY
    ASSERT(dbad < 0);
    H5Pclose(dcpl), H5Sclose(space);

    /* Corrupt chunks: garbage, a truncated real chunk, a header claiming too much. */
    hsize_t  off[2] = {0, 0};
    hsize_t  csize  = 0;
    ASSERT(H5Dget_chunk_storage_size(ds, off, &csize) >= 0);
    uint8_t *chunkbuf = malloc(csize);
    ASSERT(H5Dread_chunk(ds, H5P_DEFAULT, off, &mask, chunkbuf) >= 0);
    uint8_t garbage[100];
    for (int i = 0; i < 100; i++)
        garbage[i] = (uint8_t)(i * 37);
    ASSERT(H5Dwrite_chunk(ds, H5P_DEFAULT, 0, off, sizeof(garbage), garbage) >= 0);
    expect_read_error(ds, b);
    ASSERT(H5Dwrite_chunk(ds, H5P_DEFAULT, 0, off, csize / 2, chunkbuf) >= 0);
    expect_read_error(ds, b);
    chunkbuf[6] = 0x10; /* uncompressed size now ~1 MiB, the chunk is 16 KiB */
    ASSERT(H5Dwrite_chunk(ds, H5P_DEFAULT, 0, off, csize, chunkbuf) >= 0);
    expect_read_error(ds, b);
    H5Dclose(ds);

    /* Chunks of several Blosc blocks (the threaded path), all six compressors. */
    for (unsigned comp = 0; comp <= 5; comp++) {
        hsize_t  bd[1] = {1 << 20}, bc[1] = {1 << 19};
        unsigned cdb[7] = {0, 0, 0, 0, comp == 2 || comp == 4 || comp == 5 ? 2 : 6, (comp + 1) % 3, comp};
        char     name[32];
        snprintf(name, sizeof(name), "big%u", comp);
        uint16_t *bw = malloc(bd[0] * 2), *br = malloc(bd[0] * 2);
        ASSERT(bw && br);
        for (size_t i = 0; i < bd[0]; i++)
            bw[i] = (uint16_t)(1000 + (i % 4096) / 3 + ((i * 7919) % 61 == 0 ? 50 : 0));
        hid_t dbig = make_dataset(file, name, H5T_STD_U16LE, 1, bd, bc, 7, cdb);
        ASSERT(H5Dwrite(dbig, H5T_NATIVE_UINT16, H5S_ALL, H5S_ALL, H5P_DEFAULT, bw) >= 0);
        ASSERT(H5Dread(dbig, H5T_NATIVE_UINT16, H5S_ALL, H5S_ALL, H5P_DEFAULT, br) >= 0);
        ASSERT(memcmp(bw, br, bd[0] * 2) == 0);
        ASSERT(H5Dget_storage_size(dbig) < bd[0] * 2); /* compressed, not stored as copies */
        H5Dclose(dbig);
        free(bw), free(br);
    }
    free(w), free(b), free(chunkbuf);
    H5Fclose(file);
    remove(fname);
    printf("plugin: one-element mandatory, cd_values, corrupt chunks, multi-block chunks ok\n");
    return 0;
}
