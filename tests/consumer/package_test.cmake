# InstalledPackage.DebianPackage (tests/consumer/CMakeLists.txt): CPack writes the .deb
# and the .tar.gz from the build tree, as `cmake --build build --target package` does;
# the .deb is unpacked into a clean root with dpkg -x, examples/consumer is built and
# run against that root (CMAKE_PREFIX_PATH, and PKG_CONFIG_PATH: the .pc files find
# their prefix from their own location), and cunum-himeno --help runs from it. The
# .tar.gz must hold the same files under its top directory. Extra variables: CPACK,
# WITH_PROGRAMS (1 when the programs are built).
include(${CMAKE_CURRENT_LIST_DIR}/consumer_steps.cmake)
file(REMOVE_RECURSE ${SCRATCH_DIR})
# The MPI components' consumers are InstalledPackage.Relocatable's: the packages hold
# the same install tree.
set(WITH_HIMENO_MPI 0)

find_program(DPKG dpkg)
if(NOT DPKG)
  message("SKIPPED: dpkg not found: the Debian package is not built or checked on this machine")
  return()
endif()

set(packages ${SCRATCH_DIR}/packages)
run_step(${CPACK} --config ${CUNUM_BINARY_DIR}/CPackConfig.cmake -B ${packages})
file(GLOB deb ${packages}/*.deb)
file(GLOB tarball ${packages}/*.tar.gz)
list(LENGTH deb debs)
list(LENGTH tarball tarballs)
if(NOT debs EQUAL 1 OR NOT tarballs EQUAL 1)
  message(FATAL_ERROR "CPack wrote ${debs} .deb and ${tarballs} .tar.gz files, not one of each, in ${packages}")
endif()
execute_process(COMMAND ${DPKG} --info ${deb} COMMAND_ERROR_IS_FATAL ANY)

set(root ${SCRATCH_DIR}/root)
run_step(${DPKG} -x ${deb} ${root})
expect_no_build_paths(${root})
expect_relative_cmake_package(${root}/usr/${INSTALL_LIBDIR}/cmake/cunum)
build_consumer_with_cmake(${root}/usr ${SCRATCH_DIR}/consumer-cmake)
build_consumer_with_pkg_config(${root}/usr/${INSTALL_LIBDIR}/pkgconfig ${SCRATCH_DIR}/consumer-pkg-config)
if(WITH_PROGRAMS)
  run_and_expect("Usage: cunum-himeno" ${root}/usr/bin/cunum-himeno --help)
endif()

# The .tar.gz: the same files as the .deb (under /usr), under one top directory.
execute_process(COMMAND ${DPKG} --contents ${deb} OUTPUT_VARIABLE deb_list COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND tar -tzf ${tarball} OUTPUT_VARIABLE tar_list COMMAND_ERROR_IS_FATAL ANY)
string(REGEX MATCHALL " \\./usr/[^\n]*[^/\n]\n" deb_files "${deb_list}")
list(TRANSFORM deb_files REPLACE "^ \\./usr/([^\n]*)\n$" "\\1")
string(REGEX MATCHALL "[^\n]*[^/\n]\n" tar_files "${tar_list}")
list(TRANSFORM tar_files REPLACE "^[^/]+/([^\n]*)\n$" "\\1")
list(SORT deb_files)
list(SORT tar_files)
if(NOT deb_files STREQUAL tar_files)
  message(FATAL_ERROR "the .deb and the .tar.gz hold different files:\n${deb_files}\n${tar_files}")
endif()
list(LENGTH deb_files file_count)
message("the .deb and the .tar.gz hold the same ${file_count} files: ${deb_files}")
