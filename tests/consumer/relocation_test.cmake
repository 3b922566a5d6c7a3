# InstalledPackage.Relocatable (tests/consumer/CMakeLists.txt): installs the build tree
# into a scratch prefix, moves the prefix to another directory, checks that no installed
# file names the source, build or first install directory and that the CMake package
# names no absolute path at all, then builds and runs examples/consumer against the
# moved tree with find_package(cunum) and with pkg-config.
include(${CMAKE_CURRENT_LIST_DIR}/consumer_steps.cmake)
file(REMOVE_RECURSE ${SCRATCH_DIR})

set(installed ${SCRATCH_DIR}/installed)
set(moved ${SCRATCH_DIR}/elsewhere/cunum)
run_step(${CMAKE_COMMAND} --install ${CUNUM_BINARY_DIR} --prefix ${installed})
file(MAKE_DIRECTORY ${SCRATCH_DIR}/elsewhere)
file(RENAME ${installed} ${moved})

expect_no_build_paths(${moved} ${installed})
expect_relative_cmake_package(${moved}/${INSTALL_LIBDIR}/cmake/cunum)
build_consumer_with_cmake(${moved} ${SCRATCH_DIR}/consumer-cmake)
build_consumer_with_pkg_config(${moved}/${INSTALL_LIBDIR}/pkgconfig ${SCRATCH_DIR}/consumer-pkg-config)
