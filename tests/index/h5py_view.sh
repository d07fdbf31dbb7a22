#!/usr/bin/env bash
# h5py_view.sh — h5py's visititems, keys(), `in` and get() on random trees print the same under
# stock HDF5 and under h5turbo (index in memory, then from the sidecar).
source "$(dirname "$0")/../integration/lib.sh"
: "${TB_INDEX_DIFF:?}"
venv_python
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
for seed in 11 12 13 14; do
  d="$tmp/s$seed"; mkdir -p "$d"
  stock "$TB_INDEX_DIFF" gen "$d" "$seed" || fail "gen $seed"
done
settle # old enough to be persisted
for seed in 11 12 13 14; do
  d="$tmp/s$seed"
  (cd "$d" && stock "$py" "$TB_SRC/tests/index/h5py_view.py" tree.h5 paths.txt > stock.txt) || fail "stock h5py $seed"
  for mode in memory persistent persistent; do
    (cd "$d" && H5TURBO_INDEX=$mode turbo "$py" "$TB_SRC/tests/index/h5py_view.py" tree.h5 paths.txt > turbo.txt) \
      || fail "turbo h5py $seed"
    diff -u "$d/stock.txt" "$d/turbo.txt" | head -40
    cmp -s "$d/stock.txt" "$d/turbo.txt" || fail "seed $seed ($mode): h5py sees something else under h5turbo"
  done
done
echo "ok: h5py visititems/keys/in/get identical under h5turbo on 4 random trees"
