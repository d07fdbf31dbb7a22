#!/usr/bin/env bash
# install_consumer.sh — `cmake --install` gives what a program selecting h5turbo through property
# lists needs: h5turbo.h, find_package(h5turbo) and h5turbo.pc. A consumer (examples/select_by_plist.c)
# is built both ways against the installed prefix and run with the plugin folder each one names.
# Usage: install_consumer.sh CMAKE CC
source "$(dirname "$0")/lib.sh"
cmake_bin=$1 cc=$2
hdf5_prefix=$(cd "$TB_HDF5_BIN/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
"$cmake_bin" --install "$TB_BUILD" --prefix "$prefix" > "$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install failed"; }
for f in include/h5turbo.h lib/cmake/h5turbo/h5turboConfig.cmake lib/pkgconfig/h5turbo.pc lib/plugin/libh5turbo_vol.so \
         lib/plugin/libh5turbo_blosc.so lib/plugin/hdf5-1/libh5turbo_vol.so bin/h5turbo; do
  [ -e "$prefix/$f" ] || fail "not installed: $f"
done

# 1. find_package(h5turbo): the interface target's include dir, the plugin dir as a property.
mkdir "$tmp/src"
cp "$TB_SRC/examples/select_by_plist.c" "$tmp/src/"
cat > "$tmp/src/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(consumer C)
find_package(hdf5 CONFIG REQUIRED)
find_package(h5turbo 0.1 REQUIRED)
add_executable(consumer select_by_plist.c)
target_link_libraries(consumer PRIVATE h5turbo::h5turbo hdf5-shared)
get_target_property(plugin_dir h5turbo::h5turbo H5TURBO_PLUGIN_DIR)
if(NOT plugin_dir STREQUAL h5turbo_PLUGIN_DIR)
  message(FATAL_ERROR "H5TURBO_PLUGIN_DIR property '${plugin_dir}' != h5turbo_PLUGIN_DIR '${h5turbo_PLUGIN_DIR}'")
endif()
file(WRITE "${CMAKE_BINARY_DIR}/plugin_dir.txt" "${plugin_dir}")
CM
"$cmake_bin" -S "$tmp/src" -B "$tmp/cm" -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$prefix;$hdf5_prefix" \
  > "$tmp/cm.log" 2>&1 && "$cmake_bin" --build "$tmp/cm" >> "$tmp/cm.log" 2>&1 || { cat "$tmp/cm.log"; fail "find_package consumer did not build"; }
cm_plugins=$(cat "$tmp/cm/plugin_dir.txt")
[ "$(realpath "$cm_plugins")" = "$(realpath "$prefix/lib/plugin")" ] || fail "find_package gives plugin dir $cm_plugins"

# 2. pkg-config: cflags for h5turbo.h, the plugindir variable.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
pc_plugins=$(pkg-config --variable=plugindir h5turbo)
[ "$(realpath "$pc_plugins")" = "$(realpath "$prefix/lib/plugin")" ] || fail "h5turbo.pc gives plugindir $pc_plugins"
"$cc" -o "$tmp/pc_consumer" "$tmp/src/select_by_plist.c" $(pkg-config --cflags h5turbo) -I"$hdf5_prefix/include" \
  -L"$hdf5_prefix/lib" -Wl,-rpath,"$hdf5_prefix/lib" -lhdf5 || fail "pkg-config consumer did not build"

# Both run against the installed plugins (and nothing of the build tree): connector active, data back.
for exe in "$tmp/cm/consumer:$cm_plugins" "$tmp/pc_consumer:$pc_plugins"; do
  bin=${exe%%:*} dir=${exe#*:}
  out=$(env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH H5TURBO_STATS=1 "$bin" "$tmp/c.h5" "$dir" 2>"$tmp/err") \
    || { cat "$tmp/err"; fail "$bin failed"; }
  echo "$bin: $out"
  grep -q "read back identical" <<< "$out" || fail "$bin did not read back its data"
  grep -q '^h5turbo stats: wrappers malloc=[1-9]' "$tmp/err" || fail "$bin did not go through h5turbo"
  grep -q "0, 1, 2, 3" <<< "$(env -u HDF5_VOL_CONNECTOR HDF5_PLUGIN_PATH="$dir" h5dump -d /frames -s 0,0 -c 1,4 "$tmp/c.h5")" \
    || fail "$bin's Blosc file does not read back with h5dump and the installed filter"
done
# The installed command finds the installed plugins by itself.
env -u H5TURBO_PLUGIN_DIR -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH "$prefix/bin/h5turbo" info > "$tmp/info" \
  || { cat "$tmp/info"; fail "installed h5turbo info failed"; }
grep -q "plugin folder: $(realpath "$prefix/lib/plugin")" "$tmp/info" || { cat "$tmp/info"; fail "installed h5turbo info uses another plugin folder"; }
echo "ok: installed header, CMake package and pkg-config file build consumers that run with the installed plugins"
