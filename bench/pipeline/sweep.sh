#!/usr/bin/env bash
# sweep.sh [BUILD_DIR] [NFRAMES] — the chunk pipeline's thread sweep on the processing-step cases,
# for a machine with more cores than the 2-core development VM: stock once and h5turbo at each
# H5TURBO_THREADS of SWEEP_THREADS (default 1 2 4 8 ... up to the CPUs), medians of XREPEAT
# interleaved rounds (default 3), data checked against stock; then the projection run.sh makes from
# one thread's serial fraction, at the largest thread count, beside the speedup measured there.
# SWEEP_THREADS must start with 1 (the speedups are over one thread); SWEEP_CASES picks cases.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
nframes=${2:-1600}
xrepeat=${XREPEAT:-3}
# shellcheck source=bench/pipeline/lib.sh
. "$here/lib.sh" "${1:-$here/../../build-pipe}"
if [ -n "${SWEEP_THREADS:-}" ]; then threads=$SWEEP_THREADS; else
  threads=$(n=1; while [ "$n" -lt "$ncpu" ]; do echo "$n"; n=$((n * 2)); done; echo "$ncpu")
fi
threads=$(echo $threads) # one line
top=${threads##* }
cases=${SWEEP_CASES:-w32 wf32 r32 u32 f32 roi stride4 points mods modsw}

echo "thread sweep: $nframes AGIPD-like frames (shuffle+deflate(1)+fletcher32, a chunk per frame);"
echo "$ncpu CPUs ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')); threads: $threads; medians of $xrepeat rounds"
prepare_inputs
# h5turbo must be active (its plugins load, the pipeline takes the read) before anything is timed.
check=$(turbo env H5TURBO_STATS=1 "$bin" read "$work/s32.h5" 32 2>&1) || true
case $check in *chunks_read=[1-9]*) ;; *) echo "FAIL: h5turbo's pipeline did not run:"; echo "$check" | tail -5; exit 1 ;; esac
for _ in $(seq "$xrepeat"); do
  for c in $cases; do
    # shellcheck disable=SC2046
    case_all "s_$c" stock $(xcmd "$c" s)
    for n in $threads; do
      # shellcheck disable=SC2046
      case_all "t${n}_$c" turbo env H5TURBO_THREADS="$n" $(xcmd "$c" t)
    done
  done
done
for c in $cases; do
  case $c in
    w32 | wf32 | modsw)
      f=$(xcmd "$c" t | cut -d' ' -f3) # the file the last h5turbo round wrote
      stock "$hdf5_bin/h5diff" "${f/xt-/xs-}" "$f" > /dev/null || { echo "FAIL: h5turbo's file differs ($c)"; exit 1; } ;;
    *) for n in $threads; do
         [ "$(field "s_$c" sum)" = "$(field "t${n}_$c" sum)" ] || { echo "FAIL: h5turbo read different data ($c)"; exit 1; }
       done ;;
  esac
done

echo
echo "seconds (stock, then h5turbo at each thread count):"
printf '%-44s %8s' "case" "stock"; for n in $threads; do printf ' %8s' "$n"; done; echo
for c in $cases; do
  printf '%-44s %8s' "$(xlabel "$c")" "$(median "s_$c")"
  for n in $threads; do printf ' %8s' "$(median "t${n}_$c")"; done; echo
done
echo
echo "speedup over h5turbo at 1 thread (and over stock at $top threads):"
printf '%-44s' "case"; for n in $threads; do printf ' %7s' "x@$n"; done; printf ' %10s\n' "vs stock"
for c in $cases; do
  one=$(median "t1_$c")
  printf '%-44s' "$(xlabel "$c")"
  for n in $threads; do printf ' %6sx' "$(ratio "$one" "$(median "t${n}_$c")")"; done
  printf ' %9sx\n' "$(ratio "$(median "s_$c")" "$(median "t${top}_$c")")"
done
echo
echo "projection from one thread's serial fraction (lib.sh), to compare with the measured x@$top:"
serial_header "$top" 64
for c in $cases; do serial_row "$c" "$top" 64; done
