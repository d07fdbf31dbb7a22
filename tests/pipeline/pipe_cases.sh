#!/usr/bin/env bash
# pipe_cases.sh BIN [THREADS] [--no-tools] — the differential test of the chunk pipeline: the
# case matrix of pipe_cases.c written by stock HDF5 and by h5turbo, each file read by both; every read, h5dump,
# h5diff and (for pipelines without deflate) every stored chunk must be identical, and the
# pipeline must really have handled writes and reads (its counters, not just the connector).
source "$TB_SRC/tests/integration/lib.sh"
bin=$1
if [ -n "${2:-}" ]; then export H5TURBO_THREADS=$2; fi
# --no-tools: only our own program runs under h5turbo (TSan builds: HDF5's tools are not
# instrumented and cannot load an instrumented plugin).
tools=1; [ "${3:-}" = "--no-tools" ] && tools=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
export TB_STATS_LOG=$work/stats.log
# The test datasets are small; make the pipeline take every eligible call, however small.
export H5TURBO_PIPELINE_MIN_NBYTES=0

stock "$bin" write A.h5 > wA.txt
turbo "$bin" write B.h5 > wB.txt
diff wA.txt wB.txt || fail "in-process reads during the writes differ"
grep -q 'pipeline writes=[1-9].* fallbacks=0' stats.log || { cat stats.log; fail "the pipeline wrote nothing (or fell back)"; }
if [ "${H5TURBO_WRITE_BEHIND:-0}" = 1 ]; then
  grep -q 'behind_writes=[1-9]' stats.log || { cat stats.log; fail "write-behind queued nothing"; }
fi

# reads_agree S T WHAT: the stock-written file S and the h5turbo-written T, each read by stock
# HDF5 and by h5turbo: the four transcripts alike.
reads_agree() {
  stock "$bin" read "$1" > r1s.txt
  stock "$bin" read "$2" > r2s.txt
  turbo "$bin" read "$1" > r1t.txt
  turbo "$bin" read "$2" > r2t.txt
  [ "$(wc -l < r1s.txt)" -gt 400 ] || fail "$3: too few reads"
  diff r1s.txt r2s.txt || fail "$3: stock HDF5 reads the h5turbo-written file differently"
  diff r1s.txt r1t.txt || fail "$3: h5turbo reads the stock file differently"
  diff r1s.txt r2t.txt || fail "$3: h5turbo reads its own file differently"
}
reads_agree A.h5 B.h5 "default format"
grep -q 'pipeline writes=0 reads=[1-9].* fallbacks=0' stats.log || { cat stats.log; fail "the pipeline read nothing"; }

stock "$bin" raw A.h5 nodeflate > rawA.txt
stock "$bin" raw B.h5 nodeflate > rawB.txt
[ "$(grep -c ' chunk ' rawA.txt)" -gt 500 ] || fail "too few raw chunks compared"
diff rawA.txt rawB.txt || fail "stored chunks (no deflate) are not bit-identical"

# The latest file format: chunk indexes of every kind (fixed array, extensible array, v2 B-tree,
# single chunk). Read-only, the decoders pread the chunks from the map, walked beside the first
# read's decoders where the index is walked in the chunks' row-major order (not an extensible array).
: > stats.log
stock "$bin" write L.h5 latest > /dev/null
turbo "$bin" write M.h5 latest > /dev/null
reads_agree L.h5 M.h5 "latest format"
grep -q 'fallbacks=0 .*chunks_pread=[1-9].*map_walk_cpu_ms=' stats.log || { cat stats.log; fail "latest format: no chunk pread (or a fallback: a walk out of order)"; }

# Event sets (H5Dwrite_async, H5Dread_async, H5Dread_multi_async): native runs them synchronously
# and makes no request, so the pipeline takes them as it takes synchronous calls.
: > stats.log
stock "$bin" async As.h5 > as.txt
turbo "$bin" async At.h5 > at.txt
[ "$(wc -l < as.txt)" -eq 3 ] || fail "async: expected 3 reads"
diff as.txt at.txt || fail "async: h5turbo reads differ from stock HDF5's"
stock h5diff As.h5 At.h5 || fail "async: the files differ"
grep -q 'pipeline writes=[1-9].* reads=[1-9].* fallbacks=0 .*set_reads=[1-9]' stats.log ||
  { cat stats.log; fail "async: the pipeline did not take the event set's calls"; }

# Random datasets, selections (boxes, regular hyperslabs, unions of boxes) and memory layouts
# (writes and reads interleaved; every other row of chunks now and then written from doubles),
# same seed both ways.
: > stats.log
for seed in 1 2; do
  stock "$bin" random R$seed-s.h5 $seed 60 > rand-s.txt
  turbo "$bin" random R$seed-t.h5 $seed 60 > rand-t.txt
  [ "$(wc -l < rand-s.txt)" -gt 100 ] || fail "random: too few reads"
  diff rand-s.txt rand-t.txt || fail "random seed $seed: reads differ"
  stock h5diff R$seed-s.h5 R$seed-t.h5 || fail "random seed $seed: files differ"
done
# (Their writes include regular hyperslabs and unions of boxes, read back above and by h5diff.)
grep -q 'selection_writes=[1-9]' stats.log || { cat stats.log; fail "no write of a strided or union selection went through the pipeline"; }
grep -q 'converted_writes=[1-9]' stats.log || { cat stats.log; fail "no write of every other row of chunks from doubles went through the pipeline"; }

if [ "$tools" = 1 ]; then
  # fill_never's unwritten part is whatever h5dump's buffer held (HDF5 leaves it alone): not compared.
  dump() { "$@" | sed 1d | awk '/^   DATASET "fill_never"/{skip=1} !skip{print} skip&&/^   }/{skip=0}'; }
  dump stock h5dump A.h5 > dA.txt
  dump stock h5dump B.h5 > dB.txt
  dump turbo h5dump B.h5 > dBt.txt
  diff -q dA.txt dB.txt || fail "h5dump differs between the stock and the h5turbo file"
  diff -q dA.txt dBt.txt || fail "h5dump through h5turbo differs"
fi
stock h5diff A.h5 B.h5 || fail "h5diff reports differences"

# Blosc, when the filter plugin is built: stock HDF5 with just the filter plugin vs h5turbo.
if ls "$TB_PLUGIN_DIR"/libh5turbo_blosc.so >/dev/null 2>&1; then
  filt() { HDF5_PLUGIN_PATH="$TB_PLUGIN_DIR" env -u HDF5_VOL_CONNECTOR "$@"; }
  filt "$bin" write C.h5 blosc > /dev/null
  turbo "$bin" write D.h5 blosc > /dev/null
  filt "$bin" read C.h5 > rCf.txt
  filt "$bin" read D.h5 > rDf.txt
  turbo "$bin" read C.h5 > rCt.txt
  diff rCf.txt rDf.txt || fail "Blosc: the filter plugin reads the h5turbo file differently"
  diff rCf.txt rCt.txt || fail "Blosc: h5turbo reads differently"
  grep -q 'blosc_f64 frame' rCf.txt || fail "Blosc cases missing"
fi
echo "pipe_cases: $(wc -l < rAs.txt) reads, $(grep -c ' chunk ' rawA.txt) raw chunks and 2 random runs identical"
