#!/usr/bin/env bash
# pack.sh — small sidecars of a program that reads a little of each of many files go to packs
# (sidecar_pack.h) once the process has published 8 as files: end to end through h5py
# (pack_read.py, 30 files), values equal to stock's in every run; first run: 30 written, 8 files
# and private packs in the cache; second run: 30 loaded, none written; `h5turbo index status`
# finds a packed one and `index drop` removes it (the next run loads 29 and publishes it again);
# packs damaged (a flipped byte in a record, garbage appended) cost only the records hit; four
# processes reading at once leave sidecars of all 30 for the next; the data folder holds only the
# data afterwards.
source "$(dirname "$0")/../integration/lib.sh"
venv_python
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/d"
stock "$py" -c "
import h5py, numpy as np, sys
for i in range(30):
    with h5py.File('%s/t%02d.h5' % (sys.argv[1], i), 'w') as f:
        v = f.create_dataset('particles/all/position/value', data=np.arange(48, dtype='f4').reshape(16, 3) * (i + 1))
        v.attrs['unit'] = np.bytes_('nm')
        f['particles/all/position/step'] = np.arange(16)
        f.create_group('observables').attrs['n'] = i
" "$tmp/d" || fail "make the files"
settle # old enough to be persisted
stock "$py" "$TB_SRC/tests/index/pack_read.py" "$tmp/d" > "$tmp/want.txt" || fail "stock read"
export XDG_CACHE_HOME=$tmp/cache
cache=$XDG_CACHE_HOME/h5turbo
# run N: pack_read.py through h5turbo, its output compared with stock's; its stats in $tmp/stats.N
run() {
  TB_STATS_LOG=$tmp/stats.$1 turbo "$py" "$TB_SRC/tests/index/pack_read.py" "$tmp/d" > "$tmp/got.$1" ||
    fail "run $1 under h5turbo"
  diff -u "$tmp/want.txt" "$tmp/got.$1" || fail "run $1: values differ from stock's"
}
# count N KEY: the sum of KEY=n over run N's sidecar stats
count() { grep -o "sidecars .*" "$tmp/stats.$1" | grep -o "$2=[0-9]*" | awk -F= '{ s += $2 } END { print s + 0 }'; }
files() { find "$cache" -name '*.h5turbo-index' | wc -l; }
packs() { find "$cache" -name 'h5turbo-pack-*' | wc -l; }

run 1
[ "$(count 1 written)" -eq 30 ] || fail "first run: $(count 1 written) sidecars written, not 30"
[ "$(files)" -eq 8 ] && [ "$(packs)" -ge 1 ] || fail "first run: $(files) sidecar files and $(packs) packs (want 8 and some)"
[ -z "$(find "$cache" -name 'h5turbo-pack-*' ! -perm 600)" ] || fail "a pack is not private: $(ls -l "$cache")"
run 2
[ "$(count 2 loaded)" -eq 30 ] && [ "$(count 2 written)" -eq 0 ] ||
  fail "second run: $(count 2 loaded) loaded, $(count 2 written) written (want 30, 0)"

# status and drop of a packed file (the 20th: past the first 8, published to a pack)
"$TB_CLI" index status "$tmp/d/t20.h5" > "$tmp/status.txt" || fail "index status: $(cat "$tmp/status.txt")"
grep -q "valid" "$tmp/status.txt" && grep -q "(in a pack)" "$tmp/status.txt" || fail "index status: $(cat "$tmp/status.txt")"
"$TB_CLI" index drop "$tmp/d/t20.h5" > "$tmp/drop.txt" || fail "index drop: $(cat "$tmp/drop.txt")"
st=$("$TB_CLI" index status "$tmp/d/t20.h5" || true) # (1: not valid)
grep -q "no sidecar" <<< "$st" || fail "dropped, yet: $st"
"$TB_CLI" index status | grep -q "8 sidecars, [1-9][0-9]* packs of small ones" || fail "cache status: $("$TB_CLI" index status)"
run 3
[ "$(count 3 loaded)" -eq 29 ] && [ "$(count 3 written)" -eq 1 ] ||
  fail "after a drop: $(count 3 loaded) loaded, $(count 3 written) written (want 29, 1)"
[ "$(files)" -eq 9 ] || fail "after a drop: the file's sidecar went to a pack, not to a file of its own (first of its process)"

# damage (a fresh cache: no hidden records): a byte of the first record of every pack flipped,
# garbage appended to every pack
rm -rf "$cache"
run 4a
for p in "$cache"/h5turbo-pack-*; do
  printf '\xff' | dd of="$p" bs=1 seek=200 conv=notrunc 2>/dev/null
  head -c 500 /dev/urandom >> "$p"
done
run 4
npacks=$(packs)
[ "$(count 4 loaded)" -eq $((30 - npacks)) ] || fail "damaged packs: $(count 4 loaded) loaded (want $((30 - npacks)): all but the first record of each of $npacks packs)"
run 5
[ "$(count 5 loaded)" -eq 30 ] || fail "after damaged packs: $(count 5 loaded) loaded (want 30)"

# four processes at once, a fresh cache
rm -rf "$cache"
pids=()
for k in 1 2 3 4; do run "p$k" & pids+=($!); done
for p in "${pids[@]}"; do wait "$p" || fail "one of four processes at once"; done
run 6
[ "$(count 6 loaded)" -eq 30 ] || fail "after four processes at once: $(count 6 loaded) loaded (want 30)"
extra=$(ls -A "$tmp/d" | grep -v '^t[0-9][0-9]\.h5$' || true)
[ -z "$extra" ] || fail "the data folder holds more than the data after the runs: $extra"
echo "ok: small sidecars packed (8 files, $(packs) packs), loaded, dropped, damaged and written by four processes at once"
