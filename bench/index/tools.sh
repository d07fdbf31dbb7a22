#!/usr/bin/env bash
# tools.sh [BUILD] [EXPERIMENTS] — HDF5's own command-line tools as loaders nobody in the project
# wrote: h5dump (-H, -A, whole), h5ls (-r, -rv), h5stat on a Mantid-like file (mantid_gen with
# NXlog units, 40 experiments by default), stock vs h5turbo's first open (no sidecar) and second
# open (the sidecar the first wrote). Median of REPS (5) runs with the modes taking turns, CPU
# seconds (user + system) of the whole process; outputs must equal stock's. INSTR_EXPS=N also
# counts instructions under callgrind on an N-experiment file (one run per mode; slow: h5dump of
# 10 experiments runs ~12 billion instructions). TOOLS="h5dump -H,h5ls -r" picks the commands.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
exps=${2:-40}
reps=${REPS:-5}
source "$build/h5turbo-env.sh"
unset HDF5_VOL_CONNECTOR HDF5_PLUGIN_PATH
plugins=$(grep -o 'HDF5_PLUGIN_PATH="[^"$]*' "$build/h5turbo-env.sh" | cut -d'"' -f2)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
IFS=, read -r -a tools <<< "${TOOLS:-h5dump -H,h5dump -A,h5dump,h5ls -r,h5ls -rv,h5stat}"

make_file() { # EXPERIMENTS -> path
  local f=$work/mantid_$1.h5
  if ! [ -f "$f" ]; then
    "$build/bench/index/mantid_gen" "$f" "$1" 500 --units
    sleep 2.1 # old enough to be persisted (no sidecar for a file changed within 2 s)
  fi
  echo "$f"
}
# run MODE FILE TOOL...: prints CPU seconds; the output goes to $work/out.MODE
run() {
  local mode=$1 f=$2
  shift 2
  local envs=(XDG_CACHE_HOME="$work/cache")
  case $mode in
    first) rm -rf "$work/cache"; envs+=(HDF5_PLUGIN_PATH="$plugins" HDF5_VOL_CONNECTOR=h5turbo H5TURBO_INDEX=persistent) ;;
    second) envs+=(HDF5_PLUGIN_PATH="$plugins" HDF5_VOL_CONNECTOR=h5turbo H5TURBO_INDEX=persistent) ;;
  esac
  env "${envs[@]}" /usr/bin/time -f "%U %S" -o "$work/time" "$@" "$f" > "$work/out.$mode" 2> "$work/err" ||
    { echo "$* ($mode) failed:" >&2; cat "$work/err" >&2; exit 1; }
  awk '{printf "%.3f", $1 + $2}' "$work/time"
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
ratio() { awk "BEGIN{ if ($2 > 0) printf \"%.2fx\", $1/$2; else print \"-\" }"; }

f=$(make_file "$exps")
echo "$exps experiments, median of $reps runs, modes taking turns; CPU seconds of the whole process"
printf "%-12s %8s %8s %8s | %7s %7s\n" tool stock first second "1st/stk" "2nd/stk"
for t in "${tools[@]}"; do
  declare -A times=()
  for i in $(seq 1 "$reps"); do
    for mode in stock first second; do
      # shellcheck disable=SC2086 # (the tool's words)
      times[$mode]="${times[$mode]:-} $(run "$mode" "$f" $t)"
    done
    cmp -s "$work/out.stock" "$work/out.first" && cmp -s "$work/out.stock" "$work/out.second" ||
      { echo "$t: output differs from stock's" >&2; exit 1; }
  done
  ts=$(echo ${times[stock]} | median) t1=$(echo ${times[first]} | median) t2=$(echo ${times[second]} | median)
  printf "%-12s %8.3f %8.3f %8.3f | %7s %7s\n" "$t" "$ts" "$t1" "$t2" "$(ratio "$ts" "$t1")" "$(ratio "$ts" "$t2")"
  unset times
done
if [ -n "${INSTR_EXPS:-}" ]; then
  f=$(make_file "$INSTR_EXPS")
  echo "callgrind instructions, $INSTR_EXPS experiments (one run per mode)"
  for t in "${tools[@]}"; do
    declare -A ir=()
    for mode in stock first second; do
      # shellcheck disable=SC2086
      run "$mode" "$f" valgrind --tool=callgrind --callgrind-out-file=/dev/null $t > /dev/null
      ir[$mode]=$(grep -o 'Collected : [0-9]*' "$work/err" | awk '{print $3}')
    done
    printf "%-12s stock %.1fM first %.1fM (%s) second %.1fM (%s)\n" "$t" "$(awk "BEGIN{print ${ir[stock]}/1e6}")" \
      "$(awk "BEGIN{print ${ir[first]}/1e6}")" "$(ratio "${ir[stock]}" "${ir[first]}")" \
      "$(awk "BEGIN{print ${ir[second]}/1e6}")" "$(ratio "${ir[stock]}" "${ir[second]}")"
    unset ir
  done
fi
