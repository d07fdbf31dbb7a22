/* index_mpi.c — one sidecar read per file per job on MPI-IO opens: rank 0 of the ranks that opened
 * a file reads its sidecar (or builds the index: index.c) and broadcasts the bytes, through
 * h5turbo's MPI add-on (vol/mpi/), loaded once per process when the MPI it was built for is mapped.
 * Without the add-on every rank reads the sidecar itself. */
#include "index_ctx.h"
#include "tb_mpi_api.h"

#include "tb_hdf5err.h"

#include <dlfcn.h>
#include <link.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
count_loads(struct dl_phdr_info *info, size_t size, void *adds)
{
    (void)size;
    *(unsigned long long *)adds = info->dlpi_adds;
    return 1; /* (the count is the same in every entry) */
}

const char *
tb_ix_mpi_family(void)
{
    /* A dlsym that finds nothing walks every loaded object's symbols (asked at every last close of
     * a file: 6.3k instructions each, 0.1 % of the CPU samples of pandas reading 200 tables one per
     * open); looked up again only once objects were loaded since (an MPI library mapped later), and
     * never again once found. */
    static const char        *found;
    static unsigned long long looked_at = ~0ull;
    const char               *f         = __atomic_load_n(&found, __ATOMIC_ACQUIRE);
    unsigned long long        adds      = 0;
    if (f)
        return f;
    dl_iterate_phdr(count_loads, &adds);
    if (adds == __atomic_load_n(&looked_at, __ATOMIC_ACQUIRE))
        return NULL;
    f = dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world") ? "openmpi"
        : dlsym(RTLD_DEFAULT, "MPIR_Init_thread")  ? "mpich"
                                                   : NULL;
    if (f)
        __atomic_store_n(&found, f, __ATOMIC_RELEASE);
    else
        __atomic_store_n(&looked_at, adds, __ATOMIC_RELEASE);
    return f;
}

/* The add-on for the MPI library the process has mapped, or NULL (looked for once); it is in
 * plugins/mpi/, beside this build's folder (plugins/hdf5-<major>/). */
static const tb_mpi_api_t *
addon(bool debug)
{
    static int                 looked;
    static const tb_mpi_api_t *api;
    if (looked)
        return api;
    looked          = 1;
    const char *abi = tb_ix_mpi_family();
    Dl_info     self;
    char        path[PATH_MAX];
    const char *why = NULL;
    if (!abi)
        why = "no MPI library of a known family in the process";
    else if (!dladdr((void *)addon, &self) || !self.dli_fname || !strrchr(self.dli_fname, '/'))
        why = "cannot tell where the connector was loaded from";
    else if (snprintf(path, sizeof(path), "%.*s/../mpi/libh5turbo_mpi_%s.so",
                      (int)(strrchr(self.dli_fname, '/') - self.dli_fname), self.dli_fname, abi) >= (int)sizeof(path))
        why = "path too long";
    else {
        void         *h  = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        tb_mpi_api_fn fn = h ? (tb_mpi_api_fn)dlsym(h, TB_MPI_API_SYMBOL) : NULL;
        api              = fn ? fn() : NULL;
        if (api && api->version != TB_MPI_API_VERSION)
            api = NULL;
        if (!api)
            why = h ? "the add-on is of another version" : "the add-on could not be loaded";
    }
    if (debug)
        fprintf(stderr, "h5turbo: MPI add-on %s%s%s\n", api ? "loaded: " : "not used: ", api ? path : why,
                api ? "" : " (each rank reads sidecars itself)");
    return api;
}

/* The MPI_File below a native file on the MPI-IO driver (its handle is a pointer to it; the index
 * takes no other MPI driver: tb_index_file_opened), or NULL. */
static void *
mpi_file_of(void *file_under, hid_t vol)
{
    hid_t                            saved  = tb_err_save();
    void                            *handle = NULL;
    H5VL_native_file_optional_args_t na;
    na.get_vfd_handle.fapl_id     = H5P_FILE_ACCESS_DEFAULT;
    na.get_vfd_handle.file_handle = &handle;
    H5VL_optional_args_t opt      = {.op_type = H5VL_NATIVE_FILE_GET_VFD_HANDLE, .args = &na};
    if (H5VLfile_optional(file_under, vol, &opt, H5P_DATASET_XFER_DEFAULT, NULL) < 0)
        handle = NULL;
    tb_err_restore(saved);
    return handle;
}

tb_status_t
tb_ix_mpi_sidecar(void *file_under, hid_t vol, bool debug, tb_ix_mpi_load_fn load, void *arg, void **buf_out,
                  size_t *n_out, int *rank_out)
{
    *buf_out  = NULL;
    *n_out    = 0;
    *rank_out = -1;
    const tb_mpi_api_t *api  = addon(debug);
    void               *comm = NULL;
    int                 rank = -1, nranks = 0;
    /* Every step up to the broadcasts gives the same outcome on every rank of the file: the add-on
     * is the same program's, the communicator is made (or refused) by all of them together. */
    if (!api || api->file_comm(mpi_file_of(file_under, vol), &comm) != 0 || api->rank(comm, &rank, &nranks) != 0)
        return TB_ERR_UNSUPPORTED;
    *rank_out    = rank;
    uint64_t n   = 0;
    void    *buf = NULL;
    if (rank == 0) {
        size_t got = 0;
        if (load(arg, nranks, &buf, &got) == TB_OK && (buf = tb_sc_own(buf, got)) != NULL)
            n = got; /* (in memory of its own: MPI may register what it sends for RDMA, which a
                      * read-only mapping of a file refuses) */
    }
    if (api->bcast(comm, &n, sizeof(n), 0) != 0) {
        tb_sc_release(buf);
        return TB_ERR_IO;
    }
    *n_out = n <= SIZE_MAX ? (size_t)n : SIZE_MAX; /* (the length every rank now knows) */
    if (n > 0 && rank != 0)
        buf = n <= SIZE_MAX ? malloc((size_t)n) : NULL; /* (NULL: this rank takes part and drops them) */
    if (n > 0 && api->bcast(comm, buf, (size_t)n, 0) != 0) {
        tb_sc_release(buf);
        return TB_ERR_IO;
    }
    if (n > 0 && !buf)
        return TB_ERR_NOMEM;
    *buf_out = buf;
    return TB_OK;
}
