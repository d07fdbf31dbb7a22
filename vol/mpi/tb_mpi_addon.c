/* tb_mpi_addon.c — h5turbo's MPI add-on (libh5turbo_mpi_<abi>.so): the few MPI calls the index
 * makes on files opened through MPI-IO (a communicator per group of ranks, a rank, a broadcast),
 * built with the MPI library it links and loaded by the connector only into processes that have
 * that MPI mapped. Exports h5turbo_mpi_api alone. */
#include "tb_mpi_api.h"

#include <mpi.h>

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#define TB_EXPORT __attribute__((visibility("default")))

/* One communicator per distinct group of ranks that opened files (never freed: MPI_Finalize may
 * come before the plugin is unloaded). Touched under HDF5's serialisation of VOL callbacks. */
typedef struct {
    MPI_Group group;
    MPI_Comm  comm;
} known_t;
static known_t **known;
static int       nknown, capknown;

static int
running(void)
{
    int init = 0, fin = 0;
    return MPI_Initialized(&init) == MPI_SUCCESS && init && MPI_Finalized(&fin) == MPI_SUCCESS && !fin;
}

/* Room for one more entry and the entry itself, or NULL. */
static known_t *
new_entry(void)
{
    if (nknown == capknown) {
        int       cap  = capknown ? capknown * 2 : 8;
        known_t **more = cap < INT_MAX / 2 ? realloc(known, (size_t)cap * sizeof(*more)) : NULL;
        if (!more)
            return NULL;
        known    = more;
        capknown = cap;
    }
    return malloc(sizeof(known_t));
}

static int
file_comm(void *mpi_file, void **comm_out)
{
    MPI_Group g;
    if (!mpi_file || !running() || MPI_File_get_group(*(MPI_File *)mpi_file, &g) != MPI_SUCCESS)
        return -1;
    for (int i = 0; i < nknown; i++) {
        int same = MPI_UNEQUAL;
        if (MPI_Group_compare(g, known[i]->group, &same) == MPI_SUCCESS && same == MPI_IDENT) {
            MPI_Group_free(&g);
            *comm_out = &known[i]->comm;
            return 0;
        }
    }
    /* A new group: every rank of it is in this open and makes the same calls. A rank short of
     * memory still takes part, and then all of them give up alike. */
    known_t *k    = new_entry();
    MPI_Comm comm = MPI_COMM_NULL;
    if (MPI_Comm_create_group(MPI_COMM_WORLD, g, 0x6835, &comm) != MPI_SUCCESS || comm == MPI_COMM_NULL) {
        free(k);
        MPI_Group_free(&g);
        return -1;
    }
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int mine = k != NULL, all = 0;
    if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS || !all) {
        MPI_Comm_free(&comm);
        free(k);
        MPI_Group_free(&g);
        return -1;
    }
    k->group        = g;
    k->comm         = comm;
    known[nknown++] = k;
    *comm_out       = &k->comm;
    return 0;
}

static int
rank(void *comm, int *rank_out, int *size_out)
{
    return MPI_Comm_rank(*(MPI_Comm *)comm, rank_out) == MPI_SUCCESS &&
                   MPI_Comm_size(*(MPI_Comm *)comm, size_out) == MPI_SUCCESS
               ? 0
               : -1;
}

static int
bcast(void *comm, void *buf, size_t n, int root)
{
    static unsigned char scratch[1 << 16]; /* what a rank without a buffer receives into */
    unsigned char       *p     = buf;
    size_t               piece = p ? (size_t)1 << 30 : sizeof(scratch);
    for (size_t off = 0; off < n; off += piece) {
        size_t len = n - off < piece ? n - off : piece;
        if (MPI_Bcast(p ? p + off : scratch, (int)len, MPI_BYTE, root, *(MPI_Comm *)comm) != MPI_SUCCESS)
            return -1;
    }
    return 0;
}

TB_EXPORT const tb_mpi_api_t *h5turbo_mpi_api(void);

const tb_mpi_api_t *
h5turbo_mpi_api(void)
{
    static const tb_mpi_api_t api = {TB_MPI_API_VERSION, file_comm, rank, bcast};
    return &api;
}
