#!/usr/bin/env bash
# check.sh — bench/mpi's correctness check (CTest mpi.bench_chain_check): a small chain (3 H5MD-like
# files) read on 2 ranks with sec2, MPI-IO and MPI-IO with collective metadata, stock and under
# h5turbo on a first (no sidecar) and a second run: what every run read (objects, attributes, a
# checksum of the data) must equal stock's; with sec2 and MPI-IO (independent metadata reads) the
# second run must answer from sidecars on every rank; with collective metadata reads the first run
# goes without the index (H5TURBO_DEBUG says why, nothing is published), and after `h5turbo index
# build` of the files the second run answers from their sidecars on every rank, its metadata reads
# made independent; no rank may hang.
source "$(dirname "$0")/../../tests/mpi/mpi_lib.sh"
: "${TB_BENCH_CHAIN:?}"
np=2; files=3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache" TB_MPI_TIMEOUT=${TB_MPI_TIMEOUT:-60}
mpi_stock 1 "$TB_BENCH_CHAIN" gen "$tmp" $files 8 100 > /dev/null || fail "gen failed"
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
    if [ $run = second ]; then
      n=$(grep -c "sidecars loaded=$files" "$tmp/stats.$run" || true)
      [ "$n" -eq $np ] || { cat "$tmp/stats.$run"; fail "$drv second run: $n of $np ranks loaded all $files sidecars"; }
    fi
    if [ $drv = mpio-collmd ]; then
      if [ $run = first ]; then said='index off (the file driver does MPI I/O, metadata reads are collective, and rank 0 found no sidecar'
      else said='metadata reads made independent on every rank'; fi
      n=$(grep -c -F "$said" turbo.err || true)
      [ "$n" -eq $((np * files)) ] || { cat turbo.err; fail "$drv, $run run: '$said' said $n times, expected $((np * files))"; }
      if [ $run = first ]; then
        [ -z "$(find "$XDG_CACHE_HOME" -name '*.h5turbo-index')" ] || fail "$drv, first run: a sidecar was published with the index off"
        "$TB_BUILD/bin/h5turbo" index build "$tmp"/traj-*.h5md > /dev/null || fail "h5turbo index build failed"
      fi
    fi
    rm -f "$tmp/stats.$run"
    echo "ok: $drv, $run run: $got"
  done
done
