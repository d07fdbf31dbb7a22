#!/usr/bin/env bash
# exported_symbols.sh — every plugin exports exactly the HDF5 plugin entry points, nothing else,
# and links no libhdf5 (it binds to the HDF5 that loads it: common/bind); the MPI add-on, where
# built (plugins/mpi/), exports its one entry point and links no HDF5 either.
source "$(dirname "$0")/lib.sh"
shopt -s nullglob
# The front plugins HDF5 loads from the folder, and the builds per HDF5 major version beside them.
plugins=("$TB_PLUGIN_DIR"/*.so "$TB_PLUGIN_DIR"/hdf5-*/*.so)
[ ${#plugins[@]} -ge 1 ] || fail "no plugins in $TB_PLUGIN_DIR"
for so in "${plugins[@]}"; do
  syms=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -v -E '^(_init|_fini|_edata|_end|__bss_start)$' | sort)
  want=$'H5PLget_plugin_info\nH5PLget_plugin_type'
  # A front also tells the build it loaded which library called (common/bind/tb_front.c).
  [ "$(dirname "$so")" = "$TB_PLUGIN_DIR" ] && want=$'H5PLget_plugin_info\nH5PLget_plugin_type\nh5turbo_front_caller'
  [ "$syms" = "$want" ] || fail "$so exports:"$'\n'"$syms"
  needed=$(readelf -d "$so" | grep '(NEEDED)') || fail "readelf -d $so"
  ! grep -i 'hdf5' <<< "$needed" > /dev/null || fail "$so links an HDF5 library:"$'\n'"$needed"
  undef=$(nm -D --undefined-only "$so" | awk '{print $2}' | grep -E '^H5' || true)
  [ -z "$undef" ] || fail "$so leaves HDF5 symbols to the dynamic linker:"$'\n'"$undef"
  echo "ok: ${so#$TB_PLUGIN_DIR/} exports only the plugin entry points, needs no libhdf5, imports no H5 symbol"
done
for b in hdf5-1/libh5turbo_vol.so hdf5-1/libh5turbo_blosc.so hdf5-2/libh5turbo_vol.so hdf5-2/libh5turbo_blosc.so; do
  [ -f "$TB_PLUGIN_DIR/$b" ] || fail "no $b in $TB_PLUGIN_DIR (the 2.x build needs the headers scripts/setup unpacks)"
done
for so in "$TB_PLUGIN_DIR"/mpi/*.so; do
  syms=$(nm -D --defined-only "$so" | awk '{print $3}' | grep -v -E '^(_init|_fini|_edata|_end|__bss_start)$' | sort)
  [ "$syms" = h5turbo_mpi_api ] || fail "$so exports:"$'\n'"$syms"
  needed=$(readelf -d "$so" | grep '(NEEDED)') || fail "readelf -d $so"
  ! grep -i 'hdf5' <<< "$needed" > /dev/null || fail "$so links an HDF5 library:"$'\n'"$needed"
  echo "ok: ${so#$TB_PLUGIN_DIR/} exports only h5turbo_mpi_api and needs no libhdf5"
done
