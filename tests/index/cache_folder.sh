#!/usr/bin/env bash
# cache_folder.sh — the sidecar cache folder h5turbo keeps open between files of one process
# follows the folder it stands for: removed (recreated, the next sidecar lands there), another
# XDG_CACHE_HOME (the new one is used), made writable by others (no longer used: the next sidecar
# goes to ~/.cache). One h5py process, cache_folder.py.
source "$(dirname "$0")/../integration/lib.sh"
venv_python
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/home"
for i in 0 1 2 3; do
  stock "$py" -c "import h5py, sys; f = h5py.File(sys.argv[1], 'w'); f.create_group('g/h').attrs['a'] = $i; f.close()" "$tmp/f$i.h5" \
    || fail "make f$i.h5"
done
settle # old enough to be persisted
H5TURBO_INDEX=persistent turbo "$py" "$TB_SRC/tests/index/cache_folder.py" "$tmp" > "$tmp/out.txt" 2> "$tmp/err.txt" \
  || { cat "$tmp/err.txt" >&2; fail "cache_folder.py"; }
cat "$tmp/out.txt"
cat > "$tmp/want.txt" <<'WANT'
first file: 1
folder removed, second file: 1
XDG_CACHE_HOME changed, third file: 1 1
folder group-writable, fourth file: 1 1
WANT
diff -u "$tmp/want.txt" "$tmp/out.txt" || fail "sidecars are not where the cache folder is"
echo "ok: the kept cache folder follows removal, XDG_CACHE_HOME and permission changes"
