#!/usr/bin/env bash
# mdc_size.sh — what the index opens for itself on a first open (headers read to list attributes,
# links and member infos, datasets opened by token) leaves HDF5's metadata cache again: after
# bench/index's loaders on a 10-experiment Mantid-like file, the cache holds under a quarter of the
# entries stock's holds (before, it held more than stock's and grew past its initial size, keeping
# every decoded header: 70 MB peak RSS against stock's 30 MB at 40 experiments).
source "$(dirname "$0")/../integration/lib.sh"
: "${TB_MANTID_GEN:?}" "${TB_MANTID_LOAD:?}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
stock "$TB_MANTID_GEN" "$tmp/m.h5" 10 > /dev/null || fail "gen"
stock "$TB_MANTID_GEN" "$tmp/nx.h5" 10 500 --units > /dev/null || fail "gen --units"
settle # old enough to be persisted

# entries MODE FILE LOADER: the cache's entry count at the end of the load ("mdc BYTES ENTRIES").
entries() {
  local out
  out=$(MANTID_MDC=1 "$1" "$TB_MANTID_LOAD" "$2" "$3" 2>&1 > /dev/null) || fail "$3 ($1) failed: $out"
  echo "$out" | awk '/^mdc / {print $3}'
}
for l in a b d i; do
  f=$tmp/nx.h5
  case $l in a | b) f=$tmp/m.h5 ;; esac
  rm -rf "$XDG_CACHE_HOME"
  s=$(entries stock "$f" "$l")
  t=$(entries turbo "$f" "$l")
  [ -n "$s" ] && [ -n "$t" ] || fail "loader $l: no cache size printed"
  echo "loader $l: stock $s entries, h5turbo first open $t"
  [ $((t * 4)) -le "$s" ] || fail "loader $l: h5turbo's first open left $t entries in the metadata cache, stock $s"
done
echo "PASS"
