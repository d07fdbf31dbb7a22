#!/usr/bin/env bash
# hdf5_tools.sh — HDF5 1.14.5's own tools tests (h5dump, h5ls, h5diff, h5repack, h5copy, h5stat,
# h5jam, h5import, h5format_convert, misc; built by scripts/setup-clients), run with CTest natively
# and with h5turbo active, compared test by test; tests that did not pass are rerun once each way.
source "$(dirname "$0")/../integration/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
DEPS=${H5TURBO_DEPS_DIR:-$HOME/.cache/h5turbo/deps}
TT=${TB_HDF5_TOOLS_TEST:-$DEPS/hdf5-1.14.5-tools-test/build}
[ -f "$TT/tools/CTestTestfile.cmake" ] || fail "no HDF5 tools-test build in $TT (run scripts/setup-clients)"
py=python3
jobs=${H5TURBO_JOBS:-$(nproc)}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Sidecars of the test files go to this temporary cache.
export XDG_CACHE_HOME="$tmp/cache"
mkdir -m 700 "$XDG_CACHE_HOME" "$tmp/ld"

# The tests compare each tool's stdout and stderr with expected files, so h5turbo's stats line
# (stderr) cannot prove activation here. Instead the dynamic loader logs, per process, what it
# loaded (LD_DEBUG_OUTPUT writes a file per pid, nothing on the tools' own output): every process
# that loaded libhdf5 must also have loaded libh5turbo_vol.so. One tool run with H5TURBO_STATS=1
# then shows the connector active in these very binaries.
h5turbo_env=(HDF5_PLUGIN_PATH="$TB_PLUGIN_DIR" HDF5_VOL_CONNECTOR="${TB_CONNECTOR:-h5turbo}")

# One CTest run over the tools tests: MODE is native or h5turbo, NAME its outcome file's stem,
# then ctest arguments.
ctest_run() {
  local mode=$1 name=$2; shift 2
  local envs=(env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH -u H5TURBO_STATS)
  case $mode in
    h5turbo) envs+=("${h5turbo_env[@]}" LD_DEBUG=files LD_DEBUG_OUTPUT="$tmp/ld/$name") ;;
    # HDF5's own pass-through connector (built into the library): what any connector but native gets.
    pass_through) envs+=(HDF5_VOL_CONNECTOR="pass_through under_vol=0;under_info={}") ;;
  esac
  (cd "$TT/tools" && "${envs[@]}" ctest -j "$jobs" --timeout 600 --output-junit "$tmp/$name.xml" "$@") \
    > "$tmp/$name.log" 2>&1 || true
  [ -f "$tmp/$name.xml" ] || { tail -20 "$tmp/$name.log"; fail "ctest wrote no report ($mode)"; }
  "$py" "$here/compare.py" junit "$tmp/$name.xml" "$tmp/$name.tsv"
}

t0=$(date +%s)
ctest_run native native
t1=$(date +%s)
ctest_run h5turbo turbo
t2=$(date +%s)
echo "HDF5 tools tests: native run $((t1 - t0)) s, h5turbo run $((t2 - t1)) s"
echo "native:  $(grep -E 'tests passed|tests failed' "$tmp/native.log" | tail -1)"
echo "h5turbo: $(grep -E 'tests passed|tests failed' "$tmp/turbo.log" | tail -1)"

# Activation, per process, from the loader's logs of the h5turbo run.
"$py" - "$tmp/ld" <<'EOF' > "$tmp/active.txt" || { cat "$tmp/active.txt"; fail "h5turbo was not active in the HDF5 tools tests"; }
import collections, glob, os, re, sys
hdf5, turbo, without = 0, 0, collections.Counter()
for path in glob.glob(os.path.join(sys.argv[1], "turbo.*")):
    text = open(path, errors="replace").read()
    m = re.search(r"file=libhdf5\.so\S* \[0\];\s+needed by (\S+)", text)
    if not m:
        continue
    hdf5 += 1
    if "libh5turbo_vol.so" in text:
        turbo += 1
    else:
        without[os.path.basename(m.group(1))] += 1
print(f"processes that loaded HDF5: {hdf5}, with h5turbo loaded: {turbo}")
for prog, n in without.most_common():
    print(f"  without h5turbo: {prog} x{n}")
sys.exit(0 if hdf5 and turbo * 10 >= hdf5 * 9 else 1)
EOF
cat "$tmp/active.txt"
# Processes without h5turbo are the tests that set HDF5_PLUGIN_PATH to a folder of their own
# (HDF5's plugin tests): HDF5 then cannot find h5turbo and runs natively, which the test above shows.
sample="$TT/tools/test/h5dump/testfiles/std/tgroup.h5"
[ -f "$sample" ] || fail "no $sample in the tools-test build"
stats=$(env "${h5turbo_env[@]}" H5TURBO_STATS=1 "$TT/bin/h5dump" -H "$sample" 2>&1 >/dev/null | grep '^h5turbo stats: wrappers malloc=[1-9]' || true)
[ -n "$stats" ] || fail "h5turbo was not active in $TT/bin/h5dump"
echo "h5turbo active in the tools under test: $stats"

# Tests that did not pass in one run, again by name, once natively and once under h5turbo.
mapfile -t rerun < <("$py" "$here/compare.py" rerun --bare "$tmp/native.tsv" "$tmp/turbo.tsv")
final_args=()
if [ ${#rerun[@]} -gt 0 ]; then
  echo "rerunning ${#rerun[@]} tests that did not pass in one run:"; printf '  %s\n' "${rerun[@]}"
  regex=$("$py" -c 'import re,sys; print("^(" + "|".join(re.escape(a) for a in sys.argv[1:]) + ")$")' "${rerun[@]}")
  ctest_run native native_rerun -R "$regex"
  ctest_run h5turbo turbo_rerun -R "$regex"
  # A test that fails under HDF5's own pass_through as well is one HDF5 refuses to any connector
  # but native (reported, not counted against h5turbo).
  ctest_run pass_through pass_through_rerun -R "$regex"
  final_args=(--native-rerun "$tmp/native_rerun.tsv" --turbo-rerun "$tmp/turbo_rerun.tsv"
              --pass-through-rerun "$tmp/pass_through_rerun.tsv")
fi
record="$TB_BUILD/clients-results"; mkdir -p "$record"
rc=0
"$py" "$here/compare.py" final "$tmp/native.tsv" "$tmp/turbo.tsv" "${final_args[@]}" \
  --expected "$here/hdf5_tools_expected.txt" --report "$record/hdf5_tools.txt" || rc=$?
for f in "$tmp"/*.tsv "$tmp"/*.log; do cp "$f" "$record/hdf5_tools.$(basename "$f")"; done
cat "$tmp/active.txt" >> "$record/hdf5_tools.txt"
echo "sidecars in the temporary cache: $(find "$XDG_CACHE_HOME" -name '*.h5turbo-index' | wc -l) files, $(find "$XDG_CACHE_HOME" -name 'h5turbo-pack-*' | wc -l) packs"
stray=$(find "$TT" -name '*.h5turbo-index*' | head -5)
[ -z "$stray" ] || fail "sidecars written into the test tree:"$'\n'"$stray"
[ $rc -eq 0 ] || fail "HDF5 tools tests failing only under h5turbo (see above)"
echo "ok: HDF5 tools tests: no test fails only under h5turbo"
