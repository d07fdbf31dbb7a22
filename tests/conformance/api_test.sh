#!/usr/bin/env bash
# api_test.sh SUITE [CONNECTOR] — HDF5's own API test suite (h5_api_test, built from the same
# 1.14.5 source) for one sub-suite, under native and under h5turbo in the same run. h5turbo must
# pass every test native passes; the run must prove the connector was active.
source "$(dirname "$0")/../integration/lib.sh"
suite=$1
export TB_CONNECTOR=${2:-h5turbo}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir native turbo
(cd native && stock h5_api_test "$suite" > out.txt 2>&1) || true
rc=0
(cd turbo && turbo h5_api_test "$suite" > out.txt 2> err.txt) || rc=$?
[ $rc -ne 97 ] || fail "h5turbo was not active during h5_api_test $suite"
summary() { grep -E "API tests (passed|did not pass|were skipped) with VOL connector" "$1" || true; }
echo "native:"; summary native/out.txt
echo "h5turbo ($TB_CONNECTOR):"; summary turbo/out.txt
count() { grep -E "^[0-9]+/[0-9]+ .* API tests $2" "$1" | head -1 | cut -d/ -f1; }
np=$(count native/out.txt passed); tp=$(count turbo/out.txt passed)
[ -n "$np" ] || fail "native run printed no summary"
[ -n "$tp" ] || { tail -30 turbo/out.txt turbo/err.txt; fail "h5turbo run printed no summary (crashed?)"; }
# Every test that native passes must pass through h5turbo: compare the FAILED lines.
grep -E "FAILED" native/out.txt | sed 's/ \{2,\}/ /g' | sort -u > native_failed.txt || true
grep -E "FAILED" turbo/out.txt | sed 's/ \{2,\}/ /g' | sort -u > turbo_failed.txt || true
extra=$(comm -13 native_failed.txt turbo_failed.txt)
[ -z "$extra" ] || fail "tests failing only under h5turbo:"$'\n'"$extra"
[ "$tp" -ge "$np" ] || fail "h5turbo passed $tp tests, native $np"
echo "ok: $suite: h5turbo passed $tp, native $np"
