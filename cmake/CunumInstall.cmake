include(CMakePackageConfigHelpers)

install(TARGETS cunum EXPORT cunumTargets
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
