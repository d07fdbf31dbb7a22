#!/usr/bin/env bash
# exported_symbols.sh — every plugin exports exactly the HDF5 plugin entry points, nothing else.
source "$(dirname "$0")/lib.sh"
shopt -s nullglob
plugins=("$TB_PLUGIN_DIR"/*.so)
[ ${#plugins[@]} -ge 1 ] || fail "no plugins in $TB_PLUGIN_DIR"
for so in "${plugins[@]}"; do
  syms=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -v -E '^(_init|_fini|_edata|_end|__bss_start)$' | sort)
  want=$'H5PLget_plugin_info\nH5PLget_plugin_type'
  [ "$syms" = "$want" ] || fail "$so exports:"$'\n'"$syms"
  echo "ok: $(basename "$so") exports only the plugin entry points"
done
