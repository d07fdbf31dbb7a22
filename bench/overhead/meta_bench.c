/* meta_bench.c — per-call overhead of the connector on a metadata-heavy workload.
 *   meta_bench gen FILE NGROUPS PER_GROUP   writes NGROUPS groups of PER_GROUP small datasets
 *   meta_bench walk FILE NGROUPS PER_GROUP  opens FILE and, for every object, get-info by name,
 *                                           open and close it; prints the seconds it took */
#define H5_USE_114_API_DEFAULT 1
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int
main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s gen|walk FILE NGROUPS PER_GROUP\n", argv[0]);
        return 2;
    }
    int  ngroups = atoi(argv[3]), per = atoi(argv[4]);
    char name[64];
    if (strcmp(argv[1], "gen") == 0) {
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST);
        hid_t f    = H5Fcreate(argv[2], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        hid_t s    = H5Screate_simple(1, (hsize_t[]){4}, NULL);
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_layout(dcpl, H5D_COMPACT);
        int v[4] = {1, 2, 3, 4};
        for (int g = 0; g < ngroups; g++) {
            snprintf(name, sizeof(name), "g%05d", g);
            hid_t gr = H5Gcreate2(f, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            for (int i = 0; i < per; i++) {
                snprintf(name, sizeof(name), "d%04d", i);
                hid_t d = H5Dcreate2(gr, name, H5T_NATIVE_INT, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
                H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v);
                H5Dclose(d);
            }
            H5Gclose(gr);
        }
        H5Pclose(dcpl);
        H5Sclose(s);
        H5Pclose(fapl);
        return H5Fclose(f) < 0;
    }
    double     t0 = now();
    hid_t      f  = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
    H5O_info2_t info;
    long       nobj = 0;
    if (f < 0)
        return 1;
    for (int g = 0; g < ngroups; g++) {
        char gname[32];
        snprintf(gname, sizeof(gname), "g%05d", g);
        for (int i = -1; i < per; i++) {
            if (i < 0)
                snprintf(name, sizeof(name), "%s", gname);
            else
                snprintf(name, sizeof(name), "%s/d%04d", gname, i);
            if (H5Oget_info_by_name3(f, name, &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
                return 1;
            hid_t o = H5Oopen(f, name, H5P_DEFAULT);
            if (o < 0 || H5Oclose(o) < 0)
                return 1;
            nobj++;
        }
    }
    H5Fclose(f);
    printf("%.6f %ld\n", now() - t0, nobj);
    return 0;
}
