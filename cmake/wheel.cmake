# cmake/wheel.cmake — what the Python wheel adds to the plugins (scikit-build-core installs into the
# wheel's root, the plugins into h5turbo/plugins): the shared libraries Debian has no usable static
# archive of (c-blosc with its codecs, ISA-L), copied into h5turbo/plugins/libs under their sonames,
# where the plugins' RPATH ($ORIGIN/../libs) finds them. libz, libstdc++ and libc are left to the system.
set(_bundle blosc lz4 snappy zstd)
if(ISAL_FOUND)
  list(APPEND _bundle isal)
endif()
foreach(lib IN LISTS _bundle)
  find_library(TB_BUNDLE_${lib} NAMES ${lib} REQUIRED)
  get_filename_component(_real "${TB_BUNDLE_${lib}}" REALPATH)
  execute_process(COMMAND objdump -p "${_real}" OUTPUT_VARIABLE _dyn RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0 OR NOT _dyn MATCHES "SONAME +([^ \n]+)")
    message(FATAL_ERROR "cannot read the soname of ${_real}")
  endif()
  install(FILES "${_real}" DESTINATION ${H5TURBO_INSTALL_PLUGINDIR}/libs RENAME "${CMAKE_MATCH_1}")
endforeach()
