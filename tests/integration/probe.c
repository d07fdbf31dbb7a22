/* probe.c — H5Fis_accessible and H5Fdelete through h5turbo with no connector info in the FAPL
 * (what HDF5 does when it probes the plugin folder), and with a full info string.
 * Usage: tb_probe DIR ; prints a transcript, exits non-zero on a wrong answer. */
#include <hdf5.h>
#include <stdio.h>
#include <string.h>

static int failures;

static void
expect(const char *what, long got, long want)
{
    printf("%s: %ld%s\n", what, got, got == want ? "" : "  <-- WRONG");
    failures += got != want;
}

int
main(int argc, char **argv)
{
    char good[4096], bad[4096], gone[4096];
    if (argc != 2)
        return 2;
    snprintf(good, sizeof(good), "%s/good.h5", argv[1]);
    snprintf(bad, sizeof(bad), "%s/not_hdf5.txt", argv[1]);
    snprintf(gone, sizeof(gone), "%s/to_delete.h5", argv[1]);
    FILE *t = fopen(bad, "w");
    fputs("this is not an HDF5 file\n", t);
    fclose(t);
    H5Fclose(H5Fcreate(good, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    H5Fclose(H5Fcreate(gone, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

    hid_t vol = H5VLregister_connector_by_name("h5turbo", H5P_DEFAULT);
    expect("h5turbo registered", vol >= 0, 1);
    for (int with_info = 0; with_info < 2; with_info++) {
        void *info = NULL;
        if (with_info)
            H5VLconnector_str_to_info("under_vol=0;under_info={};threads=1", vol, &info);
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_vol(fapl, vol, info);
        if (info)
            H5VLfree_connector_info(vol, info);
        printf("-- %s connector info\n", with_info ? "with" : "no");
        expect("is_accessible(good)", H5Fis_accessible(good, fapl), 1);
        expect("is_accessible(not hdf5)", H5Fis_accessible(bad, fapl) > 0, 0);
        hid_t f = H5Fopen(bad, H5F_ACC_RDONLY, fapl);
        expect("open(not hdf5) fails", f < 0, 1);
        if (!with_info) {
            expect("delete(file)", H5Fdelete(gone, fapl) >= 0, 1);
            FILE *g = fopen(gone, "r");
            expect("deleted file is gone", g == NULL, 1);
            if (g)
                fclose(g);
        }
        expect("open(good) after probes", (f = H5Fopen(good, H5F_ACC_RDONLY, fapl)) >= 0, 1);
        if (f >= 0)
            H5Fclose(f);
        H5Pclose(fapl);
    }
    H5VLclose(vol);
    return failures != 0;
}
