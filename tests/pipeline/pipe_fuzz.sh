#!/usr/bin/env bash
# pipe_fuzz.sh BIN FIRST COUNT [--no-tools] — the chunk pipeline against stock HDF5 on random datasets and calls
# (pipe_fuzz.c), seeds FIRST .. FIRST+COUNT-1: each seed run stock and under h5turbo, transcripts
# identical (every call's return value and buffer); the h5turbo file read back read-only by stock
# HDF5 as the stock file is, and both dumped alike by h5dump. Every third seed with Blosc, run
# stock with only the filter plugin (and no h5dump). The pipeline must have taken writes, reads
# and conversions, else the comparison proves little.
source "$TB_SRC/tests/integration/lib.sh"
bin=$1 first=${2:-1} count=${3:-60}
# --no-tools: no h5dump (another HDF5 than the tools' wrote the files: tests/wheels/c_suite_2x.sh)
tools=1; [ "${4:-}" = "--no-tools" ] && tools=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
export TB_STATS_LOG=$work/stats.log
# The read-only phase's sidecars (thousands of short-lived files when run by hand) go to a cache
# of this run's own.
export XDG_CACHE_HOME=$work/cache
mkdir -m 700 "$XDG_CACHE_HOME"
# The datasets are small; make the pipeline take every eligible call, however small (unless the
# caller sets another minimum: then native takes the small calls between the pipeline's).
export H5TURBO_PIPELINE_MIN_NBYTES=${H5TURBO_PIPELINE_MIN_NBYTES:-0}
have_blosc=0; ls "$TB_PLUGIN_DIR"/libh5turbo_blosc.so > /dev/null 2>&1 && have_blosc=1
filt() { HDF5_PLUGIN_PATH="$TB_PLUGIN_DIR" env -u HDF5_VOL_CONNECTOR -u H5TURBO_STATS "$@"; }
calls=0
for seed in $(seq "$first" $((first + count - 1))); do
  ref=stock blosc=""
  if [ $have_blosc = 1 ] && [ $((seed % 3)) = 0 ]; then ref=filt blosc=blosc; fi
  $ref "$bin" run S.h5 "$seed" $blosc > s.txt
  turbo "$bin" run T.h5 "$seed" $blosc > t.txt
  diff s.txt t.txt > d.txt || { head -30 d.txt; fail "seed $seed${blosc:+ (blosc)}: h5turbo's transcript differs from stock HDF5's"; }
  $ref "$bin" verify T.h5 "$seed" $blosc > v.txt
  sed -n '/^verify /,$p' s.txt > sv.txt
  diff sv.txt <(sed -n '/^verify /,$p' v.txt) > d.txt || { head -30 d.txt; fail "seed $seed: stock HDF5 reads the h5turbo file differently"; }
  # (h5diff calls a dataset with no chunk written "not comparable": h5dump shows its fill values.
  # Not with Blosc: the tools, not built with the sanitizers, cannot load the sanitizer builds'
  # filter plugin.)
  if [ -z "$blosc" ] && [ $tools = 1 ]; then
    stock h5dump S.h5 | tail -n +2 > ds.txt
    stock h5dump T.h5 | tail -n +2 > dt.txt
    cmp -s ds.txt dt.txt || { diff ds.txt dt.txt | head -20; fail "seed $seed: h5dump shows the files differ"; }
  fi
  calls=$((calls + $(grep -c '^op' s.txt)))
done
grep -q 'pipeline writes=[1-9].* reads=[1-9]' "$TB_STATS_LOG" || { tail -5 "$TB_STATS_LOG"; fail "the pipeline took no write or no read"; }
grep -q 'converted_reads=[1-9]' "$TB_STATS_LOG" || { tail -5 "$TB_STATS_LOG"; fail "the pipeline converted no read"; }
grep -q 'converted_writes=[1-9]' "$TB_STATS_LOG" || { tail -5 "$TB_STATS_LOG"; fail "the pipeline converted no write"; }
echo "pipe_fuzz: seeds $first..$((first + count - 1)), $calls calls, identical to stock HDF5's"
