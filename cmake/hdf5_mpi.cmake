# cmake/hdf5_mpi.cmake — finds the parallel HDF5 that the `mpi` tests and bench/mpi run against
# (scripts/setup-mpi builds one into the dependency cache) and MPI's C compiler; defines the
# imported target tb_hdf5_mpi (parallel libhdf5 + MPI) for our MPI test programs. The plugins never
# link it: they bind to whichever HDF5 loads them. Sets H5TURBO_HAVE_HDF5_MPI.
set(H5TURBO_HDF5_MPI_DIR "${_deps}/hdf5-1.14.5-mpi" CACHE PATH
    "Parallel HDF5 (with its tests in testpar/) for the mpi tests; empty or missing: no mpi tests")
set(H5TURBO_HAVE_HDF5_MPI OFF)
set(_why "")
if(NOT H5TURBO_HDF5_MPI_DIR OR NOT EXISTS "${H5TURBO_HDF5_MPI_DIR}/include/H5pubconf.h")
  set(_why "no parallel HDF5 in H5TURBO_HDF5_MPI_DIR='${H5TURBO_HDF5_MPI_DIR}' (scripts/setup-mpi builds one)")
else()
  file(STRINGS "${H5TURBO_HDF5_MPI_DIR}/include/H5pubconf.h" _par REGEX "^#define H5_HAVE_PARALLEL 1")
  find_package(MPI COMPONENTS C)
  if(NOT _par)
    set(_why "${H5TURBO_HDF5_MPI_DIR} is not a parallel HDF5")
  elseif(NOT MPI_C_FOUND)
    set(_why "no MPI C compiler found (Debian: libopenmpi-dev openmpi-bin)")
  endif()
endif()
if(_why)
  message(STATUS "mpi tests and bench/mpi left out: ${_why}")
  return()
endif()
message(STATUS "mpi tests and bench/mpi: parallel HDF5 ${H5TURBO_HDF5_MPI_DIR}, ${MPIEXEC_EXECUTABLE}")
set(H5TURBO_HAVE_HDF5_MPI ON)
add_library(tb_hdf5_mpi SHARED IMPORTED GLOBAL)
set_target_properties(tb_hdf5_mpi PROPERTIES
  IMPORTED_LOCATION "${H5TURBO_HDF5_MPI_DIR}/lib/libhdf5.so"
  INTERFACE_INCLUDE_DIRECTORIES "${H5TURBO_HDF5_MPI_DIR}/include"
  INTERFACE_LINK_LIBRARIES MPI::MPI_C)
