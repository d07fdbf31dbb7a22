/* mantid_gen.c — writes a Mantid SaveMD-like NeXus file for the index benchmark:
 * /MDEventWorkspace/experimentN/{instrument/instrument_xml/data, sample, logs/<log>/{value,time}},
 * an NX_class string attribute on every group, groups tracking creation order as the NeXus API
 * makes them. Usage: mantid_gen FILE EXPERIMENTS [LOGS=500] [--units]. --units also gives every
 * log's value and time the attributes NeXus writers put there (value: units; time: units, start),
 * which loaders d..i read; without it the file is the one loaders a/b/c have always used. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x)                                                                                           \
    do {                                                                                                   \
        if ((x) < 0) {                                                                                     \
            fprintf(stderr, "mantid_gen: %s failed at line %d\n", #x, __LINE__);                           \
            exit(1);                                                                                       \
        }                                                                                                  \
    } while (0)

static hid_t gcpl;

static void
str_attr(hid_t obj, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, strlen(value));
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a);
    CHECK(H5Awrite(a, t, value));
    H5Aclose(a);
    H5Sclose(s);
    H5Tclose(t);
}

static void
nx_class(hid_t obj, const char *cls)
{
    str_attr(obj, "NX_class", cls);
}

static hid_t
group(hid_t parent, const char *name, const char *cls)
{
    hid_t g = H5Gcreate2(parent, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    CHECK(g);
    nx_class(g, cls);
    return g;
}

static void
dataset(hid_t parent, const char *name, const double *v, hsize_t n, const char *units, const char *start)
{
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(parent, name, H5T_NATIVE_DOUBLE, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(d);
    CHECK(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
    if (units)
        str_attr(d, "units", units);
    if (start)
        str_attr(d, "start", start);
    H5Dclose(d);
    H5Sclose(s);
}

int
main(int argc, char **argv)
{
    int units = argc > 3 && strcmp(argv[argc - 1], "--units") == 0;
    if (units)
        argc--;
    if (argc < 3)
        return 2;
    int nexp = atoi(argv[2]), nlogs = argc > 3 ? atoi(argv[3]) : 500;
    gcpl     = H5Pcreate(H5P_GROUP_CREATE);
    H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_link_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    CHECK(f);
    size_t xml_n = 200 * 1024;
    char  *xml   = malloc(xml_n);
    for (size_t i = 0; i < xml_n; i++)
        xml[i] = "<instrument name=\"x\"/>\n"[i % 24];
    double v[16];
    for (int i = 0; i < 16; i++)
        v[i] = i * 0.5;
    hid_t ws = group(f, "MDEventWorkspace", "NXentry");
    for (int e = 0; e < nexp; e++) {
        char name[64];
        snprintf(name, sizeof(name), "experiment%d", e);
        hid_t ex   = group(ws, name, "NXgroup");
        hid_t inst = group(ex, "instrument", "NXinstrument");
        hid_t ix   = group(inst, "instrument_xml", "NXnote");
        hid_t t    = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, xml_n);
        hid_t s = H5Screate(H5S_SCALAR);
        hid_t d = H5Dcreate2(ix, "data", t, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, xml));
        H5Dclose(d);
        H5Sclose(s);
        H5Tclose(t);
        H5Gclose(ix);
        H5Gclose(inst);
        H5Gclose(group(ex, "sample", "NXsample"));
        hid_t logs = group(ex, "logs", "NXcollection");
        for (int l = 0; l < nlogs; l++) {
            snprintf(name, sizeof(name), "log_%03d_%s", l, l % 2 ? "temperature" : "proton_charge");
            hid_t lg = group(logs, name, "NXlog");
            v[0]     = l;
            dataset(lg, "value", v, 1 + (hsize_t)(l % 16), units ? (l % 2 ? "K" : "uAh") : NULL, NULL);
            dataset(lg, "time", v, 1 + (hsize_t)(l % 16), units ? "second" : NULL,
                    units ? "2024-01-01T00:00:00" : NULL);
            H5Gclose(lg);
        }
        H5Gclose(logs);
        H5Gclose(ex);
    }
    H5Gclose(ws);
    H5Fclose(f);
    free(xml);
    return 0;
}
