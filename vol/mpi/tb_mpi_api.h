/* tb_mpi_api.h — the interface of h5turbo's MPI add-on (libh5turbo_mpi_<abi>.so, tb_mpi_addon.c):
 * plain C without MPI types, so that the connector includes no mpi.h and links no MPI library; it
 * loads the add-on built for the MPI the process has mapped (vol/index/index_mpi.c). */
#ifndef TB_MPI_API_H
#define TB_MPI_API_H

#include <stddef.h>

#define TB_MPI_API_VERSION 2
#define TB_MPI_API_SYMBOL  "h5turbo_mpi_api"

typedef struct tb_mpi_api {
    int version; /* TB_MPI_API_VERSION */
    /* The communicator of the ranks that opened a file through MPI-IO (`mpi_file`: the driver's
     * handle, a pointer to the MPI_File): one private communicator per distinct group of ranks,
     * made the first time (a collective of those ranks only) and kept. 0, or -1 when MPI is not
     * running or refused (then on every rank of the group alike). */
    int (*file_comm)(void *mpi_file, void **comm_out);
    /* This process's rank in comm, and how many ranks comm has: 0, or -1. */
    int (*rank)(void *comm, int *rank_out, int *size_out);
    /* MPI_Bcast of n bytes from root. A rank other than root passing buf NULL takes part and drops
     * the bytes. 0, or -1. */
    int (*bcast)(void *comm, void *buf, size_t n, int root);
} tb_mpi_api_t;

typedef const tb_mpi_api_t *(*tb_mpi_api_fn)(void);

#endif
