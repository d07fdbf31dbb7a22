#!/usr/bin/env bash
# error_stacks.sh — failing calls print the same error stacks stock and under h5turbo, with HDF5's
# default error reporting: once per failed call, the same frames. Read-write opens are compared
# whole; read-only ones (a first open, then a second with its sidecar) down to HDF5's dispatch
# into the connector (the `H5VL__...()` frame), below which a failure the index answers (an
# iteration whose callback fails) shows its own frame, not native's internals.
source "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
mkdir -p "$tmp/stock" "$tmp/turbo"
stock "$TB_ERROR_STACKS" "$tmp/stock/e.h5" make
cp "$tmp/stock/e.h5" "$tmp/turbo/e.h5"
sleep 2.1 # (files changed within the last 2 s get no sidecar)
# Each stack cut after its first frame in H5VL__*(), and its continuation lines with it.
to_dispatch() {
  awk '/^== |^-> / {cut = 0; print; next}
       /^HDF5-DIAG|^h5turbo-DIAG/ {if (!cut) print; next}
       /^  #[0-9]+:/ {if (cut) next; print; if ($0 ~ / in H5VL__[a-z_]+\(\)/) cut = 1; next}
       {if (!cut) print}' "$1"
}
n=0
for mode in read read write; do
  # (the same relative name in both runs: messages may name the file)
  (cd "$tmp/stock" && stock "$TB_ERROR_STACKS" e.h5 $mode > out.txt 2>&1) || fail "stock $mode run failed"
  (cd "$tmp/turbo" && turbo "$TB_ERROR_STACKS" e.h5 $mode > out.txt 2>&1) || fail "h5turbo $mode run failed"
  if [ $mode = write ]; then
    diff -u "$tmp/stock/out.txt" "$tmp/turbo/out.txt" || fail "error stacks differ ($mode)"
  else
    diff -u <(to_dispatch "$tmp/stock/out.txt") <(to_dispatch "$tmp/turbo/out.txt") || fail "error stacks differ ($mode)"
  fi
  [ "$(grep -c '^HDF5-DIAG' "$tmp/stock/out.txt")" = "$(grep -c '^HDF5-DIAG' "$tmp/turbo/out.txt")" ] ||
    fail "not one stack per failed call ($mode)"
  n=$((n + $(grep -c '^== ' "$tmp/turbo/out.txt")))
done
grep -q 'HDF5-DIAG' "$tmp/turbo/out.txt" || fail "no error stack printed at all"
echo "ok: $n failing calls print the same error stacks stock and under h5turbo"
