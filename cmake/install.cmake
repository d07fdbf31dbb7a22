# cmake/install.cmake — what `cmake --install` puts beside the plugins for programs that select
# h5turbo through property lists: include/h5turbo.h, a CMake package config (find_package(h5turbo))
# and a pkg-config file (h5turbo.pc, with a plugindir variable).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(FILES "${PROJECT_SOURCE_DIR}/include/h5turbo.h" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(_cfgdir "${CMAKE_INSTALL_LIBDIR}/cmake/h5turbo")
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/h5turboConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/h5turboConfig.cmake" INSTALL_DESTINATION "${_cfgdir}"
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR H5TURBO_INSTALL_PLUGINDIR)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/h5turboConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES "${PROJECT_BINARY_DIR}/h5turboConfig.cmake" "${PROJECT_BINARY_DIR}/h5turboConfigVersion.cmake"
  DESTINATION "${_cfgdir}")
# The prefix is resolved at install time, so `cmake --install build --prefix DIR` gets a .pc
# naming DIR (configure_file at configure time would only know CMAKE_INSTALL_PREFIX).
install(CODE "
  set(CMAKE_INSTALL_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  set(CMAKE_INSTALL_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  set(H5TURBO_INSTALL_PLUGINDIR \"${H5TURBO_INSTALL_PLUGINDIR}\")
  set(PROJECT_VERSION \"${PROJECT_VERSION}\")
  configure_file(\"${PROJECT_SOURCE_DIR}/cmake/h5turbo.pc.in\" \"${PROJECT_BINARY_DIR}/h5turbo.pc.install\" @ONLY)
  file(INSTALL \"${PROJECT_BINARY_DIR}/h5turbo.pc.install\" DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\"
       RENAME h5turbo.pc)
")
