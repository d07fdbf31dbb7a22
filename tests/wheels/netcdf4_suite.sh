#!/usr/bin/env bash
# netcdf4_suite.sh PY SDIST — netCDF4's own test suite (test/ of its sdist, the release of the wheel
# in PY's venv; scripts/setup caches it) against that wheel's HDF5 2.2.0, natively and under
# h5turbo, compared test by test: a test that passes natively must pass under h5turbo.
source "$(dirname "$0")/../integration/lib.sh"
py=${1:?python of the wheel venv}
sdist=${2:?netCDF4 sdist (.tar.gz)}
here=$(cd "$(dirname "$0")" && pwd)
export LC_ALL=C # (sort, join and comm in one collation)
[ -x "$py" ] || fail "no $py (run scripts/setup)"
py=$(cd "$(dirname "$py")" && pwd)/$(basename "$py") # (the suite runs from its own folder)
[ -f "$sdist" ] || fail "no $sdist (run scripts/setup)"
v=$("$py" -c 'import netCDF4; print(netCDF4.__version__)') || fail "no netCDF4 in $py"
case "$(basename "$sdist")" in *"$v.tar.gz") ;; *) fail "$sdist is not netCDF4 $v's sdist" ;; esac
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
tar xzf "$sdist" -C "$tmp" --wildcards '*/test/*' || fail "cannot unpack $sdist"
export XDG_CACHE_HOME="$tmp/cache" TB_STATS_LOG="$tmp/stats.txt" PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH="$here/../clients${PYTHONPATH:+:$PYTHONPATH}"
mkdir -m 700 "$XDG_CACHE_HOME"
run() { # MODE: the suite in a fresh copy of its folder (it writes files beside itself)
  rm -rf "$tmp/run" && cp -a "$tmp"/*/test "$tmp/run"
  (cd "$tmp/run" && TB_OUTCOMES="$tmp/$1.out" $1 "$py" -m pytest -q -p no:cacheprovider -p tb_outcomes . \
     > "$tmp/$1.log" 2>&1) || true
  { grep -E "^(passed|failed|error|skipped|xfailed|xpassed|timeout)	" "$tmp/$1.out" 2> /dev/null || true; } |
    sort -u | sort -t $'\t' -k2 > "$tmp/$1.sorted"
}
run stock
run turbo
n=$(grep -c "^passed" "$tmp/stock.sorted" || true)
[ "$n" -gt 100 ] || { tail -20 "$tmp/stock.log"; fail "only $n tests passed natively"; }
worse=$(join -t $'\t' -1 2 -2 2 <(cut -f1,2 "$tmp/stock.sorted") <(cut -f1,2 "$tmp/turbo.sorted") |
        awk -F'\t' '$2 == "passed" && $3 != "passed" && $3 != "xpassed" {print $1 ": " $3}')
[ -z "$worse" ] || { tail -40 "$tmp/turbo.log"; fail "passing natively, not under h5turbo: $worse"; }
missing=$(comm -23 <(grep "^passed" "$tmp/stock.sorted" | cut -f2) <(cut -f2 "$tmp/turbo.sorted"))
[ -z "$missing" ] || fail "not run under h5turbo: $missing"
grep -q 'index answered=[1-9]' "$tmp/stats.txt" || fail "the index answered nothing: $(cat "$tmp/stats.txt")"
grep -q 'pipeline writes=[1-9]' "$tmp/stats.txt" || fail "the pipeline wrote nothing: $(cat "$tmp/stats.txt")"
for m in stock turbo; do
  printf '%s:' "$m"; cut -f1 "$tmp/$m.sorted" | sort | uniq -c | awk '{printf " %s %s", $1, $2}'; echo
done
diff <(cut -f1,2 "$tmp/stock.sorted") <(cut -f1,2 "$tmp/turbo.sorted") | grep '^[<>]' || true
echo "ok: netCDF4 $v's own suite: no test passing natively fails under h5turbo"
