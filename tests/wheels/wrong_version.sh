#!/usr/bin/env bash
# wrong_version.sh PLUGIN_DIR PY WANT_MESSAGE — a plugin build loaded by an HDF5 of a version it
# does not serve must refuse, with one clear line on stderr, and the program must carry on
# without it (filter 32001 unavailable, files still readable).
source "$(dirname "$0")/../integration/lib.sh"
dir=${1:?plugin dir}; py=${2:?python}; want=${3:?expected message}
[ -x "$py" ] || fail "no $py (run scripts/setup)"
out=$(env -u HDF5_VOL_CONNECTOR HDF5_PLUGIN_PATH="$dir" "$py" -c '
import h5py, numpy as np, tempfile, os
print("hdf5", h5py.version.hdf5_version)
print("blosc", h5py.h5z.filter_avail(32001))
p = os.path.join(tempfile.mkdtemp(), "f.h5")
with h5py.File(p, "w") as f: f["a"] = np.arange(5)
print("read", h5py.File(p)["a"][:].tolist())' 2>&1) || fail "the program failed: $out"
echo "$out"
grep -q "^h5turbo: the Blosc filter plugin (32001) does not load into this HDF5: .*$want" <<< "$out" \
  || fail "no clear refusal on stderr"
[ "$(grep -c 'does not load' <<< "$out")" = 1 ] || fail "the refusal should be printed once"
grep -q '^blosc False$' <<< "$out" || fail "the refused filter is available"
grep -q '^read \[0, 1, 2, 3, 4\]$' <<< "$out" || fail "the program did not carry on"
echo "ok: refused with a clear message, the program carried on"
