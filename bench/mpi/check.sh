#!/usr/bin/env bash
# check.sh — bench/mpi's correctness check (CTest mpi.bench_chain_check): a small chain (3 H5MD-like
# files) read on 2 ranks with sec2, MPI-IO and MPI-IO with collective metadata, stock and under
# h5turbo on a first (no sidecar) and a second run: what every run read (objects, attributes, a
# checksum of the data) must equal stock's; with sec2 the first run must publish each file's
# sidecar once (the other rank leaving it unread); with sec2 and MPI-IO (independent metadata
# reads) the second run must answer from sidecars on every rank; with MPI-IO (collective metadata reads or
# not) the first run's rank 0 builds each file's index (index_mpi_build on, index_mpi_build_ranks
# lowered to 2) and the other ranks answer from it, and with
# collective metadata reads every rank makes the file's metadata reads independent on both runs;
# with index_mpi_build=auto (the default), rank 0 builds only after a walked file: none for a read
# of frames by path; no rank may hang.
source "$(dirname "$0")/../../tests/mpi/mpi_lib.sh"
: "${TB_BENCH_CHAIN:?}"
np=2; files=3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache" TB_MPI_TIMEOUT=${TB_MPI_TIMEOUT:-60}
export H5TURBO_INDEX_MPI_BUILD=4096 H5TURBO_INDEX_MPI_BUILD_RANKS=$np # (rank 0 builds every file, for 2 ranks too)
mpi_stock 1 "$TB_BENCH_CHAIN" gen "$tmp" $files 8 100 > /dev/null || fail "gen failed"
# written STATS — the sidecars the ranks whose stats lines STATS holds wrote, in all.
written() { grep -o " written=[0-9]*" "$1" | cut -d= -f2 | paste -sd+ | bc; }
settle
for drv in sec2 mpio mpio-collmd; do
  rm -rf "$XDG_CACHE_HOME"
  mpi_stock $np "$TB_BENCH_CHAIN" read "$tmp" $files $drv > stock.out 2>&1 || { cat stock.out; fail "$drv: stock read failed"; }
  want=$(grep '^result:' stock.out) || { cat stock.out; fail "$drv: no result line"; }
  for run in first second; do
    rc=0
    H5TURBO_DEBUG=1 TB_STATS_LOG="$tmp/stats.$run" mpi_turbo $np "$TB_BENCH_CHAIN" read "$tmp" $files $drv > turbo.out 2> turbo.err || rc=$?
    [ $rc -eq 0 ] || { cat turbo.out turbo.err; fail "$drv, $run run: failed under h5turbo (exit $rc)"; }
    got=$(grep '^result:' turbo.out) || true
    [ "$got" = "$want" ] || fail "$drv, $run run: h5turbo read '$got', stock '$want'"
    loaded() { grep -c "sidecars loaded=$files" "$tmp/stats.$run" || true; }
    if [ $run = second ] && [ "$(loaded)" -ne $np ]; then
      cat "$tmp/stats.$run"; fail "$drv second run: $(loaded) of $np ranks loaded all $files sidecars"
    fi
    if [ $run = first ] && [ $drv = sec2 ]; then
      # Each file's sidecar published once for the job, and no rank reading back another's at its
      # close: a rank that found none at its open leaves one there at its close as it is.
      w=$(written "$tmp/stats.$run")
      [ "$w" = $files ] && ! grep -q " covered=" "$tmp/stats.$run" ||
        { cat "$tmp/stats.$run"; fail "sec2 first run: $w sidecars written (expected $files), or some read back at a close"; }
    fi
    if [ $run = first ] && [ $drv != sec2 ]; then
      n=$(grep -c -F ": index built by rank 0 for the $np ranks opening it" turbo.err || true)
      [ "$n" -eq $files ] || { cat turbo.err; fail "$drv, first run: rank 0 built $n indexes, expected $files"; }
      [ "$(loaded)" -eq $((np - 1)) ] || { cat "$tmp/stats.$run"; fail "$drv first run: $(loaded) ranks took all $files indexes from rank 0, expected $((np - 1))"; }
    fi
    if [ $drv = mpio-collmd ]; then
      said='metadata reads made independent on every rank'
      n=$(grep -c -F "$said" turbo.err || true)
      [ "$n" -eq $((np * files)) ] || { cat turbo.err; fail "$drv, $run run: '$said' said $n times, expected $((np * files))"; }
    fi
    rm -f "$tmp/stats.$run"
    echo "ok: $drv, $run run: $got"
  done
done
# A lock file left where its sidecar has gone (a lock file stays after its writer): the first run
# with sec2 publishes each file's sidecar once again, as where there was none.
for f in $(find "$XDG_CACHE_HOME" -name '*.h5turbo-index'); do rm -f "$f"; : > "$f.lock"; done
[ "$(find "$XDG_CACHE_HOME" -name '*.h5turbo-index.lock' | wc -l)" -eq $files ] || fail "no lock files made"
rc=0; TB_STATS_LOG="$tmp/stats.lock" mpi_turbo $np "$TB_BENCH_CHAIN" read "$tmp" $files sec2 > turbo.out 2> turbo.err || rc=$?
[ $rc -eq 0 ] || { cat turbo.out turbo.err; fail "sec2 after the sidecars went: failed under h5turbo (exit $rc)"; }
w=$(written "$tmp/stats.lock")
[ "$w" = $files ] || { cat "$tmp/stats.lock"; fail "sec2, lock files without sidecars: $w sidecars written, expected $files"; }
echo "ok: sec2, lock files left without their sidecars: $files sidecars written again"
# index_mpi_build=auto (the default): rank 0 builds only where the program walked the job's last file:
# the walk builds the second and third files' indexes, the read of frames by path none.
for read in walk frames; do
  rm -rf "$XDG_CACHE_HOME"
  arg=; [ $read = frames ] && arg=frames
  mpi_stock $np "$TB_BENCH_CHAIN" read "$tmp" $files mpio $arg > stock.out 2>&1 || { cat stock.out; fail "auto, $read: stock read failed"; }
  want=$(grep '^result:' stock.out)
  rc=0
  H5TURBO_INDEX_MPI_BUILD=auto H5TURBO_DEBUG=1 mpi_turbo $np "$TB_BENCH_CHAIN" read "$tmp" $files mpio $arg > turbo.out 2> turbo.err || rc=$?
  [ $rc -eq 0 ] || { cat turbo.out turbo.err; fail "auto, $read: failed under h5turbo (exit $rc)"; }
  got=$(grep '^result:' turbo.out) || true
  [ "$got" = "$want" ] || fail "auto, $read: h5turbo read '$got', stock '$want'"
  n=$(grep -c -F ": index built by rank 0 for the $np ranks opening it" turbo.err || true)
  expect=$((files - 1)); [ $read = frames ] && expect=0
  [ "$n" -eq $expect ] || { cat turbo.err; fail "auto, $read: rank 0 built $n indexes, expected $expect"; }
  n=$(grep -c -F "index_mpi_build=auto, and the program did not walk the last file the job closed (or closed none yet)" turbo.err || true)
  [ "$n" -eq $((files - expect)) ] || { cat turbo.err; fail "auto, $read: $n files without a build said why, expected $((files - expect))"; }
  echo "ok: index_mpi_build=auto, $read: $expect of $files indexes built by rank 0, $got"
done
