#!/usr/bin/env bash
# index_groups.sh — the index on read-only MPI-IO opens by groups of ranks rather than by all
# (mpi_prog groups, 4 ranks): the even and the odd ranks each open one file at once on their own
# communicator (a split of the world), twice, then every rank alone on MPI_COMM_SELF, then the
# halves again, each open walking the file and reading its small datasets collectively and
# independently. Every group has its own rank 0, which looks for the sidecar, builds (with
# index_mpi_build forced on for groups of 2) and publishes, several at once for one file, each in
# its own cache; a collective of one group must never wait for the other (the time limit fails a
# hang). With independent metadata reads, first run: every rank publishes (each is rank 0 of its
# MPI_COMM_SELF open), and from the second open of each group on its rank 0's sidecar is broadcast;
# second run: every open of every rank answers from a sidecar. With collective metadata reads the
# index needs a sidecar or a build: only the halves' rank 0 (ranks 0 and 1) publish, and only
# where the build is on. Every value must be the one written, as natively.
# Then (mpi_prog mixed) the file open twice in one process: with the POSIX driver by rank 0 alone
# or by every rank, kept open across every rank's MPI-IO open of it on the world (the two opens
# share the process's index of the file), closed before or after it; no hang, values as written.
source "$(dirname "$0")/mpi_lib.sh"
: "${TB_MPI_PROG:?}"
np=4
mpi_workdir
mpi_stock "$np" "$TB_MPI_PROG" small small.h5 > /dev/null || fail "cannot write small.h5"
settle
for prog in groups mixed; do
  for md in 0 1; do
    rc=0; TB_COLL_MD=$md mpi_stock "$np" "$TB_MPI_PROG" $prog small.h5 > stock.out 2>&1 || rc=$?
    [ $rc -eq 0 ] || { cat stock.out; fail "$prog fails natively (collective metadata $md, exit $rc)"; }
  done
done
per_rank=(bash -c 'XDG_CACHE_HOME=$0/r${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-x}} exec "$@"' "$tmp/cache")
sidecars() { find "$tmp/cache" -name '*.h5turbo-index' | sed "s|^$tmp/cache/||; s|/.*||" | sort | tr '\n' ' '; }
# one MD BUILD RUN WANT-LOADED WANT-SIDECARS — groups under h5turbo: collective metadata reads MD
# (0/1), index_mpi_build auto or forced for groups of 2; sidecar loads (a rank's own or adopted
# from its group's rank 0) in all, and whose caches hold sidecars after the run.
one() {
  local md=$1 build=$2 run=$3 want=$4 where=$5 rc=0
  local env=(TB_COLL_MD="$md" H5TURBO_DEBUG=1 TB_STATS_LOG="$PWD/stats.log")
  [ "$build" = forced ] && env+=(H5TURBO_INDEX_MPI_BUILD=4096 H5TURBO_INDEX_MPI_BUILD_RANKS=2)
  rm -f stats.log
  (export "${env[@]}"; mpi_turbo "$np" "${per_rank[@]}" "$TB_MPI_PROG" groups small.h5) > t.out 2> t.err || rc=$?
  local what="collective metadata $md, build $build, $run run"
  [ $rc -eq 0 ] || { cat t.out t.err; fail "$what: groups failed under h5turbo (exit $rc)"; }
  grep "^ok: groups on $np ranks" t.out > /dev/null || { cat t.out t.err; fail "$what: no ok line"; }
  ! grep HDF5-DIAG t.err > /dev/null || { cat t.err; fail "$what: HDF5 printed an error stack"; }
  local loaded; loaded=$(grep -o "sidecars loaded=[0-9]*" stats.log | cut -d= -f2 | paste -sd+ | bc)
  [ "$loaded" = "$want" ] || { cat stats.log; fail "$what: $loaded sidecar loads, expected $want"; }
  [ "$(sidecars)" = "$where" ] || { cat t.err; fail "$what: sidecars in '$(sidecars)', expected '$where'"; }
  echo "ok: $what: values as written, $loaded sidecar loads, sidecars in $where"
}
all="r0 r1 r2 r3 "
for build in auto forced; do
  rm -rf "$tmp/cache"; mkdir -p "$tmp"/cache/r{0,1,2,3}
  # (first run: the halves' second and third opens (2 x 4) and ranks 0 and 1's own (2) load;
  # forced, the first half open's other ranks (2) adopt their rank 0's build as well)
  one 0 $build first $([ $build = forced ] && echo 12 || echo 10) "$all"
  one 0 $build second 16 "$all"
done
rm -rf "$tmp/cache"; mkdir -p "$tmp"/cache/r{0,1,2,3}
one 1 auto first 0 ""
one 1 auto second 0 ""
# (ranks 2 and 3 alone on MPI_COMM_SELF: one rank, too few for a build, and no sidecar in their
# caches: the index is off there)
one 1 forced first 12 "r0 r1 "
one 1 forced second 14 "r0 r1 "
# mixed: where the POSIX opens' sidecars go is each rank's own cache; only no hang and the values.
for md in 0 1; do
  for build in auto forced; do
    rm -rf "$tmp/cache"; mkdir -p "$tmp"/cache/r{0,1,2,3}
    env=(TB_COLL_MD="$md")
    [ "$build" = forced ] && env+=(H5TURBO_INDEX_MPI_BUILD=4096 H5TURBO_INDEX_MPI_BUILD_RANKS=2)
    for run in first second; do
      rc=0; (export "${env[@]}"; mpi_turbo "$np" "${per_rank[@]}" "$TB_MPI_PROG" mixed small.h5) > t.out 2> t.err || rc=$?
      what="mixed, collective metadata $md, build $build, $run run"
      [ $rc -eq 0 ] && grep -q "^ok: mixed on $np ranks" t.out || { cat t.out t.err; fail "$what: failed (exit $rc)"; }
      ! grep HDF5-DIAG t.err > /dev/null || { cat t.err; fail "$what: HDF5 printed an error stack"; }
    done
    echo "ok: mixed, collective metadata $md, build $build: first and second run, values as written"
  done
done
