#!/usr/bin/env bash
# setup_idempotent.sh — on a ready machine, scripts/setup changes nothing and takes seconds.
source "$(dirname "$0")/lib.sh"
start=$(date +%s)
out=$("$TB_SRC/scripts/setup" 2>&1) || fail "scripts/setup failed: $out"
secs=$(( $(date +%s) - start ))
echo "$out"
echo "$out" | grep "cached in" >/dev/null || fail "setup did not reuse the cached HDF5"
echo "$out" | grep -E "building|fetching|installing" >/dev/null && fail "setup rebuilt or reinstalled something"
[ "$secs" -le 60 ] || fail "second setup took ${secs}s"
echo "ok: setup reused everything in ${secs}s"
