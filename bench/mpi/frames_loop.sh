#!/usr/bin/env bash
# frames_loop.sh [BUILD] [FILES] — issue #16's many-files-little-each pattern in one process
# (frames_loop.c): stock HDF5, h5turbo's first run (empty cache), second run and index off, taking
# turns REPS times (default 11); medians of the loop's wall seconds and stock/h5turbo ratios. Every
# run's checksum must equal stock's. PLUGINS=<folder> measures another build of the connector;
# BASE=<folder> measures a second one too, the two taking turns with stock (rows "base").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
m=${2:-256}
reps=${REPS:-11}
loop=$build/bench/mpi/tb_bench_frames_loop
plugins=${PLUGINS:-$build/plugins}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/d"
"$loop" gen "$work/d" "$m" > /dev/null
sleep 2.1 # (old enough to be persisted: no sidecar for a file changed within 2 s)
run() { # MODE [PLUGINS]: prints seconds, checks the sum
  local out
  case $1 in
    stock) out=$("$loop" read "$work/d" "$m") ;;
    *) out=$(env XDG_CACHE_HOME="$work/cache${2:+.base}" HDF5_PLUGIN_PATH="${2:-$plugins}" HDF5_VOL_CONNECTOR=h5turbo \
      H5TURBO_INDEX="$([ "$1" = off ] && echo off || echo persistent)" "$loop" read "$work/d" "$m") ;;
  esac
  set -- $out
  [ "$2" = "$want" ] || { echo "checksum $2 differs from stock's $want" >&2; exit 1; }
  echo "$1"
}
declare -A T
want=$(set -- $("$loop" read "$work/d" "$m"); echo "$2")
for i in $(seq "$reps"); do
  T[stock]+="$(run stock) "
  rm -rf "$work/cache"
  T[first]+="$(run first) "
  T[second]+="$(run second) "
  T[off]+="$(run off) "
  if [ -n "${BASE:-}" ]; then
    rm -rf "$work/cache.base"
    for mode in first second off; do T[base.$mode]+="$(run $mode "$BASE") "; done
  fi
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
s=$(echo "${T[stock]}" | median)
echo "$m files, read 32 frames of /particles/all/position/value each; medians of $reps, wall seconds"
for mode in stock first second off ${BASE:+base.first base.second base.off}; do
  x=$(echo "${T[$mode]}" | median)
  printf "%-12s %9.4f %6.1f us/file %6sx\n" "$mode" "$x" "$(awk "BEGIN{print $x * 1e6 / $m}")" \
    "$(awk "BEGIN{printf \"%.2f\", $s / $x}")"
done
echo "(x = stock seconds / h5turbo seconds: above 1 is faster than stock; first = empty cache,"
echo " second = the sidecars the first run wrote; off = H5TURBO_INDEX=off, the connector alone)"
