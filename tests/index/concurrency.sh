#!/usr/bin/env bash
# concurrency.sh — 16 processes open the same file at once under h5turbo (persistent index):
# first with no sidecar, then with a stale one (the file rewritten). Every process must print what
# stock HDF5 prints, none may see a corrupt (partial) sidecar, and the sidecar left behind must be
# valid for the file as it is. Also: a file modified between two opens has its old sidecar rejected.
source "$(dirname "$0")/../integration/lib.sh"
: "${H5T_INDEX_OPEN:?}" "${H5T_INDEX_DIFF:?}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
cd "$tmp"
stock "$H5T_INDEX_DIFF" gen "$tmp" 7 >/dev/null || fail "gen"
touch -d '10 minutes ago' tree.h5
stock "$H5T_INDEX_OPEN" tree.h5 > stock.txt || fail "stock open"

round() { # label
  local pids=() i
  for i in $(seq 1 16); do
    H5TURBO_INDEX=persistent H5TURBO_DEBUG=1 turbo "$H5T_INDEX_OPEN" tree.h5 > "out.$i" 2> "err.$i" &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do wait "${pids[$i]}" || fail "$1: process $((i+1)) failed"; done
  for i in $(seq 1 16); do
    cmp -s stock.txt "out.$i" || { diff stock.txt "out.$i" | head; fail "$1: process $i saw something else"; }
    if grep -q "sidecar rejected (corrupt)" "err.$i"; then fail "$1: process $i read a corrupt sidecar"; fi
  done
  stock "$H5T_INDEX_OPEN" --check-sidecar tree.h5 || fail "$1: sidecar left behind is not valid"
  loads=$(cat err.* | grep -c "sidecar loaded" || true)
  writes=$(cat err.* | grep -o "writes=[0-9]*" | cut -d= -f2 | paste -sd+ | bc)
  echo "ok: $1: 16 processes correct; $loads loaded a sidecar, $writes wrote one"
}
[ ! -e .tree.h5.h5turbo-index ] || fail "sidecar exists before the first round"
round "no sidecar"
round "valid sidecar"
# Rewrite the file (a new object), keep it old-looking: the sidecar is stale now.
stock h5copy -i tree.h5 -o tree.h5 -s /x_1_0 -d /copied_by_test -p >/dev/null 2>&1 || \
  stock h5copy -i ext.h5 -o tree.h5 -s /target -d /copied_by_test >/dev/null || fail "rewrite"
touch -d '5 minutes ago' tree.h5
stock "$H5T_INDEX_OPEN" tree.h5 > stock.txt
grep -q copied_by_test stock.txt || fail "rewrite did not add an object"
! stock "$H5T_INDEX_OPEN" --check-sidecar tree.h5 2>/dev/null || fail "old sidecar still matches the rewritten file"
H5TURBO_DEBUG=1 turbo "$H5T_INDEX_OPEN" tree.h5 > one.txt 2> one.err || fail "open after rewrite"
grep -q "sidecar rejected (stale)" one.err || fail "stale sidecar was not rejected"
cmp -s stock.txt one.txt || fail "answer after rewrite differs"
stock h5copy -i ext.h5 -o tree.h5 -s /target -d /copied_again >/dev/null || fail "second rewrite"
touch -d '4 minutes ago' tree.h5
stock "$H5T_INDEX_OPEN" tree.h5 > stock.txt
round "stale sidecar"
# A file too recent to tell two writes apart is never persisted.
cp tree.h5 fresh.h5
H5TURBO_INDEX=persistent turbo "$H5T_INDEX_OPEN" fresh.h5 > /dev/null || fail "fresh open"
[ ! -e .fresh.h5.h5turbo-index ] || fail "sidecar written for a file modified just now"
# Read-only directory: the sidecar goes to the cache directory (or nowhere), never an error.
mkdir ro && cp -p tree.h5 ro/ && chmod 555 ro
H5TURBO_INDEX=persistent turbo "$H5T_INDEX_OPEN" ro/tree.h5 > ro.txt || fail "open in read-only directory"
cmp -s stock.txt ro.txt || fail "answer in read-only directory differs"
chmod 755 ro
# index=memory and index=off never write a sidecar.
cp -p tree.h5 mem.h5
H5TURBO_INDEX=memory turbo "$H5T_INDEX_OPEN" mem.h5 > /dev/null || fail "memory open"
H5TURBO_INDEX=off turbo "$H5T_INDEX_OPEN" mem.h5 > /dev/null || fail "off open"
[ ! -e .mem.h5.h5turbo-index ] || fail "sidecar written with index=memory/off"
# A corrupt sidecar is a miss, never an error.
H5TURBO_INDEX=persistent turbo "$H5T_INDEX_OPEN" tree.h5 > /dev/null || fail "open to write a sidecar"
printf 'garbage' | dd of=.tree.h5.h5turbo-index bs=1 seek=200 conv=notrunc 2>/dev/null
H5TURBO_DEBUG=1 H5TURBO_INDEX=persistent turbo "$H5T_INDEX_OPEN" tree.h5 > corrupt.txt 2> corrupt.err || fail "open with corrupt sidecar"
grep -q "sidecar rejected (corrupt)" corrupt.err || fail "corrupt sidecar not detected"
cmp -s stock.txt corrupt.txt || fail "answer with corrupt sidecar differs"
stock "$H5T_INDEX_OPEN" --check-sidecar tree.h5 || fail "corrupt sidecar was not replaced"
# The same file opened twice in one process shares one index.
stock "$H5T_INDEX_OPEN" --twice tree.h5 > twice_stock.txt || fail "stock twice"
H5TURBO_INDEX=memory turbo "$H5T_INDEX_OPEN" --twice tree.h5 > twice_turbo.txt || fail "turbo twice"
cmp -s twice_stock.txt twice_turbo.txt || fail "file opened twice: answers differ"
echo "ok: concurrency, staleness, freshness, read-only directory and double-open checks passed"
