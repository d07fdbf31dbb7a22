#!/usr/bin/env bash
# tools_identical.sh — h5dump, h5ls -r, h5diff, h5repack, h5stat and h5copy print the same and
# write files with the same content, with and without the h5turbo connector.
source "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
files=$(stock "$TB_MKFILES" "$tmp")
n=0
same() { # label, then the command; compares stdout+exit code, stock vs h5turbo
  local label=$1; shift
  local rs=0 rt=0
  stock "$@" > "stock.out" 2>/dev/null || rs=$?
  turbo "$@" > "turbo.out" 2>/dev/null || rt=$?
  [ $rt -ne 97 ] || fail "$label: connector not active"
  [ $rs -eq $rt ] || fail "$label: exit code $rs (stock) vs $rt (h5turbo)"
  diff -u stock.out turbo.out > diff.out || { cat diff.out | head -40; fail "$label: output differs"; }
  n=$((n+1))
}
for f in $files; do
  same "h5dump $f" h5dump "$f"
  same "h5dump -p -H $f" h5dump -p -H "$f"
  same "h5ls -r $f" h5ls -r -v "$f"
  same "h5stat $f" h5stat "$f"
  same "h5diff $f self" h5diff -v "$f" "$f"
  # Files written under the connector must hold what stock writes (and fail where stock fails:
  # stock h5repack cannot repack region references, for one).
  rs=0; rt=0
  stock h5repack -f SHUF -f GZIP=1 "$f" "stock_$f" >/dev/null 2>&1 || rs=$?
  turbo h5repack -f SHUF -f GZIP=1 "$f" "turbo_$f" >/dev/null 2>&1 || rt=$?
  [ $rt -ne 97 ] || fail "h5repack $f: connector not active"
  [ $rs -eq $rt ] || fail "h5repack $f: exit code $rs (stock) vs $rt (h5turbo)"
  if [ $rs -eq 0 ]; then
    same "h5dump of h5repack output $f" h5dump "stock_$f"
    stock h5dump "turbo_$f" > a.out; stock h5dump "stock_$f" | sed "s/stock_$f/turbo_$f/" > b.out
    diff -u b.out a.out >/dev/null || fail "h5repack under h5turbo wrote different content for $f"
    stock h5diff "$f" "turbo_$f" >/dev/null || fail "h5diff: h5repack output under h5turbo differs from $f"
  fi
done
same "h5diff differing files" h5diff -r layouts.h5 attrs.h5
stock h5copy -i links.h5 -o stock_copy.h5 -s /group -d /copied -p >/dev/null
turbo h5copy -i links.h5 -o turbo_copy.h5 -s /group -d /copied -p >/dev/null
stock h5diff stock_copy.h5 turbo_copy.h5 || fail "h5copy under h5turbo wrote different content"
echo "ok: $n tool invocations identical with and without h5turbo, plus h5repack/h5copy outputs"
