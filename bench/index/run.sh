#!/usr/bin/env bash
# run.sh [BUILD] [EXPERIMENTS...] — the link/object index benchmark in one run: Mantid-like files
# (10 and 40 experiments by default; 180 and 360 if asked) loaded by the C loaders a b c d e i and
# the Python loaders f g h j k (bench/index/README.md says what each models) with stock HDF5, stock
# HDF5 with a large metadata cache (C loaders), h5turbo on first open (no sidecar) and h5turbo on
# second open (sidecar). Median of REPS (5; PYREPS, 3, for the Python loaders) runs with the modes
# taking turns; prints CPU (or wall) seconds from H5Fopen to H5Fclose, ratios beside the targets of
# issue #13, malloc calls, reads of the data file and of the sidecar, peak RSS, then callgrind
# instruction counts of the same loads and the HDF5 share of the Python loaders' instructions.
# Environment: CLOCK=cpu|wall, REPS, PYREPS, LOADERS="a b c d e i f g h j k", INSTR=0 (no callgrind),
# INSTR_EXPS (C loaders' callgrind size, default the first size), INSTR_PY_EXPS (Python loaders'
# callgrind size, default 2), PLUGINS=<folder> (the connector under test, default BUILD/plugins),
# PYTHON (f, g; default .venv/bin/python), PYTHON_NEXUS (h, j, k; default .venv-clients/bin/python),
# WORK=<folder> (keep the files), NAPI_FULL_COUNT=1 (loader d counts entries as napi5 does).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
shift || true
exps=${*:-10 40}
reps=${REPS:-5}
pyreps=${PYREPS:-3}
clock=${CLOCK:-cpu}
loaders=${LOADERS:-a b c d e i f g h j k}
build=$(cd "$build" && pwd)
gen=$build/bench/index/mantid_gen
load=$build/bench/index/mantid_load
pyload=$here/mantid_load.py
pre="$build/bench/common/libtb_malloc_count.so $build/bench/common/libtb_io_count.so"
region=$build/bench/common/libtb_region.so
export TB_MALLOC_COUNT_OUT=/dev/null TB_IO_COUNT_OUT=/dev/null # read around the load instead
# numpy's OpenBLAS starts a thread per core at import whose spinning is CPU time of the process in
# every mode alike, as much as scheduling gives it (loader g at 40 experiments: 2.3 % of the perf
# samples of three runs, in blas_thread_server): one thread, in all modes.
export OPENBLAS_NUM_THREADS=1
source "$build/h5turbo-env.sh"
unset HDF5_VOL_CONNECTOR HDF5_PLUGIN_PATH
plugins=${PLUGINS:-$(grep -o 'HDF5_PLUGIN_PATH="[^"$]*' "$build/h5turbo-env.sh" | cut -d'"' -f2)}
py=${PYTHON:-$root/.venv/bin/python}
pynx=${PYTHON_NEXUS:-$root/.venv-clients/bin/python}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
trap '[ -z "${WORK:-}" ] && rm -rf "$work"' EXIT
export XDG_CACHE_HOME="$work/cache"
turbo_env=(HDF5_PLUGIN_PATH="$plugins" HDF5_VOL_CONNECTOR=h5turbo H5TURBO_INDEX=persistent)

# Loader h needs a NeXus reader from PyPI whose h5py is ours (.venv-clients, scripts/setup-clients).
skip_h=""
if [[ " $loaders " == *" h "* ]]; then
  if ! [ -x "$pynx" ] || ! "$pynx" -c 'import scippnexus, h5py' 2> /dev/null; then
    skip_h="no scippnexus importable from $pynx (run scripts/setup-clients)"
    loaders=$(echo " $loaders " | sed 's/ h / /')
  fi
fi

# Loader k needs nexusformat (.venv-clients, scripts/setup-clients).
skip_k=""
if [[ " $loaders " == *" k "* ]]; then
  if ! [ -x "$pynx" ] || ! "$pynx" -c 'import nexusformat.nexus, h5py' 2> /dev/null; then
    skip_k="no nexusformat importable from $pynx (run scripts/setup-clients)"
    loaders=$(echo " $loaders " | sed 's/ k / /')
  fi
fi

# Loader j needs PyTables (.venv-clients has its wheel, scripts/setup-clients).
skip_j=""
if [[ " $loaders " == *" j "* ]]; then
  if ! [ -x "$pynx" ] || ! "$pynx" -c 'import tables' 2> /dev/null; then
    skip_j="no PyTables importable from $pynx (run scripts/setup-clients)"
    loaders=$(echo " $loaders " | sed 's/ j / /')
  fi
fi

is_py() { case $1 in f | g | h | j | k) return 0 ;; *) return 1 ;; esac; }
# a b c keep the file they always had; the others read the units/start attributes of --units.
file_for() { case $1 in a | b | c) echo "$work/mantid_$2.h5" ;; *) echo "$work/mantid_${2}_nx.h5" ;; esac; }
cmd_for() { # LOADER FILE [bigcache]
  case $1 in
    f | g) echo "$py $pyload $2 $1" ;;
    h | j | k) echo "$pynx $pyload $2 $1" ;;
    *) echo "$load $2 $1 ${3:-}" ;;
  esac
}
modes_for() { if is_py "$1"; then echo "stock first second"; else echo "stock bigcache first second"; fi; }
# Targets of issue #13, second open vs stock (first open: >= 0.95x for all; RSS <= 1.3x stock).
target2() { case $1 in a | b) echo 10 ;; c) echo 50 ;; d | e) echo 3 ;; i) echo 4 ;; f | g) echo 1.6 ;; *) echo - ;; esac; }

make_file() { # EXPERIMENTS LOADER
  local f
  f=$(file_for "$2" "$1")
  if ! [ -f "$f" ]; then
    case $2 in a | b | c) "$gen" "$f" "$1" ;; *) "$gen" "$f" "$1" 500 --units ;; esac
    sleep 2.1 # old enough to be persisted (no sidecar for a file changed within 2 s)
  fi
}

# One run of LOADER on FILE in MODE: prints TIME MALLOCS CHECKSUM READS SIDECAR_READS RSS_KB.
# A failing run stops the benchmark with its messages.
one_run() {
  local mode=$1 f=$2 l=$3 out cmd
  cmd=$(cmd_for "$l" "$f" "$([ "$mode" = bigcache ] && echo bigcache)")
  local envs=(LD_PRELOAD="$pre" TB_IO_COUNT_FILE="$f")
  case $mode in
    first) rm -f "$XDG_CACHE_HOME"/h5turbo/*.h5turbo-index; envs+=("${turbo_env[@]}") ;;
    second) envs+=("${turbo_env[@]}" H5TURBO_DEBUG=$([ "$l" = b ] && echo 1 || echo 0)) ;;
  esac
  out=$(env "${envs[@]}" /usr/bin/time -f %M -o "$work/rss" $cmd 2> "$work/err")
  # The second open of loader b leaves the index's own account of itself (H5TURBO_DEBUG).
  [ "$mode.$l" != second.b ] || grep "released" "$work/err" > "$work/stats" || true
  set -- $out
  local t=$1
  [ "$clock" = wall ] || t=$2
  echo "$t $3 $4 $5 $7 $(tail -1 "$work/rss")"
}

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
ratio() { awk "BEGIN{ if ($2 > 0) printf \"%.2fx\", $1/$2; else print \"-\" }"; }

declare -A T M R S K
echo "median of $reps runs (Python loaders: $pyreps), modes taking turns; $clock seconds from H5Fopen to H5Fclose"
[ -z "$skip_h" ] || echo "loader h skipped: $skip_h"
[ -z "$skip_j" ] || echo "loader j skipped: $skip_j"
[ -z "$skip_k" ] || echo "loader k skipped: $skip_k"
hdr() {
  printf "%-5s %-3s %8s %8s %8s %8s | %7s %7s %7s | %6s %6s\n" exps ldr stock bigcache first second \
    "1st/stk" "2nd/stk" "big/stk" "tgt2nd" "1st>=.95"
}
hdr
for e in $exps; do
  for l in $loaders; do
    make_file "$e" "$l"
    f=$(file_for "$l" "$e")
    n=$reps
    is_py "$l" && n=$pyreps
    sums=$work/checksums.$l.$e
    rm -f "$sums"
    declare -A times=()
    for i in $(seq 1 "$n"); do
      for mode in $(modes_for "$l"); do
        read -r t m c r s k < <(one_run "$mode" "$f" "$l") || true
        [ -n "${k:-}" ] || { echo "loader $l, $mode, $e experiments failed:" >&2; cat "$work/err" >&2; exit 1; }
        echo "$c" >> "$sums"
        times[$mode]="${times[$mode]:-} $t"
        # counts do not vary between runs (RSS barely): the last run's
        M[$e,$l,$mode]=$m R[$e,$l,$mode]=$r S[$e,$l,$mode]=$s K[$e,$l,$mode]=$k
      done
    done
    [ "$(sort -u "$sums" | wc -l)" -eq 1 ] || { echo "loader $l on $e experiments: results differ between runs" >&2; exit 1; }
    for mode in $(modes_for "$l"); do T[$e,$l,$mode]=$(echo ${times[$mode]} | median); done
    [ "$l" != b ] || [ ! -s "$work/stats" ] || cp "$work/stats" "$work/stats.$e"
    ts=${T[$e,$l,stock]} t1=${T[$e,$l,first]} t2=${T[$e,$l,second]} tb=${T[$e,$l,bigcache]:-}
    ok1=$(awk "BEGIN{print ($ts/$t1 >= 0.95) ? \"yes\" : \"NO\"}")
    printf "%-5s %-3s %8.4f %8s %8.4f %8.4f | %7s %7s %7s | %6s %6s\n" "$e" "$l" "$ts" "$([ -n "$tb" ] && printf %.4f "$tb" || echo -)" "$t1" "$t2" \
      "$(ratio "$ts" "$t1")" "$(ratio "$ts" "$t2")" "$([ -n "$tb" ] && ratio "$ts" "$tb" || echo -)" \
      "$(target2 "$l")x" "$ok1"
    unset times
  done
done
echo "(x = stock time / other time: above 1 is faster than stock. first = h5turbo with no sidecar, second = with"
echo " the sidecar the first open wrote. tgt2nd = issue #13's target for the second open.)"
for e in $exps; do
  [ ! -s "$work/stats.$e" ] || echo "index after loader b, $e experiments: $(sed 's/.*: answered/answered/' "$work/stats.$e")"
done

echo
echo "per load: malloc calls, read calls on the data file (metadata and raw data), reads of the sidecar, peak RSS (MB)"
printf "%-5s %-3s | %9s %9s %9s | %7s %7s %7s %4s | %6s %6s %6s %8s\n" exps ldr m.stock m.first m.second \
  r.stock r.first r.second sc.r rss.stk rss.1st rss.2nd "1st/stk"
for e in $exps; do
  for l in $loaders; do
    k0=${K[$e,$l,stock]} k1=${K[$e,$l,first]} k2=${K[$e,$l,second]}
    printf "%-5s %-3s | %9s %9s %9s | %7s %7s %7s %4s | %6.1f %6.1f %6.1f %8s\n" "$e" "$l" \
      "${M[$e,$l,stock]}" "${M[$e,$l,first]}" "${M[$e,$l,second]}" \
      "${R[$e,$l,stock]}" "${R[$e,$l,first]}" "${R[$e,$l,second]}" "${S[$e,$l,second]}" \
      "$(awk "BEGIN{print $k0/1024}")" "$(awk "BEGIN{print $k1/1024}")" "$(awk "BEGIN{print $k2/1024}")" \
      "$(ratio "$k1" "$k0")"
  done
done
echo "(mallocs = malloc+calloc+realloc calls from H5Fopen to H5Fclose; reads = pread/read calls on the data file's"
echo " descriptors in that time, sc.r = on the sidecar, second open; RSS = the whole process's peak, /usr/bin/time %M;"
echo " issue #13: first-open RSS <= 1.3x stock.)"

# Instruction counts (callgrind) of exactly the load: C loaders collect inside mantid_timed_load(),
# the Python loaders inside the one ctypes call (ffi_call) that runs their load; steady where
# timings on a shared machine are not. The HDF5 share: bench/index/cg_share.py.
if [ "${INSTR:-1}" != 0 ] && command -v valgrind > /dev/null; then
  ie=${INSTR_EXPS:-$(echo $exps | awk '{print $1}')}
  ipe=${INSTR_PY_EXPS:-2}
  instr() { # OUT LOADER FILE ENV...
    local out=$1 l=$2 f=$3
    shift 3
    local toggle=mantid_timed_load
    is_py "$l" && toggle=ffi_call
    env "$@" TB_REGION_LIB="$region" valgrind --tool=callgrind --collect-atstart=no --toggle-collect=$toggle \
      --callgrind-out-file="$out" $(cmd_for "$l" "$f") > /dev/null 2>&1
    awk '/^totals:/ {print $2}' "$out"
  }
  echo
  echo "instructions (callgrind) from H5Fopen to H5Fclose; HDF5 = share inside libhdf5 + plugins (Python loaders)"
  printf "%-5s %-3s %14s %14s %14s | %8s %8s | %6s %6s %6s\n" exps ldr stock first second "1st/stk" "2nd/stk" \
    HDF5.s HDF5.1 HDF5.2
  for l in $loaders; do
    e=$ie
    is_py "$l" && e=$ipe
    make_file "$e" "$l"
    f=$(file_for "$l" "$e")
    is=$(instr "$work/cg.$l.stock" "$l" "$f")
    rm -f "$XDG_CACHE_HOME"/h5turbo/*.h5turbo-index
    i1=$(instr "$work/cg.$l.first" "$l" "$f" "${turbo_env[@]}")
    i2=$(instr "$work/cg.$l.second" "$l" "$f" "${turbo_env[@]}")
    sh=("-" "-" "-")
    if is_py "$l"; then
      k=0
      for mode in stock first second; do
        sh[$k]=$(python3 "$here/cg_share.py" "$work/cg.$l.$mode" | awk '{printf "%.0f%%", $3 * 100}')
        k=$((k + 1))
      done
    fi
    printf "%-5s %-3s %14s %14s %14s | %8s %8s | %6s %6s %6s\n" "$e" "$l" "$is" "$i1" "$i2" \
      "$(ratio "$is" "$i1")" "$(ratio "$is" "$i2")" "${sh[@]}"
  done
fi
