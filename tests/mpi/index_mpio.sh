#!/usr/bin/env bash
# index_mpio.sh NP — the index on read-only MPI-IO opens (independent metadata reads): NP ranks read
# small datasets (contiguous, chunked + DEFLATE, compact) whole, alternately with collective and
# independent transfers, under h5turbo, each rank with a sidecar cache of its own. First run: every
# rank builds its index and publishes; second: every rank loads its sidecar; third: rank 1's cache
# emptied, so rank 0 answers from a sidecar while rank 1 reads below. Collective transfers reach
# native on every rank (an answer from rank 0's index would leave rank 1 waiting in MPI-IO: the
# time limit fails the test); every value read must be the one written. With collective metadata
# reads the index must be off, and H5TURBO_DEBUG must say so on every rank.
source "$(dirname "$0")/mpi_lib.sh"
np=$1
: "${TB_MPI_PROG:?}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export TB_MPI_TIMEOUT=${TB_MPI_TIMEOUT:-60}
mpi_stock "$np" "$TB_MPI_PROG" small small.h5 > /dev/null || fail "cannot write small.h5"
settle
rc=0; mpi_stock "$np" "$TB_MPI_PROG" readsmall small.h5 3 > stock.out 2>&1 || rc=$?
[ $rc -eq 0 ] || { cat stock.out; fail "readsmall fails natively (exit $rc)"; }
# Each rank's own cache: OpenMPI's and MPICH's rank variables.
per_rank=(bash -c 'XDG_CACHE_HOME=$0/r${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-x}} exec "$@"' "$tmp/cache")
loaded() { grep -c "sidecars loaded=1 " stats.log || true; }
for run in first second mixed; do
  [ $run = mixed ] && rm -rf "$tmp/cache/r1"
  for ((r = 0; r < np; r++)); do mkdir -p "$tmp/cache/r$r"; done
  rm -f stats.log; rc=0
  TB_STATS_LOG=$PWD/stats.log mpi_turbo "$np" "${per_rank[@]}" "$TB_MPI_PROG" readsmall small.h5 3 > t.out 2> t.err || rc=$?
  [ $rc -eq 0 ] || { cat t.out t.err; fail "$run run: readsmall failed under h5turbo (exit $rc)"; }
  grep "^ok: readsmall on $np ranks" t.out > /dev/null || { cat t.out t.err; fail "$run run: no ok line"; }
  case $run in first) want=0 ;; second) want=$np ;; mixed) want=$((np - 1)) ;; esac
  [ "$(loaded)" -eq "$want" ] || { cat stats.log; fail "$run run: $(loaded) ranks loaded a sidecar, expected $want"; }
  echo "ok: $run run at np $np: values as written, $want ranks answered from a sidecar"
done
rc=0; TB_COLL_MD=1 H5TURBO_DEBUG=1 mpi_turbo "$np" "$TB_MPI_PROG" readsmall small.h5 3 > t.out 2> t.err || rc=$?
[ $rc -eq 0 ] || { cat t.out t.err; fail "collective metadata: readsmall failed under h5turbo (exit $rc)"; }
n=$(grep -c -F "small.h5: index off (the file driver does MPI I/O, and metadata reads are collective)" t.err || true)
[ "$n" -eq "$np" ] || { cat t.err; fail "collective metadata: 'index off' said $n times, expected $np"; }
echo "ok: collective metadata reads at np $np: index off on every rank, values as written"
