# lib.sh BUILD_DIR — what run.sh and sweep.sh share: the build's benchmark and plugins, a work
# folder removed at exit, stock/h5turbo launchers, timed cases (best or median of rounds), the
# processing-step cases' command lines and labels, and the serial-fraction projection.
# Sourced; expects nframes set (nrows and nmods derive from it and NROWS_FRAMES).
build=$(cd "$1" && pwd)
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
# run_case NAME CMD...: runs a case, keeps its output line in $work/NAME.out and its seconds in
# $secs (a failing command stops the script, as set -e does).
run_case() {
  local name=$1 line
  shift
  line=$("$@")
  echo "$line" > "$work/$name.out"
  secs=${line#seconds=}
  secs=${secs%% *}
}
# Every case runs once per round, REPEAT rounds, interleaved so that load from other processes
# hits all cases alike; case_run NAME CMD... keeps the best (smallest) time in $work/NAME.t.
case_run() {
  run_case "$@"
  if [ ! -s "$work/$1.t" ] || awk "BEGIN{exit !($secs < $(cat "$work/$1.t"))}"; then echo "$secs" > "$work/$1.t"; fi
}
t() { cat "$work/$1.t"; }
field() { tr ' ' '\n' < "$work/$1.out" | sed -n "s/^$2=//p"; }
ratio() { awk "BEGIN{printf \"%.2f\", $1 / $2}"; }
# case_all NAME CMD...: appends the seconds to $work/NAME.all (median NAME takes their median).
case_all() {
  run_case "$@"
  echo "$secs" >> "$work/$1.all"
}
median() { sort -g "$work/$1.all" | awk '{a[NR]=$1} END{if (NR % 2) print a[(NR+1)/2]; else printf "%.4f\n", (a[NR/2]+a[NR/2+1])/2}'; }

# The processing-step cases (issue 14). Inputs: $work/s32.h5 (a stock write of nframes, 32 per
# call), $work/c8.h5 (8-frame chunks), $work/mods.h5 (16 modules of nmods frames): prepare_inputs.
nrows=${NROWS_FRAMES:-50} # frames read row by row (two H5Dread calls per row)
nmods=$(( nframes / 8 > 1 ? nframes / 8 : 1 ))
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
# The read cases' inputs, written by stock HDF5. 8 frames per chunk, read frame by frame: the
# gain's chunks (512 KiB) fit HDF5's default chunk cache of 1 MiB, the mask's (2 MiB) do not;
# with a cache of 16 MiB (r1c8m, set by the reader on the access list) both do. h5turbo's
# decoded-chunk cache is sized from the same setting. 16 AGIPD modules of raw-like uint16
# frames (a dataset each), a frame of every module per H5Dread_multi / H5Dwrite_multi, as a
# train is read and written: an eighth of the frames.
prepare_inputs() {
  [ -f "$work/s32.h5" ] || stock "$bin" write "$work/s32.h5" "$nframes" 32 > /dev/null
  stock "$bin" write "$work/c8.h5" "$nframes" 32 8 > /dev/null
  stock "$bin" modules "$work/mods.h5" "$nmods" > /dev/null
}

# ---- The serial fraction: one thread (H5TURBO_THREADS=1), H5TURBO_STATS accounting. Of the
# application's thread's CPU time inside the calls the pipeline handled (app_cpu_ms), the part
# that is not chunk work the workers could do (pread where the workers read, unfilter/filter,
# checksums, copies, conversions done in the workers) does not parallelise: planning, chunk
# lookups and direct chunk I/O on the application's thread, H5Tconvert. The program's own
# work between calls (its checksum loop, O) is left out of the pipeline's projection: stock and
# h5turbo pay it alike; "program" adds it as serial time, for comparison with a measured sweep.
# Reads plan and look up every chunk before the decoders start: Amdahl, speedup(N) =
# (S+P)/(S+P/N); but the walk of a chunk map (W of S, map_walk_cpu_ms: a dataset's first read on
# a read-only file) runs beside the decoders of that read (PW of P, walk_codec_cpu_ms), which take
# each chunk as the walk passes it: speedup(N) = (S+P)/(S-W + max(W, (W+PW)/N) + (P-PW)/N).
# Writes are a pipeline (write_stream): the application's thread writes chunk i while the
# workers (and itself, when chunk i is not ready) filter the next ones, so its serial part
# overlaps the parallel one and bounds the throughput only once it is the longer:
# speedup(N) = (S+P)/max(S, (S+P)/N); Amdahl's figure is printed beside it.
serial_header() { # serial_header N1 N2
  printf '%-40s %8s %10s %11s %8s %8s %8s %9s  %s\n' "case" "chunks" "serial us" "parallel us" "serial%" "x@$1" "x@$2" "prog@$1" "model"
}
serial_row() { # serial_row CASE N1 N2: one thread's accounting of CASE, projected to N1 and N2 threads
  local c=$1 pipelined=0 out app codec walk wcodec nch prog
  case $c in w32 | wf32 | modsw) pipelined=1 ;; esac
  # shellcheck disable=SC2046
  out=$(env HDF5_PLUGIN_PATH="$plugins" HDF5_VOL_CONNECTOR=h5turbo H5TURBO_THREADS=1 H5TURBO_STATS=1 $(xcmd "$c" t) 2>&1)
  app=$(echo "$out" | tr ' ' '\n' | sed -n 's/^app_cpu_ms=//p')
  codec=$(echo "$out" | tr ' ' '\n' | sed -n 's/^codec_app_cpu_ms=//p')
  walk=$(echo "$out" | tr ' ' '\n' | sed -n 's/^map_walk_cpu_ms=//p')
  wcodec=$(echo "$out" | tr ' ' '\n' | sed -n 's/^walk_codec_cpu_ms=//p')
  prog=$(echo "$out" | tr ' ' '\n' | sed -n 's/^app_cpu=//p')
  nch=$(echo "$out" | tr ' ' '\n' | sed -n 's/^chunks_\(read\|written\)=//p' | awk '{s+=$1} END{print s}')
  awk -v app="$app" -v codec="$codec" -v walk="${walk:-0}" -v wcodec="${wcodec:-0}" -v prog="${prog:-0}" \
    -v n="$nch" -v pl="$pipelined" -v N1="$2" -v N2="$3" -v label="$(xlabel "$c")" '
    function amdahl(N) { return (S + P) / (S + P / N) }
    function tpiped(N) { return S > (S + P) / N ? S : (S + P) / N }
    function twalked(N) { return S - W + (W > (W + PW) / N ? W : (W + PW) / N) + (P - PW) / N }
    function t(N) { if (pl) return tpiped(N); if (W > 0) return twalked(N); return S + P / N }
    BEGIN{
    P = codec / 1000; S = app / 1000 - P; if (S < 0) S = 0; W = walk / 1000; if (W > S) W = S
    PW = wcodec / 1000; if (PW > P) PW = P
    O = prog - (S + P); if (O < 0) O = 0
    if (pl) model = sprintf("pipelined (Amdahl %.1fx / %.1fx)", amdahl(N1), amdahl(N2))
    else if (W > 0) model = sprintf("map walk %.1f us/chunk overlapped (Amdahl %.1fx / %.1fx)", W / n * 1e6, amdahl(N1), amdahl(N2))
    else model = "Amdahl"
    printf "%-40s %8d %10.1f %11.1f %7.1f%% %7.1fx %7.1fx %8.1fx  %s\n", label, n, S / n * 1e6, P / n * 1e6, 100 * S / (S + P),
      (S + P) / t(N1), (S + P) / t(N2), (O + S + P) / (O + t(N1)), model }'
}
