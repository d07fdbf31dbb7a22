#!/usr/bin/env bash
# testpar.sh NP PROGRAM [ARGS...] — one of HDF5 1.14.5's parallel test programs (built by
# scripts/setup-mpi) on NP ranks, natively and under h5turbo in the same run: every test that
# passes natively must pass under h5turbo, and every rank must have loaded the connector.
source "$(dirname "$0")/mpi_lib.sh"
np=$1; prog=$2; shift 2
name=$(basename "$prog")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/native" "$tmp/turbo" "$tmp/cache"
export XDG_CACHE_HOME="$tmp/cache" # sidecars of any sec2 opens stay in the test's folder

# One line per test outcome, "NAME<TAB>PASSED|FAILED|SKIPPED", from the formats these programs use:
# "Testing <what> ... PASSED|FAILED|-SKIP-" lines (API tests, t_pmulti_dset; a name seen again gets
# its occurrence number), testframe's summary table (-s: testphdf5, t_shapesame, t_2Gio), and for
# t_filters_parallel, which prints no per-test status, its closing line.
outcomes() {
  awk '
    /^Summary of Test Results:/ { table = 1; next }
    table && /^-+ -+/ { next }
    table && /^Name of Test/ { next }
    table && NF == 0 { table = 0; next }
    table && NF >= 2 {
      st = ($2 == "0") ? "PASSED" : ($2 == "N/A") ? "SKIPPED" : "FAILED"
      print "testframe " $1 "\t" st; next
    }
    match($0, /^ *Testing .*[^ ] +(PASSED|FAILED|-SKIP-) *$/) {
      line = $0; sub(/^ */, "", line)
      st = line; sub(/.* /, "", st); sub(/ +[^ ]+ *$/, "", line)
      if (st == "-SKIP-") st = "SKIPPED"
      n = ++seen[line]
      print line " #" n "\t" st; next
    }
    /^All Parallel Filters tests passed/ { print "t_filters_parallel\tPASSED"; next }
    /Parallel Filters tests failed/ { print "t_filters_parallel\tFAILED"; next }
  ' "$1"
}

run_native() { (cd "$tmp/native" && mpi_stock "$np" "$prog" "$@" > out.txt 2>&1); }
run_turbo() { (cd "$tmp/turbo" && mpi_turbo "$np" "$prog" "$@" > out.txt 2> err.txt); }

start=$(date +%s.%N)
nrc=0; run_native "$@" || nrc=$?
mid=$(date +%s.%N)
trc=0; run_turbo "$@" || trc=$?
end=$(date +%s.%N)
[ $nrc -ne 124 ] || fail "$name timed out natively"
[ $trc -ne 124 ] || { tail -20 "$tmp/turbo/out.txt"; fail "$name timed out under h5turbo (hang?)"; }

outcomes "$tmp/native/out.txt" > "$tmp/native.tsv"
outcomes "$tmp/turbo/out.txt" > "$tmp/turbo.tsv"
tally() { printf '%s passed, %s failed, %s skipped' "$(grep -c $'\tPASSED$' "$1" || true)" \
            "$(grep -c $'\tFAILED$' "$1" || true)" "$(grep -c $'\tSKIPPED$' "$1" || true)"; }
printf 'native:  exit %s, %s (%.1f s)\n' $nrc "$(tally "$tmp/native.tsv")" "$(echo "$mid - $start" | bc)"
printf 'h5turbo: exit %s, %s (%.1f s)\n' $trc "$(tally "$tmp/turbo.tsv")" "$(echo "$end - $mid" | bc)"
[ -s "$tmp/native.tsv" ] || { tail -30 "$tmp/native/out.txt"; fail "no test outcomes in $name's native output"; }

# A test passing natively must pass under h5turbo (and be there at all: a crash loses the rest).
lost=$(awk -F'\t' 'FILENAME == ARGV[1] { t[$1] = $2; next } $2 == "PASSED" && t[$1] != "PASSED" { print $1 ": " (t[$1] == "" ? "missing" : t[$1]) }' \
         "$tmp/turbo.tsv" "$tmp/native.tsv")
if [ -n "$lost" ]; then
  tail -40 "$tmp/turbo/out.txt"; cat "$tmp/turbo/err.txt" >&2
  fail "tests passing natively but not under h5turbo ($name, np $np):"$'\n'"$lost"
fi
# A program that aborts (MPI_Abort on a failed check) prints no stats: its lost tests are named
# above; without them, no stats means the connector was not loaded.
[ $trc -ne 97 ] || { cat "$tmp/turbo/err.txt" >&2; fail "h5turbo was not active on every rank of $name"; }
if [ $nrc -eq 0 ] && [ $trc -ne 0 ]; then
  tail -40 "$tmp/turbo/out.txt"; cat "$tmp/turbo/err.txt" >&2
  fail "$name exits 0 natively, $trc under h5turbo"
fi
echo "ok: $name at np $np: every native pass passes under h5turbo, connector active on all $np ranks"
