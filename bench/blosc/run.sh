#!/usr/bin/env bash
# bench/blosc/run.sh — h5turbo's Blosc filter (1 thread and all threads), the hdf5-blosc
# reference (one thread) and stock DEFLATE level 1 + shuffle, in one run, on AGIPD-like frames
# (chunk = 1 frame and 32 frames) and a float32 image stack. Prints MB/s, compression ratios and
# the speed ratios against the reference and against DEFLATE. Takes about a minute on 2 cores.
#   bench/blosc/run.sh [BUILD_DIR] [CODEC...]     codecs as cname:clevel:shuffle (default lz4:5:1 zstd:3:1)
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build}; shift || true
codecs=("$@"); [ ${#codecs[@]} -gt 0 ] || codecs=(lz4:5:1 zstd:3:1)
DEPS=${H5TURBO_DEPS_DIR:-$HOME/.cache/h5turbo/deps}
bench=$build/bench/blosc/tb_bench_blosc
ours=$build/plugins-blosc-only
ref=$DEPS/hdf5-blosc-ref/plugin
[ -x "$bench" ] || { echo "build first: $bench missing" >&2; exit 1; }
[ -f "$ref/libH5Zblosc_ref.so" ] || { echo "reference plugin missing: run scripts/setup" >&2; exit 1; }
all=$(nproc)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
unset HDF5_VOL_CONNECTOR BLOSC_NTHREADS

# run ENV... -- ARGS: one line "write_MBps read_MBps ratio cpu/wall(write) cpu/wall(read)",
# the better of 2 processes (each already the best of 3 repetitions).
run() {
  local envs=() best="" line
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
  for i in 1 2; do
    line=$(env "${envs[@]}" "$bench" "$@" "$tmp/b.h5")
    best=$(printf '%s\n%s\n' "$best" "$line" | awk 'NF==5 { if ($1+$2 > bw+br) { bw=$1; br=$2; r=$3; cw=$4; cr=$5 } }
      END { printf "%.1f %.1f %.3f %.2f %.2f", bw, br, r, cw, cr }')
  done
  echo "$best"
}

hdr='%-8s %-9s %-13s %8s %8s %6s %9s   %6s %6s   %7s %7s\n'
printf "$hdr" workload codec setup write read ratio "cpu/wall" "w/ref" "r/ref" "w/defl" "r/defl"
printf "$hdr" "" "" "" "MB/s" "MB/s" "" "(w,r)" "" "" "" ""
for w in agipd1 agipd32 float; do
  defl=$(run -u HDF5_PLUGIN_PATH -- "$w" deflate:1)
  for c in "${codecs[@]}"; do
    r=$(run HDF5_PLUGIN_PATH="$ref" -- "$w" "blosc:$c")
    o1=$(run HDF5_PLUGIN_PATH="$ours" H5TURBO_THREADS=1 -- "$w" "blosc:$c")
    on=$(run HDF5_PLUGIN_PATH="$ours" H5TURBO_THREADS="$all" -- "$w" "blosc:$c")
    for pair in "hdf5-blosc 1t|$r" "h5turbo 1t|$o1" "h5turbo ${all}t|$on"; do
      name=${pair%%|*}; vals=${pair#*|}
      # fields: 1 workload 2 codec 3-4 setup, 5-9 this run, 10-14 reference, 15-19 deflate
      echo "$w ${c%%:*} $name $vals $r $defl" | awk '{
        printf "%-8s %-9s %-13s %8.1f %8.1f %6.2f %4.1f,%-4.1f   %6.2f %6.2f   %7.2f %7.2f\n",
          $1, $2, $3" "$4, $5, $6, $7, $8, $9, $5/$10, $6/$11, $5/$15, $6/$16 }'
    done
  done
  echo "$defl" | awk -v w="$w" '{ printf "%-8s %-9s %-13s %8.1f %8.1f %6.2f %4.1f,%-4.1f   %6s %6s   %7.2f %7.2f\n",
    w, "deflate1", "stock+shuf", $1, $2, $3, $4, $5, "", "", 1, 1 }'
done
echo "ratio: raw/stored bytes. cpu/wall: CPU seconds of all threads per wall second (>1: threads ran in"
echo "parallel). w/ref, r/ref: write/read speed over hdf5-blosc's; w/defl, r/defl: over DEFLATE 1 + shuffle."
echo "$all CPUs; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
