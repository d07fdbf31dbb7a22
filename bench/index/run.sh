#!/usr/bin/env bash
# run.sh [BUILD] [EXPERIMENTS...] — the link/object index benchmark in one run: Mantid-like files
# (10 and 40 experiments by default; 180 and 360 if asked) loaded by three loaders with stock
# HDF5, stock HDF5 with a large metadata cache, h5turbo on first open (no sidecar) and h5turbo on
# second open (sidecar), median of REPS (5) runs with the modes taking turns; prints times,
# ratios, malloc calls per load and the index's bytes per entry. CLOCK=cpu (default: process CPU
# time, steadier on a shared machine) or CLOCK=wall.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
shift || true
exps=${*:-10 40}
reps=${REPS:-5}
clock=${CLOCK:-cpu}
build=$(cd "$build" && pwd)
gen=$build/bench/index/mantid_gen
load=$build/bench/index/mantid_load
pre=$build/bench/common/libtb_malloc_count.so
export TB_MALLOC_COUNT_OUT=/dev/null  # the loaders read the count themselves, around the load
source "$build/h5turbo-env.sh"
unset HDF5_VOL_CONNECTOR HDF5_PLUGIN_PATH
plugins=$(grep -o 'HDF5_PLUGIN_PATH="[^"$]*' "$build/h5turbo-env.sh" | cut -d'"' -f2)
work=${WORK:-$(mktemp -d)}
trap '[ -z "${WORK:-}" ] && rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"

# one run of LOADER on FILE in MODE: prints TIME MALLOCS CHECKSUM. The second open of loader b
# also leaves the index's own account of itself (H5TURBO_DEBUG) in $work/stats.
one_run() {
  local mode=$1 f=$2 l=$3 out
  case $mode in
    stock) out=$(LD_PRELOAD=$pre "$load" "$f" "$l") ;;
    bigcache) out=$(LD_PRELOAD=$pre "$load" "$f" "$l" bigcache) ;;
    first) rm -f "$XDG_CACHE_HOME"/h5turbo/*.h5turbo-index
           out=$(LD_PRELOAD=$pre HDF5_PLUGIN_PATH=$plugins HDF5_VOL_CONNECTOR=h5turbo H5TURBO_INDEX=persistent "$load" "$f" "$l") ;;
    second) out=$(LD_PRELOAD=$pre HDF5_PLUGIN_PATH=$plugins HDF5_VOL_CONNECTOR=h5turbo H5TURBO_INDEX=persistent \
                  H5TURBO_DEBUG=$([ "$l" = b ] && echo 1 || echo 0) "$load" "$f" "$l" 2> "$work/err")
            [ "$l" != b ] || grep "released" "$work/err" > "$work/stats" || true ;;
  esac
  set -- $out
  local t=$1
  [ "$clock" = wall ] || t=$2
  echo "$t $3 $4"
}

echo "median of $reps runs (modes taking turns), $clock seconds from H5Fopen to H5Fclose"
printf "%-5s %-3s %9s %9s %9s %9s | %8s %8s %8s | %9s %9s %9s\n" exps ldr stock bigcache first second \
  "1st/stk" "2nd/stk" "big/stk" "mallocs" "m.first" "m.second"
for e in $exps; do
  f=$work/mantid_$e.h5
  [ -f "$f" ] || "$gen" "$f" "$e"
  sleep 2.1 # old enough to be persisted (no sidecar for a file changed within 2 s)
  for l in a b c; do
    rm -f "$work/checksums.$l.$(basename "$f")"
    # The modes take turns in every repetition (a slow spell of the machine hits all of them);
    # each first open leaves the sidecar the second open after it uses. Median of $reps each.
    declare -A times=() best=() bm=()
    for i in $(seq 1 "$reps"); do
      for mode in stock bigcache first second; do
        read -r t m c < <(one_run $mode "$f" $l)
        echo "$c" >> "$work/checksums.$l.$(basename "$f")"
        times[$mode]="${times[$mode]:-} $t"
        bm[$mode]=$m # (malloc counts do not vary between runs)
      done
    done
    for mode in stock bigcache first second; do
      best[$mode]=$(echo ${times[$mode]} | tr ' ' '\n' | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}')
    done
    ts=${best[stock]} ms=${bm[stock]} tb=${best[bigcache]} t1=${best[first]} m1=${bm[first]}
    t2=${best[second]} m2=${bm[second]}
    n=$(sort -u "$work/checksums.$l.$(basename "$f")" | wc -l)
    [ "$n" -eq 1 ] || { echo "loader $l on $e experiments: results differ between runs" >&2; exit 1; }
    printf "%-5s %-3s %9.4f %9.4f %9.4f %9.4f | %7.2fx %7.2fx %7.2fx | %9s %9s %9s\n" "$e" "$l" "$ts" "$tb" "$t1" "$t2" \
      "$(awk "BEGIN{print $ts/$t1}")" "$(awk "BEGIN{print $ts/$t2}")" "$(awk "BEGIN{print $ts/$tb}")" "$ms" "$m1" "$m2"
  done
  echo "      index after loader b, $e experiments: $(sed 's/.*: answered/answered/' "$work/stats")"
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
    rm -f "$XDG_CACHE_HOME"/h5turbo/*.h5turbo-index
    i1=$(HDF5_PLUGIN_PATH=$plugins HDF5_VOL_CONNECTOR=h5turbo H5TURBO_INDEX=persistent instr "$load" "$f" $l)
    i2=$(HDF5_PLUGIN_PATH=$plugins HDF5_VOL_CONNECTOR=h5turbo H5TURBO_INDEX=persistent instr "$load" "$f" $l)
    printf "%-3s %14s %14s %14s | %7.2fx %7.2fx\n" $l "$is" "$i1" "$i2" "$(awk "BEGIN{print $is/$i1}")" "$(awk "BEGIN{print $is/$i2}")"
  done
fi
