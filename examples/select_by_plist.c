/* select_by_plist.c — example: choose the h5turbo connector and the Blosc filter through property
 * lists instead of environment variables. Needs HDF5_PLUGIN_PATH (or H5PLprepend) to name the
 * folder holding the plugins. Usage: select_by_plist FILE.h5 [PLUGIN_DIR] */
#include <h5turbo.h> /* the connector name, the Blosc filter id and its cd_values slots */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE.h5 [PLUGIN_DIR]\n", argv[0]);
        return 2;
    }
    if (argc > 2)
        H5PLprepend(argv[2]);

    /* The connector: registered by name from the plugin folder, with its options as an info string
     * (the same text as in HDF5_VOL_CONNECTOR after the name). */
    hid_t vol = H5VLregister_connector_by_name(H5TURBO_VOL_NAME, H5P_DEFAULT);
    if (vol < 0) {
        fprintf(stderr, "h5turbo connector not found: set HDF5_PLUGIN_PATH\n");
        return 1;
    }
    void *info = NULL;
    H5VLconnector_str_to_info("under_vol=0;under_info={};threads=2", vol, &info);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_vol(fapl, vol, info);
    H5VLfree_connector_info(vol, info);

    /* The Blosc filter: the application sets the compression level, shuffle and compressor;
     * h5turbo fills slots 0-3 itself, as hdf5-blosc does. */
    unsigned cd[H5TURBO_BLOSC_CD_NELMTS] = {0};
    cd[H5TURBO_BLOSC_CD_CLEVEL]     = 5;
    cd[H5TURBO_BLOSC_CD_SHUFFLE]    = H5TURBO_BLOSC_SHUFFLE;
    cd[H5TURBO_BLOSC_CD_COMPRESSOR] = H5TURBO_BLOSC_LZ4;
    hid_t    dcpl  = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t  dims[2] = {256, 512}, chunk[2] = {64, 512};
    H5Pset_chunk(dcpl, 2, chunk);
    H5Pset_filter(dcpl, H5TURBO_BLOSC_FILTER_ID, H5Z_FLAG_MANDATORY, H5TURBO_BLOSC_CD_NELMTS, cd);

    static float data[256][512], back[256][512];
    for (int i = 0; i < 256; i++)
        for (int j = 0; j < 512; j++)
            data[i][j] = (float)((i * 31 + j) % 97);

    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hid_t s = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(f, "frames", H5T_NATIVE_FLOAT, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (f < 0 || d < 0 || H5Dwrite(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0 ||
        H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) < 0) {
        fprintf(stderr, "write/read failed\n");
        return 1;
    }
    hsize_t stored = H5Dget_storage_size(d);
    int     same   = 1;
    for (int i = 0; i < 256 && same; i++)
        for (int j = 0; j < 512; j++)
            if (data[i][j] != back[i][j]) {
                same = 0;
                break;
            }
    printf("wrote %zu bytes as %llu bytes with Blosc/lz4 through h5turbo; read back %s\n", sizeof(data),
           (unsigned long long)stored, same ? "identical" : "DIFFERENT");
    H5Dclose(d);
    H5Sclose(s);
    H5Fclose(f);
    H5Pclose(dcpl);
    H5Pclose(fapl);
    H5VLclose(vol);
    return same ? 0 : 1;
}
