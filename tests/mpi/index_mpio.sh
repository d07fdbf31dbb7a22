#!/usr/bin/env bash
# index_mpio.sh NP — the index on read-only MPI-IO opens (independent metadata reads): NP ranks read
# small datasets (contiguous, chunked + DEFLATE, compact) whole, alternately with collective and
# independent transfers, under h5turbo, each rank with a sidecar cache of its own.
# With the MPI add-on (plugins/mpi/): on the first run with index_mpi_build on, rank 0 builds the
# file's index (a walk through an open of its own) and broadcasts it, the other ranks answer from it,
# and rank 0 alone publishes (also when the walk stops at its bound: a partial index); by default
# (auto: builds only after a walked file; this program opens one file) every rank learns its own
# and rank 0 alone publishes; on the
# second rank 0 reads the sidecar and broadcasts it, and every rank answers from it.
# Without it (a plugin folder lacking mpi/): every rank reads and publishes its own sidecar; a third
# run with rank 1's cache emptied has rank 0 answering from a sidecar while rank 1 reads below,
# also in a call whose own link access list asks collective metadata reads (h5turbo makes the
# file's metadata reads independent on every rank; left collective, rank 1 waits for rank 0).
# Collective transfers reach native on every rank (an answer from rank 0's index would leave rank 1
# waiting in MPI-IO: the time limit fails the test); every value read must be the one written.
# With collective metadata reads: without the add-on, or without a sidecar and a build,
# the index is off on every rank, H5TURBO_DEBUG says why, and nothing is published; with the index
# rank 0 built on a first run, or the sidecar it published, every rank makes the file's metadata
# reads independent and answers from it, while only
# the odd ranks read a larger dataset (its header read collectively by those alone would wait for
# rank 0's broadcast forever), and the file's access list still reports collective metadata reads.
source "$(dirname "$0")/mpi_lib.sh"
np=$1
: "${TB_MPI_PROG:?}"
mpi_workdir
[ -d "$TB_PLUGIN_DIR/mpi" ] || fail "no MPI add-on in $TB_PLUGIN_DIR/mpi (CMake found no MPI?)"
cp -r "$TB_PLUGIN_DIR" "$tmp/plugins-no-addon"
rm -rf "$tmp/plugins-no-addon/mpi"
mpi_stock "$np" "$TB_MPI_PROG" small small.h5 > /dev/null || fail "cannot write small.h5"
settle
rc=0; mpi_stock "$np" "$TB_MPI_PROG" readsmall small.h5 3 > stock.out 2>&1 || rc=$?
[ $rc -eq 0 ] || { cat stock.out; fail "readsmall fails natively (exit $rc)"; }
# Each rank's own cache: OpenMPI's and MPICH's rank variables.
per_rank=(bash -c 'XDG_CACHE_HOME=$0/r${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-x}} exec "$@"' "$tmp/cache")
loaded() { grep -c "sidecars loaded=1 " stats.log || true; }
sidecars() { find "$tmp/cache" -name '*.h5turbo-index' | sed "s|^$tmp/cache/||; s|/.*||" | sort | tr '\n' ' '; }
# each_rank_said MESSAGE — H5TURBO_DEBUG of the last run said MESSAGE (a fixed string) once on every rank.
each_rank_said() { said "$np" "$1"; }
# said N MESSAGE — ... N times in all.
said() {
  local n; n=$(grep -c -F "$2" t.err || true)
  [ "$n" -eq "$1" ] || { cat t.err; fail "'$2' said $n times, expected $1"; }
}
# one MODE RUN WANT-LOADED — readsmall under h5turbo with or without the add-on.
one() {
  local mode=$1 run=$2 want=$3 rc=0 dir=$TB_PLUGIN_DIR md=0
  case $mode in *no-addon) dir=$tmp/plugins-no-addon ;; esac
  case $mode in coll-md*) md=1 ;; esac
  # (rank 0 builds for np ranks; addon-nobuild: the default, auto, which builds nothing for a job's
# first file; coll-md-nobuild: np is too few)
  local build=(H5TURBO_INDEX_MPI_BUILD=4096 H5TURBO_INDEX_MPI_BUILD_RANKS="$np")
  case $mode in
    addon-nobuild) build[0]=H5TURBO_INDEX_MPI_BUILD= ;;
    addon-bound) build[0]=H5TURBO_INDEX_MPI_BUILD=2 ;; # (a walk stopped after 2 objects: a partial index)
    coll-md-nobuild) build[1]=H5TURBO_INDEX_MPI_BUILD_RANKS=$((np + 1)) ;;
  esac
  for ((r = 0; r < np; r++)); do mkdir -p "$tmp/cache/r$r"; done
  rm -f stats.log
  (export "${build[@]}" TB_COLL_MD=$md TB_PLUGIN_DIR=$dir TB_STATS_LOG=$PWD/stats.log H5TURBO_DEBUG=1
   mpi_turbo "$np" "${per_rank[@]}" "$TB_MPI_PROG" readsmall small.h5 3) > t.out 2> t.err || rc=$?
  [ $rc -eq 0 ] || { cat t.out t.err; fail "$mode, $run run: readsmall failed under h5turbo (exit $rc)"; }
  grep "^ok: readsmall on $np ranks" t.out > /dev/null || { cat t.out t.err; fail "$mode, $run run: no ok line"; }
  # (the program's own transfer lists: h5turbo's probes of them must print nothing)
  ! grep HDF5-DIAG t.err > /dev/null || { cat t.err; fail "$mode, $run run: HDF5 printed an error stack"; }
  [ "$(loaded)" -eq "$want" ] || { cat stats.log; fail "$mode, $run run: $(loaded) ranks loaded a sidecar, expected $want"; }
  local said; said=$(grep -c "h5turbo: MPI add-on loaded" t.err || true)
  case $mode in
    *no-addon) [ "$said" -eq 0 ] || { cat t.err; fail "$mode: an add-on was loaded"; } ;;
    *) [ "$said" -eq "$np" ] || { cat t.err; fail "$mode: the add-on was loaded on $said of $np ranks"; } ;;
  esac
  echo "ok: $mode, $run run at np $np: values as written, $want ranks answered from a sidecar; sidecars in: $(sidecars)"
}
built="h5turbo index: $tmp/small.h5: index built by rank 0 for the $np ranks opening it"
from0="sidecar loaded: $tmp/small.h5 (from rank 0 of the ranks opening it: its sidecar or the index it built)"
one addon-nobuild first 0
said 0 "$built"
said 1 "h5turbo index: $tmp/small.h5: no index built by rank 0 for the $np ranks opening it (index_mpi_build=auto, and the program did not walk the last file the job closed (or closed none yet))"
[ "$(sidecars)" = "r0 " ] || fail "with the add-on, sidecars were published in: $(sidecars) (rank 0's cache alone expected)"
rm -rf "$tmp/cache"
one addon first $((np - 1))
said 1 "$built"
said $((np - 1)) "$from0"
[ "$(sidecars)" = "r0 " ] || fail "with the add-on, sidecars were published in: $(sidecars) (rank 0's cache alone expected)"
one addon second "$np"
said "$np" "$from0"
said 0 "$built"
rm -rf "$tmp/cache"
one addon-bound first $((np - 1))
said 1 "$built (2 objects walked, the walk's bound: index_mpi_build)"
said $((np - 1)) "$from0"
rm -rf "$tmp/cache"
one no-addon first 0
said 0 "$built"
one no-addon second "$np"
rm -rf "$tmp/cache/r1"
one no-addon mixed $((np - 1))
rm -rf "$tmp/cache"
one coll-md-nobuild first 0
said 1 "h5turbo index: $tmp/small.h5: no index built by rank 0 for the $np ranks opening it (fewer than index_mpi_build_ranks)"
each_rank_said "small.h5: index off (the file driver does MPI I/O, metadata reads are collective, and rank 0 neither found a sidecar nor built an index"
[ -z "$(sidecars)" ] || fail "collective metadata, index off: sidecars were published in $(sidecars)"
one coll-md first $((np - 1))
said 1 "$built"
each_rank_said "small.h5: metadata reads made independent on every rank"
[ "$(sidecars)" = "r0 " ] || fail "collective metadata, first run: sidecars were published in: $(sidecars) (rank 0's cache alone expected)"
one coll-md second "$np"
each_rank_said "small.h5: metadata reads made independent on every rank"
# Without the add-on no rank can know what rank 0 found: the index stays off on every rank.
one coll-md-no-addon sidecar-there 0
each_rank_said "small.h5: index off (the file driver does MPI I/O, metadata reads are collective, and no MPI add-on"
echo "ok: collective metadata reads at np $np: index off on every rank without the add-on or without a sidecar and a build, answered from the index rank 0 built or its sidecar with the add-on"
