# The install tree, relocatable: no file names a path of the build machine. Each
# dependency is looked up again where the tree is used: cunumConfig.cmake with
# find_dependency (CUDAToolkit through cmake/FindCunumCUDAToolkit.cmake, OpenMP, and
# cmake/FindCunumFFTW.cmake, which reads FFTW's pkg-config files), cunum.pc with
# Requires.private and Libs.private.
#
# Install components: development (the libraries, headers, CMake package and pkg-config
# files), programs (cunum-himeno and cunum-demo, built with the examples) and bench
# (the benches: only `cmake --install build --component bench` installs them, see
# bench/CMakeLists.txt). The optional MPI libraries are CMake components of the package,
# find_package(cunum COMPONENTS himeno_mpi), each with its own pkg-config file; a
# consumer that does not ask for one never looks for MPI.
include(CMakePackageConfigHelpers)

set(CUNUM_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/cunum)
set(CUNUM_PC_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# Each pkg-config file finds its prefix from its own location.
file(RELATIVE_PATH CUNUM_PC_TO_PREFIX "/${CUNUM_PC_INSTALL_DIR}" "/")
string(REGEX REPLACE "/$" "" CUNUM_PC_TO_PREFIX "${CUNUM_PC_TO_PREFIX}")

# The library, its headers (those of the MPI libraries only where they are built) and
# the find modules the package uses on the consumer's machine.
get_property(cunum_mpi_libraries GLOBAL PROPERTY CUNUM_MPI_LIBRARIES)
set(_cunum_header_exclusions "")
file(GLOB _cunum_mpi_headers RELATIVE ${PROJECT_SOURCE_DIR}/include/cunum ${PROJECT_SOURCE_DIR}/include/cunum/*_mpi.hpp)
foreach(_cunum_header IN LISTS _cunum_mpi_headers)
  string(REGEX REPLACE "\\.hpp$" "" _cunum_name ${_cunum_header})
  if(NOT _cunum_name IN_LIST cunum_mpi_libraries)
    list(APPEND _cunum_header_exclusions PATTERN ${_cunum_header} EXCLUDE)
  endif()
endforeach()
install(TARGETS cunum EXPORT cunumTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development)
install(DIRECTORY include/cunum DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development
        ${_cunum_header_exclusions})
install(FILES ${PROJECT_BINARY_DIR}/include/cunum/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cunum
        COMPONENT development)
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT development)
install(EXPORT cunumTargets NAMESPACE cunum:: DESTINATION ${CUNUM_CMAKE_INSTALL_DIR} COMPONENT development)
export(EXPORT cunumTargets NAMESPACE cunum:: FILE ${PROJECT_BINARY_DIR}/cunumTargets.cmake)
set(_cunum_find_modules cmake/FindCunumCUDAToolkit.cmake cmake/FindCunumFFTW.cmake cmake/FindCunumNCCL.cmake)
install(FILES ${_cunum_find_modules} DESTINATION ${CUNUM_CMAKE_INSTALL_DIR} COMPONENT development)
file(COPY ${_cunum_find_modules} DESTINATION ${PROJECT_BINARY_DIR})  # for the build tree's package

# The MPI libraries, one export set and one pkg-config file each. cunumConfig.cmake
# learns from CUNUM_CONFIG_COMPONENTS which were built and what else each needs.
set(CUNUM_CONFIG_COMPONENTS "")
foreach(_cunum_name IN LISTS cunum_mpi_libraries)
  install(TARGETS cunum_${_cunum_name} EXPORT cunum_${_cunum_name}Targets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development)
  install(EXPORT cunum_${_cunum_name}Targets NAMESPACE cunum:: DESTINATION ${CUNUM_CMAKE_INSTALL_DIR}
          COMPONENT development)
  export(EXPORT cunum_${_cunum_name}Targets NAMESPACE cunum::
         FILE ${PROJECT_BINARY_DIR}/cunum_${_cunum_name}Targets.cmake)

  get_target_property(_cunum_dependencies cunum_${_cunum_name} CUNUM_FIND_DEPENDENCIES)
  if(NOT _cunum_dependencies)
    set(_cunum_dependencies "")
  endif()
  string(APPEND CUNUM_CONFIG_COMPONENTS "set(_cunum_${_cunum_name}_dependencies \"${_cunum_dependencies}\")\n")

  # cunum-<name>.pc: MPI is Debian's default MPI module (mpi-cxx), public, as the
  # library's header includes <mpi.h>.
  string(REPLACE "_" "-" CUNUM_PC_NAME "cunum-${_cunum_name}")
  set(CUNUM_PC_LIBRARY cunum_${_cunum_name})
  set(CUNUM_PC_VARIABLES "")
  set(CUNUM_PC_LIBS_PRIVATE "")
  if("CunumNCCL" IN_LIST _cunum_dependencies)
    # NCCL has no pkg-config file: where the build found it (--define-variable=nccllibdir=<dir> names another).
    get_filename_component(_cunum_nccl_dir ${CunumNCCL_LIBRARY} DIRECTORY)
    set(CUNUM_PC_VARIABLES "nccllibdir=${_cunum_nccl_dir}\n")
    set(CUNUM_PC_LIBS_PRIVATE "-L\${nccllibdir} -lnccl")
  endif()
  configure_file(cmake/cunum-mpi-library.pc.in ${PROJECT_BINARY_DIR}/${CUNUM_PC_NAME}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${CUNUM_PC_NAME}.pc DESTINATION ${CUNUM_PC_INSTALL_DIR} COMPONENT development)
endforeach()
string(APPEND CUNUM_CONFIG_COMPONENTS "set(_cunum_built_components \"${cunum_mpi_libraries}\")")

configure_package_config_file(cmake/cunumConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cunumConfig.cmake
  INSTALL_DESTINATION ${CUNUM_CMAKE_INSTALL_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cunumConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cunumConfig.cmake ${PROJECT_BINARY_DIR}/cunumConfigVersion.cmake
        DESTINATION ${CUNUM_CMAKE_INSTALL_DIR} COMPONENT development)

# cunum.pc, for builds without CMake.
configure_file(cmake/cunum.pc.in ${PROJECT_BINARY_DIR}/cunum.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cunum.pc DESTINATION ${CUNUM_PC_INSTALL_DIR} COMPONENT development)

# The programs, where the examples are built.
foreach(_cunum_program cunum-himeno cunum-demo)
  if(TARGET ${_cunum_program})
    install(TARGETS ${_cunum_program} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT programs)
  endif()
endforeach()
