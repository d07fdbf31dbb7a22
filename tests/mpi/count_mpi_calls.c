/* count_mpi_calls.c — an LD_PRELOAD shim (MPI's profiling interface) that counts, per rank, the
 * calls HDF5 makes of MPI_Comm_dup and of the collectives it uses, and prints them at MPI_Finalize:
 * how tests/mpi proves that a file opened under h5turbo costs no collective stock HDF5 does not.
 * Calls on communicators made by MPI_Comm_create_group (h5turbo's MPI add-on makes its own that
 * way; HDF5 never does) are counted apart, on a second line. */
#include <mpi.h>

#include <stdio.h>

enum { C_DUP, C_FREE, C_BCAST, C_BARRIER, C_ALLREDUCE, C_ALLGATHER, C_GATHER, C_REDUCE, C_SPLIT, C_N };
static const char *const names_g[C_N] = {"Comm_dup",  "Comm_free", "Bcast",  "Barrier",   "Allreduce",
                                         "Allgather", "Gather",    "Reduce", "Comm_split"};
static long              counts_g[C_N];

/* The communicators MPI_Comm_create_group made, and the calls on them. */
enum { O_CREATE, O_BCAST, O_ALLREDUCE, O_N };
static const char *const own_names_g[O_N] = {"Comm_create_group", "Bcast", "Allreduce"};
static long              own_g[O_N];
static MPI_Comm          made_g[16];
static int               nmade_g;

static int
made(MPI_Comm comm)
{
    for (int i = 0; i < nmade_g; i++)
        if (made_g[i] == comm)
            return 1;
    return 0;
}

int
MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    own_g[O_CREATE]++;
    int rc = PMPI_Comm_create_group(comm, group, tag, newcomm);
    if (rc == MPI_SUCCESS && nmade_g < 16)
        made_g[nmade_g++] = *newcomm;
    return rc;
}

int
MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    counts_g[C_DUP]++;
    return PMPI_Comm_dup(comm, newcomm);
}

int
MPI_Comm_free(MPI_Comm *comm)
{
    counts_g[C_FREE]++;
    return PMPI_Comm_free(comm);
}

int
MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    counts_g[C_SPLIT]++;
    return PMPI_Comm_split(comm, color, key, newcomm);
}

int
MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    if (made(comm))
        own_g[O_BCAST]++;
    else
        counts_g[C_BCAST]++;
    return PMPI_Bcast(buf, count, type, root, comm);
}

int
MPI_Barrier(MPI_Comm comm)
{
    counts_g[C_BARRIER]++;
    return PMPI_Barrier(comm);
}

int
MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    if (made(comm))
        own_g[O_ALLREDUCE]++;
    else
        counts_g[C_ALLREDUCE]++;
    return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

int
MPI_Allgather(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount,
              MPI_Datatype rtype, MPI_Comm comm)
{
    counts_g[C_ALLGATHER]++;
    return PMPI_Allgather(sendbuf, scount, stype, recvbuf, rcount, rtype, comm);
}

int
MPI_Gather(const void *sendbuf, int scount, MPI_Datatype stype, void *recvbuf, int rcount, MPI_Datatype rtype,
           int root, MPI_Comm comm)
{
    counts_g[C_GATHER]++;
    return PMPI_Gather(sendbuf, scount, stype, recvbuf, rcount, rtype, root, comm);
}

int
MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
    counts_g[C_REDUCE]++;
    return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}

int
MPI_Finalize(void)
{
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char line[512];
    int  n = snprintf(line, sizeof(line), "tb_mpi_calls rank=%d", rank);
    for (int i = 0; i < C_N && n > 0 && (size_t)n < sizeof(line); i++)
        n += snprintf(line + n, sizeof(line) - (size_t)n, " %s=%ld", names_g[i], counts_g[i]);
    fprintf(stderr, "%s\n", line);
    n = snprintf(line, sizeof(line), "tb_mpi_own rank=%d", rank);
    for (int i = 0; i < O_N && n > 0 && (size_t)n < sizeof(line); i++)
        n += snprintf(line + n, sizeof(line) - (size_t)n, " %s=%ld", own_names_g[i], own_g[i]);
    fprintf(stderr, "%s\n", line);
    return PMPI_Finalize();
}
