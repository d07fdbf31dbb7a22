#!/usr/bin/env bash
# h5py_features.sh PY — h5py features beyond the benchmarks (h5py_features.py: filters h5turbo does
# not implement, a virtual dataset, external and soft links, direct chunk I/O, creation order,
# appends in later opens, compound fields, fill values) with h5turbo and without, in the h5py of
# PY with hdf5plugin: files written stock and under h5turbo, each read stock and under h5turbo
# (first run, second run with the sidecar, every read through the pipeline); every line the same
# as stock's reading of stock's file, h5turbo proven active (a sidecar, pipeline reads).
source "$(dirname "$0")/../integration/lib.sh"
py=${1:?python with h5py and hdf5plugin}
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$py" ] || fail "no $py (run scripts/setup)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export XDG_CACHE_HOME="$tmp/cache" TB_STATS_LOG="$tmp/stats.txt"
feat=("$py" "$here/h5py_features.py")
mkdir s t
stock "${feat[@]}" make s || fail "stock make"
turbo "${feat[@]}" make t || fail "make under h5turbo"
sleep 2.1 # (h5turbo neither trusts nor writes sidecars of files changed in the last 2 s)
stock "${feat[@]}" read s > ref.txt || fail "stock read"
[ "$(wc -l < ref.txt)" -ge 45 ] || fail "stock read printed too little: $(cat ref.txt)"
check() { # NAME: NAME.txt against stock's
  diff -u ref.txt "$1.txt" || fail "$1: differs from stock's reading of stock's file"
}
: > stats.txt
turbo "${feat[@]}" read s > first.txt || fail "first read under h5turbo"
check first
[ -n "$(find cache -name '*.h5turbo-index')" ] || fail "no sidecar written: was the index active?"
turbo "${feat[@]}" read s > second.txt || fail "second read under h5turbo"
check second
grep -q 'sidecars loaded=[1-9]' stats.txt || fail "the second run loaded no sidecar: $(cat stats.txt)"
H5TURBO_PIPELINE_MIN_NBYTES=0 turbo "${feat[@]}" read s > every.txt || fail "read with every read through the pipeline"
check every
grep -q 'pipeline writes=0 reads=[1-9]' stats.txt || fail "the pipeline read nothing: $(cat stats.txt)"
stock "${feat[@]}" read t > stock_t.txt || fail "stock reading h5turbo's files"
check stock_t
turbo "${feat[@]}" read t > turbo_t.txt || fail "h5turbo reading its own files"
check turbo_t
echo "ok: $(wc -l < ref.txt) lines equal to stock's in five runs: h5turbo's first and second, every read through the pipeline, h5turbo's files read stock and under h5turbo"
