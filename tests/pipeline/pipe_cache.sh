#!/usr/bin/env bash
# pipe_cache.sh BIN [THREADS] — the decoded-chunk cache against stock HDF5 (pipe_cache.c): the
# same reads, read-only and interleaved with every kind of write, stock and under h5turbo, every
# read's hash identical, the files identical afterwards; and the cache must really have served
# reads in both runs (its counter), or the comparison would prove little. Then whole chunks read
# again and points across them ("again"): kept like native's cache keeps them, every read after
# the first re-read served from the cache. Windows across more chunks than the cache holds
# ("slide"): their last chunks kept, as native's cache ends up holding them.
source "$TB_SRC/tests/integration/lib.sh"
bin=$1
if [ -n "${2:-}" ]; then export H5TURBO_THREADS=$2; fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
export TB_STATS_LOG=$work/stats.log

stock "$bin" make A.h5
cp A.h5 B.h5
for min in default 0; do
  if [ $min = 0 ]; then export H5TURBO_PIPELINE_MIN_NBYTES=0; fi
  : > stats.log
  stock "$bin" ro A.h5 > ros.txt
  turbo "$bin" ro A.h5 > rot.txt
  [ "$(wc -l < ros.txt)" -gt 150 ] || fail "ro: too few reads"
  diff ros.txt rot.txt || fail "ro (min $min): h5turbo reads differ from stock HDF5's"
  grep -q 'chunks_cache_hits=[1-9]' stats.log || { cat stats.log; fail "ro (min $min): the cache served nothing"; }
  # Small reads inside one chunk are copied from the cache (none with pipeline_min 0, which
  # takes every read through a plan).
  if [ $min = default ]; then
    grep -q 'small_cached_reads=[1-9]' stats.log || { cat stats.log; fail "ro: no small read came from the cache"; }
  fi
  # One fallback: the checked read of the damaged chunk (native redoes it and reports the error).
  grep -q 'fallbacks=1 ' stats.log || { cat stats.log; fail "ro (min $min): the pipeline fell back other than once"; }
done
unset H5TURBO_PIPELINE_MIN_NBYTES
: > stats.log
stock "$bin" rw A.h5 > rws.txt
turbo "$bin" rw B.h5 > rwt.txt
[ "$(wc -l < rws.txt)" -gt 30 ] || fail "rw: too few reads"
diff rws.txt rwt.txt || fail "rw: h5turbo reads differ from stock HDF5's (a stale cached chunk?)"
grep -q 'chunks_cache_hits=[1-9]' stats.log || { cat stats.log; fail "rw: the cache served nothing"; }
# (Not "bad": h5diff, reading it with checksums on, fails on its damaged chunk in both files.)
stock h5diff A.h5 B.h5 /f32 /f32 || fail "rw: the files differ (f32)"
stock h5diff A.h5 B.h5 /u16 /u16 || fail "rw: the files differ (u16)"
# pair MODE — MODE's reads stock (MODE.s.txt) and under h5turbo (MODE.t.txt), identical; the cache
# hits under h5turbo in $hits.
pair() {
  : > stats.log
  stock "$bin" "$1" A.h5 > "$1.s.txt"
  turbo "$bin" "$1" A.h5 > "$1.t.txt"
  diff "$1.s.txt" "$1.t.txt" || fail "$1: h5turbo reads differ from stock HDF5's"
  hits=$(sed -n 's/.*chunks_cache_hits=\([0-9]*\).*/\1/p' stats.log)
}
pair again
[ "$(wc -l < again.s.txt)" -ge 12 ] || fail "again: too few reads"
# Decoded: the 4 chunks of the first pass and the 3 (or all 4, as each set is planned) read again
# before the handle keeps them; every later read is served from the cache.
[ "${hits:-0}" -ge 10 ] || { cat stats.log; fail "again: chunks read again were not kept (cache hits ${hits:-0})"; }
again=$hits
pair slide
[ "$(wc -l < slide.s.txt)" -eq 16 ] || fail "slide: expected 16 reads"
# Windows of two chunks with room for one: the last chunk of a window is kept (from the second
# window on, once the handle read a chunk again), and the next window takes it from the cache.
[ "${hits:-0}" -ge 12 ] || { cat stats.log; fail "slide: the last chunk of a window was not kept for the next (cache hits ${hits:-0})"; }
echo "pipe_cache: $(wc -l < rot.txt) read-only, $(wc -l < rwt.txt) read-write, $(wc -l < again.t.txt) repeated and $(wc -l < slide.t.txt) sliding reads identical ($again and $hits cache hits)"
