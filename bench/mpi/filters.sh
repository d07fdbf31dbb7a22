#!/usr/bin/env bash
# filters.sh [BUILD] — parallel HDF5's collective filtered writes and reads (coll_filter.c) with
# stock HDF5's filters and with h5turbo's engines in their place (installed when h5turbo opens an
# MPI-IO file): shuffle + DEFLATE at LEVELS (default "1 4"), with and without fletcher32, N ranks
# (RANKS, default 2), FRAMES per rank (default 32) of 256 x 512 uint16. Prints the slowest rank's
# write and read seconds (median of REPS, default 3, stock and h5turbo taking turns), the ratios
# and the stored bytes; the data read back must equal what was written, and the file h5turbo
# wrote must equal stock's under h5diff (serial stock HDF5: its zlib decoding h5turbo's streams).
# MPI_EXTRA: more mpiexec options (e.g. "--bind-to none", so that a rank may use more cores).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
prog=$build/bench/mpi/tb_bench_coll_filter
[ -x "$prog" ] || { echo "no $prog: build with a parallel HDF5 (scripts/setup-mpi)" >&2; exit 2; }
plugins=${PLUGINS:-$build/plugins}
h5diff=${H5DIFF:-$HOME/.cache/h5turbo/deps/hdf5-1.14.5/bin/h5diff}
levels=${LEVELS:-1 4}; ranks=${RANKS:-2}; frames=${FRAMES:-32}; reps=${REPS:-3}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mpi=(mpiexec --allow-run-as-root --oversubscribe --mca fbtl_posix_read_datasieving 0 --mca mpi_yield_when_idle 1 ${MPI_EXTRA:-})
unset HDF5_VOL_CONNECTOR HDF5_PLUGIN_PATH
export XDG_CACHE_HOME="$work/cache"
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
printf "%-6s %-5s %-4s | %8s %8s %6s | %8s %8s %6s | %11s %11s\n" ranks level f32 w.stock w.turbo ratio \
  r.stock r.turbo ratio bytes.stock bytes.turbo
for lvl in $levels; do
  for f32 in 0 1; do
    ws=() wt=() rs=() rt=() sum="" bs="" bt=""
    for i in $(seq 1 "$reps"); do
      for mode in stock turbo; do
        env=()
        [ "$mode" = stock ] || env=(HDF5_PLUGIN_PATH="$plugins" HDF5_VOL_CONNECTOR=h5turbo)
        read -r w r s b < <(env "${env[@]}" "${mpi[@]}" -n "$ranks" "$prog" "$work/$mode.h5" "$frames" "$lvl" "$f32")
        [ -z "$sum" ] || [ "$s" = "$sum" ] || { echo "checksums differ: $s vs $sum" >&2; exit 1; }
        sum=$s
        if [ "$mode" = stock ]; then ws+=("$w"); rs+=("$r"); bs=$b; else wt+=("$w"); rt+=("$r"); bt=$b; fi
      done
    done
    # The file h5turbo wrote, read by stock (serial) HDF5 beside stock's: the same data.
    "$h5diff" "$work/stock.h5" "$work/turbo.h5" || { echo "h5diff: the files differ" >&2; exit 1; }
    mw=$(echo "${ws[@]}" | median) mt=$(echo "${wt[@]}" | median)
    rw=$(echo "${rs[@]}" | median) rtt=$(echo "${rt[@]}" | median)
    printf "%-6s %-5s %-4s | %8.3f %8.3f %5.2fx | %8.3f %8.3f %5.2fx | %11s %11s\n" "$ranks" "$lvl" "$f32" \
      "$mw" "$mt" "$(awk "BEGIN{print $mw/$mt}")" "$rw" "$rtt" "$(awk "BEGIN{print $rw/$rtt}")" "$bs" "$bt"
  done
done
echo "(seconds: the slowest rank's, wall; x = stock / h5turbo; bytes = H5Dget_storage_size)"
