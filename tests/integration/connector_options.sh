#!/usr/bin/env bash
# connector_options.sh — the connector string: the bare name, the pass-through form, h5turbo's
# own options, and clear errors for unknown keys and bad values.
source "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
stock "$TB_MKFILES" "$tmp" >/dev/null
stock h5dump "$tmp/layouts.h5" > "$tmp/stock.out"
for conn in "h5turbo" "h5turbo under_vol=0;under_info={}" \
            "h5turbo under_vol=native;under_info={};threads=2;index=memory" \
            "h5turbo under_vol=1;under_info={under_vol=0;under_info={}}" \
            "pass_through under_vol=420;under_info={}"; do
  TB_CONNECTOR="$conn" turbo h5dump "$tmp/layouts.h5" > "$tmp/turbo.out" || fail "h5dump failed with '$conn'"
  diff -q "$tmp/stock.out" "$tmp/turbo.out" >/dev/null || fail "output differs with '$conn'"
  echo "ok: HDF5_VOL_CONNECTOR='$conn'"
done
# Environment variables set options too; invalid ones are ignored, not fatal.
H5TURBO_THREADS=3 H5TURBO_INDEX=off turbo h5dump "$tmp/layouts.h5" > "$tmp/turbo.out" || fail "env options"
H5TURBO_THREADS=lots turbo h5dump "$tmp/layouts.h5" > "$tmp/turbo.out" || fail "invalid env value was fatal"
# Unknown keys and bad values: library initialisation fails with an error on the HDF5 error
# stack that names the key (HDF5 then retries initialisation at the next call and the tool
# carries on without h5turbo, which is HDF5's behaviour, not ours).
for bad in "bogus_key=1" "threads=many" "index=sometimes" "under_vol=999"; do
  key=${bad%%=*}
  HDF5_PLUGIN_PATH="$TB_PLUGIN_DIR" HDF5_VOL_CONNECTOR="h5turbo $bad" H5TURBO_STATS=1 h5dump "$tmp/layouts.h5" \
      > "$tmp/out" 2> "$tmp/err" || true
  grep -q "h5turbo stats: wrappers malloc=[1-9]" "$tmp/err" && fail "'h5turbo $bad' was accepted"
  grep -q "h5turbo.*$key" "$tmp/err" || { cat "$tmp/err"; fail "error for '$bad' does not name '$key'"; }
  echo "ok: 'h5turbo $bad' rejected naming '$key'"
done
# H5TURBO_STATS: "1" (or on, yes, true) prints the counters on stderr, "off" (0, no, false) nothing;
# any other value names a file they are appended to, leaving stderr to the program; a file that
# cannot be opened means stderr again.
plain() { HDF5_PLUGIN_PATH="$TB_PLUGIN_DIR" HDF5_VOL_CONNECTOR=h5turbo "$@" h5dump -H "$tmp/layouts.h5" > /dev/null; }
H5TURBO_STATS=1 plain env 2> "$tmp/err" || fail "h5dump with H5TURBO_STATS=1"
grep -q "^h5turbo stats: wrappers malloc=[1-9]" "$tmp/err" || fail "H5TURBO_STATS=1 printed no counters on stderr"
H5TURBO_STATS=off plain env 2> "$tmp/err" || fail "h5dump with H5TURBO_STATS=off"
[ ! -s "$tmp/err" ] || { cat "$tmp/err"; fail "H5TURBO_STATS=off printed"; }
echo "earlier line" > "$tmp/stats.txt"
for i in 1 2; do
  H5TURBO_STATS="$tmp/stats.txt" plain env 2> "$tmp/err" || fail "h5dump with H5TURBO_STATS=FILE"
  [ ! -s "$tmp/err" ] || { cat "$tmp/err"; fail "H5TURBO_STATS=FILE printed on stderr"; }
done
(cd "$tmp" && H5TURBO_STATS=stats.txt plain env 2> "$tmp/err") || fail "h5dump with H5TURBO_STATS=NAME"
[ ! -s "$tmp/err" ] || { cat "$tmp/err"; fail "H5TURBO_STATS=NAME printed on stderr"; }
[ "$(head -1 "$tmp/stats.txt")" = "earlier line" ] || fail "H5TURBO_STATS=FILE did not append"
[ "$(grep -c "^h5turbo stats: wrappers malloc=[1-9]" "$tmp/stats.txt")" = 3 ] \
  || { cat "$tmp/stats.txt"; fail "want one counters line per run in H5TURBO_STATS's file"; }
H5TURBO_STATS="$tmp/no/such/folder/stats.txt" plain env 2> "$tmp/err" || fail "h5dump with an unwritable H5TURBO_STATS"
grep -q "^h5turbo stats: wrappers malloc=[1-9]" "$tmp/err" || fail "an unwritable H5TURBO_STATS file lost the counters"
echo "ok: H5TURBO_STATS=1 prints on stderr, =off nothing, =FILE appends to FILE (stderr when it cannot)"
