#!/usr/bin/env bash
# visit_damaged.sh — h5py's visits (visititems, visit, visit_links) of a file whose group a/e has a
# damaged B-tree (visit_damaged.py) report the same objects and fail with the same error under
# h5turbo as under stock HDF5, on a first open and from the sidecar it wrote: the index loads each
# group as the visit enters it, and when it cannot load one it goes on natively from there (native's
# visit from the start, the callbacks the application already had not passed on again); the
# counters must show such a visit.
source "$(dirname "$0")/../integration/lib.sh"
venv_python
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
f="$tmp/damaged.h5"
stock "$py" "$TB_SRC/tests/index/visit_damaged.py" make "$f" || fail "make"
settle # old enough to be persisted
export XDG_CACHE_HOME="$tmp/cache"
stats="$tmp/stats.log"
for mode in items plain links; do
  stock "$py" "$TB_SRC/tests/index/visit_damaged.py" visit "$f" $mode > "$tmp/stock.txt" || fail "stock $mode"
  grep -q "^error" "$tmp/stock.txt" || fail "stock's $mode visit did not fail: the file is not damaged as meant"
  for run in first second; do
    TB_STATS_LOG="$stats" H5TURBO_INDEX=persistent turbo "$py" "$TB_SRC/tests/index/visit_damaged.py" visit "$f" $mode \
      > "$tmp/$run.txt" || fail "h5turbo $mode ($run)"
    diff -u "$tmp/stock.txt" "$tmp/$run.txt" | head -30
    cmp -s "$tmp/stock.txt" "$tmp/$run.txt" || fail "h5py's $mode visit differs under h5turbo ($run open)"
  done
done
grep -q "visits_replayed=[1-9]" "$stats" || fail "no visit went on natively: the index did not walk into the damaged group"
echo "ok: visits of a damaged tree report the same objects and the same error under h5turbo (first and second opens)"
