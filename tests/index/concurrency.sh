#!/usr/bin/env bash
# concurrency.sh — 64 processes open the same file at once under h5turbo (persistent index):
# first with no sidecar, then with a valid one, then with a stale one (the file rewritten). Every
# process must print what stock HDF5 prints, none may see a corrupt (partial) sidecar, at most one
# sidecar is written per round of a changed file, and the sidecar left behind must be valid for
# the file as it is. Also: staleness, freshness, read-only folders, memory/off modes, corruption,
# double opens, the same checks with sidecars beside the file (index_dir=beside), no lock file
# where no sidecar was replaced, and no mapping of a sidecar left once its file is open.
source "$(dirname "$0")/../integration/lib.sh"
: "${TB_INDEX_OPEN:?}" "${TB_INDEX_DIFF:?}"
tmp=$(mktemp -d); trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
N=64
cd "$tmp"
stock "$TB_INDEX_DIFF" gen "$tmp" 7 >/dev/null || fail "gen"
stock "$TB_INDEX_OPEN" tree.h5 > stock.txt || fail "stock open"
settle

valid() { "$TB_CLI" index status "$1" | grep ": valid$" >/dev/null; }

round() { # label
  local pids=() i
  for i in $(seq 1 $N); do
    H5TURBO_INDEX=persistent H5TURBO_DEBUG=1 turbo "$TB_INDEX_OPEN" tree.h5 > "out.$i" 2> "err.$i" &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do wait "${pids[$i]}" || fail "$1: process $((i+1)) failed"; done
  for i in $(seq 1 $N); do
    cmp -s stock.txt "out.$i" || { diff stock.txt "out.$i" | head; fail "$1: process $i saw something else"; }
    if grep -q "sidecar rejected (corrupt)" "err.$i"; then fail "$1: process $i read a corrupt sidecar"; fi
  done
  valid tree.h5 || { "$TB_CLI" index status tree.h5; fail "$1: sidecar left behind is not valid"; }
  loads=$(cat err.* | grep -c "sidecar loaded" || true)
  writes=$(cat err.* | grep -c "sidecar written" || true)
  if [ "$writes" -gt 1 ]; then # (what the writers saw, for the failure below)
    for i in $(grep -l "sidecar written" err.*); do echo "== $i:"; cut -c1-240 "$i"; done
  fi
  echo "ok: $1: $N processes correct; $loads loaded a sidecar, $writes wrote one"
}
[ ! -e "$(cache_sidecar tree.h5)" ] || fail "sidecar exists before the first round"
round "no sidecar"
[ "$writes" -eq 1 ] || fail "no sidecar: $writes processes wrote one (want exactly 1)"
# The first sidecar is linked in without a lock; the others, whose indexes it covers, looked
# without the lock too: no lock file at all.
[ ! -e "$(cache_sidecar tree.h5).lock" ] || fail "no sidecar: a lock file was created (first publication or covered look)"
round "valid sidecar"
[ "$loads" -eq $N ] && [ "$writes" -eq 0 ] || fail "valid sidecar: $loads loads, $writes writes (want $N, 0)"
ls -A | grep h5turbo >/dev/null && fail "sidecars or lock files were written beside the data file"
# Rewrite the file (a new object): the sidecar is stale now.
stock h5copy -i ext.h5 -o tree.h5 -s /target -d /copied_by_test >/dev/null || fail "rewrite"
stock "$TB_INDEX_OPEN" tree.h5 > stock.txt
grep -q copied_by_test stock.txt || fail "rewrite did not add an object"
settle
valid tree.h5 && fail "old sidecar still matches the rewritten file"
H5TURBO_DEBUG=1 turbo "$TB_INDEX_OPEN" tree.h5 > one.txt 2> one.err || fail "open after rewrite"
grep -q "sidecar rejected (stale" one.err || { cat one.err; fail "stale sidecar was not rejected"; }
cmp -s stock.txt one.txt || fail "answer after rewrite differs"
stock h5copy -i ext.h5 -o tree.h5 -s /target -d /copied_again >/dev/null || fail "second rewrite"
stock "$TB_INDEX_OPEN" tree.h5 > stock.txt
settle
round "stale sidecar"
# A file too recent to tell two writes apart is never persisted (mtime or ctime within 2 s).
cp tree.h5 fresh.h5
H5TURBO_INDEX=persistent turbo "$TB_INDEX_OPEN" fresh.h5 > /dev/null || fail "fresh open"
[ ! -e "$(cache_sidecar fresh.h5)" ] || fail "sidecar written for a file modified just now"
cp -p tree.h5 touched.h5; touch -d '1 hour ago' touched.h5 # old mtime, new ctime
H5TURBO_INDEX=persistent turbo "$TB_INDEX_OPEN" touched.h5 > /dev/null || fail "touched open"
[ ! -e "$(cache_sidecar touched.h5)" ] || fail "sidecar written for a file whose ctime is 'now'"
# index=memory and index=off never write a sidecar.
cp -p tree.h5 mem.h5; settle
H5TURBO_INDEX=memory turbo "$TB_INDEX_OPEN" mem.h5 > /dev/null || fail "memory open"
H5TURBO_INDEX=off turbo "$TB_INDEX_OPEN" mem.h5 > /dev/null || fail "off open"
[ ! -e "$(cache_sidecar mem.h5)" ] || fail "sidecar written with index=memory/off"
# A corrupt sidecar is a miss, never an error, and is replaced.
sc=$(cache_sidecar tree.h5)
printf 'garbage' | dd of="$sc" bs=1 seek=200 conv=notrunc 2>/dev/null
H5TURBO_DEBUG=1 H5TURBO_INDEX=persistent turbo "$TB_INDEX_OPEN" tree.h5 > corrupt.txt 2> corrupt.err || fail "open with corrupt sidecar"
grep -q "sidecar rejected (corrupt)" corrupt.err || { cat corrupt.err; fail "corrupt sidecar not detected"; }
cmp -s stock.txt corrupt.txt || fail "answer with corrupt sidecar differs"
valid tree.h5 || fail "corrupt sidecar was not replaced"
# The same file opened twice in one process shares one index.
stock "$TB_INDEX_OPEN" --twice tree.h5 > twice_stock.txt || fail "stock twice"
H5TURBO_INDEX=memory turbo "$TB_INDEX_OPEN" --twice tree.h5 > twice_turbo.txt || fail "turbo twice"
cmp -s twice_stock.txt twice_turbo.txt || fail "file opened twice: answers differ"

# Beside the file (opt-in): the same rounds, the sidecar next to the data.
export H5TURBO_INDEX_DIR=beside
mkdir bes && cp -p tree.h5 ext.h5 tree_ext.bin stock.txt bes/ && cd bes && settle
round "beside, no sidecar"
[ -f .tree.h5.h5turbo-index ] || fail "index_dir=beside wrote no sidecar beside the file"
round "beside, valid sidecar"
[ "$loads" -eq $N ] || fail "beside: $loads of $N loaded the sidecar"
# A read-only folder: the sidecar goes to the cache instead, never an error (root may write any
# folder: then it is beside the file).
cd "$tmp"; mkdir ro && cp -p tree.h5 ext.h5 tree_ext.bin ro/ && chmod 555 ro; settle
H5TURBO_INDEX=persistent turbo "$TB_INDEX_OPEN" ro/tree.h5 > ro.txt || fail "open in read-only directory"
cmp -s stock.txt ro.txt || fail "answer in read-only directory differs"
[ -s "$(cache_sidecar ro/tree.h5)" ] || [ "$(id -u)" = 0 ] || fail "read-only folder: no sidecar in the cache"
H5TURBO_DEBUG=1 turbo "$TB_INDEX_OPEN" ro/tree.h5 > ro2.txt 2> ro2.err || fail "second open in read-only directory"
grep -q "sidecar loaded" ro2.err && cmp -s stock.txt ro2.txt || fail "read-only folder: the cache copy was not used"
unset H5TURBO_INDEX_DIR
# Sidecars in the cache of 256 KiB or more are mapped for their decode: more files than the store
# lists mappings for (8), each loaded, none leaving a mapping behind (nor an abort from freeing
# one). 2,000 groups more make each sidecar large enough to be mapped (checked).
cd "$tmp"; mkdir maps
for i in $(seq 1 10); do stock "$TB_INDEX_OPEN" --make "maps/m$i.h5" "$i" 2000 || fail "make maps/m$i.h5"; done
settle
for i in $(seq 1 10); do H5TURBO_INDEX=persistent turbo "$TB_INDEX_OPEN" "maps/m$i.h5" > /dev/null || fail "first open of m$i.h5"; done
for i in $(seq 1 10); do
  [ "$(stat -c %s "$(cache_sidecar "maps/m$i.h5")")" -ge 262144 ] || fail "maps: the sidecar of m$i.h5 is too small to be mapped"
done
H5TURBO_INDEX=persistent H5TURBO_DEBUG=1 turbo "$TB_INDEX_OPEN" --maps maps/m*.h5 > maps.out 2> maps.err || { cat maps.err; fail "--maps"; }
[ "$(grep -c "sidecar loaded" maps.err)" -eq 10 ] || { cat maps.err; fail "maps: not every sidecar was loaded"; }
[ "$(grep -c "sidecar mappings after its open: 0$" maps.out)" -eq 10 ] || { cat maps.out; fail "a sidecar's mapping outlived its decode"; }
echo "ok: $N-process rounds, staleness, freshness (mtime and ctime), read-only folder, memory/off, corruption, double open, beside, mappings released"
