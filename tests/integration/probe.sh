#!/usr/bin/env bash
# probe.sh — HDF5's probes of the plugin folder never crash and get right answers: is_accessible
# and delete through h5turbo with and without info, and tools opening a non-HDF5 file while our
# plugins sit on HDF5_PLUGIN_PATH (HDF5 then asks every connector plugin it finds).
source "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
HDF5_PLUGIN_PATH="$TB_PLUGIN_DIR" "$TB_PROBE" "$tmp" || fail "wrong answers (see above)"
for conn in "" "h5turbo"; do
  rc=0
  HDF5_PLUGIN_PATH="$TB_PLUGIN_DIR" HDF5_VOL_CONNECTOR="$conn" h5dump "$tmp/not_hdf5.txt" > /dev/null 2>&1 || rc=$?
  [ $rc -ne 0 ] && [ $rc -lt 128 ] || fail "h5dump of a non-HDF5 file with connector '$conn' exited $rc"
done
echo "ok: probes answer correctly and never crash"
