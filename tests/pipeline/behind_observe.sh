#!/usr/bin/env bash
# behind_observe.sh — queued write-behind chunks are visible to H5Ocopy/H5Oget_native_info/
# H5Lmove/H5Ldelete/H5Oflush: the transcript under h5turbo (write-behind on) equals stock's, and
# the pipeline really queued the writes.
source "$(dirname "$0")/../integration/lib.sh"
prog=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
stock "$prog" "$tmp/stock.h5" > "$tmp/stock.txt" || { cat "$tmp/stock.txt"; fail "stock run failed"; }
H5TURBO_WRITE_BEHIND=1 turbo "$prog" "$tmp/turbo.h5" > "$tmp/turbo.txt" 2> "$tmp/err" || { cat "$tmp/turbo.txt" "$tmp/err"; fail "h5turbo run failed"; }
diff -u "$tmp/stock.txt" "$tmp/turbo.txt" || fail "transcripts differ"
# (Into a file, not a pipe: grep -q would end the pipe early and fail the run with SIGPIPE.)
H5TURBO_WRITE_BEHIND=1 HDF5_PLUGIN_PATH="$TB_PLUGIN_DIR" HDF5_VOL_CONNECTOR=h5turbo H5TURBO_STATS=1 "$prog" "$tmp/t2.h5" \
  > /dev/null 2> "$tmp/stats" || true
grep -q 'behind_writes=[1-9]' "$tmp/stats" || fail "write-behind did not queue anything (the test would prove nothing)"
stock h5diff "$tmp/stock.h5" "$tmp/turbo.h5" || fail "files differ"
echo "ok: queued chunks visible to copy/info/move/delete/flush"
