#!/usr/bin/env bash
# cli.sh — the h5turbo command: `run` really activates the connector (the child sees it), stacks
# on a connector already chosen and keeps HDF5_PLUGIN_PATH; `env` output works when sourced;
# `info` fails when the plugin folder is wrong; usage errors exit 2.
source "$(dirname "$0")/../integration/lib.sh"
cli="$TB_BUILD/bin/h5turbo"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
stock "$TB_MKFILES" "$tmp" >/dev/null
stock h5dump "$tmp/layouts.h5" > "$tmp/stock.out"
clean() { env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH "$@"; }

# run: the child runs through h5turbo and prints the same as stock.
clean H5TURBO_STATS=1 "$cli" run -- h5dump "$tmp/layouts.h5" > "$tmp/out" 2> "$tmp/err" || fail "run failed"
grep -q '^h5turbo stats: wrappers malloc=[1-9]' "$tmp/err" || fail "run: the connector was not active in the child"
diff -q "$tmp/stock.out" "$tmp/out" >/dev/null || fail "run: output differs from stock"
echo "ok: run activates h5turbo"
# run: options reach the connector string; the user's plugin path is kept.
clean HDF5_PLUGIN_PATH=/opt/other "$cli" run --threads 3 --index memory --write-behind -- env > "$tmp/env"
grep -q "^HDF5_VOL_CONNECTOR=h5turbo threads=3;index=memory;write_behind=1$" "$tmp/env" || { cat "$tmp/env" | grep HDF5; fail "run: options"; }
grep -q "^HDF5_PLUGIN_PATH=$TB_PLUGIN_DIR:/opt/other$" "$tmp/env" || { grep HDF5_PLUGIN "$tmp/env"; fail "run: plugin path"; }
echo "ok: run passes options and keeps HDF5_PLUGIN_PATH"
# run: stacks on an existing connector instead of discarding it, and the stack works.
# (Outputs are captured before grep -q reads them: with pipefail, a writer cut off by grep's
# early exit would fail the pipe at random.)
out=$(clean HDF5_VOL_CONNECTOR="pass_through under_vol=0;under_info={}" "$cli" run -- env)
grep -q "^HDF5_VOL_CONNECTOR=h5turbo under_vol=pass_through;under_info={under_vol=0;under_info={}}$" <<< "$out" || fail "run: stacking"
clean HDF5_VOL_CONNECTOR="pass_through under_vol=0;under_info={}" H5TURBO_STATS=1 "$cli" run -- h5dump "$tmp/layouts.h5" \
  > "$tmp/out" 2> "$tmp/err" || fail "run over pass_through failed"
grep -q '^h5turbo stats: wrappers malloc=[1-9]' "$tmp/err" || fail "run over pass_through: not active"
diff -q "$tmp/stock.out" "$tmp/out" >/dev/null || fail "run over pass_through: output differs"
echo "ok: run stacks over an existing connector"
# env: sourcing its output activates h5turbo in a shell.
clean bash -c "eval \"\$('$cli' env)\"; H5TURBO_STATS=1 h5dump '$tmp/layouts.h5' > '$tmp/out' 2> '$tmp/err'" || fail "env: sourced shell failed"
grep -q '^h5turbo stats: wrappers malloc=[1-9]' "$tmp/err" || fail "env: sourced shell did not activate h5turbo"
grep -q "^set -gx HDF5_VOL_CONNECTOR" <<< "$("$cli" env --shell fish)" || fail "env --shell fish"
echo "ok: env output works when sourced"
# info: passes here, fails (exit 3) with a wrong plugin folder.
clean "$cli" info > "$tmp/info" || { cat "$tmp/info"; fail "info failed with the right plugin folder"; }
grep -q "self-test passed" "$tmp/info" || fail "info: no self-test"
# It names the library the plugins bound to (the one this command links) and the build chosen.
grep -q "^plugins bound to: HDF5 1\.14\.[0-9]*, /.*/libhdf5\.so.* (builds loaded: .*hdf5-1/libh5turbo_vol\.so" "$tmp/info" \
  || { cat "$tmp/info"; fail "info: no bound library"; }
# `source build/h5turbo-env.sh` puts the command on PATH.
[ "$(env -i HOME="$HOME" bash -c "source '$TB_BUILD/h5turbo-env.sh' && command -v h5turbo")" = "$TB_BUILD/bin/h5turbo" ] \
  || fail "h5turbo-env.sh does not put build/bin/h5turbo on PATH"
rc=0; clean H5TURBO_PLUGIN_DIR="$tmp/empty" "$cli" info > "$tmp/info" 2>&1 || rc=$?
[ $rc -eq 3 ] || { cat "$tmp/info"; fail "info with a wrong plugin folder exited $rc, not 3"; }
mkdir "$tmp/empty"; rc=0; clean H5TURBO_PLUGIN_DIR="$tmp/empty" "$cli" info > "$tmp/info" 2>&1 || rc=$?
[ $rc -eq 3 ] || { cat "$tmp/info"; fail "info with an empty plugin folder exited $rc, not 3"; }
echo "ok: info self-test passes, and fails with a wrong plugin folder"
# usage errors
rc=0; "$cli" frobnicate 2>/dev/null || rc=$?; [ $rc -eq 2 ] || fail "unknown command exited $rc"
rc=0; "$cli" run --threads 2>/dev/null || rc=$?; [ $rc -eq 2 ] || fail "run --threads without value exited $rc"
rc=0; "$cli" run --index sometimes -- true 2>/dev/null || rc=$?; [ $rc -eq 2 ] || fail "bad --index exited $rc"
rc=0; "$cli" run -- /nonexistent/program 2>/dev/null || rc=$?; [ $rc -eq 127 ] || fail "missing program exited $rc"
for c in run env info index bench; do grep -q "usage: h5turbo $c" <<< "$("$cli" $c --help)" || fail "$c --help"; done
echo "ok: usage errors and --help"
# index: build writes a valid sidecar (in the per-user cache, nothing beside the file; a first
# publication takes no lock file); status says stale after the file changes; a rebuild replaces it
# (under the sidecar's lock); drop removes it (the lock file stays); gc and status show the cache.
export XDG_CACHE_HOME="$tmp/cache"
mkdir "$tmp/data"; cp "$tmp/links.h5" "$tmp/data/ix.h5"; ln -s data/ix.h5 "$tmp/ix.h5"; settle
rc=0; clean "$cli" index status "$tmp/ix.h5" > "$tmp/st" || rc=$?
[ $rc -eq 1 ] && grep -q "no sidecar" "$tmp/st" || fail "index status without a sidecar: rc $rc, $(cat "$tmp/st")"
clean "$cli" index build "$tmp/ix.h5" > "$tmp/st" || { cat "$tmp/st"; fail "index build failed"; }
grep -q "sidecar valid" "$tmp/st" || fail "index build: $(cat "$tmp/st")"
sc=$(cache_sidecar "$tmp/ix.h5")
[ -f "$sc" ] || fail "index build wrote no sidecar in the cache ($sc)"
[ ! -e "$sc.lock" ] || fail "the first publication of a sidecar created its lock file"
[ "$(ls -A "$tmp/data")" = ix.h5 ] || fail "index build wrote beside the data: $(ls -A "$tmp/data")"
grep -q ": valid$" <<< "$(clean "$cli" index status "$tmp/ix.h5")" || fail "index status after build is not valid"
grep -q "cache: $XDG_CACHE_HOME/h5turbo: 1 sidecars" <<< "$(clean "$cli" index status)" || fail "index status (cache): $(clean "$cli" index status)"
stock h5mkgrp "$tmp/ix.h5" /added_later
rc=0; clean "$cli" index status "$tmp/ix.h5" > "$tmp/st" || rc=$?
[ $rc -eq 1 ] && grep -q "stale" "$tmp/st" || fail "index status after a change: rc $rc, $(cat "$tmp/st")"
settle
clean "$cli" index build "$tmp/ix.h5" > "$tmp/st" && grep -q "sidecar valid" "$tmp/st" || fail "index rebuild: $(cat "$tmp/st")"
[ -f "$sc.lock" ] || fail "a sidecar was replaced without its lock file"
grep -q "sidecar removed" <<< "$(clean "$cli" index drop "$tmp/ix.h5")" || fail "index drop"
[ ! -f "$sc" ] && [ -f "$sc.lock" ] || fail "index drop removed the wrong files"
# gc: a sidecar whose file is gone is removed; --max-size evicts the least recently used.
cp "$tmp/links.h5" "$tmp/gone.h5"; cp "$tmp/links.h5" "$tmp/kept.h5"; settle
clean "$cli" index build "$tmp/gone.h5" "$tmp/kept.h5" > /dev/null || fail "index build of two files"
rm "$tmp/gone.h5"
grep -q "removed: 1 sidecars of files that are gone" <<< "$(clean "$cli" index gc)" || fail "index gc kept an orphan"
grep -q ": valid$" <<< "$(clean "$cli" index status "$tmp/kept.h5")" || fail "index gc removed a live sidecar"
one=$(stat -c %s "$(cache_sidecar "$tmp/kept.h5")")
grep -q "evicted 1" <<< "$(clean "$cli" index gc --max-size 1K)" || fail "index gc --max-size did not evict"
# The bound holds by itself: with room for two and a half sidecars, four builds leave the newest two.
for i in 1 2 3 4; do cp "$tmp/links.h5" "$tmp/c$i.h5"; done; settle
for i in 1 2 3 4; do
  clean H5TURBO_INDEX_CACHE_MAX=$((one * 5 / 2)) "$cli" index build "$tmp/c$i.h5" > /dev/null || fail "build c$i"
done
total=$(cat "$XDG_CACHE_HOME"/h5turbo/*.h5turbo-index | wc -c)
[ "$total" -le $((one * 5 / 2)) ] || fail "cache holds $total bytes, bound $((one * 5 / 2))"
[ -f "$(cache_sidecar "$tmp/c4.h5")" ] && [ -f "$(cache_sidecar "$tmp/c3.h5")" ] && [ ! -f "$(cache_sidecar "$tmp/c1.h5")" ] ||
  fail "the cache's bound evicted the wrong entries: $(ls "$XDG_CACHE_HOME/h5turbo")"
# The running total the publications keep (so that they need not list the folder) is exact after
# publications that did not list it (under the default bound: no eviction, no recount).
for i in 5 6; do cp "$tmp/links.h5" "$tmp/c$i.h5"; done; settle
for i in 5 6; do clean "$cli" index build "$tmp/c$i.h5" > /dev/null || fail "build c$i"; done
total=$(cat "$XDG_CACHE_HOME"/h5turbo/*.h5turbo-index | wc -c)
kept=$(od -An -t u8 -j 8 -N 8 "$XDG_CACHE_HOME/h5turbo/h5turbo-cache-total" | tr -d ' ')
[ "$(head -c 8 "$XDG_CACHE_HOME/h5turbo/h5turbo-cache-total")" = h5tbtot1 ] && [ "$kept" = "$total" ] ||
  fail "the cache's running total says ${kept:-nothing}, its sidecars hold $total bytes"
rc=0; "$cli" index frobnicate "$tmp/ix.h5" 2>/dev/null || rc=$?; [ $rc -eq 2 ] || fail "index with a bad action exited $rc"
# (The benchmark's reads write sidecars too, into a cache of the benchmark's own run: the cache
# the caller names, here one of this test's, must stay empty.)
export XDG_CACHE_HOME="$tmp/bench-cache"
echo "ok: index build/status/drop/gc, in the cache, stale after a change"
# bench --quick: a valid results.json with every suite's modes, and non-empty PNGs.
"$cli" bench --quick --reps 1 --out "$tmp/bench" > "$tmp/bench.txt" 2>&1 || { tail -20 "$tmp/bench.txt"; fail "bench --quick failed"; }
"$TB_SRC/.venv/bin/python" - "$tmp/bench" <<'PY' || fail "bench results invalid"
import json, os, sys
d = sys.argv[1]
r = json.load(open(os.path.join(d, "results.json")))
assert r["results"], "no results"
suites = {x["suite"] for x in r["results"]}
for x in r["results"]:
    assert x["median"] > 0 and x["min"] <= x["median"] <= x["max"], x
    assert x["speedup_median"] and x["speedup_median"] > 0, x
for s in suites:
    modes = [x["mode"] for x in r["results"] if x["suite"] == s]
    # The first mode of every case is the stock baseline (speedup 1); h5turbo is among the others.
    assert "stock" in modes[0], (s, modes)
    assert any("h5turbo" in m for m in modes), (s, modes)
    png = os.path.join(d, s + ".png")
    assert os.path.getsize(png) > 1000 and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", png
print("suites:", ", ".join(sorted(suites)))
PY
left=$( (find "$XDG_CACHE_HOME" -name '*.h5turbo-index' 2>/dev/null || true) | wc -l) # (no folder: none)
[ "$left" -eq 0 ] || fail "bench --quick left $left sidecars of its temporary files in the caller's cache"
echo "ok: bench --quick wrote a valid results.json and PNG plots, and no sidecar in the caller's cache"
