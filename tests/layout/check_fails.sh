#!/usr/bin/env bash
# check_fails.sh — the layout check can fail: on a copy of the sources with one forbidden edge
# added at a time (the pipeline including the index, the model including HDF5, a callback that
# skips the hooks, the command linking the callbacks), check_layout.py must report exactly it.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
try() { # LABEL EXPECTED-MESSAGE FILE LINE...
  local label=$1 want=$2 file=$3; shift 3
  rm -rf "$tmp/s"; mkdir "$tmp/s"
  cp -r "$src/common" "$src/filter" "$src/vol" "$src/cli" "$tmp/s/"
  printf '%s\n' "$@" >> "$tmp/s/$file"
  if out=$(python3 "$src/tests/layout/check_layout.py" "$tmp/s" 2>&1); then fail "$label: the check passed"; fi
  grep -q -- "$want" <<< "$out" || fail "$label: the check said: $out"
  echo "ok: $label: $(grep -m1 -- "$want" <<< "$out")"
}
try "pipeline includes the index" "vol/pipeline/pipeline.c: includes index.h of vol/index" \
  vol/pipeline/pipeline.c '#include "index.h"'
try "model includes HDF5" "vol/index/model/index_table.c: includes HDF5 (hdf5.h)" \
  vol/index/model/index_table.c '#include <hdf5.h>'
try "callback skips the hooks" "skipped_hooks() calls the connector below without tb_enter" \
  vol/callbacks/group.c 'static herr_t skipped_hooks(void *obj, hid_t dxpl_id)' '{' \
  '    tb_obj_t *o = obj;' '    return H5VLgroup_optional(o->under, o->under_vol_id, NULL, dxpl_id, NULL);' '}'
try "command links the callbacks" "cli/CMakeLists.txt: links h5turbo_callbacks" \
  cli/CMakeLists.txt 'target_link_libraries(h5turbo PRIVATE h5turbo_callbacks)'
try "callbacks include the index's private header" "private to vol/index" \
  vol/callbacks/attr.c '#include "index_ctx.h"'
