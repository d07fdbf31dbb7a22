#!/usr/bin/env bash
# run.sh [BUILD] [EXPERIMENTS...] — the link/object index benchmark in one run: Mantid-like files
# (10 and 40 experiments by default; 180 and 360 if asked) loaded by three loaders with stock
# HDF5, stock HDF5 with a large metadata cache, h5turbo on first open (no sidecar) and h5turbo on
# second open (sidecar), best of REPS runs each; prints times, ratios, malloc calls per load and
# the index's bytes per entry. CLOCK=cpu (default: process CPU time, steady on a shared machine)
# or CLOCK=wall.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
shift || true
exps=${*:-10 40}
reps=${REPS:-3}
clock=${CLOCK:-cpu}
build=$(cd "$build" && pwd)
gen=$build/bench/index/mantid_gen
load=$build/bench/index/mantid_load
pre=$build/bench/common/libh5t_malloc_count.so
export H5T_MALLOC_COUNT_OUT=/dev/null  # the loaders read the count themselves, around the load
source "$build/h5turbo-env.sh"
unset HDF5_VOL_CONNECTOR HDF5_PLUGIN_PATH
plugins=$(grep -o 'HDF5_PLUGIN_PATH="[^"$]*' "$build/h5turbo-env.sh" | cut -d'"' -f2)
work=${WORK:-$(mktemp -d)}
trap '[ -z "${WORK:-}" ] && rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"

# best TIME and its MALLOCS over $reps runs: run_best MODE FILE LOADER
run_best() {
  local mode=$1 f=$2 l=$3 best="" bm="" i out
  for i in $(seq 1 "$reps"); do
    case $mode in
      stock) out=$(LD_PRELOAD=$pre "$load" "$f" "$l") ;;
      bigcache) out=$(LD_PRELOAD=$pre "$load" "$f" "$l" bigcache) ;;
      first) rm -f "$(dirname "$f")/.$(basename "$f").h5turbo-index"
             out=$(LD_PRELOAD=$pre HDF5_PLUGIN_PATH=$plugins HDF5_VOL_CONNECTOR=h5turbo H5TURBO_INDEX=persistent "$load" "$f" "$l") ;;
      second) out=$(LD_PRELOAD=$pre HDF5_PLUGIN_PATH=$plugins HDF5_VOL_CONNECTOR=h5turbo H5TURBO_INDEX=persistent "$load" "$f" "$l") ;;
    esac
    set -- $out
    local t=$1
    [ "$clock" = wall ] || t=$2
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; bm=$3; fi
    echo "$4" >> "$work/checksums.$l.$(basename "$f")"
  done
  echo "$best $bm"
}

echo "best of $reps runs, $clock seconds from H5Fopen to H5Fclose"
printf "%-5s %-3s %9s %9s %9s %9s | %8s %8s %8s | %9s %9s %9s\n" exps ldr stock bigcache first second \
  "1st/stk" "2nd/stk" "big/stk" "mallocs" "m.first" "m.second"
for e in $exps; do
  f=$work/mantid_$e.h5
  [ -f "$f" ] || "$gen" "$f" "$e"
  touch -d '10 minutes ago' "$f" # old enough to be persisted
  for l in a b c; do
    rm -f "$work/checksums.$l.$(basename "$f")"
    read -r ts ms < <(run_best stock "$f" $l)
    read -r tb mb < <(run_best bigcache "$f" $l)
    read -r t1 m1 < <(run_best first "$f" $l)
    # the last first-open run left the sidecar the second opens use
    read -r t2 m2 < <(run_best second "$f" $l)
    n=$(sort -u "$work/checksums.$l.$(basename "$f")" | wc -l)
    [ "$n" -eq 1 ] || { echo "loader $l on $e experiments: results differ between runs" >&2; exit 1; }
    printf "%-5s %-3s %9.4f %9.4f %9.4f %9.4f | %7.2fx %7.2fx %7.2fx | %9s %9s %9s\n" "$e" "$l" "$ts" "$tb" "$t1" "$t2" \
      "$(awk "BEGIN{print $ts/$t1}")" "$(awk "BEGIN{print $ts/$t2}")" "$(awk "BEGIN{print $ts/$tb}")" "$ms" "$m1" "$m2"
  done
  sc="$work/.mantid_$e.h5.h5turbo-index"
  stats=$(HDF5_PLUGIN_PATH=$plugins HDF5_VOL_CONNECTOR=h5turbo H5TURBO_DEBUG=1 "$load" "$f" v 2>&1 >/dev/null | grep "released" || true)
  echo "      index of $e experiments: sidecar $(stat -c %s "$sc") bytes; $stats"
done
echo "(x = stock time / other time: above 1 is faster than stock. first = h5turbo with no sidecar, second = with"
echo " the sidecar the first open wrote. mallocs = malloc+calloc+realloc calls from H5Fopen to H5Fclose.)"

# Instruction counts (callgrind, whole process) on the smallest file: steady where timings on a
# shared machine are not. INSTR=0 skips it.
if [ "${INSTR:-1}" != 0 ] && command -v valgrind > /dev/null; then
  e=$(echo $exps | awk '{print $1}'); f=$work/mantid_$e.h5
  instr() { valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$@" 2>&1 >/dev/null | awk '/I *refs:/ {gsub(",", "", $NF); print $NF}'; }
  echo
  echo "instructions (callgrind), $e experiments:"
  printf "%-3s %14s %14s %14s | %8s %8s\n" ldr stock first second "1st/stk" "2nd/stk"
  for l in a b c; do
    is=$(instr "$load" "$f" $l)
    rm -f "$work/.mantid_$e.h5.h5turbo-index"
    i1=$(HDF5_PLUGIN_PATH=$plugins HDF5_VOL_CONNECTOR=h5turbo H5TURBO_INDEX=persistent instr "$load" "$f" $l)
    i2=$(HDF5_PLUGIN_PATH=$plugins HDF5_VOL_CONNECTOR=h5turbo H5TURBO_INDEX=persistent instr "$load" "$f" $l)
    printf "%-3s %14s %14s %14s | %7.2fx %7.2fx\n" $l "$is" "$i1" "$i2" "$(awk "BEGIN{print $is/$i1}")" "$(awk "BEGIN{print $is/$i2}")"
  done
fi
