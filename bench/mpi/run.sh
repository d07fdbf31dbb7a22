#!/usr/bin/env bash
# run.sh [BUILD] — the ChainReader benchmark of issue #16 in one run: M H5MD-like files (FILES,
# default "16 32"), N ranks (RANKS, default "2 4 8", oversubscribed beyond the cores) each opening
# all M, walking them, reading the step/time/observable datasets and its own frames, with the sec2,
# MPI-IO and MPI-IO + collective-metadata drivers (DRIVERS); stock HDF5, h5turbo's first run (no
# sidecar: with MPI-IO rank 0 builds each file's index and broadcasts it, with sec2 every rank
# builds its own) and its second run (sidecars). Prints the slowest rank's
# seconds (median of REPS, default 3, modes taking turns), ratios, and the reads of the first file
# per rank (bench/common's io_count: metadata and the rank's own frames). Results of every run
# must equal stock's (objects, attributes, data checksum), else the script fails.
# Environment: FRAMES (64), ATOMS (1000), WORK=<folder> (keep the files), PLUGINS=<folder>,
# TURBO_ENV="VAR=value ..." (h5turbo's options for its runs, e.g. H5TURBO_INDEX_MPI_BUILD=0),
# READ=frames (each rank reads only its frames: no walk, no small datasets),
# CREATE_US=<microseconds>: every file created in the sidecar cache folder takes that long first
# (bench/common's slow_create, as a cache folder on a network file system would), in every mode.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
chain=$build/bench/mpi/tb_bench_chain
iocount=$build/bench/common/libtb_io_count.so
preload=$iocount
[ -z "${CREATE_US:-}" ] || preload=$iocount:$build/bench/common/libtb_slow_create.so
[ -x "$chain" ] || { echo "no $chain: build with a parallel HDF5 (scripts/setup-mpi)" >&2; exit 2; }
plugins=${PLUGINS:-$build/plugins}
files_list=${FILES:-16 32}; ranks_list=${RANKS:-2 4 8}; drivers=${DRIVERS:-sec2 mpio mpio-collmd}
reps=${REPS:-3}; frames=${FRAMES:-64}; atoms=${ATOMS:-1000}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
trap '[ -z "${WORK:-}" ] && rm -rf "$work"' EXIT
mpi=(mpiexec --allow-run-as-root --oversubscribe --mca fbtl_posix_read_datasieving 0 --mca mpi_yield_when_idle 1)
unset HDF5_VOL_CONNECTOR HDF5_PLUGIN_PATH

# one MODE N M DRIVER — one read; prints "SLOWEST READS RESULT-LINE".
one() {
  local mode=$1 n=$2 m=$3 drv=$4 out; out=$(mktemp)
  local env=(TB_IO_COUNT_FILE="$work/m$m/traj-000.h5md" TB_IO_COUNT_OUT="$out.io"
             TB_SLOW_CREATE_DIR="$work/cache" TB_SLOW_CREATE_US="${CREATE_US:-}")
  case $mode in
    stock) ;;
    first) rm -rf "$work/cache"; env+=(HDF5_PLUGIN_PATH="$plugins" HDF5_VOL_CONNECTOR=h5turbo ${TURBO_ENV:-}) ;;
    second) env+=(HDF5_PLUGIN_PATH="$plugins" HDF5_VOL_CONNECTOR=h5turbo ${TURBO_ENV:-}) ;;
  esac
  env XDG_CACHE_HOME="$work/cache" "${env[@]}" "${mpi[@]}" -n "$n" env LD_PRELOAD="$preload" \
    "$chain" read "$work/m$m" "$m" "$drv" ${READ:-} > "$out" 2> "$out.err" || { cat "$out" "$out.err" >&2; exit 1; }
  local res; res=$(grep '^result:' "$out")
  local reads; reads=$(awk '/^io_count:/ { for (i = 1; i <= NF; i++) if ($i ~ /^data_reads=/) { split($i, a, "="); s += a[2]; n++ } }
                            END { printf "%.0f", n ? s / n : -1 }' "$out.io" 2>/dev/null || echo -1)
  echo "$(sed -n 's/^time: slowest=\([0-9.]*\).*/\1/p' "$out") $reads $res"
  rm -f "$out" "$out.err" "$out.io"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

printf '%-6s %-5s %-12s %10s %10s %10s %8s %8s   %s\n' ranks files driver stock_s first_s second_s first_x second_x "reads of file 0 per rank: stock/first/second"
for m in $files_list; do
  if [ ! -f "$work/m$m/traj-$(printf %03d $((m - 1))).h5md" ]; then
    mkdir -p "$work/m$m"
    "${mpi[@]}" -n 1 "$chain" gen "$work/m$m" "$m" "$frames" "$atoms" > /dev/null
    sleep 2.1 # h5turbo neither trusts nor writes sidecars of files changed in the last 2 s
  fi
  for n in $ranks_list; do
    for drv in $drivers; do
      declare -A t=() r=()
      for ((rep = 0; rep < reps; rep++)); do
        for mode in stock first second; do
          read -r s rd res < <(one $mode "$n" "$m" "$drv")
          [ -n "$res" ] || { echo "FAIL: $mode, $n ranks, $m files, $drv: no result" >&2; exit 1; }
          [ "$mode" = stock ] && want=$res
          [ "$res" = "$want" ] || { echo "MISMATCH: $mode, $n ranks, $m files, $drv: $res; stock: $want" >&2; exit 1; }
          t[$mode]+="$s "; r[$mode]=$rd
        done
      done
      st=$(echo ${t[stock]} | tr ' ' '\n' | median); fi_=$(echo ${t[first]} | tr ' ' '\n' | median)
      se=$(echo ${t[second]} | tr ' ' '\n' | median)
      printf '%-6s %-5s %-12s %10.3f %10.3f %10.3f %7.2fx %7.2fx   %s/%s/%s\n' "$n" "$m" "$drv" "$st" "$fi_" "$se" \
        "$(echo "$st / $fi_" | bc -l)" "$(echo "$st / $se" | bc -l)" "${r[stock]}" "${r[first]}" "${r[second]}"
      unset t r
    done
  done
done
