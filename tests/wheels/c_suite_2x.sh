#!/usr/bin/env bash
# c_suite_2x.sh CC HEADERS PY pipeline|index|integration — our C tests against an HDF5 2.x
# library: the pipeline's case matrix (pipe_cases), its conversions and selections (pipe_xfer) and
# its random calls (pipe_fuzz, 200 seeds),
# the index's random query runs (index_diff), or the integration programs (native_ops: native-only
# and deprecated calls; probe: HDF5's probes of the plugin folder) and the unit test that uses HDF5
# (test_hdf5err: our errors on HDF5's stack), compiled against the 2.x headers and linked to the
# libhdf5 netCDF4's wheel brings (HDF5 2.2.0, found through PY), then run by their own scripts,
# stock vs h5turbo (the front plugin picks the hdf5-2/ build). HDF5's tools are 1.14.5's here: the
# tool steps are skipped.
source "$(dirname "$0")/../integration/lib.sh"
cc=${1:?}; inc=${2:?}; py=${3:?}; which=${4:?pipeline, index or integration}
[ -f "$inc/H5public.h" ] || fail "no HDF5 2.x headers in $inc (run scripts/setup)"
lib=$("$py" -c 'import glob, os, netCDF4; d = os.path.join(os.path.dirname(netCDF4.__file__), "..", "netcdf4.libs"); print(os.path.realpath(glob.glob(os.path.join(d, "libhdf5-*.so*"))[0]))') \
  || fail "no netCDF4 wheel library through $py"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ln -s "$lib" "$tmp/libhdf5.so"
build() { # NAME SOURCES...
  local name=$1; shift
  "$cc" -O1 -D_GNU_SOURCE -I"$inc" -I"$TB_SRC/tests/unit" "$@" -o "$tmp/$name" -L"$tmp" -lhdf5 \
    -Wl,-rpath,"$(dirname "$lib")" -lm || fail "cannot build $name against $inc"
}
echo "== against $lib"
if [ "$which" = index ]; then
  build index_diff "$TB_SRC"/tests/index/index_diff*.c
  ldd "$tmp/index_diff" | grep "$(basename "$lib")" >/dev/null || fail "index_diff is not linked to $lib"
  TB_INDEX_DIFF="$tmp/index_diff" bash "$TB_SRC/tests/index/index_diff.sh" 3 2>&1 | grep -v '^h5turbo stats' \
    || fail "index_diff against HDF5 2.x"
  echo "ok: index_diff passes against $(basename "$lib") (HDF5 2.2) with h5turbo's hdf5-2 build"
  exit 0
fi
if [ "$which" = integration ]; then
  build native_ops "$TB_SRC/tests/integration/native_ops.c"
  build probe "$TB_SRC/tests/integration/probe.c"
  build test_hdf5err -I"$TB_SRC/common" -I"$TB_SRC/common/hdf5" "$TB_SRC/tests/unit/test_hdf5err.c" \
    "$TB_SRC/common/hdf5/tb_hdf5err.c" "$TB_SRC/common/tb_status.c"
  ldd "$tmp/native_ops" | grep "$(basename "$lib")" >/dev/null || fail "native_ops is not linked to $lib"
  "$tmp/test_hdf5err" || fail "test_hdf5err against HDF5 2.x"
  TB_NATIVE_OPS="$tmp/native_ops" bash "$TB_SRC/tests/integration/native_ops.sh" || fail "native_ops against HDF5 2.x"
  TB_PROBE="$tmp/probe" bash "$TB_SRC/tests/integration/probe.sh" || fail "probe against HDF5 2.x"
  echo "ok: test_hdf5err, native_ops and probe pass against $(basename "$lib") (HDF5 2.2) with h5turbo's hdf5-2 build"
  exit 0
fi
build pipe_cases "$TB_SRC/tests/pipeline/pipe_cases.c"
build pipe_xfer "$TB_SRC/tests/pipeline/pipe_xfer.c"
ldd "$tmp/pipe_cases" | grep "$(basename "$lib")" >/dev/null || fail "pipe_cases is not linked to $lib"
bash "$TB_SRC/tests/pipeline/pipe_cases.sh" "$tmp/pipe_cases" "" --no-tools 2>&1 | grep -v '^h5turbo stats' \
  || fail "pipe_cases against HDF5 2.x"
TB_XFER_HDF5_2=1 bash "$TB_SRC/tests/pipeline/pipe_xfer.sh" "$tmp/pipe_xfer" "" --no-py 2>&1 | grep -v '^h5turbo stats' \
  || fail "pipe_xfer against HDF5 2.x"
build pipe_fuzz "$TB_SRC/tests/pipeline/pipe_fuzz.c"
bash "$TB_SRC/tests/pipeline/pipe_fuzz.sh" "$tmp/pipe_fuzz" 1 200 --no-tools 2>&1 | grep -v '^h5turbo stats' \
  || fail "pipe_fuzz against HDF5 2.x"
echo "ok: pipe_cases, pipe_xfer and pipe_fuzz pass against $(basename "$lib") (HDF5 2.2) with h5turbo's hdf5-2 build"
