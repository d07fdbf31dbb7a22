#!/usr/bin/env bash
# corpus.sh WALKER [PYTHON] — files nobody in the project wrote, read the way generic readers read
# them: WALKER (h5py: h5py_corpus.py; netcdf4: netcdf4_corpus.py, netCDF4-python over netCDF-C)
# walks every HDF5 file of HDF5 1.14.5's own tools tests (h5dump's, h5ls', h5diff's, h5repack's...
# test files: every layout, filter, type, link kind and file-format version the tools are tested
# on, some of them damaged) and those the clients' packages ship for their tests, under stock
# HDF5, then under h5turbo with the index in memory and from its sidecar (written, then loaded
# twice); every transcript must equal stock's, file by file. Needs the files scripts/setup-clients
# unpacks. PYTHON: another Python (a PyPI wheel's, with HDF5 of its own: the hdf5-2/ build serves
# its 2.x), else .venv's.
source "$(dirname "$0")/../integration/lib.sh"
venv_python
walker=$1
[ -f "$TB_SRC/tests/index/${walker}_corpus.py" ] || fail "usage: corpus.sh h5py|netcdf4 [PYTHON]"
py=${2:-$py}
DEPS=${H5TURBO_DEPS_DIR:-$HOME/.cache/h5turbo/deps}
src=$(ls -d "$DEPS"/hdf5-1.14.5-tools-test/hdf5-1.14*/ 2>/dev/null | head -1)
[ -n "$src" ] && [ -d "$src/tools" ] || fail "no HDF5 tools sources under $DEPS/hdf5-1.14.5-tools-test (run scripts/setup-clients)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
# Copies (the originals stay untouched, and sidecars go to the private cache), named by their path.
mkdir "$tmp/files"
copy_from() { # folder, name prefix, find's name tests
  local dir=$1 prefix=$2; shift 2
  [ -d "$dir" ] || return 0
  (cd "$dir" && find . -type f \( "$@" \) | LC_ALL=C sort) | while read -r f; do
    cp "$dir/$f" "$tmp/files/$prefix$(echo "${f#./}" | tr / _)"
  done
}
copy_from "$src/tools" "" -name '*.h5'
# And the HDF5 files the clients' packages ship for their own tests (PyTables' in old formats among
# them, h5py's, MDAnalysis', xarray's, nexusformat's, versioned-hdf5's, pynwb's NWB files of every
# version), where setup-clients put them.
for d in "$TB_SRC"/.venv-clients/lib/python3*/site-packages "$DEPS"/clients/src; do
  copy_from "$d" "clients_" -name '*.h5' -o -name '*.hdf5' -o -name '*.h5md' -o -name '*.nxs' -o -name '*.nc' -o -name '*.nwb'
done
cd "$tmp/files"
# External links and external raw data name their targets relatively: the walks run in this folder.
settle # old enough to be persisted
mapfile -t files < <(ls | LC_ALL=C sort)
[ "${#files[@]}" -gt 100 ] || fail "only ${#files[@]} test files found in $src/tools"
# All files in one walker process (netcdf4_corpus.py forks a child per file and marks a dead child's
# file itself); where the walker dies (some test files are damaged on purpose, and the reader or
# HDF5 may crash on them), the file it died in is marked so and the walk goes on after it.
walk() { # label, then the runner (stock/turbo)
  local label=$1; shift
  local out="$tmp/$label" rest=("${files[@]}") rc i
  mkdir "$out"
  while [ "${#rest[@]}" -gt 0 ]; do
    rc=0
    "$@" timeout 600 "$py" "$TB_SRC/tests/index/${walker}_corpus.py" "$out" "${rest[@]}" 2>/dev/null || rc=$?
    for ((i = 0; i < ${#rest[@]}; i++)); do
      [ "$(tail -n 1 "$out/${rest[i]}.txt" 2>/dev/null)" = END ] || break
    done
    [ "$i" -lt "${#rest[@]}" ] || break
    [ "$rc" -ne 0 ] || fail "$label: the walk stopped at ${rest[i]} without an error"
    echo "died rc $rc" >> "$out/${rest[i]}.txt"
    rest=("${rest[@]:i+1}")
  done
}
# Stock reads Blosc-compressed data (PyTables' files) through another Blosc filter, h5turbo through
# its own filter 32001: hdf5plugin's where the Python has it (then both get its other filters), else
# the reference hdf5-blosc plugin that scripts/setup builds against .venv's HDF5.
filters=$("$py" -c 'import hdf5plugin; print(hdf5plugin.PLUGIN_PATH)' 2>/dev/null || true)
if [ -n "$filters" ]; then
  TB_PLUGIN_DIR="$TB_PLUGIN_DIR:$filters" # (the path turbo() gives HDF5; ours first)
else
  filters="$DEPS/hdf5-blosc-ref/plugin"
  [ -f "$filters/libH5Zblosc_ref.so" ] || fail "no reference Blosc plugin in $filters (run scripts/setup)"
fi
stock_filters() { stock env HDF5_PLUGIN_PATH="$filters" "$@"; }
walk stock stock_filters
for mode in memory persistent persistent2; do
  TB_STATS_LOG=$tmp/stats.$mode H5TURBO_INDEX=${mode%2} walk "$mode" turbo
  bad=0
  for f in "${files[@]}"; do
    # (where stock itself died, what came before its death is compared, not how it died)
    if grep -q '^died' "$tmp/stock/$f.txt"; then
      cmp -s <(grep -v '^died' "$tmp/stock/$f.txt") <(grep -v '^died' "$tmp/$mode/$f.txt") && continue
    else
      cmp -s "$tmp/stock/$f.txt" "$tmp/$mode/$f.txt" && continue
    fi
    diff -u "$tmp/stock/$f.txt" "$tmp/$mode/$f.txt" | head -20 || true
    bad=$((bad + 1))
  done
  [ "$bad" = 0 ] || fail "$mode: $bad of ${#files[@]} files read differently under h5turbo"
done
# The index must have been at work: the first persistent walk writes sidecars (files of their own,
# or records of packs past a process's first 8), the second loads them.
sum() { { grep -o "sidecars .*" "$tmp/stats.$1" || true; } | grep -o " $2=[0-9]*" | awk -F= '{ s += $2 } END { print s + 0 }'; }
written=$(sum persistent written) loaded=$(sum persistent2 loaded)
[ "$written" -gt 50 ] && [ "$loaded" -gt 50 ] ||
  fail "only $written sidecars written and $loaded loaded for ${#files[@]} files"
died=$(grep -l '^died' "$tmp"/stock/*.txt | wc -l || true)
case $walker in
  h5py) what=$("$py" -c 'import h5py; print("h5py", h5py.__version__, "with HDF5", h5py.version.hdf5_version)') ;;
  netcdf4) what=$("$py" -c 'import netCDF4; print("netCDF4", netCDF4.__version__, "with netCDF-C", netCDF4.__netcdf4libversion__, "and HDF5", netCDF4.__hdf5libversion__)') ;;
esac
echo "ok: $what reads ${#files[@]} test files of HDF5's tools and of the clients identically under h5turbo (memory, sidecar written, sidecar loaded; $written sidecars written, $loaded loaded; the walk died under stock in $died, compared up to there)"
