#!/usr/bin/env bash
# publish_thread.sh — sidecars published by the publisher thread of MPI jobs (publish_thread.c poses
# as one): a first read of 12 files queues 12 publications and writes 12 sidecars (8 files, then
# records of packs: the thread appends while the program's thread looks there), and its reopens of
# them (each waits for that file's queued publication) load all 12; a second read loads all 24,
# writes and queues none; what was walked equals stock's; a fork right after a queued publication
# leaves the child (which reads another file and exits) and the parent both well. Also in the
# TSan build (without the fork) and the ASan build.
source "$(dirname "$0")/../integration/lib.sh"
: "${TB_PUBLISH_THREAD:?}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
n=12
stock "$TB_PUBLISH_THREAD" make "$tmp" $n || fail "make"
stock "$TB_PUBLISH_THREAD" read "$tmp" $n > "$tmp/stock.out" 2>&1 || { cat "$tmp/stock.out"; fail "stock read"; }
settle
field() { { grep -o "h5turbo stats: index.*" "$1" | grep -o " $2=[0-9]*" || true; } | head -1 | cut -d= -f2; }
run() { # RUN WANT-LOADED WANT-WRITTEN WANT-QUEUED
  local rc=0
  TB_STATS_LOG=$tmp/stats.$1 turbo "$TB_PUBLISH_THREAD" read "$tmp" $n > "$tmp/out.$1" 2> "$tmp/err.$1" || rc=$?
  [ $rc -eq 0 ] || { cat "$tmp/err.$1"; fail "$1 run failed (exit $rc)"; }
  cmp -s "$tmp/stock.out" "$tmp/out.$1" || { diff "$tmp/stock.out" "$tmp/out.$1"; fail "$1 run walked something else than stock"; }
  local l w q
  l=$(field "$tmp/stats.$1" loaded) w=$(field "$tmp/stats.$1" written) q=$(field "$tmp/stats.$1" queued)
  [ "$l" = "$2" ] && [ "$w" = "$3" ] && [ "${q:-0}" = "$4" ] ||
    { cat "$tmp/stats.$1"; fail "$1 run: loaded=$l written=$w queued=${q:-0}, expected $2 $3 $4"; }
  echo "ok: $1 run: loaded=$l written=$w queued=${q:-0}"
}
cd "$tmp"
run first $n $n $n
[ "$(find "$XDG_CACHE_HOME" -name '*.h5turbo-index' | wc -l)" -eq 8 ] && [ -n "$(find "$XDG_CACHE_HOME" -name 'h5turbo-pack-*')" ] ||
  fail "not 8 sidecar files and packs after the first run: $(ls "$XDG_CACHE_HOME"/h5turbo)"
run second $((2 * n)) 0 0
rm -rf "$XDG_CACHE_HOME"
rc=0; turbo "$TB_PUBLISH_THREAD" fork "$tmp" > fork.out 2> fork.err || rc=$?
[ $rc -eq 0 ] || { cat fork.out fork.err; fail "fork run failed (exit $rc)"; }
if grep -q "^fork: skipped under TSan" fork.out; then echo "ok: (the fork part is not run under TSan)"; exit 0; fi
grep -q "^child f1 " fork.out && grep -q "^f0 " fork.out || { cat fork.out; fail "fork run: no walk printed"; }
echo "ok: a fork after a queued publication: parent and child well"
