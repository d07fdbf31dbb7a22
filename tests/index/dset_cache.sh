#!/usr/bin/env bash
# dset_cache.sh — the small-dataset cache end to end on a Mantid-like file (bench/index's generator
# and LoadMD-like loader): the same answers under stock HDF5, h5turbo's first open (contents
# captured from the loader's reads), its second open (every dataset answered from the sidecar,
# none opened in the file) and with the cache off or over its budget; a damaged sidecar is
# rejected and changes nothing.
source "$(dirname "$0")/../integration/lib.sh"
: "${TB_MANTID_GEN:?}" "${TB_MANTID_LOAD:?}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
f="$tmp/m.h5"
stock "$TB_MANTID_GEN" "$f" 2 > /dev/null || fail "gen"
settle # old enough to be persisted
sc=$(cache_sidecar "$f")

# run_load LABEL [ENV...]: the loader under h5turbo with debug counters; sets sum and dbg.
run_load() {
  local label=$1; shift
  env "$@" H5TURBO_DEBUG=1 bash -c 'source "$0"; turbo "$1" "$2" b' "$(dirname "$0")/../integration/lib.sh" \
    "$TB_MANTID_LOAD" "$f" > "$tmp/out" 2> "$tmp/err" || { cat "$tmp/err"; fail "$label: loader failed"; }
  sum=$(awk '{print $4}' "$tmp/out")
  dbg=$(grep 'index: released' "$tmp/err" | tail -1)
  [ "$sum" = "$want" ] || fail "$label: checksum $sum, stock HDF5 gives $want"
  echo "$label: $(echo "$dbg" | grep -o 'rejects=[0-9]*') $(echo "$dbg" | grep -o 'datasets cached=[^;]*') $(echo "$dbg" | grep -o '[0-9]* dataset records ([0-9]* bytes)')"
}
count() { echo "$dbg" | sed -n "s/.*datasets cached=\([0-9]*\) lazy=\([0-9]*\) materialised=\([0-9]*\).*/\\$1/p"; }

want=$(stock "$TB_MANTID_LOAD" "$f" b | awk '{print $4}')
[ -n "$want" ] || fail "stock loader printed nothing"
ndsets=2000 # 2 experiments x 500 logs x (value, time)

run_load first
[ "$(count 1)" -eq "$ndsets" ] || fail "first open captured $(count 1) datasets, expected $ndsets"
[ "$(count 2)" -eq 0 ] || fail "first open handed out lazy datasets"
[ -s "$sc" ] || fail "no sidecar written"

run_load second
[ "$(count 1)" -eq 0 ] || fail "second open captured again"
[ "$(count 2)" -eq "$ndsets" ] || fail "second open answered $(count 2) datasets from the cache, expected $ndsets"
[ "$(count 3)" -eq 0 ] || fail "second open had to open $(count 3) datasets in the file"
# The descriptor walk reads NX_class through the objects H5Ovisit hands its callback: on an open
# with a sidecar every one of those attributes is answered from the cache, none opened for real.
env H5TURBO_DEBUG=1 bash -c 'source "$0"; turbo "$1" "$2" a' "$(dirname "$0")/../integration/lib.sh" \
  "$TB_MANTID_LOAD" "$f" > /dev/null 2> "$tmp/err" || fail "descriptor walk failed"
walk=$(grep 'index: released' "$tmp/err" | tail -1)
lazy=$(echo "$walk" | sed -n 's/.*attributes lazy=\([0-9]*\) materialised=\([0-9]*\).*/\1 \2/p')
ngroups=$(stock h5ls -r "$f" | grep -c Group)
[ "${lazy% *}" -ge $((ngroups - 1)) ] && [ "${lazy#* }" -eq 0 ] ||
  fail "descriptor walk with a sidecar: attributes lazy/materialised $lazy, expected >= $((ngroups - 1)) / 0 (every group but the root, whose attribute is read through the file)"

# A sidecar written by another loader (the descriptor walk: attributes, no contents) is extended
# by the next load that captures contents, and the load after that is answered from it.
rm -f "$sc"
env H5TURBO_DEBUG=1 bash -c 'source "$0"; turbo "$1" "$2" a' "$(dirname "$0")/../integration/lib.sh" \
  "$TB_MANTID_LOAD" "$f" > /dev/null 2>&1 || fail "descriptor walk failed"
[ -s "$sc" ] || fail "the descriptor walk wrote no sidecar"
run_load extend
[ "$(count 1)" -eq "$ndsets" ] || fail "extending load captured $(count 1) datasets"
run_load extended
[ "$(count 2)" -eq "$ndsets" ] || fail "the extended sidecar answered $(count 2) datasets, expected $ndsets"

# The cache off: nothing captured or answered, the sidecar is still used for the rest.
rm -f "$sc"
run_load off H5TURBO_INDEX_DATA=0
[ "$(count 1)" -eq 0 ] && [ "$(count 2)" -eq 0 ] || fail "index_data=0 still caches"

# A budget of 4 KiB holds a few dozen datasets, never more than the budget.
rm -f "$sc"
run_load budget H5TURBO_INDEX_DATA=4K
bytes=$(echo "$dbg" | sed -n 's/.*dataset records (\([0-9]*\) bytes).*/\1/p')
[ "$(count 1)" -gt 0 ] && [ "$bytes" -le 4096 ] || fail "budget 4K: $(count 1) datasets, $bytes bytes"

# A damaged sidecar (one byte of a cached value flipped) is rejected: same answers, rebuilt.
rm -f "$sc"
run_load rebuild > /dev/null
python3 - "$sc" <<'PY'
import sys
p = sys.argv[1]; b = bytearray(open(p, 'rb').read())
b[len(b) - 100] ^= 0x40  # inside the strings section, which ends with the dataset contents
open(p, 'wb').write(b)
PY
run_load damaged
echo "$dbg" | grep 'rejects=1' >/dev/null || fail "the damaged sidecar was not rejected"
[ "$(count 2)" -eq 0 ] || fail "datasets answered from a rejected sidecar"
echo "ok: small-dataset cache: $ndsets datasets captured, then answered from the sidecar with no dataset opened; budget and off respected; damaged sidecar rejected"
