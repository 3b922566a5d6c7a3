# CLI11 (header only; Debian: libcli11-dev), the command-line parser of cunum's programs:
# cunum-himeno (examples/himeno) and, with MPI, the scaling benches
# (bench/common/scaling_options.hpp).
# Found once, here, when one of them is built (after cmake/CunumMPI.cmake);
# scripts/device-deps carries a copy to the GPU machine.
if(CUNUM_BUILD_EXAMPLES OR (CUNUM_BUILD_BENCH AND MPI_CXX_FOUND))
  find_package(CLI11 CONFIG)
  if(NOT CLI11_FOUND)
    message(FATAL_ERROR "CLI11 not found: cunum-himeno (examples/himeno) and the scaling benches "
                        "(bench/himeno, bench/monte_carlo, built with MPI) parse their command lines with it. "
                        "Install it (Debian: apt-get install libcli11-dev), point CMAKE_PREFIX_PATH or CLI11_DIR at "
                        "its CMake package, or configure with -DCUNUM_BUILD_EXAMPLES=OFF and -DCUNUM_BUILD_BENCH=OFF.")
  endif()
endif()
