#!/usr/bin/env bash
# run.sh [BUILD_DIR] [NFRAMES] — AGIPD-like benchmark of the chunk pipeline, all in one run:
# stock HDF5, h5turbo, and the hand-written XFEL-style reference (thread pool + zlib level 1 +
# H5Dwrite_chunk, no fletcher32); writes in blocks of 32 frames and frame by frame, reads, a
# thread sweep, and the compressed-size guard. The issue's workload is 4,000 frames; the default
# here is 800 so that a run stays under two minutes on a 2-core machine (pass 4000 for the full one).
# Each timing is the best of REPEAT interleaved rounds (default 3). Files go to $TMPDIR (page cache).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build-pipe}
build=$(cd "$build" && pwd)
nframes=${2:-800}
repeat=${REPEAT:-3}
bin=$build/bench/pipeline/tb_bench_agipd
plugins=$build/plugins
# The HDF5 tools' folder: the entry of h5turbo-env.sh's PATH that holds h5diff.
hdf5_bin=$(sed -n 's/^export PATH="\([^"]*\)".*/\1/p' "$build/h5turbo-env.sh" | tr ':' '\n' |
  while read -r d; do [ -x "$d/h5diff" ] && { echo "$d"; break; }; done)
ncpu=$(nproc)
work=$(mktemp -d "${TMPDIR:-/tmp}/tb_bench_pipe.XXXXXX"); trap 'rm -rf "$work"' EXIT
# Reads under h5turbo write sidecars of these temporary files: into the run's own cache, not the user's.
export XDG_CACHE_HOME="$work/cache"

stock() { env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH "$@"; }
turbo() { env HDF5_PLUGIN_PATH="$plugins" HDF5_VOL_CONNECTOR=h5turbo "$@"; }
# Every case runs once per round, REPEAT rounds, interleaved so that load from other processes
# hits all cases alike; each case keeps its best (smallest) time. case NAME CMD... records
# seconds into $work/NAME.t (minimum) and the output line into $work/NAME.out.
case_run() {
  local name=$1; shift
  local line s
  line=$("$@")
  echo "$line" > "$work/$name.out"
  s=${line#seconds=}; s=${s%% *}
  if [ ! -s "$work/$name.t" ] || awk "BEGIN{exit !($s < $(cat "$work/$name.t"))}"; then echo "$s" > "$work/$name.t"; fi
}
t() { cat "$work/$1.t"; }
field() { tr ' ' '\n' < "$work/$1.out" | sed -n "s/^$2=//p"; }
ratio() { awk "BEGIN{printf \"%.2f\", $1 / $2}"; }

echo "AGIPD-like: $nframes frames of 512x128, gain uint8 + mask uint32, shuffle+deflate(1)+fletcher32,"
echo "one chunk per frame; $ncpu CPUs; best of $repeat; files in $work"
echo

for _ in $(seq "$repeat"); do
  case_run sw32 stock "$bin" write "$work/s32.h5" "$nframes" 32
  case_run tw32 turbo "$bin" write "$work/t32.h5" "$nframes" 32
  case_run rw32 stock "$bin" ref "$work/r32.h5" "$nframes" 32 "$ncpu"
  case_run sw1 stock "$bin" write "$work/s1.h5" "$nframes" 1
  case_run tw1 turbo "$bin" write "$work/t1.h5" "$nframes" 1
  case_run rw1 stock "$bin" ref "$work/r1.h5" "$nframes" 1 "$ncpu"
  case_run tw32b turbo env H5TURBO_WRITE_BEHIND=1 "$bin" write "$work/t32b.h5" "$nframes" 32
  case_run tw1b turbo env H5TURBO_WRITE_BEHIND=1 "$bin" write "$work/t1b.h5" "$nframes" 1
  # Reads of the stock-written file (what users have), both ways, blocks and frames.
  case_run sr32 stock "$bin" read "$work/s32.h5" 32
  case_run tr32 turbo "$bin" read "$work/s32.h5" 32
  case_run sr1 stock "$bin" read "$work/s32.h5" 1
  case_run tr1 turbo "$bin" read "$work/s32.h5" 1
done
sw32=$(t sw32) tw32=$(t tw32) rw32=$(t rw32) sw1=$(t sw1) tw1=$(t tw1) rw1=$(t rw1) tw32b=$(t tw32b) tw1b=$(t tw1b)
sr32=$(t sr32) tr32=$(t tr32) sr1=$(t sr1) tr1=$(t tr1)
s_bytes=$(field sw32 bytes) t_bytes=$(field tw32 bytes) r_bytes=$(field rw32 bytes)
[ "$(field sr32 sum)" = "$(field tr32 sum)" ] || { echo "FAIL: h5turbo read different data"; exit 1; }
for f in t32 t1 t32b t1b; do
  stock "$hdf5_bin/h5diff" "$work/s32.h5" "$work/$f.h5" >/dev/null || { echo "FAIL: h5turbo file $f differs"; exit 1; }
done

printf '%-34s %9s %9s %9s %14s %14s\n' "case" "stock s" "h5turbo s" "ref s" "turbo/stock" "turbo/ref"
printf '%-34s %9s %9s %9s %13sx %13sx\n' "write, 32 frames per H5Dwrite" "$sw32" "$tw32" "$rw32" "$(ratio "$sw32" "$tw32")" "$(ratio "$rw32" "$tw32")"
printf '%-34s %9s %9s %9s %13sx %13sx\n' "write, frame by frame" "$sw1" "$tw1" "$rw1" "$(ratio "$sw1" "$tw1")" "$(ratio "$rw1" "$tw1")"
printf '%-34s %9s %9s %9s %13sx %13sx\n' "write, 32 frames, write-behind" "$sw32" "$tw32b" "$rw32" "$(ratio "$sw32" "$tw32b")" "$(ratio "$rw32" "$tw32b")"
printf '%-34s %9s %9s %9s %13sx %13sx\n' "write, frame by frame, write-behind" "$sw1" "$tw1b" "$rw1" "$(ratio "$sw1" "$tw1b")" "$(ratio "$rw1" "$tw1b")"
printf '%-34s %9s %9s %9s %13sx %14s\n' "read, 32 frames per H5Dread" "$sr32" "$tr32" "-" "$(ratio "$sr32" "$tr32")" "-"
printf '%-34s %9s %9s %9s %13sx %14s\n' "read, frame by frame" "$sr1" "$tr1" "-" "$(ratio "$sr1" "$tr1")" "-"
echo
echo "stored chunk bytes: stock $s_bytes, h5turbo $t_bytes ($(ratio "$t_bytes" "$s_bytes")x stock; guard <= 1.05),"
echo "                    reference (no fletcher32) $r_bytes"
awk "BEGIN{exit !($t_bytes <= 1.05 * $s_bytes)}" || echo "GUARD FAILED: h5turbo output more than 5% larger than stock's"
echo
echo "thread sweep (H5TURBO_THREADS), 32 frames per call:"
printf '%-8s %10s %10s %12s %12s\n' threads "write s" "read s" "write/stock" "read/stock"
threads_list="$(seq 1 "$ncpu") $((ncpu * 2))"
for _ in $(seq "$repeat"); do
  for n in $threads_list; do
    case_run "w$n" turbo env H5TURBO_THREADS="$n" "$bin" write "$work/sweep.h5" "$nframes" 32
    case_run "r$n" turbo env H5TURBO_THREADS="$n" "$bin" read "$work/s32.h5" 32
  done
done
for n in $threads_list; do
  printf '%-8s %10s %10s %11sx %11sx\n' "$n" "$(t "w$n")" "$(t "r$n")" "$(ratio "$sw32" "$(t "w$n")")" "$(ratio "$sr32" "$(t "r$n")")"
done

# ---- Reads and writes as processing steps do them (issue 14), 32 frames per call: medians of
# XREPEAT interleaved rounds (default 5; stock and h5turbo alternate within each round), since
# the machine is shared and noisy. Data checked against stock (checksums, h5diff).
xrepeat=${XREPEAT:-5}
case_all() {
  local name=$1; shift
  local line s
  line=$("$@")
  echo "$line" > "$work/$name.out"
  s=${line#seconds=}; s=${s%% *}
  echo "$s" >> "$work/$name.all"
}
median() { sort -g "$work/$1.all" | awk '{a[NR]=$1} END{if (NR % 2) print a[(NR+1)/2]; else printf "%.4f\n", (a[NR/2]+a[NR/2+1])/2}'; }
xcases="r32 u32 f32 roi union memsel chan3 spots stride4 points multi multi1 mods modsw r1 r1c8 r1c8m rows rowsc8 w32 wf32"
nrows=${NROWS_FRAMES:-50} # frames read row by row (two H5Dread calls per row)
xcmd() { # xcmd CASE WHO: the command line of a case for stock (s) or h5turbo (t)
  case $1 in
    r32) echo "$bin read $work/s32.h5 32" ;;
    r1) echo "$bin read $work/s32.h5 1" ;;
    multi1) echo "$bin readx $work/s32.h5 multi 1" ;;
    mods) echo "$bin readmodules $work/mods.h5 1 1" ;;
    modsw) echo "$bin modules $work/x$2-mods.h5 $nmods 1" ;;
    r1c8) echo "$bin read $work/c8.h5 1" ;;
    r1c8m) echo "$bin read $work/c8.h5 1 16" ;;
    rows) echo "$bin readrows $work/s32.h5 $nrows" ;;
    rowsc8) echo "$bin readrows $work/c8.h5 $nrows 16" ;;
    w32) echo "$bin write $work/x$2-w32.h5 $nframes 32" ;;
    wf32) echo "$bin writex $work/x$2-wf32.h5 $nframes 32" ;;
    *) echo "$bin readx $work/s32.h5 $1 32" ;;
  esac
}
# 8 frames per chunk, read frame by frame: the gain's chunks (512 KiB) fit HDF5's default chunk
# cache of 1 MiB, the mask's (2 MiB) do not; with a cache of 16 MiB (r1c8m, set by the reader on
# the access list) both do. h5turbo's decoded-chunk cache is sized from the same setting.
stock "$bin" write "$work/c8.h5" "$nframes" 32 8 > /dev/null
# 16 AGIPD modules of raw-like uint16 frames (a dataset each), a frame of every module per
# H5Dread_multi / H5Dwrite_multi, as a train is read and written: an eighth of the frames.
nmods=$(( nframes / 8 > 1 ? nframes / 8 : 1 ))
stock "$bin" modules "$work/mods.h5" "$nmods" > /dev/null
for _ in $(seq "$xrepeat"); do
  for c in $xcases; do
    # shellcheck disable=SC2046
    case_all "xs_$c" stock $(xcmd "$c" s)
    # shellcheck disable=SC2046
    case_all "xt_$c" turbo $(xcmd "$c" t)
  done
done
for c in u32 f32 roi union memsel chan3 spots stride4 points multi multi1 mods r1c8 r1c8m rows rowsc8; do
  [ "$(field "xs_$c" sum)" = "$(field "xt_$c" sum)" ] || { echo "FAIL: h5turbo read different data ($c)"; exit 1; }
done
stock "$hdf5_bin/h5diff" "$work/xs-wf32.h5" "$work/xt-wf32.h5" >/dev/null || { echo "FAIL: h5turbo file from float32 differs"; exit 1; }
stock "$hdf5_bin/h5diff" "$work/xs-mods.h5" "$work/xt-mods.h5" >/dev/null || { echo "FAIL: h5turbo's modules differ"; exit 1; }
echo
echo "processing-step cases, 32 frames per call unless said; medians of $xrepeat interleaved rounds:"
printf '%-44s %9s %9s %11s\n' "case" "stock s" "h5turbo s" "turbo/stock"
xlabel() {
  case $1 in
    r32) echo "read, same type (uint8 / uint32)" ;;
    u32) echo "read into uint32 (gain widened)" ;;
    f32) echo "read into float32 (both converted)" ;;
    roi) echo "read ROI [:, 0:64, :]" ;;
    union) echo "read a union of 2 ROIs (H5S_SELECT_OR)" ;;
    memsel) echo "read ROI into every other 128-block" ;;
    chan3) echo "read frames into every 3rd element" ;;
    spots) echo "read 16 8x8 spots per frame (OR'ed)" ;;
    stride4) echo "read every 4th frame" ;;
    points) echo "read points (64 per frame)" ;;
    multi) echo "read gain+mask per H5Dread_multi" ;;
    multi1) echo "... frame by frame (a chunk each)" ;;
    mods) echo "read 16 modules' frame per H5Dread_multi" ;;
    modsw) echo "write 16 modules' frame per H5Dwrite_multi" ;;
    r1) echo "read, frame by frame" ;;
    r1c8) echo "read frame by frame, 8-frame chunks" ;;
    r1c8m) echo "... with a 16 MiB chunk cache" ;;
    rows) echo "read row by row ($nrows frames)" ;;
    rowsc8) echo "read row by row, 8-frame chunks, 16 MiB cache" ;;
    w32) echo "write, same type" ;;
    wf32) echo "write from float32 into uint8 / uint32" ;;
  esac
}
for c in $xcases; do
  s=$(median "xs_$c") tt=$(median "xt_$c")
  printf '%-44s %9s %9s %10sx\n' "$(xlabel "$c")" "$s" "$tt" "$(ratio "$s" "$tt")"
done

# ---- The same cases on other filters (issue 14): shuffle + DEFLATE level 4 (h5py's default level)
# and Blosc LZ4 (filter 32001, level 5, byte shuffle; stock writes and reads it through the
# hdf5-blosc reference plugin scripts/setup builds, h5turbo through its own), each + fletcher32.
# Medians of XREPEAT interleaved rounds; reads checked against stock's, written files with h5diff.
ref_blosc=${H5TURBO_DEPS_DIR:-$HOME/.cache/h5turbo/deps}/hdf5-blosc-ref/plugin
filters="deflate4 blosc-lz4"
if ! [ -f "$ref_blosc/libH5Zblosc_ref.so" ]; then
  echo "(no hdf5-blosc reference plugin in $ref_blosc: Blosc cases skipped; run scripts/setup)"
  filters=deflate4
fi
fcases="w32 r32 u32 f32 roi stride4"
fstock() { # fstock FILTER CMD...: stock HDF5, with the reference Blosc plugin where it needs one
  local flt=$1; shift
  if [ "$flt" = blosc-lz4 ]; then env -u HDF5_VOL_CONNECTOR HDF5_PLUGIN_PATH="$ref_blosc" AGIPD_FILTER="$flt" "$@"
  else stock env AGIPD_FILTER="$flt" "$@"; fi
}
fcmd() { # fcmd FILTER CASE WHO
  case $2 in
    w32) echo "$bin write $work/f-$1-$3.h5 $nframes 32" ;;
    r32) echo "$bin read $work/f-$1.h5 32" ;;
    *) echo "$bin readx $work/f-$1.h5 $2 32" ;;
  esac
}
for flt in $filters; do
  fstock "$flt" "$bin" write "$work/f-$flt.h5" "$nframes" 32 > /dev/null
done
for _ in $(seq "$xrepeat"); do
  for flt in $filters; do
    for c in $fcases; do
      # shellcheck disable=SC2046
      case_all "fs_${flt}_$c" fstock "$flt" $(fcmd "$flt" "$c" s)
      # shellcheck disable=SC2046
      case_all "ft_${flt}_$c" turbo env AGIPD_FILTER="$flt" $(fcmd "$flt" "$c" t)
    done
  done
done
echo
echo "other filters, 32 frames per call; medians of $xrepeat interleaved rounds:"
printf '%-10s %-44s %9s %9s %11s %14s\n' "filter" "case" "stock s" "h5turbo s" "turbo/stock" "bytes/stock"
for flt in $filters; do
  for c in $fcases; do
    if [ "$c" != w32 ]; then
      [ "$(field "fs_${flt}_$c" sum)" = "$(field "ft_${flt}_$c" sum)" ] || { echo "FAIL: h5turbo read different data ($flt $c)"; exit 1; }
    fi
    s=$(median "fs_${flt}_$c") tt=$(median "ft_${flt}_$c") b="-"
    if [ "$c" = w32 ]; then
      fstock "$flt" "$hdf5_bin/h5diff" "$work/f-$flt-s.h5" "$work/f-$flt-t.h5" > /dev/null ||
        { echo "FAIL: h5turbo file differs ($flt)"; exit 1; }
      b="$(ratio "$(field "ft_${flt}_$c" bytes)" "$(field "fs_${flt}_$c" bytes)")x"
    fi
    printf '%-10s %-44s %9s %9s %10sx %14s\n' "$flt" "$(xlabel "$c")" "$s" "$tt" "$(ratio "$s" "$tt")" "$b"
  done
done

# ---- The serial fraction: one thread (H5TURBO_THREADS=1), H5TURBO_STATS accounting. Of the
# application's thread's CPU time inside the calls the pipeline handled (app_cpu_ms), the part
# that is not chunk work the workers could do (pread where the workers read, unfilter/filter,
# checksums, copies, conversions done in the workers) does not parallelise: planning, chunk
# lookups and direct chunk I/O on the application's thread, H5Tconvert. The program's own
# work between calls (its checksum loop) is left out: stock and h5turbo pay it alike.
# Reads plan and look up every chunk before the decoders start: Amdahl, speedup(N) =
# (S+P)/(S+P/N); but the walk of a chunk map (W of S, map_walk_cpu_ms: a dataset's first read on
# a read-only file) runs beside the decoders of that read (PW of P, walk_codec_cpu_ms), which take
# each chunk as the walk passes it: speedup(N) = (S+P)/(S-W + max(W, (W+PW)/N) + (P-PW)/N). Writes are a pipeline (write_stream): the application's thread writes chunk i
# while the workers (and itself, when chunk i is not ready) filter the next ones, so its serial
# part overlaps the parallel one and bounds the throughput only once it is the longer:
# speedup(N) = (S+P)/max(S, (S+P)/N); Amdahl's figure is printed beside it.
echo
echo "serial fraction (1 thread; per chunk; projection vs h5turbo at 1 thread):"
printf '%-40s %8s %10s %11s %8s %8s %8s  %s\n' "case" "chunks" "serial us" "parallel us" "serial%" "x@16" "x@64" "model"
for c in r32 u32 f32 roi union memsel chan3 spots stride4 points mods w32 wf32 modsw; do
  pipelined=0
  case $c in w32 | wf32 | modsw) pipelined=1 ;; esac
  # shellcheck disable=SC2046
  out=$(env HDF5_PLUGIN_PATH="$plugins" HDF5_VOL_CONNECTOR=h5turbo H5TURBO_THREADS=1 H5TURBO_STATS=1 $(xcmd "$c" t) 2>&1)
  app=$(echo "$out" | tr ' ' '\n' | sed -n 's/^app_cpu_ms=//p')
  codec=$(echo "$out" | tr ' ' '\n' | sed -n 's/^codec_app_cpu_ms=//p')
  walk=$(echo "$out" | tr ' ' '\n' | sed -n 's/^map_walk_cpu_ms=//p')
  wcodec=$(echo "$out" | tr ' ' '\n' | sed -n 's/^walk_codec_cpu_ms=//p')
  nch=$(echo "$out" | tr ' ' '\n' | sed -n 's/^chunks_\(read\|written\)=//p' | awk '{s+=$1} END{print s}')
  awk -v app="$app" -v codec="$codec" -v walk="${walk:-0}" -v wcodec="${wcodec:-0}" -v n="$nch" -v pl="$pipelined" -v label="$(xlabel "$c")" '
    function amdahl(N) { return (S + P) / (S + P / N) }
    function piped(N) { return (S + P) / (S > (S + P) / N ? S : (S + P) / N) }
    function walked(N) { return (S + P) / (S - W + (W > (W + PW) / N ? W : (W + PW) / N) + (P - PW) / N) }
    BEGIN{
    P = codec / 1000; S = app / 1000 - P; if (S < 0) S = 0; W = walk / 1000; if (W > S) W = S
    PW = wcodec / 1000; if (PW > P) PW = P
    if (pl) { x16 = piped(16); x64 = piped(64); model = sprintf("pipelined (Amdahl %.1fx / %.1fx)", amdahl(16), amdahl(64)) }
    else if (W > 0) { x16 = walked(16); x64 = walked(64)
      model = sprintf("map walk %.1f us/chunk overlapped (Amdahl %.1fx / %.1fx)", W / n * 1e6, amdahl(16), amdahl(64)) }
    else { x16 = amdahl(16); x64 = amdahl(64); model = "Amdahl" }
    printf "%-40s %8d %10.1f %11.1f %7.1f%% %7.1fx %7.1fx  %s\n", label, n, S / n * 1e6, P / n * 1e6, 100 * S / (S + P),
      x16, x64, model }'
done
