include(CMakePackageConfigHelpers)

# cunum::himeno_mpi and cunum::monte_carlo_mpi, where MPI was found, install beside
# cunum (cunumConfig finds MPI).
set(CUNUM_WITH_HIMENO_MPI OFF)
set(_cunum_install_targets cunum)
if(TARGET cunum_himeno_mpi)
  set(CUNUM_WITH_HIMENO_MPI ON)
  set_target_properties(cunum_himeno_mpi PROPERTIES EXPORT_NAME himeno_mpi POSITION_INDEPENDENT_CODE ON)
  list(APPEND _cunum_install_targets cunum_himeno_mpi)
endif()
if(TARGET cunum_monte_carlo_mpi)
  set_target_properties(cunum_monte_carlo_mpi PROPERTIES EXPORT_NAME monte_carlo_mpi POSITION_INDEPENDENT_CODE ON)
  list(APPEND _cunum_install_targets cunum_monte_carlo_mpi)
endif()
install(TARGETS ${_cunum_install_targets} EXPORT cunumTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/cunum DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT cunumTargets NAMESPACE cunum:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cunum)
export(EXPORT cunumTargets NAMESPACE cunum:: FILE ${CMAKE_CURRENT_BINARY_DIR}/cunumTargets.cmake)

configure_package_config_file(cmake/cunumConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/cunumConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cunum)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/cunumConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/cunumConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/cunumConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cunum)
install(FILES ${PROJECT_BINARY_DIR}/include/cunum/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cunum)

# pkg-config file for builds without CMake. Its prefix is found relative to the .pc
# file itself, so it stays right under `cmake --install --prefix <anywhere>`.
file(RELATIVE_PATH CUNUM_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" CUNUM_PC_TO_PREFIX "${CUNUM_PC_TO_PREFIX}")
configure_file(cmake/cunum.pc.in ${CMAKE_CURRENT_BINARY_DIR}/cunum.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/cunum.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
