#!/usr/bin/env bash
# reopen.sh — a program that opens its file around every access (nexusformat's NXFile; reopen.py)
# sees under h5turbo what it sees under stock HDF5, also when the file changes between its opens
# (by another process, and by itself); and h5turbo keeps each file's index between those opens:
# the sidecar is read once per process at most and written a few times, not at every close.
source "$(dirname "$0")/../integration/lib.sh"
: "${TB_INDEX_DIFF:?}"
venv_python
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
stock "$TB_INDEX_DIFF" gen "$tmp" 21 || fail "gen"
nopens=$(( 2 * ($(wc -l < "$tmp/paths.txt") + 2) )) # (the walks of tree.h5: an open per path, one more)
run() { # MODE OUT [turbo]
  cp "$tmp/tree.h5" "$tmp/other.h5"; cp "$tmp/tree.h5" "$tmp/self.h5"
  settle # (old enough to be persisted)
  if [ "$1" = stock ]; then
    (cd "$tmp" && stock "$py" "$TB_SRC/tests/index/reopen.py" tree.h5 paths.txt other.h5 self.h5 > "$2")
  else
    (cd "$tmp" && H5TURBO_INDEX=$1 TB_STATS_LOG="$2.stats" turbo "$py" "$TB_SRC/tests/index/reopen.py" \
      tree.h5 paths.txt other.h5 self.h5 > "$2")
  fi
}
run stock "$tmp/stock.txt" || fail "stock run"
grep -q "^G /added Group" "$tmp/stock.txt" || fail "the changes are not in stock's transcript"
for mode in memory persistent persistent; do
  rm -f "$tmp/turbo.txt.stats"
  run $mode "$tmp/turbo.txt" || fail "h5turbo run ($mode)"
  diff -u "$tmp/stock.txt" "$tmp/turbo.txt" | head -40
  cmp -s "$tmp/stock.txt" "$tmp/turbo.txt" || fail "$mode: reopen.py sees something else under h5turbo"
  [ "$mode" = persistent ] || continue
  # Two processes print an index stats line each: reopen.py's is the one with kept opens (the
  # one changing other.h5 opens it once, for writing).
  line=$(grep 'sidecars' "$tmp/turbo.txt.stats" | grep ' kept=' | head -1)
  kept=$(sed -n 's/.* kept=\([0-9]*\).*/\1/p' <<< "$line"); loaded=$(sed -n 's/.* loaded=\([0-9]*\).*/\1/p' <<< "$line")
  written=$(sed -n 's/.* written=\([0-9]*\).*/\1/p' <<< "$line")
  echo "$mode: ${nopens}+ opens of tree.h5: $line"
  [ "${kept:-0}" -ge $((nopens - 1)) ] || fail "$mode: ${kept:-0} opens took a kept index (want >= $((nopens - 1)))"
  [ "${loaded:-0}" -le 1 ] || fail "$mode: $loaded sidecars read (tree.h5's at most once)"
  [ "${written:-0}" -ge 1 ] && [ "${written:-0}" -lt $((nopens / 8)) ] || fail "$mode: $written sidecars written (at most a few a file)"
done
# The last run read tree.h5's sidecar, written by the one before (at its last close or its exit).
[ "$loaded" = 1 ] || fail "tree.h5's sidecar was not read by the second persistent run"
echo "ok: reopen.py identical under h5turbo (memory, persistent twice); kept index, $loaded sidecar read, $written written"
