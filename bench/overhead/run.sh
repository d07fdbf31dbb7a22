#!/usr/bin/env bash
# run.sh [BUILD_DIR] — per-call overhead of h5turbo on 100,000 small objects (get-info, open and
# close each), stock HDF5 vs h5turbo (index off: the bare pass-through; and default settings), in
# one run, interleaved repetitions; plus malloc calls counted with an LD_PRELOAD counter.
set -euo pipefail
build=$(cd "${1:-$(dirname "$0")/../../build}" && pwd)
reps=${REPS:-5}; ngroups=${NGROUPS:-1000}; per=${PER:-99}
bin="$build/bench/overhead/tb_meta_bench"
mc="$build/bench/common/libtb_malloc_count.so"
source "$build/h5turbo-env.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
env -u HDF5_VOL_CONNECTOR "$bin" gen "$tmp/meta.h5" "$ngroups" "$per"
nobj=$((ngroups * (per + 1)))
declare -A times
modes=(stock "h5turbo index=off" "h5turbo")
run_mode() { # mode -> seconds
  case "$1" in
    stock) env -u HDF5_VOL_CONNECTOR "$bin" walk "$tmp/meta.h5" "$ngroups" "$per" ;;
    "h5turbo index=off") HDF5_VOL_CONNECTOR="h5turbo under_vol=0;under_info={};index=off" "$bin" walk "$tmp/meta.h5" "$ngroups" "$per" ;;
    h5turbo) HDF5_VOL_CONNECTOR="h5turbo" "$bin" walk "$tmp/meta.h5" "$ngroups" "$per" ;;
  esac | cut -d' ' -f1
}
for r in $(seq "$reps"); do
  for m in "${modes[@]}"; do times[$m]+="$(run_mode "$m") "; done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mallocs() { # mode, n_groups -> malloc count of one walk
  local m=$1 g=$2 out="$tmp/mc.$RANDOM"
  case "$m" in
    stock) env -u HDF5_VOL_CONNECTOR TB_MALLOC_COUNT_OUT="$out" LD_PRELOAD="$mc" "$bin" walk "$tmp/meta.h5" "$g" "$per" >/dev/null ;;
    "h5turbo index=off") HDF5_VOL_CONNECTOR="h5turbo under_vol=0;under_info={};index=off" TB_MALLOC_COUNT_OUT="$out" LD_PRELOAD="$mc" "$bin" walk "$tmp/meta.h5" "$g" "$per" >/dev/null ;;
    h5turbo) HDF5_VOL_CONNECTOR="h5turbo" TB_MALLOC_COUNT_OUT="$out" LD_PRELOAD="$mc" "$bin" walk "$tmp/meta.h5" "$g" "$per" >/dev/null ;;
  esac
  cut -d' ' -f2 "$out"
}
ts=$(echo "${times[stock]}" | median)
printf '\nPer-call overhead: %d objects, get-info + open + close each; median of %d interleaved runs\n\n' "$nobj" "$reps"
printf '| mode | median s | us/object | ratio vs stock | mallocs (full walk) | extra mallocs/object vs stock (warm) |\n|---|---|---|---|---|---|\n'
half=$((ngroups / 2))
ms_full=$(mallocs stock "$ngroups"); ms_half=$(mallocs stock "$half")
for m in "${modes[@]}"; do
  t=$(echo "${times[$m]}" | median)
  full=$(mallocs "$m" "$ngroups"); hf=$(mallocs "$m" "$half")
  # Warm per-object cost: difference between the full walk and the half walk, so start-up
  # allocations (library init, plugin loading) cancel out; then compared with stock's.
  extra=$(awk -v a="$full" -v b="$hf" -v sa="$ms_full" -v sb="$ms_half" -v n="$(( (ngroups-half)*(per+1) ))" \
    'BEGIN{printf "%.3f", ((a-b)-(sa-sb))/n}')
  printf '| %s | %.3f | %.2f | %.3f | %s | %s |\n' "$m" "$t" "$(awk -v t="$t" -v n="$nobj" 'BEGIN{print t/n*1e6}')" \
    "$(awk -v t="$t" -v s="$ts" 'BEGIN{print t/s}')" "$full" "$extra"
done

# Instruction counts (valgrind's callgrind) do not depend on what else the machine is doing:
# the steadier measure of the connector's cost. CALLGRIND=0 skips it.
if [ "${CALLGRIND:-1}" != 0 ] && command -v valgrind > /dev/null; then
  cg_groups=$(( ngroups < 100 ? ngroups : 100 ))
  instr() { # mode -> instructions of one walk of cg_groups groups
    local out="$tmp/cg.$RANDOM"
    case "$1" in
      stock) env -u HDF5_VOL_CONNECTOR valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" walk "$tmp/meta.h5" "$cg_groups" "$per" ;;
      "h5turbo index=off") HDF5_VOL_CONNECTOR="h5turbo under_vol=0;under_info={};index=off" valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" walk "$tmp/meta.h5" "$cg_groups" "$per" ;;
      h5turbo) HDF5_VOL_CONNECTOR="h5turbo" valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" walk "$tmp/meta.h5" "$cg_groups" "$per" ;;
    esac 2>&1 >/dev/null | awk '/I *refs:/ {gsub(",", "", $NF); print $NF}'
  }
  is=$(instr stock)
  printf '\nInstructions (callgrind), walk of %d objects, process start to exit:\n\n| mode | instructions | ratio vs stock |\n|---|---|---|\n' "$(( cg_groups * (per + 1) ))"
  for m in "${modes[@]}"; do
    i=$(instr "$m")
    printf '| %s | %s | %.3f |\n' "$m" "$i" "$(awk -v a="$i" -v b="$is" 'BEGIN{print a/b}')"
  done
fi
