#!/usr/bin/env bash
# spill_fork.sh — an index spilled to its file (index_spill.h) survives a fork: h5py in a parent
# that keeps a file open and reads on while multiprocessing's forked children open it again sees
# what stock HDF5 shows, parent and children alike (index in memory, then writing the sidecar,
# then from it), and the index did spill.
source "$(dirname "$0")/../integration/lib.sh"
venv_python
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
script="$TB_SRC/tests/index/spill_fork.py"
stock "$py" "$script" gen "$tmp/f.h5" || fail "gen"
settle # old enough to be persisted
stock "$py" "$script" "$tmp/f.h5" > "$tmp/stock.txt" || fail "stock run"
for mode in memory persistent persistent; do
  H5TURBO_INDEX=$mode H5TURBO_INDEX_SPILL=0 H5TURBO_DEBUG=1 turbo "$py" "$script" "$tmp/f.h5" \
    > "$tmp/turbo.txt" 2> "$tmp/err.txt" || { tail -20 "$tmp/err.txt"; fail "turbo run ($mode)"; }
  diff -u "$tmp/stock.txt" "$tmp/turbo.txt" || fail "$mode: a view differs from stock's (parent first/again, children)"
  grep -q "index spills to an unnamed file" "$tmp/err.txt" || fail "$mode: the index did not spill"
done
echo "ok: parent and forked children see what stock shows with the index spilled (memory, persistent x2)"
