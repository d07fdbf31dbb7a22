#!/usr/bin/env bash
# blosc_interop.sh — h5turbo's Blosc filter against the two independent implementations, both
# ways: files written through our plugin are read by the hdf5-blosc reference plugin and by
# hdf5plugin (h5py wheel, separate process), and files they write are read through ours.
# Each plugin lives alone in its own HDF5_PLUGIN_PATH, so a reader cannot quietly use another.
set -euo pipefail
: "${TB_BUILD:?run through ctest}"
OURS=${TB_BLOSC_OURS_DIR:?}            # directory with only libh5turbo_blosc.so
REF_DIR=${TB_BLOSC_REF_DIR:?}          # hdf5-blosc reference plugin directory
INTEROP=${TB_BLOSC_INTEROP:?}          # the blosc_interop C program
WHEELS_PY=${TB_WHEELS_PY:-$TB_SRC/.venv-wheels/bin/python}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

[ -f "$REF_DIR/libH5Zblosc_ref.so" ] || fail "reference plugin missing in $REF_DIR (run scripts/setup)"
"$WHEELS_PY" -c "import h5py, hdf5plugin" || fail "$WHEELS_PY lacks h5py/hdf5plugin (run scripts/setup)"

with_ours() { env -u HDF5_VOL_CONNECTOR HDF5_PLUGIN_PATH="$OURS" "$@"; }
with_ref()  { env -u HDF5_VOL_CONNECTOR HDF5_PLUGIN_PATH="$REF_DIR" "$@"; }
# The wheel's HDF5 must not see our plugins (built for another HDF5): no plugin path at all.
with_wheels() { env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH "$WHEELS_PY" "$here/blosc_interop.py" "$@"; }

echo "== ours writes (filter mandatory), everyone reads"
with_ours "$INTEROP" write "$work/ours.h5" mandatory || fail "writing through our plugin"
with_ours "$INTEROP" verify "$work/ours.h5" || fail "ours cannot read its own file"
with_ref  "$INTEROP" verify "$work/ours.h5" || fail "hdf5-blosc reference cannot read our chunks"
with_wheels verify "$work/ours.h5" || fail "hdf5plugin cannot read our chunks"
# Without any Blosc plugin the reads must fail: proof that the checks above decoded something.
if env -u HDF5_VOL_CONNECTOR HDF5_PLUGIN_PATH="$work/empty" "$INTEROP" verify "$work/ours.h5" 2>/dev/null; then
  fail "file read back without any Blosc plugin: the filter was not applied"
fi

echo "== the reference writes (optional: it cannot store one-element chunks), ours reads"
with_ref "$INTEROP" write "$work/ref.h5" optional || fail "writing through the reference plugin"
with_ours "$INTEROP" verify "$work/ref.h5" || fail "ours cannot read the reference's chunks"

echo "== ours writes with the filter optional: what does not shrink is stored unfiltered, as by the reference"
with_ours "$INTEROP" write "$work/ours_opt.h5" optional || fail "writing through our plugin (optional)"
with_ref  "$INTEROP" verify "$work/ours_opt.h5" || fail "hdf5-blosc reference cannot read our optional file"
with_ours "$INTEROP" chunks-same "$work/ours_opt.h5" "$work/ref.h5" \
  || fail "our chunks or filter masks differ from the reference's (both optional)"

echo "== the chunk pipeline writes with the filter optional: the same chunks and masks"
env XDG_CACHE_HOME="$work/cache" HDF5_PLUGIN_PATH="$TB_BUILD/plugins" HDF5_VOL_CONNECTOR=h5turbo H5TURBO_STATS=1 \
  "$INTEROP" write "$work/pipe_opt.h5" optional 2> "$work/pipe.stats" || { cat "$work/pipe.stats"; fail "writing through the pipeline"; }
grep -Eq 'chunks_written=[1-9]' "$work/pipe.stats" || { cat "$work/pipe.stats"; fail "the pipeline wrote no chunk"; }
with_ref  "$INTEROP" verify "$work/pipe_opt.h5" || fail "hdf5-blosc reference cannot read the pipeline's file"
with_ours "$INTEROP" chunks-same "$work/pipe_opt.h5" "$work/ref.h5" \
  || fail "the pipeline's chunks or filter masks differ from the reference's (both optional)"

echo "== a one-element float64 dataset with the filter mandatory"
with_ours "$INTEROP" write-one "$work/one.h5" || fail "ours cannot write a mandatory one-element dataset"
with_ref "$INTEROP" verify "$work/one.h5" || fail "reference cannot read our one-element chunk"
with_wheels verify "$work/one.h5" || fail "hdf5plugin cannot read our one-element chunk"
if with_ref "$INTEROP" write-one "$work/one_ref.h5" 2>/dev/null; then
  echo "note: this hdf5-blosc build now writes mandatory one-element chunks too"
else
  echo "ok: hdf5-blosc fails there (its output buffer is the chunk size), ours stores a plain-copy frame"
fi

echo "== cd_values: ours and the reference record the same parameters"
with_ours "$INTEROP" params "$work/ours.h5" > "$work/ours.params"
with_ref  "$INTEROP" params "$work/ref.h5" > "$work/ref.params"
diff -u "$work/ref.params" "$work/ours.params" || fail "cd_values differ from hdf5-blosc's"
grep -q '^defaults_u4: 2 2 4 1280$' "$work/ours.params" || fail "set_local without user values"

echo "== chunks: ours are byte-identical to the reference's wherever both compressed"
with_ours "$INTEROP" chunks "$work/ours.h5" "$work/ref.h5" || fail "our chunks differ from the reference's"

echo "== hdf5plugin writes, ours reads"
with_wheels write "$work/wheels.h5" || fail "hdf5plugin could not write"
with_ours "$INTEROP" verify "$work/wheels.h5" || fail "ours cannot read hdf5plugin's chunks"

echo "== h5repack applies our filter; the reference reads the result"
with_ours "$TB_HDF5_BIN/h5repack" -f /blosc/c1_s1_u2_l5:UD=32001,0,7,0,0,0,0,9,2,5 \
  "$work/ours.h5" "$work/repacked.h5" \
  || fail "h5repack with our filter"
with_ref "$INTEROP" verify "$work/repacked.h5" || fail "reference cannot read h5repack's output"
echo "all Blosc interop checks passed"
