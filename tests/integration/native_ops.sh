#!/usr/bin/env bash
# native_ops.sh — the native-only/deprecated call transcript is the same stock and under h5turbo.
source "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
stock "$TB_NATIVE_OPS" "$tmp/stock.h5" > "$tmp/stock.txt" || { cat "$tmp/stock.txt"; fail "stock run failed"; }
turbo "$TB_NATIVE_OPS" "$tmp/turbo.h5" > "$tmp/turbo.txt" || { cat "$tmp/turbo.txt"; fail "h5turbo run failed"; }
diff -u "$tmp/stock.txt" "$tmp/turbo.txt" || fail "transcripts differ"
stock h5diff "$tmp/stock.h5" "$tmp/turbo.h5" || fail "files differ"
echo "ok: $(wc -l < "$tmp/turbo.txt") native/deprecated operations identical through h5turbo"
