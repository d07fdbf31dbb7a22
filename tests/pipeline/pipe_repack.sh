#!/usr/bin/env bash
# pipe_repack.sh BIN — `h5repack -f SHUF -f GZIP=1` run under h5turbo (its writes go through the
# pipeline) gives a file with the same data, filters and layout as stock h5repack's.
source "$TB_SRC/tests/integration/lib.sh"
bin=$1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT; cd "$work"
export TB_STATS_LOG=$work/stats.log
export H5TURBO_PIPELINE_MIN_NBYTES=0
stock "$bin" write in.h5 nonever > /dev/null
stock h5repack -f SHUF -f GZIP=1 in.h5 stock.h5
turbo h5repack -f SHUF -f GZIP=1 in.h5 turbo.h5
grep -q 'pipeline writes=[1-9]' stats.log || { cat stats.log; fail "h5repack's writes did not use the pipeline"; }
stock h5diff in.h5 turbo.h5 || fail "data changed"
stock h5dump -p -H stock.h5 | sed 1d | grep -v 'SIZE\|OFFSET' > hs.txt
stock h5dump -p -H turbo.h5 | sed 1d | grep -v 'SIZE\|OFFSET' > ht.txt
diff hs.txt ht.txt || fail "filters/layout differ from stock h5repack's"
stock "$bin" read stock.h5 > rs.txt
stock "$bin" read turbo.h5 > rt.txt
diff rs.txt rt.txt || fail "reads differ"
echo "h5repack through h5turbo: identical"
