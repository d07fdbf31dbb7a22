#!/usr/bin/env bash
# netcdf_roundtrip.sh PY — netCDF4's wheel (its own HDF5 2.2.0) writes and reads files with
# h5turbo active and without; the dumps must be the same and h5turbo proven active (connector,
# pipeline and index counters).
source "$(dirname "$0")/../integration/lib.sh"
py=${1:?python of the wheel venv}
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$py" ] || fail "no $py (run scripts/setup)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export XDG_CACHE_HOME="$tmp/cache" TB_STATS_LOG="$tmp/stats.txt"
v=$("$py" -c 'import netCDF4; print(netCDF4.__version__, netCDF4.__hdf5libversion__)') || fail "no netCDF4 in $py"
case "$v" in *" 2."*) ;; *) fail "want netCDF4 with HDF5 2.x, got $v" ;; esac
stock "$py" "$here/netcdf_roundtrip.py" write stock.nc || fail "stock write"
stock "$py" "$here/netcdf_roundtrip.py" dump stock.nc > stock.txt || fail "stock dump"
[ "$(wc -l < stock.txt)" -eq 5 ] || fail "short dump: $(cat stock.txt)"
turbo "$py" "$here/netcdf_roundtrip.py" write turbo.nc 2> err.txt || { cat err.txt; fail "write under h5turbo"; }
grep -q 'pipeline writes=[1-9]' stats.txt || fail "the pipeline wrote nothing: $(cat stats.txt)"
turbo "$py" "$here/netcdf_roundtrip.py" dump turbo.nc > turbo_turbo.txt 2>> err.txt || fail "h5turbo reading its file"
turbo "$py" "$here/netcdf_roundtrip.py" dump stock.nc > turbo_stock.txt 2>> err.txt || fail "h5turbo reading stock's file"
stock "$py" "$here/netcdf_roundtrip.py" dump turbo.nc > stock_turbo.txt || fail "stock reading h5turbo's file"
for f in turbo_turbo turbo_stock stock_turbo; do diff -u stock.txt $f.txt || fail "$f differs from stock's dump"; done
grep -q 'pipeline writes=0 reads=[1-9]' stats.txt || fail "the pipeline read nothing: $(cat stats.txt)"
grep -q 'index answered=[1-9]' stats.txt || fail "the index answered nothing: $(cat stats.txt)"
! grep -q 'does not load' err.txt || fail "a plugin refused to load: $(cat err.txt)"
cat stats.txt
echo "ok: netCDF4 $v: h5turbo's files and reads identical to stock's; connector, pipeline and index active"
