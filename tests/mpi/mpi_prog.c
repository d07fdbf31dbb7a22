/* mpi_prog.c — an MPI program linked to the parallel HDF5 for the `mpi` tests: a collective
 * DEFLATE write through the MPI-IO driver (issue #16's deadlock: it hung in H5Fclose when the
 * pipeline ran on MPI-IO files), repeated read-only opens (for counting MPI_Comm_dup), and small
 * datasets read collectively and independently through MPI-IO (the index on such files), by all
 * ranks or by groups of them (split communicators, MPI_COMM_SELF). */
#include <hdf5.h>
#include <mpi.h>

#include "tb_mpi_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS_PER_RANK 64
#define COLS          1024
#define CHUNK_ROWS    16


/* What rank r stores at (row, col) of its block: compressible, and different per rank. */
static int
value_at(int r, int row, int col)
{
    return r * 1000003 + row * 7 + (col / 8);
}

static hid_t
mpio_fapl(int coll_md)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(fapl);
    CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    if (coll_md) {
        CHECK(H5Pset_all_coll_metadata_ops(fapl, 1));
        CHECK(H5Pset_coll_metadata_write(fapl, 1));
    }
    return fapl;
}

/* The application's access list after an open must be the one it passed (h5turbo changes it for
 * the duration of the open, to hand it below without copying the communicator): the same VOL
 * connector, with the same info, as a copy taken before. */
static void
check_fapl_unchanged(hid_t fapl, hid_t before)
{
    hid_t              vol_now = H5I_INVALID_HID, vol_before = H5I_INVALID_HID;
    H5VL_class_value_t now = -1, was = -1;
    void              *info_now = NULL, *info_was = NULL;
    char              *str_now = NULL, *str_was = NULL;
    CHECK(H5Pget_vol_id(fapl, &vol_now));
    CHECK(H5Pget_vol_id(before, &vol_before));
    CHECK(H5VLget_value(vol_now, &now));
    CHECK(H5VLget_value(vol_before, &was));
    CHECK(H5Pget_vol_info(fapl, &info_now));
    CHECK(H5Pget_vol_info(before, &info_was));
    CHECK(H5VLconnector_info_to_str(info_now, vol_now, &str_now));
    CHECK(H5VLconnector_info_to_str(info_was, vol_before, &str_was));
    if (now != was || (!str_now) != (!str_was) || (str_now && strcmp(str_now, str_was) != 0)) {
        fprintf(stderr, "rank %d: the access list changed across an open (connector %d \"%s\", was %d \"%s\")\n",
                rank_g, (int)now, str_now ? str_now : "", (int)was, str_was ? str_was : "");
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
    H5free_memory(str_now);
    H5free_memory(str_was);
    if (info_now)
        H5VLfree_connector_info(vol_now, info_now);
    if (info_was)
        H5VLfree_connector_info(vol_before, info_was);
    H5VLclose(vol_now);
    H5VLclose(vol_before);
}

/* Every rank writes its ROWS_PER_RANK rows of a chunked, shuffled, DEFLATE-compressed dataset in
 * one collective H5Dwrite (parallel HDF5 writes filtered datasets collectively only), closes the
 * file, reopens it and checks every rank's rows. */
static int
cmd_write(const char *path, int nranks, int coll_md)
{
    hid_t fapl   = mpio_fapl(coll_md);
    hid_t before = H5Pcopy(fapl);
    CHECK(before);
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(file);
    check_fapl_unchanged(fapl, before);
    /* TB_CHUNK_ROWS: larger chunks (up to a rank's rows), which the filters may code in pieces. */
    const char *rows     = getenv("TB_CHUNK_ROWS");
    hsize_t     dims[2]  = {(hsize_t)nranks * ROWS_PER_RANK, COLS};
    hsize_t     chunk[2] = {rows && atoi(rows) > 0 && atoi(rows) <= ROWS_PER_RANK ? (hsize_t)atoi(rows) : CHUNK_ROWS,
                            COLS};
    hid_t   space    = H5Screate_simple(2, dims, NULL);
    hid_t   dcpl     = H5Pcreate(H5P_DATASET_CREATE);
    CHECK(space);
    CHECK(dcpl);
    CHECK(H5Pset_chunk(dcpl, 2, chunk));
    CHECK(H5Pset_shuffle(dcpl));
    CHECK(H5Pset_deflate(dcpl, 1));
    CHECK(H5Pset_fletcher32(dcpl));
    hid_t dset = H5Dcreate2(file, "data", H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(dset);

    int *buf = malloc(sizeof(int) * ROWS_PER_RANK * COLS);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (int row = 0; row < ROWS_PER_RANK; row++)
        for (int col = 0; col < COLS; col++)
            buf[row * COLS + col] = value_at(rank_g, row, col);
    hsize_t start[2] = {(hsize_t)rank_g * ROWS_PER_RANK, 0}, count[2] = {ROWS_PER_RANK, COLS};
    hid_t   fsel     = H5Scopy(space);
    CHECK(fsel);
    CHECK(H5Sselect_hyperslab(fsel, H5S_SELECT_SET, start, NULL, count, NULL));
    hid_t mspace = H5Screate_simple(2, count, NULL);
    hid_t dxpl   = H5Pcreate(H5P_DATASET_XFER);
    CHECK(mspace);
    CHECK(dxpl);
    CHECK(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE));
    CHECK(H5Dwrite(dset, H5T_NATIVE_INT, mspace, fsel, dxpl, buf));
    CHECK(H5Dclose(dset));
    CHECK(H5Fclose(file)); /* where the pipeline's chunk writes deadlocked */

    /* Read back: every rank reads every block (independent opens of a collective file). */
    file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    CHECK(file);
    check_fapl_unchanged(fapl, before);
    dset = H5Dopen2(file, "data", H5P_DEFAULT);
    CHECK(dset);
    int bad = 0;
    for (int r = 0; r < nranks && !bad; r++) {
        start[0] = (hsize_t)r * ROWS_PER_RANK;
        CHECK(H5Sselect_hyperslab(fsel, H5S_SELECT_SET, start, NULL, count, NULL));
        memset(buf, 0, sizeof(int) * ROWS_PER_RANK * COLS);
        CHECK(H5Dread(dset, H5T_NATIVE_INT, mspace, fsel, dxpl, buf));
        for (int row = 0; row < ROWS_PER_RANK && !bad; row++)
            for (int col = 0; col < COLS; col++)
                if (buf[row * COLS + col] != value_at(r, row, col)) {
                    fprintf(stderr, "rank %d: block %d (%d,%d) = %d, wrote %d\n", rank_g, r, row, col,
                            buf[row * COLS + col], value_at(r, row, col));
                    bad = 1;
                    break;
                }
    }
    CHECK(H5Dclose(dset));
    CHECK(H5Fclose(file));
    free(buf);
    H5Pclose(dxpl);
    H5Sclose(mspace);
    H5Sclose(fsel);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Pclose(before);
    H5Pclose(fapl);
    return bad;
}

/* Opens the file read-only `times` times through the MPI-IO driver, each time opening the dataset
 * and reading this rank's rows: what the MPI_Comm_dup counter compares, stock vs h5turbo. */
static int
cmd_reopen(const char *path, int times, int coll_md)
{
    hid_t fapl   = mpio_fapl(coll_md);
    hid_t before = H5Pcopy(fapl);
    int  *buf    = malloc(sizeof(int) * ROWS_PER_RANK * COLS);
    CHECK(before);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 3);
    for (int i = 0; i < times; i++) {
        hid_t file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
        CHECK(file);
        check_fapl_unchanged(fapl, before);
        hid_t dset = H5Dopen2(file, "data", H5P_DEFAULT);
        CHECK(dset);
        hid_t   fsel     = H5Dget_space(dset);
        hsize_t start[2] = {(hsize_t)rank_g * ROWS_PER_RANK, 0}, count[2] = {ROWS_PER_RANK, COLS};
        CHECK(fsel);
        CHECK(H5Sselect_hyperslab(fsel, H5S_SELECT_SET, start, NULL, count, NULL));
        hid_t mspace = H5Screate_simple(2, count, NULL);
        CHECK(mspace);
        CHECK(H5Dread(dset, H5T_NATIVE_INT, mspace, fsel, H5P_DEFAULT, buf));
        if (buf[0] != value_at(rank_g, 0, 0)) {
            fprintf(stderr, "rank %d: read %d, expected %d\n", rank_g, buf[0], value_at(rank_g, 0, 0));
            return 1;
        }
        H5Sclose(mspace);
        H5Sclose(fsel);
        CHECK(H5Dclose(dset));
        CHECK(H5Fclose(file));
    }
    free(buf);
    H5Pclose(before);
    H5Pclose(fapl);
    return 0;
}

/* The small datasets of `small`/`readsmall`: what the index caches whole (contiguous, chunked and
 * filtered, compact), each element a function of its dataset and index; and `entry/big`, too large
 * for the index to cache (BIG_N ints, element i is i), which only some ranks read. */
static const char *const small_names[] = {"contig", "chunked", "compact"};
#define SMALL_N 24
#define BIG_N   8192

static int
small_at(int k, int i)
{
    return k * 1000 + i * 3 + 1;
}

/* Reads small dataset k of `file` whole through transfer list dxpl: 0 when every value is the one
 * written (what names the read in the message otherwise). */
static int
read_small_k(hid_t file, int k, hid_t dxpl, const char *what)
{
    char name[32];
    snprintf(name, sizeof(name), "entry/%s", small_names[k]);
    hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    CHECK(d);
    int buf[SMALL_N] = {0}, bad = 0;
    CHECK(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, dxpl, buf));
    for (int i = 0; i < SMALL_N && !bad; i++)
        if (buf[i] != small_at(k, i)) {
            fprintf(stderr, "rank %d%s%s: %s[%d] read %d, expected %d\n", rank_g, *what ? ", " : "", what, name, i,
                    buf[i], small_at(k, i));
            bad = 1;
        }
    CHECK(H5Dclose(d));
    return bad;
}

/* Rank 0 writes the small datasets (and an attribute on their group) with the POSIX driver. */
static int
cmd_small(const char *path)
{
    if (rank_g == 0) {
        hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(file);
        hid_t g = H5Gcreate2(file, "entry", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(g);
        hsize_t n = SMALL_N, chunk = SMALL_N / 2;
        hid_t   space = H5Screate_simple(1, &n, NULL);
        CHECK(space);
        int   v      = 7;
        hid_t scalar = H5Screate(H5S_SCALAR);
        CHECK(scalar);
        hid_t a = H5Acreate2(g, "version", H5T_NATIVE_INT, scalar, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(a);
        CHECK(H5Awrite(a, H5T_NATIVE_INT, &v));
        CHECK(H5Aclose(a));
        H5Sclose(scalar);
        for (int k = 0; k < 3; k++) {
            hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
            CHECK(dcpl);
            if (k == 1) {
                CHECK(H5Pset_chunk(dcpl, 1, &chunk));
                CHECK(H5Pset_deflate(dcpl, 4));
            }
            if (k == 2)
                CHECK(H5Pset_layout(dcpl, H5D_COMPACT));
            hid_t d = H5Dcreate2(g, small_names[k], H5T_STD_I32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
            CHECK(d);
            int buf[SMALL_N];
            for (int i = 0; i < SMALL_N; i++)
                buf[i] = small_at(k, i);
            CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf));
            CHECK(H5Dclose(d));
            CHECK(H5Pclose(dcpl));
        }
        H5Sclose(space);
        hsize_t nbig = BIG_N;
        int    *big  = malloc(sizeof(int) * BIG_N);
        hid_t   bsp  = H5Screate_simple(1, &nbig, NULL);
        CHECK(bsp);
        if (!big)
            MPI_Abort(MPI_COMM_WORLD, 3);
        for (int i = 0; i < BIG_N; i++)
            big[i] = i;
        hid_t d = H5Dcreate2(g, "big", H5T_STD_I32LE, bsp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(d);
        CHECK(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, big));
        CHECK(H5Dclose(d));
        hid_t other = H5Dcreate2(g, "other", H5T_STD_I32LE, bsp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        CHECK(other);
        CHECK(H5Dclose(other));
        H5Sclose(bsp);
        free(big);
        CHECK(H5Gclose(g));
        CHECK(H5Fclose(file));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return 0;
}

/* Every rank opens the file read-only through MPI-IO, reads each small dataset whole `times` times,
 * alternately with a collective and an independent transfer, and its group's attribute; the
 * odd-numbered ranks alone then read a slice of `entry/big` independently (as applications with
 * collective metadata reads may: HDF5 reads its chunk index independently for them), and every
 * rank asks the info of `entry/other` with collective metadata reads on that call's link access
 * list. Every value must be the one written, and with collective metadata reads the file's access
 * list must say so.
 * A rank answering a collective read from its index while another reads below, or reading an
 * object header collectively that the other ranks do not read, would leave a rank waiting (the
 * test's time limit). */
static int
cmd_readsmall(const char *path, int times, int coll_md)
{
    hid_t fapl = mpio_fapl(coll_md);
    hid_t coll = H5Pcreate(H5P_DATASET_XFER), indep = H5Pcreate(H5P_DATASET_XFER);
    CHECK(coll);
    CHECK(indep);
    CHECK(H5Pset_dxpl_mpio(coll, H5FD_MPIO_COLLECTIVE));
    CHECK(H5Pset_dxpl_mpio(indep, H5FD_MPIO_INDEPENDENT));
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    CHECK(file);
    int   bad = 0, v = 0;
    hid_t a   = H5Aopen_by_name(file, "entry", "version", H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a);
    CHECK(H5Aread(a, H5T_NATIVE_INT, &v));
    CHECK(H5Aclose(a));
    bad |= v != 7;
    for (int t = 0; t < times; t++)
        for (int k = 0; k < 3; k++)
            bad |= read_small_k(file, k, (t + k) % 2 ? indep : coll, "");
    hid_t big = H5Dopen2(file, "entry/big", H5P_DEFAULT);
    CHECK(big);
    if (rank_g % 2 == 1) {
        hsize_t start = (hsize_t)rank_g * 64, count = 64;
        int     buf[64];
        hid_t   fsel = H5Dget_space(big), msel = H5Screate_simple(1, &count, NULL);
        CHECK(fsel);
        CHECK(msel);
        CHECK(H5Sselect_hyperslab(fsel, H5S_SELECT_SET, &start, NULL, &count, NULL));
        CHECK(H5Dread(big, H5T_NATIVE_INT, msel, fsel, indep, buf));
        for (int i = 0; i < 64; i++)
            if (buf[i] != (int)start + i) {
                fprintf(stderr, "rank %d: big[%d] read %d\n", rank_g, (int)start + i, buf[i]);
                bad = 1;
                break;
            }
        H5Sclose(msel);
        H5Sclose(fsel);
    }
    CHECK(H5Dclose(big));
    /* Collective metadata reads asked by one call's link access list, on every rank (the file's
     * own list may ask none): a rank whose index answers leaves a rank reading below waiting. */
    hid_t       lapl = H5Pcreate(H5P_LINK_ACCESS);
    H5O_info2_t oi;
    CHECK(lapl);
    CHECK(H5Pset_all_coll_metadata_ops(lapl, 1));
    CHECK(H5Oget_info_by_name3(file, "entry/other", &oi, H5O_INFO_BASIC | H5O_INFO_NUM_ATTRS, lapl));
    bad |= oi.type != H5O_TYPE_DATASET || oi.num_attrs != 0;
    H5Pclose(lapl);
    /* The file's access list as native gives it: the flag's own value (HDF5's enum, whose -1 a
     * file whose reads were made independent holds inside) as well as the public getter's. */
    hid_t   got  = H5Fget_access_plist(file);
    hbool_t coll_got = 0;
    int     raw      = -9;
    CHECK(got);
    CHECK(H5Pget_all_coll_metadata_ops(got, &coll_got));
    CHECK(H5Pget(got, "collective_metadata_read", &raw));
    if (!coll_got != !coll_md || raw != coll_md) {
        fprintf(stderr, "rank %d: H5Fget_access_plist says collective metadata reads %d (flag %d), asked %d\n",
                rank_g, (int)coll_got, raw, coll_md);
        bad = 1;
    }
    H5Pclose(got);
    CHECK(H5Fclose(file));
    H5Pclose(coll);
    H5Pclose(indep);
    H5Pclose(fapl);
    return bad;
}

static herr_t
count_cb(hid_t obj, const char *name, const H5O_info2_t *info, void *op_data)
{
    (void)obj;
    (void)name;
    (void)info;
    (*(int *)op_data)++;
    return 0;
}

/* One read-only open of `path` through MPI-IO on `comm`, as `readsmall` reads it (the group's
 * attribute, every small dataset whole, alternately collective and independent transfers) plus a
 * visit of every object (a walk, after which index_mpi_build=auto builds the job's next file): 0
 * when every value is the one written, and every object (7: the root, entry and its 5 datasets)
 * visited. */
static int
read_on(const char *path, MPI_Comm comm, int coll_md, const char *what)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    hid_t coll = H5Pcreate(H5P_DATASET_XFER), indep = H5Pcreate(H5P_DATASET_XFER);
    CHECK(fapl);
    CHECK(coll);
    CHECK(indep);
    CHECK(H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL));
    if (coll_md)
        CHECK(H5Pset_all_coll_metadata_ops(fapl, 1));
    CHECK(H5Pset_dxpl_mpio(coll, H5FD_MPIO_COLLECTIVE));
    CHECK(H5Pset_dxpl_mpio(indep, H5FD_MPIO_INDEPENDENT));
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    CHECK(file);
    int   bad = 0, v = 0, nobj = 0;
    CHECK(H5Ovisit3(file, H5_INDEX_NAME, H5_ITER_INC, count_cb, &nobj, H5O_INFO_BASIC));
    hid_t a = H5Aopen_by_name(file, "entry", "version", H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a);
    CHECK(H5Aread(a, H5T_NATIVE_INT, &v));
    CHECK(H5Aclose(a));
    if (v != 7 || nobj != 7) {
        fprintf(stderr, "rank %d, %s: attribute %d (expected 7), %d objects visited (expected 7)\n", rank_g, what, v,
                nobj);
        bad = 1;
    }
    for (int k = 0; k < 3; k++)
        bad |= read_small_k(file, k, k % 2 ? indep : coll, what);
    CHECK(H5Fclose(file));
    H5Pclose(coll);
    H5Pclose(indep);
    H5Pclose(fapl);
    return bad;
}

/* The file opened by groups of ranks rather than by all: the even and the odd ranks (a split of
 * the world) each open it at once on their own communicator, twice, then every rank alone on
 * MPI_COMM_SELF, then the halves again; each open as read_on. Each group has its own rank 0
 * (looking for the sidecar, building under index_mpi_build, publishing), several at once for one
 * file; a collective of one group must never wait for the other. */
static int
cmd_groups(const char *path, int coll_md)
{
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank_g % 2, rank_g, &half);
    int bad = 0;
    for (int round = 0; round < 2; round++)
        bad |= read_on(path, half, coll_md, round ? "half, again" : "half");
    bad |= read_on(path, MPI_COMM_SELF, coll_md, "self");
    bad |= read_on(path, half, coll_md, "half, after self");
    MPI_Comm_free(&half);
    return bad;
}

/* The file open twice in one process: with the POSIX driver (rank 0 alone, or every rank), kept
 * open while every rank opens it through MPI-IO on the world and reads it as read_on does; the
 * POSIX open read while the MPI-IO one is open, closed before or after it. */
static int
cmd_mixed(const char *path, int coll_md)
{
    int bad = 0;
    for (int round = 0; round < 4; round++) {
        int   sec2_here = round < 2 ? rank_g == 0 : 1, close_first = round % 2;
        hid_t f = H5I_INVALID_HID, fapl = H5Pcreate(H5P_FILE_ACCESS);
        CHECK(fapl);
        CHECK(H5Pset_fapl_sec2(fapl));
        if (sec2_here) {
            f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
            CHECK(f);
            int nobj = 0;
            CHECK(H5Ovisit3(f, H5_INDEX_NAME, H5_ITER_INC, count_cb, &nobj, H5O_INFO_BASIC));
            bad |= nobj != 7;
        }
        bad |= read_on(path, MPI_COMM_WORLD, coll_md, close_first ? "world, POSIX open closed after" : "world");
        if (sec2_here) {
            bad |= read_small_k(f, 1, H5P_DEFAULT, "POSIX open");
            CHECK(H5Fclose(f));
        }
        H5Pclose(fapl);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return bad;
}

int
main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int nranks = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_g);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int coll_md = getenv("TB_COLL_MD") && strcmp(getenv("TB_COLL_MD"), "1") == 0;
    int rc      = 2;
    if (argc == 3 && strcmp(argv[1], "write") == 0)
        rc = cmd_write(argv[2], nranks, coll_md);
    else if (argc == 4 && strcmp(argv[1], "reopen") == 0)
        rc = cmd_reopen(argv[2], atoi(argv[3]), coll_md);
    else if (argc == 3 && strcmp(argv[1], "small") == 0)
        rc = cmd_small(argv[2]);
    else if (argc == 4 && strcmp(argv[1], "readsmall") == 0)
        rc = cmd_readsmall(argv[2], atoi(argv[3]), coll_md);
    else if (argc == 3 && strcmp(argv[1], "groups") == 0)
        rc = cmd_groups(argv[2], coll_md);
    else if (argc == 3 && strcmp(argv[1], "mixed") == 0)
        rc = cmd_mixed(argv[2], coll_md);
    else if (rank_g == 0)
        fprintf(stderr, "usage: %s write FILE | reopen FILE TIMES | small FILE | readsmall FILE TIMES | groups FILE | mixed FILE\n",
                argv[0]);
    int any = 0;
    MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank_g == 0 && any == 0)
        printf("ok: %s on %d ranks\n", argv[1], nranks);
    MPI_Finalize();
    return any;
}
