#!/usr/bin/env bash
# pipe_xfer.sh BIN [THREADS] [--no-py] — conversions and selections through the chunk pipeline
# against stock HDF5: one file written by stock HDF5, read by pipe_xfer.c into every numeric
# memory type with many selections, with and without a conversion exception callback, stock vs
# h5turbo, every read's hash identical; H5Dread_multi/H5Dwrite_multi; files written from other
# memory types (float32 into integers: overflow, NaN) by both, read back by stock HDF5
# identically; the pipeline must really have converted (its counters), never fallen back.
# h5py's float32 reads of an integer dataset (read_direct, astype), ROI, strided and mask reads
# are compared the same way when .venv exists.
source "$TB_SRC/tests/integration/lib.sh"
bin=$1
if [ -n "${2:-}" ]; then export H5TURBO_THREADS=$2; fi
# --no-py: TSan builds, where Python (not instrumented) cannot load the instrumented plugin.
py="$TB_SRC/.venv/bin/python"; [ "${3:-}" = "--no-py" ] && py=/nonexistent
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
export TB_STATS_LOG=$work/stats.log
# The test datasets are small; make the pipeline take every eligible call, however small.
export H5TURBO_PIPELINE_MIN_NBYTES=0

stock "$bin" write A.h5
stock "$bin" read A.h5 > rs.txt 2> rs.err
turbo "$bin" read A.h5 > rt.txt 2> rt.err
[ "$(wc -l < rs.txt)" -gt 4000 ] || fail "too few reads"
grep -q 'cb-handle ret=0 cb=[1-9]' rs.txt || fail "no conversion exception was raised (the test would prove little)"
grep -q 'cb-abort ret=-1' rs.txt || fail "no conversion was aborted by the callback"
diff rs.txt rt.txt > diff.txt || { head -20 diff.txt; fail "h5turbo reads differ from stock HDF5's ($(grep -c '^<' diff.txt) reads)"; }
# What HDF5 printed too (the aborted conversions' error stacks): h5turbo's own probes of the
# program's transfer lists must add nothing.
diff rs.err rt.err > diff.txt || { head -20 diff.txt; fail "h5turbo's run printed something else on stderr than stock's"; }
grep -q 'pipeline writes=0 reads=[1-9].* fallbacks=0 .*converted_reads=[1-9]' stats.log ||
  { cat stats.log; fail "the pipeline converted nothing (or fell back)"; }
want_fwd=0
if [ "${TB_XFER_HDF5_2:-0}" = 1 ]; then
  # HDF5 2.x converts a nonzero fill value once, not element by element, so an exception callback
  # sees fewer calls: the 2.x build forwards reads that convert such a dataset into another type
  # under a callback (vol/pipeline/pipeline.c); only reads of that kind (_fill, cb-) may be forwarded.
  want_fwd=$(awk '$4 ~ /^cb-/ && $1 ~ /_fill$/ { split($1, a, "_"); if (a[1] != $2) n++ } END { print n + 0 }' rs.txt)
fi
fwd=$(grep -o 'forwarded_reads=[0-9]*' stats.log | head -1 | cut -d= -f2)
[ -n "$fwd" ] && [ "$fwd" -le "$want_fwd" ] || { cat stats.log; fail "reads were forwarded ($fwd, at most $want_fwd may be)"; }
# Unions of boxes are planned from their block list; other pairs (memory selections that are not
# one box, a union moved by H5Soffset_simple) listed as runs.
grep -q 'block_reads=[1-9]' stats.log || { cat stats.log; fail "no union was planned from its boxes"; }
grep -q 'listed_reads=[1-9]' stats.log || { cat stats.log; fail "no selection pair was listed"; }
# A read-only file on the sec2 driver: the workers pread the chunks themselves (the multi-dataset
# run below opens its file for writing: there the application's thread reads them).
grep -q 'chunks_pread=[1-9]' stats.log || { cat stats.log; fail "the workers read no chunk themselves"; }

# Multi-dataset calls: H5Dread_multi / H5Dwrite_multi, each dataset through the pipeline when it
# takes it; the written files read back by stock HDF5.
: > stats.log
cp A.h5 Ms.h5; cp A.h5 Mt.h5
stock "$bin" multi Ms.h5 > ms.txt
turbo "$bin" multi Mt.h5 > mt.txt
[ "$(wc -l < ms.txt)" -eq 16 ] || fail "multi: expected 16 reads"
diff ms.txt mt.txt || fail "multi: h5turbo reads differ from stock HDF5's"
stock "$bin" dump Ms.h5 > ds.txt
stock "$bin" dump Mt.h5 > dt.txt
diff ds.txt dt.txt || fail "multi: stock HDF5 reads the h5turbo-written datasets differently"
grep -q 'pipeline writes=[1-9].* reads=[1-9].* fallbacks=0 ' stats.log || { cat stats.log; fail "multi: the pipeline took nothing"; }
grep -q 'forwarded_reads=0 ' stats.log || { cat stats.log; fail "multi: reads were forwarded"; }

# H5Dread_multi of many datasets at once: the pipeline runs those it takes as one set (on a
# read-only file the decoders pread their chunks; on one open for writing this thread reads
# them, and then H5Dwrite_multi writes 12 new datasets at once, as one set too).
for mode in ro rw; do
  : > stats.log
  cp A.h5 Ss$mode.h5; cp A.h5 St$mode.h5
  stock "$bin" multiset Ss$mode.h5 $mode > ss.txt
  turbo "$bin" multiset St$mode.h5 $mode > st.txt
  [ "$(grep -vc ' cb ' ss.txt)" -gt 200 ] || fail "multiset $mode: too few reads"
  [ "$(grep -c 'twice [01] ret=-1' ss.txt)" = 2 ] || fail "multiset $mode: stock HDF5 read a dataset named twice (the check would prove little)"
  grep -q ' cb count=[1-9]' ss.txt || fail "multiset $mode: no conversion exception was raised"
  diff ss.txt st.txt || fail "multiset $mode: h5turbo reads differ from stock HDF5's"
  grep -q 'fallbacks=0 .*set_reads=[1-9]' stats.log || { cat stats.log; fail "multiset $mode: no read ran in a set with another"; }
  if [ $mode = ro ]; then grep -q 'chunks_pread=[1-9]' stats.log || { cat stats.log; fail "multiset ro: no chunk pread"; }; fi
done
stock "$bin" dump Ssrw.h5 > ds.txt
stock "$bin" dump Strw.h5 > dt.txt
[ "$(grep -c '^mset' ds.txt)" -eq 12 ] || fail "multiset: expected 12 written datasets"
diff ds.txt dt.txt || fail "multiset: stock HDF5 reads the datasets h5turbo wrote per H5Dwrite_multi differently"
grep -q 'set_writes=[1-9]' stats.log || { cat stats.log; fail "multiset: no write ran in a set with another"; }

# Writes with a conversion: every file type from these memory types, stock and h5turbo, then
# both files read by stock HDF5 (each dataset in its own type).
: > stats.log
for mt in f32 f64 f32nonan f64nonan i64 u8 i16 u32 f64be; do
  stock "$bin" write Ws.h5 $mt
  turbo "$bin" write Wt.h5 $mt
  stock "$bin" dump Ws.h5 > ws.txt
  stock "$bin" dump Wt.h5 > wt.txt
  [ "$(wc -l < ws.txt)" -eq 65 ] || fail "write from $mt: expected 65 datasets"
  diff ws.txt wt.txt || fail "write from $mt: stock HDF5 reads the h5turbo file differently"
done
grep -q 'fallbacks=0 .*converted_writes=[1-9]' stats.log || { cat stats.log; fail "the pipeline converted no write"; }
grep -q 'worker_conv_writes=[1-9]' stats.log || { cat stats.log; fail "the workers converted no write"; }
[ "$(grep 'pipeline writes' stats.log | grep -c 'converted_writes=0 *$')" = 0 ] || { cat stats.log; fail "a run converted no write"; }
# The same with write-behind (the converted copy queued).
: > stats.log
stock "$bin" write Ws.h5 f32
H5TURBO_WRITE_BEHIND=1 turbo "$bin" write Wt.h5 f32
stock "$bin" dump Ws.h5 > ws.txt
stock "$bin" dump Wt.h5 > wt.txt
diff ws.txt wt.txt || fail "write-behind from f32: stock HDF5 reads the h5turbo file differently"
grep -q 'behind_writes=[1-9].*converted_writes=[1-9]' stats.log || { cat stats.log; fail "write-behind converted nothing"; }

if [ -x "$py" ]; then
  : > stats.log
  stock "$py" "$TB_SRC/tests/pipeline/pipe_xfer.py" write P.h5
  stock "$py" "$TB_SRC/tests/pipeline/pipe_xfer.py" read P.h5 > ps.txt
  turbo "$py" "$TB_SRC/tests/pipeline/pipe_xfer.py" read P.h5 > pt.txt
  [ "$(wc -l < ps.txt)" -ge 4 ] || fail "h5py: too few reads"
  diff ps.txt pt.txt || fail "h5py: h5turbo reads differ from stock HDF5's"
  grep -q 'converted_reads=[1-9]' stats.log || { cat stats.log; fail "h5py: the pipeline converted nothing"; }
  grep -q 'forwarded_reads=0 ' stats.log || { cat stats.log; fail "h5py: reads were forwarded"; }
fi
echo "pipe_xfer: $(wc -l < rs.txt) reads identical to stock HDF5's"
