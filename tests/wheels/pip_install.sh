#!/usr/bin/env bash
# pip_install.sh — the pip package: `pip install <checkout>` into a fresh venv beside PyPI's h5py
# 3.16 wheel (HDF5 2.0.0) and hdf5plugin, from the wheels scripts/setup keeps in the dependency
# cache (--no-index). Then: no plugin needs a library the wheel does not bring (beyond libc, libz,
# libstdc++); `h5turbo info` passes and names the HDF5 it bound to (2.0.0 here, 1.14.6 with
# --python of the 3.15.1 wheel's venv); `h5turbo run -- python` writes and reads h5py files with
# the connector, pipeline and index active, dumps identical to stock's; hdf5plugin's Blosc reads
# our files and ours reads its, also with hdf5plugin imported in the process under h5turbo;
# netCDF4 1.7.5.1.post1's wheel still finds the filter plugins it brings (zstd, bzip2, Blosc) under
# `h5turbo run` and enable(), files written either way read the same by stock and by h5turbo;
# h5turbo.enable() before h5py works, after h5py it raises.
# Usage: pip_install.sh WHEEL_114_PYTHON
source "$(dirname "$0")/../integration/lib.sh"
py114=${1:?python of the h5py 3.15.1 wheel venv}
here=$(cd "$(dirname "$0")" && pwd)
deps=${H5TURBO_DEPS_DIR:-$HOME/.cache/h5turbo/deps}
wheelhouse=$deps/wheelhouse
ls "$wheelhouse"/scikit_build_core-*.whl "$wheelhouse"/h5py-3.16.0-*.whl >/dev/null 2>&1 \
  || fail "no wheels in $wheelhouse (run scripts/setup)"
base_py=$("$py114" -c 'import sys; print(getattr(sys, "_base_executable", sys.executable))')
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export XDG_CACHE_HOME="$tmp/cache"
unset HDF5_PLUGIN_PATH HDF5_VOL_CONNECTOR H5TURBO_PLUGIN_DIR

"$base_py" -m venv "$tmp/venv" || fail "venv"
py=$tmp/venv/bin/python
t0=$(date +%s.%N)
HDF5_DIR=$(cd "$TB_HDF5_BIN/.." && pwd) "$tmp/venv/bin/pip" install -q --disable-pip-version-check --no-index \
  --find-links "$wheelhouse" h5py==3.16.0 hdf5plugin numpy netCDF4==1.7.5.1.post1 "$TB_SRC" > pip.log 2>&1 || { tail -40 pip.log; fail "pip install failed"; }
echo "pip install h5py numpy hdf5plugin netCDF4 <checkout>: $(echo "$(date +%s.%N) - $t0" | bc | cut -c1-5) s"
pkg=$("$py" -c 'import h5turbo, os; print(os.path.dirname(h5turbo.__file__))')
[ "$("$py" -c 'import h5turbo; print(h5turbo.plugin_dir())')" = "$pkg/plugins" ] || fail "plugin_dir()"
for f in libh5turbo_vol.so libh5turbo_blosc.so hdf5-1/libh5turbo_vol.so hdf5-1/libh5turbo_blosc.so \
         hdf5-2/libh5turbo_vol.so hdf5-2/libh5turbo_blosc.so; do
  [ -f "$pkg/plugins/$f" ] || fail "the package lacks plugins/$f"
done

echo "== every library in the package needs only the system's libc, libz, libstdc++ or the package's own libs/"
for so in $(find "$pkg/plugins" -name '*.so*' -type f); do
  for need in $(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    case "$need" in
      libc.so.6|libm.so.6|libpthread.so.0|libdl.so.2|ld-linux-x86-64.so.2|libz.so.1|libstdc++.so.6|libgcc_s.so.1) ;;
      *) [ -f "$pkg/plugins/libs/$need" ] || fail "${so#$pkg/} needs $need, which the package does not bring" ;;
    esac
  done
  readelf -d "$so" | grep 'libhdf5' >/dev/null && fail "${so#$pkg/} links libhdf5"
done
# The plugins export their entry points only (the linked-in libdeflate stays hidden); the fronts
# also h5turbo_front_caller, as in the build tree (integration.exported_symbols).
for so in "$pkg"/plugins/*.so "$pkg"/plugins/hdf5-*/*.so; do
  want=$'H5PLget_plugin_info\nH5PLget_plugin_type'
  [ "$(dirname "$so")" = "$pkg/plugins" ] && want+=$'\nh5turbo_front_caller'
  got=$(nm -D --defined-only "$so" | awk '{print $3}' | sort)
  [ "$got" = "$want" ] || fail "${so#$pkg/} exports: $(echo $got)"
done

echo "== h5turbo info (this venv: h5py 3.16.0's HDF5 2.0.0; then the 3.15.1 wheel's 1.14.6)"
"$tmp/venv/bin/h5turbo" info > info.txt 2>&1 || { cat info.txt; fail "h5turbo info failed"; }
cat info.txt
grep -q "^plugins bound to: HDF5 2\.0\.[0-9]*, $tmp/venv/.*/h5py.libs/libhdf5[^ ]*\.so[^ ]* (builds loaded: hdf5-2/libh5turbo_blosc.so, hdf5-2/libh5turbo_vol.so)" info.txt \
  || fail "info does not name h5py's HDF5 2.0 and the hdf5-2 build"
grep -q "^bundled libraries loaded: .*libs/libblosc.so.1" info.txt || fail "the package's libblosc was not the one loaded"
grep -q "^self-test passed" info.txt || fail "info: self-test"
"$tmp/venv/bin/h5turbo" info --python "$py114" > info114.txt 2>&1 || { cat info114.txt; fail "h5turbo info --python (1.14) failed"; }
grep -q "^plugins bound to: HDF5 1\.14\.[0-9]*, .*/h5py.libs/libhdf5.* (builds loaded: hdf5-1/libh5turbo_blosc.so, hdf5-1/libh5turbo_vol.so)" info114.txt \
  || { cat info114.txt; fail "info --python: not bound to the 1.14 wheel's HDF5 through hdf5-1"; }
rc=0; H5TURBO_PLUGIN_DIR=/nonexistent "$tmp/venv/bin/h5turbo" run -- true || rc=$?  # the package ignores it: its own plugins
[ $rc -eq 0 ] || fail "h5turbo run -- true exited $rc"
# (netCDF4's plugin folder after ours: netCDF4 puts it in HDF5_PLUGIN_PATH when it finds that unset)
ncplug=$("$py" -c 'import importlib.util, os; print(os.path.join(importlib.util.find_spec("netCDF4").submodule_search_locations[0], "plugins"))')
grep -q "^export HDF5_PLUGIN_PATH='$pkg/plugins:$ncplug'$" <<< "$("$tmp/venv/bin/h5turbo" env)" || fail "h5turbo env: $("$tmp/venv/bin/h5turbo" env)"
# The package's run stacks on a selected connector and keeps a plugin path as the C build's does.
for cli in "$tmp/venv/bin/h5turbo" "$TB_CLI"; do
  HDF5_VOL_CONNECTOR="pass_through under_vol=0;under_info={}" HDF5_PLUGIN_PATH=/elsewhere "$cli" run --threads 3 --index memory -- env \
    | grep '^HDF5_VOL_CONNECTOR=' >> stacked.txt
done
[ "$(sort -u stacked.txt)" = "HDF5_VOL_CONNECTOR=h5turbo under_vol=pass_through;under_info={under_vol=0;under_info={}};threads=3;index=memory" ] \
  || fail "run: the package and the C build stack differently: $(cat stacked.txt)"
grep -q "^HDF5_PLUGIN_PATH=$pkg/plugins:/elsewhere$" <<< "$(HDF5_PLUGIN_PATH=/elsewhere "$tmp/venv/bin/h5turbo" run -- env)" \
  || fail "run: HDF5_PLUGIN_PATH not kept after ours"

echo "== h5turbo run -- python: h5py files written and read with h5turbo, compared with stock (hdf5plugin's Blosc)"
rt() { "$py" "$here/wheel_roundtrip.py" "$@"; }
stock "$py" "$here/wheel_roundtrip.py" write stock.h5 --hdf5plugin || fail "stock write"
stock "$py" "$here/wheel_roundtrip.py" dump stock.h5 --hdf5plugin > stock.txt || fail "stock dump"
[ "$(wc -l < stock.txt)" -gt 40 ] || fail "stock dump too short"
turbo_run() { H5TURBO_STATS=1 "$tmp/venv/bin/h5turbo" run -- "$py" "$here/wheel_roundtrip.py" "$@" 2>>err.txt; }
turbo_run write turbo.h5 || { cat err.txt; fail "write under h5turbo run"; }
turbo_run dump turbo.h5 > turbo_turbo.txt || { cat err.txt; fail "h5turbo reading its own file"; }
turbo_run dump stock.h5 > turbo_stock.txt || { cat err.txt; fail "h5turbo (our Blosc) reading hdf5plugin's file"; }
stock "$py" "$here/wheel_roundtrip.py" dump turbo.h5 --hdf5plugin > stock_turbo.txt || fail "hdf5plugin reading our file"
for f in turbo_turbo turbo_stock stock_turbo; do diff -u stock.txt $f.txt || fail "$f differs from stock's dump"; done
grep -q '^h5turbo stats: wrappers malloc=[1-9]' err.txt || fail "h5turbo run: connector not active: $(cat err.txt)"
grep -q 'pipeline writes=[1-9]' err.txt || fail "the pipeline wrote nothing: $(grep stats err.txt)"
grep -q 'pipeline writes=0 reads=[1-9]' err.txt || fail "the pipeline read nothing: $(grep stats err.txt)"
grep -q 'index answered=[1-9]' err.txt || fail "the index answered nothing: $(grep stats err.txt)"
! grep -q 'does not load' err.txt || fail "a plugin refused to load: $(cat err.txt)"

echo "== the package's plugins serve a C program too: h5dump of HDF5 1.14.5 (the hdf5-1 build) dumps our Blosc file"
H5TURBO_STATS=1 "$tmp/venv/bin/h5turbo" run -- h5dump turbo.h5 > h5dump.txt 2> h5dump_err.txt || { tail h5dump_err.txt; fail "h5dump under the package's h5turbo"; }
grep -q '^h5turbo stats: wrappers malloc=[1-9]' h5dump_err.txt || fail "h5dump: h5turbo not active: $(cat h5dump_err.txt)"
[ "$(wc -l < h5dump.txt)" -gt 100 ] || fail "h5dump printed too little"

echo "== hdf5plugin imported in a process under h5turbo (its filter 32001 registered over ours): same files, same data"
turbo_run write mixed.h5 --hdf5plugin || { cat err.txt; fail "write under h5turbo with hdf5plugin imported"; }
turbo_run dump mixed.h5 --hdf5plugin > mixed_mixed.txt || { cat err.txt; fail "reading it back in such a process"; }
turbo_run dump stock.h5 --hdf5plugin > mixed_stock.txt || { cat err.txt; fail "reading hdf5plugin's file in such a process"; }
turbo_run dump mixed.h5 > turbo_mixed.txt || { cat err.txt; fail "our Blosc reading the mixed process's file"; }
stock "$py" "$here/wheel_roundtrip.py" dump mixed.h5 --hdf5plugin > stock_mixed.txt || fail "hdf5plugin alone reading it"
for f in mixed_mixed mixed_stock turbo_mixed stock_mixed; do diff -u stock.txt $f.txt || fail "$f differs from stock's dump"; done
[ "$(grep -c '^h5turbo stats: wrappers malloc=[1-9]' err.txt)" -ge 7 ] || fail "h5turbo not active in every run: $(grep stats err.txt)"
! grep -q 'does not load' err.txt || fail "a plugin refused to load: $(cat err.txt)"

echo "== netCDF4's wheel under h5turbo run and enable(): the filters it brings (zstd, bzip2, Blosc) still found"
stock "$py" "$here/nc_filters.py" write nc_stock.nc || fail "netCDF4 stock write"
stock "$py" "$here/nc_filters.py" read nc_stock.nc > nc_stock.txt || fail "netCDF4 stock read"
cat nc_stock.txt
grep -q "^filters: zstd True bzip2 True blosc True$" nc_stock.txt || fail "stock netCDF4 lacks its own filters here"
H5TURBO_STATS=1 "$tmp/venv/bin/h5turbo" run -- "$py" "$here/nc_filters.py" write nc_turbo.nc 2> nc_err.txt || { cat nc_err.txt; fail "netCDF4 write under h5turbo run"; }
for f in nc_stock nc_turbo; do
  H5TURBO_STATS=1 "$tmp/venv/bin/h5turbo" run -- "$py" "$here/nc_filters.py" read $f.nc > run_$f.txt 2>> nc_err.txt || { cat nc_err.txt; fail "netCDF4 reading $f.nc under h5turbo run"; }
  H5TURBO_STATS=1 "$py" "$here/nc_filters.py" read $f.nc --enable > enable_$f.txt 2>> nc_err.txt || { cat nc_err.txt; fail "netCDF4 reading $f.nc after enable()"; }
  diff -u nc_stock.txt run_$f.txt || fail "netCDF4 under h5turbo run, $f.nc: not stock's"
  diff -u nc_stock.txt enable_$f.txt || fail "netCDF4 after enable(), $f.nc: not stock's"
done
stock "$py" "$here/nc_filters.py" read nc_turbo.nc > stock_nc_turbo.txt || fail "stock netCDF4 reading h5turbo's file"
diff -u nc_stock.txt stock_nc_turbo.txt || fail "stock netCDF4 reading h5turbo's file: not the same"
[ "$(grep -c '^h5turbo stats: wrappers malloc=[1-9]' nc_err.txt)" = 5 ] || fail "h5turbo not active in every netCDF4 run: $(grep stats nc_err.txt)"

echo "== h5turbo.enable() before h5py; after it, an error and nothing changed"
cat > enable.py <<'PY'
import h5turbo
env = h5turbo.enable(threads=2)
import h5py, numpy as np
data = np.arange(1 << 20, dtype="f4").reshape(256, 4096)
with h5py.File("enable.h5", "w") as f:
    f.create_dataset("d", data=data, chunks=(16, 4096), compression="gzip", shuffle=True)
with h5py.File("enable.h5", "r") as f:
    assert (f["d"][...] == data).all(), "data differ"
print("enable:", env["HDF5_VOL_CONNECTOR"])
PY
H5TURBO_STATS=1 "$py" enable.py > enable.txt 2> enable_err.txt || { cat enable_err.txt; fail "enable() then h5py"; }
grep -q "^enable: h5turbo threads=2$" enable.txt || fail "enable(): $(cat enable.txt)"
grep -q '^h5turbo stats: wrappers malloc=[1-9]' enable_err.txt || fail "enable(): connector not active: $(cat enable_err.txt)"
grep -q 'pipeline writes=[1-9]' enable_err.txt || fail "enable(): the pipeline wrote nothing"
late=$("$py" -c '
import os, h5py, h5turbo
try:
    h5turbo.enable()
    print("no error")
except h5turbo.HDF5AlreadyInitialisedError as e:
    print("raised:", "HDF5_VOL_CONNECTOR" in os.environ, e)
') || fail "enable() after h5py crashed"
echo "$late"
grep -q "^raised: False h5turbo.enable() is too late: HDF5 is already initialised in this process (.*h5py.libs/libhdf5" <<< "$late" \
  || fail "enable() after h5py: $late"
# A library loaded but not yet initialised (ctypes, or a module that loads HDF5 lazily) has not read
# the variables yet: enable() is in time then, and the connector is active afterwards.
H5TURBO_STATS=1 "$py" -c '
import ctypes, glob, os, sysconfig
ctypes.CDLL(glob.glob(os.path.join(sysconfig.get_paths()["platlib"], "h5py.libs", "libhdf5-*.so*"))[0])
import h5turbo
assert h5turbo.hdf5_initialised() == [], h5turbo.hdf5_initialised()
h5turbo.enable()
import h5py
h5py.File("loaded.h5", "w").close()
' 2> loaded_err.txt || { cat loaded_err.txt; fail "enable() with HDF5 loaded but not initialised"; }
grep -q '^h5turbo stats: wrappers malloc=[1-9]' loaded_err.txt || fail "enable() after a mere load: not active"
echo "ok: pip install of the checkout beside h5py 3.16: info, run, enable() and Blosc interop with hdf5plugin"
