#!/usr/bin/env bash
# table_check.sh CC INCLUDE_DIR VARS_H BIND_OBJECTS... — the build check of common/bind: a plugin
# module linked as ours are (the binder's objects, no libhdf5, --no-undefined) links when it calls
# functions and reads globals of hdf5_symbols.txt, and fails to link, naming the symbol, when it
# calls a function the table lacks.
set -euo pipefail
cc=$1; inc=$2; vars=$3; shift 3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
try() { # NAME BODY OBJECTS... -> links?
  local name=$1 body=$2; shift 2
  printf '#include <hdf5.h>\nint tb_probe_%s(void);\nint tb_probe_%s(void) { %s }\n' "$name" "$name" "$body" > "$tmp/$name.c"
  "$cc" -fPIC -fvisibility=hidden -include "$vars" -I"$inc" -c "$tmp/$name.c" -o "$tmp/$name.o"
  "$cc" -shared -Wl,--no-undefined -o "$tmp/$name.so" "$tmp/$name.o" "$@" -ldl -lpthread > "$tmp/$name.log" 2>&1
}
body_in='return (int)H5Pclose(H5Pcopy(H5P_FILE_ACCESS_DEFAULT)) + (int)H5Tget_size(H5T_NATIVE_INT32);'
try in_table "$body_in" "$@" || { cat "$tmp/in_table.log"; fail "a module using only tabled symbols did not link"; }
echo "ok: a module using H5Pclose, H5Pcopy, H5Tget_size, H5P_FILE_ACCESS_DEFAULT, H5T_NATIVE_INT32 links"
if try missing 'return (int)H5Fis_accessible("x", H5P_DEFAULT);' "$@"; then
  fail "a module calling H5Fis_accessible (not in hdf5_symbols.txt) linked"
fi
grep -q "undefined reference to .H5Fis_accessible" "$tmp/missing.log" || fail "the link failed otherwise: $(cat "$tmp/missing.log")"
echo "ok: calling H5Fis_accessible, missing from the table, fails the link: $(grep -m1 undefined "$tmp/missing.log")"
