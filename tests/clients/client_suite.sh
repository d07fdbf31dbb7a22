#!/usr/bin/env bash
# client_suite.sh PACKAGE — the test suite of one real HDF5 client (installed by
# scripts/setup-clients into .venv-clients: h5py built against our HDF5 and its clients, and
# PyTables' wheel with its own HDF5), run natively and under h5turbo in the same test and compared
# test by test; ids that did not pass are rerun once each way.
source "$(dirname "$0")/../integration/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
pkg=${1:?package}
inject=0; [ "${2:-}" != --inject-h5turbo-failure ] || inject=1
DEPS=${H5TURBO_DEPS_DIR:-$HOME/.cache/h5turbo/deps}
VENV=${TB_CLIENTS_VENV:-$TB_SRC/.venv-clients}
CSRC=${TB_CLIENTS_SRC:-$DEPS/clients/src}
py="$VENV/bin/python"
[ -x "$VENV/bin/pytest" ] || fail "no $VENV (run scripts/setup, which runs scripts/setup-clients)"
SITE=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

# The h5py these suites use must be ours: built from source against the HDF5 h5turbo was built for.
hdf5_lib=$(cd "$TB_HDF5_BIN/../lib" && pwd)
"$py" - "$hdf5_lib" <<'EOF' || fail "h5py in $VENV is not the one built against our HDF5 (a wheel swapped in?)"
import glob, os, subprocess, sys, h5py
assert h5py.version.hdf5_version.startswith("1.14"), h5py.version.hdf5_version
so = glob.glob(os.path.join(os.path.dirname(h5py.__file__), "defs*.so"))[0]
assert os.path.join(sys.argv[1], "libhdf5.so") in subprocess.run(["ldd", so], capture_output=True, text=True).stdout
EOF

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Sidecars written under test go to this temporary cache, never into site-packages or the data.
export XDG_CACHE_HOME="$tmp/cache"
mkdir -m 700 "$XDG_CACHE_HOME"
# As in an activated venv: suites start the packages' own commands (karabo-bridge-serve-files, ...).
export PATH="$VENV/bin:$PATH"
export PYTHONDONTWRITEBYTECODE=1 MPLBACKEND=Agg PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
mkdir "$tmp/work"
# Temporary files the suites leave behind (PyTables' tests leave some after failures and
# cancellations) stay in this run's folder, not in the machine's /tmp.
export TMPDIR="$tmp/tmpdir"; mkdir "$TMPDIR"

# Where each suite's tests live: in the installed package, or in its sdist (copied here, with the
# package's own source removed so that the installed, compiled package is the one tested).
cwd="$tmp/work"; per_test=600; suite_limit=1500
runner=()   # empty: pytest
copy_sdist() {
  local d="$CSRC/$1"
  [ -d "$d" ] || fail "no $d (run scripts/setup-clients)"
  cp -a "$d" "$tmp/src"; cwd="$tmp/src"
  [ -z "${2:-}" ] || rm -rf "${tmp:?}/src/$2"
}
case $pkg in
  # netCDF4's wheel brings its own HDF5 (2.2): in one process with our h5py's 1.14.5, h5turbo
  # loaded by that second HDF5 binds to the first (issue #15). h5netcdf-netcdf4 runs with it.
  h5netcdf)       args=("$SITE/h5netcdf/tests"); export TB_BLOCK_MODULES=netCDF4 ;;
  h5netcdf-netcdf4) args=("$SITE/h5netcdf/tests") ;;
  scippnexus)     copy_sdist scippnexus-26.1.1; args=(tests) ;;
  nexusformat)    copy_sdist nexusformat-2.1.0; args=(tests) ;;
  extra-data)     args=("$SITE/extra_data/tests") ;;
  pyh5md)         copy_sdist pyh5md-1.2.0 pyh5md; args=(tests) ;;
  # Its hypothesis tests ask for 10,000 examples each (over an hour a run on 2 cores): capped at
  # 100, the same derandomized examples in both runs; and one test, which resizes 7,000 datasets
  # for 6 minutes a run (one of those it marks slow itself), is left out.
  versioned-hdf5) copy_sdist versioned_hdf5-2.6.0 versioned_hdf5
                  args=(--deselect tests/test_api.py::test_resize_multiple_dimensions tests)
                  export TB_HYPOTHESIS_MAX_EXAMPLES=100 ;;
  silx)           args=(--rootdir "$SITE/silx" "$SITE/silx/io") ;;
  mdanalysis)     args=(--rootdir "$SITE/MDAnalysisTests" "$SITE/MDAnalysisTests/coordinates/test_h5md.py") ;;
  # NWB (Neurodata Without Borders): hdmf is its HDF5 layer, pynwb its API. hdmf's whole suite;
  # pynwb's but for tests/integration (NWB types written and read back: 2.8 min a run, as much as
  # everything else of both suites together) and tests/read_dandi (needs the network). Its
  # back_compat tests read the NWB files of every earlier version kept in its sdist.
  hdmf)           copy_sdist hdmf-6.2.0 src; args=(tests) ;;
  pynwb)          copy_sdist pynwb-4.2.0 src; args=(tests/unit tests/back_compat tests/validation) ;;
  # PyTables (the wheel, HDF5 1.14.6 of its own; no h5py): its whole suite, run by its own suite
  # builder (tables_suite.py), as tables.test() runs it.
  # Its tests allocate and free large buffers over and over; glibc hands each back to the kernel
  # (unmapped or trimmed) and touching the next one page-faults: half of a run here (290 of 600 s
  # in the kernel, 143 million faults; 325 s with this). So for both runs allocations stay on the
  # heap and freed memory is kept.
  tables)         runner=("$py" "$here/tables_suite.py"); args=(--all)
                  export GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736 ;;
  *) fail "unknown client package $pkg" ;;
esac

# --inject-h5turbo-failure (a check of this script, for sdist-based suites): one test added that
# passes natively and fails under h5turbo, which the comparison must report by its id.
if [ $inject = 1 ]; then
  [ "$cwd" = "$tmp/src" ] || fail "--inject-h5turbo-failure needs a suite copied from its sdist"
  cat > "$tmp/src/tests/test_tb_injected.py" <<'PY'
import os
def test_fails_only_under_h5turbo():
    assert not os.environ.get("HDF5_VOL_CONNECTOR", "").startswith("h5turbo")
PY
fi

# One pytest run: MODE is stock or turbo, OUT its outcome file, then extra arguments (test ids).
# The full run under h5turbo must show it active; a rerun of a few ids may not open any HDF5 object
# (then no stats line), and runs in the environment the full run proved.
pytest_run() {
  local mode=$1 out=$2; shift 2
  local rc=0 stats="$tmp/stats.txt"
  case $out in *_rerun.tsv) stats="$tmp/stats_rerun.txt" ;; esac
  local cmd=("${runner[@]}")
  [ ${#cmd[@]} -gt 0 ] || cmd=("$VENV/bin/pytest" -p tb_outcomes -p tb_block -p tb_hypothesis -p no:cacheprovider
                               -q -rfE --durations=15 --timeout="$per_test")
  (cd "$cwd" && TB_OUTCOMES="$out" TB_STATS_LOG="$stats" $mode timeout -k 30 "$suite_limit" "${cmd[@]}" "$@") \
      > "$out.log" 2>&1 || rc=$?
  if [ $rc -eq 97 ]; then
    case $out in
      *_rerun.tsv) echo "note: the h5turbo rerun opened no HDF5 object (no stats line)" ;;
      *) tail -20 "$out.log"; fail "h5turbo was not active under $pkg's suite" ;;
    esac
  fi
  if [ $rc -eq 124 ]; then
    echo "note: the $mode run of $pkg passed its ${suite_limit}s limit and was stopped"
    timed_out="$timed_out $mode"
  fi
  return 0
}

marker="$tmp/started"; touch "$marker"
timed_out=""
t0=$(date +%s)
pytest_run stock "$tmp/native.tsv" "${args[@]}"
t1=$(date +%s)
pytest_run turbo "$tmp/turbo.tsv" "${args[@]}"
t2=$(date +%s)
# (A run stopped at the limit never printed its stats line: say that, not "not active".)
[ -z "$timed_out" ] || fail "$pkg: the suite did not finish within ${suite_limit}s (runs stopped:$timed_out)"
grep -q 'wrappers malloc=[1-9]' "$tmp/stats.txt" 2>/dev/null || fail "h5turbo was not active under $pkg's suite"
echo "$pkg: native run $((t1 - t0)) s, h5turbo run $((t2 - t1)) s"
echo "native:  $(tail -1 "$tmp/native.tsv.log")"
echo "h5turbo: $(tail -1 "$tmp/turbo.tsv.log")"
echo "h5turbo (main process): $(grep 'wrappers malloc' "$tmp/stats.txt" | tail -1)"

# Tests that did not pass in one of the runs, run again by id, once natively and once under h5turbo:
# a native failure that passes now was flaky; an h5turbo failure that passes now is reported as flaky.
mapfile -t rerun < <("$py" "$here/compare.py" rerun "$tmp/native.tsv" "$tmp/turbo.tsv")
final_args=()
if [ ${#rerun[@]} -gt 0 ]; then
  echo "rerunning ${#rerun[@]} test ids that did not pass in one run:"; printf '  %s\n' "${rerun[@]}"
  pytest_run stock "$tmp/native_rerun.tsv" "${args[@]:0:${#args[@]}-1}" "${rerun[@]}"
  pytest_run turbo "$tmp/turbo_rerun.tsv" "${args[@]:0:${#args[@]}-1}" "${rerun[@]}"
  final_args=(--native-rerun "$tmp/native_rerun.tsv" --turbo-rerun "$tmp/turbo_rerun.tsv")
fi
t3=$(date +%s)
[ ${#rerun[@]} -eq 0 ] || echo "reruns took $((t3 - t2)) s"

# Keep the record (reruns included) in the build tree.
record="$TB_BUILD/clients-results"; mkdir -p "$record"
rc=0
rname=$pkg; [ $inject = 0 ] || rname=$pkg-injected # (the check of this script keeps its own record)
"$py" "$here/compare.py" final "$tmp/native.tsv" "$tmp/turbo.tsv" "${final_args[@]}" --report "$record/$rname.txt" || rc=$?
for f in "$tmp"/*.tsv "$tmp"/*.tsv.log; do cp "$f" "$record/$rname.$(basename "$f")"; done

# Sidecars go to the temporary cache only: none beside the packages, their data or the sources.
stray=$(find "$VENV" "$CSRC" "$tmp" -path "$XDG_CACHE_HOME" -prune -o -name '*.h5turbo-index*' -print 2>/dev/null | head -5)
[ -z "$stray" ] || fail "sidecars written outside the temporary cache:"$'\n'"$stray"
echo "sidecars in the temporary cache: $(find "$XDG_CACHE_HOME" -name '*.h5turbo-index' | wc -l) files, $(find "$XDG_CACHE_HOME" -name 'h5turbo-pack-*' | wc -l) packs"
written=$(find "$VENV" -newer "$marker" -type f 2>/dev/null | head -5)
[ -z "$written" ] || echo "note: files written into $VENV during the runs:"$'\n'"$written"

[ $rc -eq 0 ] || fail "$pkg: tests failing only under h5turbo (see above)"
echo "ok: $pkg: no test fails only under h5turbo"
