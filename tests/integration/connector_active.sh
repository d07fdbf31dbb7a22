#!/usr/bin/env bash
# connector_active.sh — h5dump, run with build/h5turbo-env.sh sourced, really goes through the
# h5turbo connector (and the check notices when HDF5 silently falls back to native).
source "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
stock "$TB_MKFILES" "$tmp" >/dev/null
(
  source "$TB_BUILD/h5turbo-env.sh"
  [ "${1:-}" = --broken-plugin-path ] && export HDF5_PLUGIN_PATH="$tmp/no-plugins-here"
  H5TURBO_STATS=1 h5dump "$tmp/attrs.h5" > "$tmp/out" 2> "$tmp/err"
) || true
grep -q '^h5turbo stats: wrappers malloc=[1-9]' "$tmp/err" || fail "h5dump did not go through h5turbo"
stock h5dump "$tmp/attrs.h5" > "$tmp/stock.out"
diff -u "$tmp/stock.out" "$tmp/out" || fail "h5dump output differs under h5turbo"
echo "ok: h5dump went through h5turbo and printed the same as stock HDF5"
