#!/usr/bin/env bash
# examples.sh — the examples work: the C program selecting h5turbo and Blosc through property
# lists (its file then read by stock h5dump with only the filter on the plugin path), and the h5py
# script printing the same stock and under `h5turbo run`.
source "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out=$(env -u HDF5_VOL_CONNECTOR H5TURBO_STATS=1 "$TB_BUILD/examples/tb_example_select_by_plist" "$tmp/ex.h5" "$TB_PLUGIN_DIR" 2>"$tmp/err") \
  || { cat "$tmp/err"; fail "select_by_plist failed"; }
echo "$out"
echo "$out" | grep "read back identical" >/dev/null || fail "select_by_plist did not read back its data"
grep -q '^h5turbo stats: wrappers malloc=[1-9]' "$tmp/err" || fail "select_by_plist did not go through h5turbo"
grep -q "0, 1, 2, 3" <<< "$(env -u HDF5_VOL_CONNECTOR HDF5_PLUGIN_PATH="$TB_PLUGIN_DIR" h5dump -d /frames -s 0,0 -c 1,4 "$tmp/ex.h5")" \
  || fail "the example's Blosc file does not read back with h5dump"
py="$TB_SRC/.venv/bin/python"
stock "$TB_MKFILES" "$tmp" >/dev/null
stock "$py" "$TB_SRC/examples/nexus_walk.py" "$tmp/attrs.h5" > "$tmp/stock.txt"
env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH H5TURBO_STATS=1 "$TB_BUILD/bin/h5turbo" run -- "$py" "$TB_SRC/examples/nexus_walk.py" "$tmp/attrs.h5" \
  > "$tmp/turbo.txt" 2> "$tmp/err" || { cat "$tmp/err"; fail "nexus_walk.py under h5turbo failed"; }
grep -q '^h5turbo stats: wrappers malloc=[1-9]' "$tmp/err" || fail "nexus_walk.py did not go through h5turbo"
diff -u "$tmp/stock.txt" "$tmp/turbo.txt" || fail "nexus_walk.py output differs"
grep -q "NXentry: 3 groups" "$tmp/turbo.txt" || fail "nexus_walk.py found the wrong groups"
echo "ok: examples work stock and under h5turbo"
