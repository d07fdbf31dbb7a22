#!/usr/bin/env bash
# two_libraries.sh PY H5PY_HDF5 NETCDF4_HDF5 — h5py and netCDF4 in one process, each with its own
# HDF5 (h5py 3.16's wheel 2.0.0 and netCDF4's 2.2.0; or our from-source h5py's 1.14.5 and
# netCDF4's 2.2.0): h5turbo serves both (the front plugin loads one copy of the right build per
# library), the data read back is stock's, and each library's copy reports its own activity.
source "$(dirname "$0")/../integration/lib.sh"
py=${1:?python of the venv}; v1=${2:?h5py HDF5 version prefix}; v2=${3:?netCDF4 HDF5 version prefix}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache" TB_STATS_LOG="$tmp/stats.txt"
mkdir "$tmp/s" "$tmp/t"
stock "$py" "$here/two_libraries.py" "$tmp/s" > "$tmp/stock.txt" || fail "stock run"
turbo "$py" "$here/two_libraries.py" "$tmp/t" > "$tmp/turbo.txt" 2> "$tmp/err.txt" || { cat "$tmp/err.txt"; fail "run under h5turbo"; }
cat "$tmp/turbo.txt"
diff -u "$tmp/stock.txt" "$tmp/turbo.txt" || fail "data differ from stock's"
grep -q "^h5py $v1" "$tmp/turbo.txt" && grep -q "^netCDF4 $v2" "$tmp/turbo.txt" || fail "not the two libraries expected"
! grep -q 'does not load' "$tmp/err.txt" || fail "a library was refused: $(cat "$tmp/err.txt")"
n=$(grep -c '^h5turbo stats: wrappers malloc=[1-9]' "$tmp/stats.txt")
[ "$n" = 2 ] || fail "want the connector active in both libraries (2 stats lines), got $n: $(cat "$tmp/stats.txt")"
[ "$(grep -c 'pipeline writes=1 reads=1' "$tmp/stats.txt")" = 2 ] || fail "want one pipelined write and read per library: $(cat "$tmp/stats.txt")"
echo "ok: two HDF5 libraries in one process, each served by its own copy of h5turbo"
