/* index_diff_dsets.c — the small-dataset scenario of the index's differential test, what loaders
 * do with the datasets the small-dataset cache takes (and ones just outside it): open them by every
 * kind of name, ask a random sequence of things (index_diff_dquery.c), come back to a few hot ones
 * often, hold some open across queries and across H5Fclose, and rewrite and extend them in
 * read-write runs. */
#include "index_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCENARIO "small datasets"

/* How a loader names a dataset: by absolute path mostly, else relative to the root or to its group,
 * with doubled or trailing slashes, through ".", or with a dataset access property list of its
 * own (a chunk cache, with and without an external-file prefix). */
static hid_t
open_dset(ixd_t *run, hid_t f, const char *p, int *own_dapl_out)
{
    char        name[2600];
    hid_t       loc = f, dapl = H5P_DEFAULT, d;
    int         v   = (int)ixd_rnd(run, 18);
    const char *how = "abs";
    snprintf(name, sizeof(name), "%s", p);
    if (v == 8 && p[0] == '/' && p[1]) {
        how = "rel";
        snprintf(name, sizeof(name), "%s", p + 1);
    }
    else if (v == 9) {
        const char *slash = strrchr(p, '/');
        char        parent[1200];
        how = "grp";
        if (slash) {
            snprintf(parent, sizeof(parent), "%.*s", slash == p ? 1 : (int)(slash - p), p);
            if ((loc = H5Gopen2(f, parent, H5P_DEFAULT)) < 0)
                loc = f;
            else
                snprintf(name, sizeof(name), "%s", slash + 1);
        }
    }
    else if (v == 10) {
        size_t j = 0;
        how      = "dbl";
        for (const char *c = p; *c && j + 2 < sizeof(name); c++) {
            name[j++] = *c;
            if (*c == '/')
                name[j++] = '/';
        }
        name[j] = 0;
    }
    else if (v == 11) {
        how = "dot";
        snprintf(name, sizeof(name), "/.%s", p);
    }
    else if (v == 12) {
        how = "slash";
        snprintf(name, sizeof(name), "%s/", p);
    }
    else if (v >= 13) { /* a chunk cache (a lazy dataset keeps a copy), or an external-file prefix
                         * (native takes it from the open's own context: left to native) */
        how  = v < 17 ? "dapl" : "dapl-prefix";
        dapl = H5Pcreate(H5P_DATASET_ACCESS);
        H5Pset_chunk_cache(dapl, 7, 4096, 0.5);
        if (v == 17)
            H5Pset_efile_prefix(dapl, "/nonexistent/ixd-prefix");
    }
    d = H5Dopen2(loc, name, dapl);
    if (own_dapl_out)
        *own_dapl_out = dapl != H5P_DEFAULT;
    printf(" open(%s)=%d", how, d >= 0);
    if (loc != f)
        H5Gclose(loc);
    if (dapl != H5P_DEFAULT)
        H5Pclose(dapl);
    return d;
}

/* The datasets the queries come back to (so that the cache takes them and then answers): a small
 * set of the small ones, one replaced every 25 queries. */
void
ixd_hot_replace(ixd_t *run, int slot)
{
    for (int tries = 0; tries < 10000; tries++) {
        int i = (int)ixd_rnd(run, (uint32_t)run->npaths);
        if (run->kind[i] == IXD_SMALL) {
            run->hot[slot] = i;
            return;
        }
    }
}

void
ixd_hot_init(ixd_t *run)
{
    run->nhot = 0;
    for (int i = 0; i < run->npaths && run->nhot < IXD_NHOT; i++)
        if (run->kind[i] == IXD_SMALL)
            ixd_hot_replace(run, run->nhot++);
}

/* The path of a dataset to open: mostly a hot one, else any dataset, sometimes any name (into buf
 * when one is built). */
static const char *
pick_dset(ixd_t *run, char *buf, size_t n)
{
    int r = (int)ixd_rnd(run, 20);
    if (r < 15 && run->nhot)
        return run->paths[run->hot[ixd_rnd(run, (uint32_t)run->nhot)]];
    if (r < 19)
        for (int tries = 0; tries < 10000; tries++) {
            int i = (int)ixd_rnd(run, (uint32_t)run->npaths);
            if (run->kind[i] >= IXD_DSET)
                return run->paths[i];
        }
    return ixd_random_name(run, buf, n);
}

/* Datasets are held open across queries (and at last across H5Fclose) in run->held. */
enum { NSUB = 23 };

/* A sub-operation: half of the time one of those a lazy dataset answers itself (space, type,
 * storage, whole reads) or must refuse to (a transfer property list of its own), so that sequences
 * of them come before anything that opens it for real. */
static int
rnd_sub(ixd_t *run)
{
    static const int lazy[] = {0, 1, 2, 3, 4, 5, 6, 8, 9};
    return ixd_rnd(run, 2) ? lazy[ixd_rnd(run, sizeof(lazy) / sizeof(lazy[0]))] : (int)ixd_rnd(run, NSUB);
}

/* One thing an application does with an open dataset; *dp may be replaced by another handle to
 * the same dataset (opened twice, the first closed). */
static void
dset_sub(ixd_t *run, hid_t f, hid_t *dp, const char *p, int sub)
{
    hid_t d = *dp;
    switch (sub) {
        case 0:
            ixd_ds_space(d);
            break;
        case 1:
            ixd_ds_type(d);
            break;
        case 2:
            ixd_ds_storage(run, d);
            break;
        case 3: {
            hid_t ft = H5Dget_type(d);
            ixd_read_whole(run, d, ft, "file", H5P_DEFAULT);
            H5Tclose(ft);
            break;
        }
        case 4:
        case 5:
            ixd_read_picked(run, d);
            break;
        case 6:
            ixd_ds_read_spaces(run, d);
            break;
        case 7:
            ixd_ds_read_part(run, d);
            break;
        case 8: { /* a transfer property list of its own: nothing set, a buffer size, transforms */
            hid_t       dxpl = H5Pcreate(H5P_DATASET_XFER), ft = H5Dget_type(d);
            int         v = (int)ixd_rnd(run, 5), k = ixd_pick_mem_type(run, ft);
            hid_t       mt = ixd_make_mem_type(ft, k);
            const char *vn[] = {"dxpl", "dxpl-buf", "dxpl-xform", "dxpl-edc", "dxpl-xform2"};
            char        label[64];
            /* HDF5 1.14.5 leaks the variable-length data or references (and the file ID each
             * holds) it converted when the transform then fails: no transform with those */
            if ((v == 2 || v == 4) && (ixd_type_has(ft, 0) || ixd_type_has(ft, 1) ||
                                       (mt >= 0 && (ixd_type_has(mt, 0) || ixd_type_has(mt, 1)))))
                v = 0;
            if (v == 1)
                H5Pset_buffer(dxpl, 1 << 20, NULL, NULL);
            else if (v == 2 || v == 4)
                H5Pset_data_transform(dxpl, v == 2 ? "2*x+1" : "x-1");
            else if (v == 3)
                H5Pset_edc_check(dxpl, H5Z_DISABLE_EDC);
            snprintf(label, sizeof(label), "%s,%s", vn[v], ixd_mt_names[k]);
            if (mt < 0)
                printf("  read(%s) no type\n", label);
            else
                ixd_read_whole(run, d, mt, label, dxpl), H5Tclose(mt);
            H5Tclose(ft);
            H5Pclose(dxpl);
            break;
        }
        case 9: { /* twice in a row, the same way */
            hid_t ft = H5Dget_type(d);
            int   k  = ixd_pick_mem_type(run, ft);
            hid_t mt = ixd_make_mem_type(ft, k);
            if (mt >= 0) {
                ixd_read_whole(run, d, mt, ixd_mt_names[k], H5P_DEFAULT);
                ixd_read_whole(run, d, mt, ixd_mt_names[k], H5P_DEFAULT);
                H5Tclose(mt);
            }
            H5Tclose(ft);
            break;
        }
        case 10:
            ixd_ds_dcpl(d);
            break;
        case 11:
            ixd_ds_dapl(d);
            break;
        case 12:
            ixd_ds_oinfo(run, d);
            break;
        case 13:
            ixd_ds_attrs(run, f, d);
            break;
        case 14:
            ixd_ds_names(d);
            break;
        case 15:
            ixd_ds_counts(f);
            break;
        case 16: { /* opened again, read through the second handle, one of the two closed */
            printf("  again:");
            hid_t d2 = open_dset(run, f, p, NULL);
            printf("\n");
            if (d2 >= 0) {
                hid_t ft = H5Dget_type(d2);
                ixd_read_whole(run, d2, ft, "file", H5P_DEFAULT);
                H5Tclose(ft);
                ixd_ds_counts(f);
                if (ixd_rnd(run, 2))
                    printf("  close2=%d\n", (int)H5Dclose(d2));
                else {
                    printf("  close1=%d\n", (int)H5Dclose(d));
                    *dp = d2;
                }
            }
            break;
        }
        case 17: { /* no buffer: fine for nothing selected only */
            hid_t ft = H5Dget_type(d), fs = H5Dget_space(d), ms;
            printf("  nullbuf=%d", (int)H5Dread(d, ft, H5S_ALL, H5S_ALL, H5P_DEFAULT, NULL));
            H5Sselect_none(fs);
            ms = H5Scopy(fs);
            printf(",%d\n", (int)H5Dread(d, ft, ms, fs, H5P_DEFAULT, NULL));
            H5Sclose(ms), H5Sclose(fs), H5Tclose(ft);
            break;
        }
        case 18: {
            hid_t   ft = H5Dget_type(d), fs = H5Dget_space(d);
            hsize_t sz = 0;
            /* HDF5 1.14.5 crashes on a scalar dataspace here (H5S_select_elements of rank 0) */
            if (H5Sget_simple_extent_type(fs) == H5S_SCALAR)
                printf("  vlen_buf_size: scalar\n");
            else {
                herr_t r = H5Dvlen_get_buf_size(d, ft, fs, &sz);
                printf("  vlen_buf_size=%d:%llu\n", (int)r, (unsigned long long)sz);
            }
            H5Sclose(fs), H5Tclose(ft);
            break;
        }
        case 19: { /* the whole dataset rewritten (fails in a read-only run), then read back */
            ixd_pool_t     pool;
            hid_t          ft = H5Dget_type(d);
            hsize_t        n  = ixd_dset_npoints(d);
            unsigned char *buf;
            if (ixd_type_has(ft, 1)) {
                printf("  write: references, not rewritten\n");
                H5Tclose(ft);
                break;
            }
            buf    = calloc(1, (size_t)n * H5Tget_size(ft) + 1);
            pool.n = 0;
            ixd_make_data(run, &pool, ft, (size_t)n, buf);
            printf("  write=%d\n", (int)H5Dwrite(d, ft, H5S_ALL, H5S_ALL, H5P_DEFAULT, n ? buf : NULL));
            free(buf);
            ixd_pool_free(&pool);
            ixd_read_whole(run, d, ft, "file", H5P_DEFAULT);
            H5Tclose(ft);
            break;
        }
        case 20: { /* a new extent (fails unless read-write and extendible), flushed */
            hid_t   fs = H5Dget_space(d);
            hsize_t dims[H5S_MAX_RANK], maxd[H5S_MAX_RANK];
            int     rank = H5Sget_simple_extent_dims(fs, dims, maxd);
            for (int i = 0; i < rank; i++) {
                hsize_t lim = maxd[i] == H5S_UNLIMITED ? dims[i] + 3 : maxd[i];
                dims[i]     = 1 + ixd_rnd(run, (uint32_t)lim);
            }
            H5Sclose(fs);
            printf("  set_extent=%d", rank > 0 ? (int)H5Dset_extent(d, dims) : -9);
            printf(" flush=%d\n", (int)H5Dflush(d));
            ixd_ds_space(d);
            break;
        }
        case 21: { /* the dataset as a location */
            hid_t o = H5Oopen(d, ".", H5P_DEFAULT);
            printf("  Oopen(.)=%d", o >= 0);
            if (o >= 0) {
                /* Its name: native derives it from the dataset's, which the index opened. */
                H5O_info2_t oi;
                char        on[1024] = "";
                H5Iget_name(o, on, sizeof(on));
                printf(":%d:%s", (int)H5Iget_type(o), on);
                if (H5Oget_info3(o, &oi, H5O_INFO_BASIC) >= 0)
                    printf(":"), ixd_print_oinfo(run, &oi, H5O_INFO_BASIC);
                H5Oclose(o);
            }
            printf(" Lexists(x)=%d\n", (int)H5Lexists(d, "x", H5P_DEFAULT));
            break;
        }
        default: { /* chunks */
            hsize_t nc = 0, off[H5S_MAX_RANK] = {0}, sz = 0;
            herr_t  r  = H5Dget_num_chunks(d, H5S_ALL, &nc);
            printf("  chunks=%d:%llu", (int)r, (unsigned long long)nc);
            if (r >= 0 && nc > 0) {
                unsigned fm = 0;
                haddr_t  a  = HADDR_UNDEF;
                r           = H5Dget_chunk_info(d, H5S_ALL, 0, off, &fm, &a, &sz);
                printf(" info=%d:%llu,%u,%llu", (int)r, (unsigned long long)off[0], fm, (unsigned long long)sz);
                if (!run->rw)
                    printf(",%llu", (unsigned long long)a);
                r = H5Dget_chunk_storage_size(d, off, &sz);
                printf(" size=%d:%llu", (int)r, (unsigned long long)sz);
            }
            printf("\n");
            break;
        }
    }
}

/* What a loader does: the link, the dataset, its space, type and storage, and whole reads with the
 * file's type, as double, as another native type, with explicit spaces, and part of it. */
static void
dset_loader(ixd_t *run, hid_t loc, const char *name)
{
    char        buf[1200];
    hid_t       f = run->f;
    const char *p = pick_dset(run, buf, sizeof(buf));
    ixd_query(run, SCENARIO, loc, name,
              "a loader's reads of %s: H5Lexists, H5Dopen2, space, type, storage, whole reads as the file's type "
              "and others, with explicit spaces, and in part",
              p);
    printf("DLOAD %s Lexists=%d", p, (int)H5Lexists(f, p, H5P_DEFAULT));
    hid_t d = H5Dopen2(f, p, H5P_DEFAULT);
    printf(" Dopen=%d\n", d >= 0);
    if (d < 0)
        return;
    ixd_ds_space(d);
    ixd_ds_type(d);
    ixd_ds_storage(run, d);
    hid_t       ft = H5Dget_type(d);
    H5T_class_t c  = H5Tget_class(ft);
    ixd_read_whole(run, d, ft, "file", H5P_DEFAULT);
    if (c == H5T_INTEGER || c == H5T_FLOAT) {
        hid_t alt[4];
        alt[0] = H5T_NATIVE_INT, alt[1] = H5T_NATIVE_SHORT, alt[2] = H5T_NATIVE_FLOAT, alt[3] = H5T_NATIVE_UCHAR;
        int k  = (int)ixd_rnd(run, 4);
        ixd_read_whole(run, d, H5T_NATIVE_DOUBLE, "double", H5P_DEFAULT);
        ixd_read_whole(run, d, alt[k], k == 0 ? "int" : k == 1 ? "short" : k == 2 ? "float" : "uchar", H5P_DEFAULT);
    }
    else
        ixd_read_picked(run, d);
    H5Tclose(ft);
    ixd_ds_read_spaces(run, d);
    ixd_ds_read_part(run, d);
    printf("  close=%d\n", (int)H5Dclose(d));
}

/* A dataset opened some way, then a random sequence of what applications do with it; sometimes
 * kept open for later queries. */
static void
dset_probe(ixd_t *run, hid_t loc, const char *name)
{
    char        buf[1200];
    hid_t       f = run->f;
    const char *p = pick_dset(run, buf, sizeof(buf));
    ixd_query(run, SCENARIO, loc, name, "%s opened some way, then what applications ask of it", p);
    printf("DPROBE %s", p);
    int   own_dapl = 0;
    hid_t d        = open_dset(run, f, p, &own_dapl);
    printf("\n");
    if (d < 0)
        return;
    int nsub = 1 + (int)ixd_rnd(run, 7);
    for (int i = 0; i < nsub; i++)
        dset_sub(run, f, &d, p, rnd_sub(run));
    /* Opened with an access list of its own: what the dataset reports of it, after the queries a
     * lazy dataset answers itself (a lazy one is then opened for real with a copy of the list). */
    if (own_dapl)
        ixd_ds_dapl(d);
    int slot = (int)ixd_rnd(run, 4 * IXD_NHELD);
    if (slot < IXD_NHELD && run->held[slot] < 0) {
        run->held[slot] = d;
        snprintf(run->held_name[slot], sizeof(run->held_name[slot]), "%s", p);
        printf("  held%d\n", slot);
    }
    else
        printf("  close=%d\n", (int)H5Dclose(d));
}

/* A dataset held open since an earlier query (its links may have changed since, in a read-write
 * run): a few things done with it, then maybe closed. */
static void
dset_held(ixd_t *run, hid_t loc, const char *name)
{
    hid_t f    = run->f;
    int   slot = (int)ixd_rnd(run, IXD_NHELD);
    ixd_query(run, SCENARIO, loc, name, "the dataset held open in slot %d (%s): more asked of it, maybe closed",
              slot, run->held[slot] < 0 ? "none" : run->held_name[slot]);
    printf("DHELD %d", slot);
    if (run->held[slot] < 0) {
        printf(" none\n");
        return;
    }
    printf(" %s\n", run->held_name[slot]);
    int nsub = 1 + (int)ixd_rnd(run, 3);
    for (int i = 0; i < nsub; i++)
        dset_sub(run, f, &run->held[slot], run->held_name[slot], rnd_sub(run));
    if (ixd_rnd(run, 2)) {
        printf("  close=%d\n", (int)H5Dclose(run->held[slot]));
        run->held[slot] = H5I_INVALID_HID;
    }
}

static void
query(ixd_t *run, hid_t loc, const char *name, int kind)
{
    if (kind == IXD_DLOAD)
        dset_loader(run, loc, name);
    else if (kind == IXD_DPROBE)
        dset_probe(run, loc, name);
    else
        dset_held(run, loc, name);
}

const ixd_scenario_t ixd_dsets = {SCENARIO, query};

/* ------------------------------------------------------------------ held across H5Fclose */
int
ixd_dsets_late_open(ixd_t *run, ixd_late_t *late, int max)
{
    int nlated = 0;
    ixd_step(SCENARIO, "after the queries", "the datasets held open and two more opened, to be used after H5Fclose");
    for (int k = 0; k < IXD_NHELD && nlated < max; k++)
        if (run->held[k] >= 0) {
            snprintf(late[nlated].what, sizeof(late[nlated].what), "held %s", run->held_name[k]);
            printf("lateD%d: held %s\n", nlated, run->held_name[k]);
            late[nlated++].id = run->held[k];
        }
    for (int k = 0; k < 2 && nlated < max; k++) {
        char        buf[1200];
        const char *p = pick_dset(run, buf, sizeof(buf));
        hid_t       d = H5Dopen2(run->f, p, H5P_DEFAULT);
        if (d >= 0) {
            snprintf(late[nlated].what, sizeof(late[nlated].what), "%s", p);
            printf("lateD%d: %s\n", nlated, p);
            if (ixd_rnd(run, 2))
                ixd_read_picked(run, d);
            late[nlated++].id = d;
        }
    }
    printf("lateD=%d nobj=%zd/%zd\n", nlated, H5Fget_obj_count(run->f, H5F_OBJ_DATASET),
           H5Fget_obj_count(run->f, H5F_OBJ_ALL));
    return nlated;
}

void
ixd_dsets_late_use(ixd_t *run, const ixd_late_t *late, int n)
{
    for (int k = 0; k < n; k++) {
        hid_t d = late[k].id, ft;
        char  label[48];
        snprintf(label, sizeof(label), "late dataset %d", k);
        ixd_step(SCENARIO, label, "what %s answers after H5Fclose", late[k].what);
        printf("lateD%d:\n", k);
        switch (ixd_rnd(run, 3)) { /* sometimes a read first, before anything else is asked */
            case 0:
                ixd_read_whole(run, d, H5T_NATIVE_DOUBLE, "double", H5P_DEFAULT);
                break;
            case 1:
                ixd_read_picked(run, d);
                break;
            default:
                break;
        }
        ft = H5Dget_type(d);
        ixd_ds_space(d);
        ixd_ds_type(d);
        ixd_ds_storage(run, d);
        ixd_read_whole(run, d, ft, "file", H5P_DEFAULT);
        ixd_read_picked(run, d);
        ixd_ds_read_part(run, d);
        ixd_ds_names(d);
        ixd_ds_oinfo(run, d);
        ixd_ds_dcpl(d);
        H5Tclose(ft);
        printf("  close=%d\n", (int)H5Dclose(d));
    }
}
