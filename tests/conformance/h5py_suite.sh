#!/usr/bin/env bash
# h5py_suite.sh [PY] — h5py's own test suite (by default h5py built from source against our HDF5,
# in .venv; PY: another venv's python, such as one with a PyPI wheel bundling its own HDF5),
# under native and under h5turbo in the same run: h5turbo must have no failure native does not
# have, and must leave no wrapper of ours alive at exit (no leaked IDs).
source "$(dirname "$0")/../integration/lib.sh"
py=${1:-$TB_SRC/.venv/bin/python}
[ -x "$py" ] || fail "no $py (run scripts/setup)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
pytest=("$py" -m pytest --pyargs h5py -q -p no:cacheprovider -rfE -W ignore)
stock "${pytest[@]}" > native.txt 2>&1 || true
rc=0
TB_STATS_LOG="$tmp/stats.txt" turbo "${pytest[@]}" > turbo.txt 2> turbo_err.txt || rc=$?
[ $rc -ne 97 ] || fail "h5turbo was not active under pytest"
grep -q 'wrappers malloc=[1-9]' stats.txt || fail "h5turbo was not active under pytest"
tail -1 native.txt; tail -1 turbo.txt; cat stats.txt
grep -E '^(FAILED|ERROR) ' native.txt | sed 's/ - .*//' | sort -u > nf.txt || true
grep -E '^(FAILED|ERROR) ' turbo.txt | sed 's/ - .*//' | sort -u > tf.txt || true
extra=$(comm -13 nf.txt tf.txt)
[ -z "$extra" ] || fail "h5py tests failing only under h5turbo:"$'\n'"$extra"
passed() { grep -oE '[0-9]+ passed' "$1" | tail -1 | cut -d' ' -f1; }
np=$(passed native.txt); tp=$(passed turbo.txt)
[ -n "$np" ] && [ -n "$tp" ] || fail "no pytest summary"
[ "$tp" -ge "$np" ] || fail "h5turbo passed $tp h5py tests, native $np"
# Every process's line (pytest's and its subprocesses') must show no wrapper of ours left alive.
grep -q 'wrappers malloc=[0-9]* reused=[0-9]* live=0; wrap-ctx malloc=[0-9]* reused=[0-9]* live=0; contexts live=0' stats.txt \
  && ! grep -q -E 'live=[1-9]' stats.txt || fail "h5turbo objects still alive at exit (leaked IDs): $(cat stats.txt)"
echo "ok: h5py suite ($("$py" -c 'import h5py; print("h5py", h5py.__version__, "HDF5", h5py.version.hdf5_version)')): h5turbo passed $tp, native $np; no failure only under h5turbo; nothing leaked"
