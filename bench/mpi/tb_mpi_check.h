/* tb_mpi_check.h — the MPI test and benchmark programs' failure rule: a failed HDF5 call names
 * its rank, file and line on stderr and aborts the whole job (a rank left waiting in a
 * collective would hang it). Each program sets rank_g after MPI_Init. */
#ifndef TB_MPI_CHECK_H
#define TB_MPI_CHECK_H

#include <mpi.h>
#include <stdio.h>

static int rank_g;

#define CHECK(expr)                                                                                \
    do {                                                                                           \
        if ((expr) < 0) {                                                                          \
            fprintf(stderr, "rank %d: %s:%d: %s failed\n", rank_g, __FILE__, __LINE__, #expr);      \
            MPI_Abort(MPI_COMM_WORLD, 2);                                                          \
        }                                                                                          \
    } while (0)

#endif
