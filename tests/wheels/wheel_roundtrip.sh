#!/usr/bin/env bash
# wheel_roundtrip.sh PY HDF5_VERSION_PREFIX — an h5py from a PyPI wheel (its own libhdf5 in
# h5py.libs, none of ours) writes and reads files with h5turbo active through the two environment
# variables, and without it; every dump must be the same, h5turbo proven active (connector,
# pipeline and index counters), and the Blosc filter proven to be ours (hdf5plugin not imported).
source "$(dirname "$0")/../integration/lib.sh"
py=${1:?python of the wheel venv}; want=${2:?HDF5 version prefix}
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$py" ] || fail "no $py (run scripts/setup)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export XDG_CACHE_HOME="$tmp/cache"  # sidecars of this test stay in it
rt() { "$py" "$here/wheel_roundtrip.py" "$@"; }

info=$("$py" -c 'import h5py, os; print(h5py.version.hdf5_version, os.path.isdir(os.path.join(os.path.dirname(h5py.__file__), "..", "h5py.libs")))')
case "$info" in "$want"*" True") ;; *) fail "$py: want an h5py wheel bundling HDF5 $want*, got: $info" ;; esac
echo "h5py wheel with its own HDF5 $info"

echo "== stock (hdf5plugin's Blosc) writes and dumps"
stock "$py" "$here/wheel_roundtrip.py" write stock.h5 --hdf5plugin || fail "stock write"
stock "$py" "$here/wheel_roundtrip.py" dump stock.h5 --hdf5plugin > stock.txt || fail "stock dump"
[ "$(wc -l < stock.txt)" -gt 40 ] || fail "stock dump too short: $(cat stock.txt)"

export TB_STATS_LOG="$tmp/stats.txt"
echo "== h5turbo (our Blosc from HDF5_PLUGIN_PATH) writes; both sides read both files"
turbo "$py" "$here/wheel_roundtrip.py" write turbo.h5 2> err.txt || { cat err.txt; fail "write under h5turbo"; }
grep -q 'pipeline writes=[1-9]' stats.txt || fail "the pipeline wrote nothing: $(cat stats.txt)"
turbo "$py" "$here/wheel_roundtrip.py" dump turbo.h5 > turbo_turbo.txt 2>> err.txt || fail "h5turbo reading its file"
turbo "$py" "$here/wheel_roundtrip.py" dump stock.h5 > turbo_stock.txt 2>> err.txt || fail "h5turbo reading stock's file"
stock "$py" "$here/wheel_roundtrip.py" dump turbo.h5 --hdf5plugin > stock_turbo.txt || fail "stock reading h5turbo's file"
for f in turbo_turbo turbo_stock stock_turbo; do
  diff -u stock.txt $f.txt || fail "$f differs from stock's dump"
done
grep -q 'pipeline writes=0 reads=[1-9]' stats.txt || fail "the pipeline read nothing: $(cat stats.txt)"
grep -q 'index answered=[1-9]' stats.txt || fail "the index answered nothing: $(cat stats.txt)"
! grep -q 'does not load' err.txt || fail "a plugin refused to load: $(cat err.txt)"

echo "== hdf5plugin imported in a process under h5turbo (its filter 32001 registered over ours): same files"
turbo "$py" "$here/wheel_roundtrip.py" write mixed.h5 --hdf5plugin 2>> err.txt || { cat err.txt; fail "write under h5turbo with hdf5plugin"; }
turbo "$py" "$here/wheel_roundtrip.py" dump mixed.h5 --hdf5plugin > mixed_mixed.txt 2>> err.txt || fail "reading it back so"
turbo "$py" "$here/wheel_roundtrip.py" dump stock.h5 --hdf5plugin > mixed_stock.txt 2>> err.txt || fail "reading stock's file so"
turbo "$py" "$here/wheel_roundtrip.py" dump mixed.h5 > turbo_mixed.txt 2>> err.txt || fail "our Blosc reading the mixed file"
stock "$py" "$here/wheel_roundtrip.py" dump mixed.h5 --hdf5plugin > stock_mixed.txt || fail "hdf5plugin alone reading the mixed file"
for f in mixed_mixed mixed_stock turbo_mixed stock_mixed; do
  diff -u stock.txt $f.txt || fail "$f differs from stock's dump"
done

echo "== filter 32001 came from our plugin: available with it, missing without"
[ "$(HDF5_PLUGIN_PATH="$TB_PLUGIN_DIR" "$py" "$here/wheel_roundtrip.py" blosc-avail)" = "blosc available" ] \
  || fail "our Blosc plugin is not available to the wheel's HDF5"
[ "$(stock "$py" "$here/wheel_roundtrip.py" blosc-avail)" = "blosc missing" ] \
  || fail "filter 32001 available without any plugin: the check above proves nothing"
cat stats.txt
echo "ok: h5py wheel (HDF5 ${info% *}): h5turbo's files and reads identical to stock's, connector, pipeline, index and Blosc active"
