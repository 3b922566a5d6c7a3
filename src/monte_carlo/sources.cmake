target_sources(cunum PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/monte_carlo.cpp
  ${CMAKE_CURRENT_LIST_DIR}/monte_carlo_cpu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/monte_carlo_cuda.cpp
  ${PROJECT_SOURCE_DIR}/kernels/monte_carlo/monte_carlo.cu)
# The path kernel's float square roots and divisions are approximate (within 2 ulps)
# and float denormals flush to zero: no range fix-ups around the special-function
# instructions of a kernel bound by instruction issue, far inside float's
# statistical error (double arithmetic is unaffected). No contraction (-fmad=false):
# the path code is compiled into two kernels (with and without the one-launch fold)
# whose chunk sums must be the same bits, and ptxas fuses products and sums
# differently in each; every multiply-add of the path code is written as fma() instead.
set_source_files_properties(${PROJECT_SOURCE_DIR}/kernels/monte_carlo/monte_carlo.cu
                            PROPERTIES COMPILE_OPTIONS "-prec-div=false;-prec-sqrt=false;-ftz=true;-fmad=false")
# The CPU loop runs each chunk compiled for FMA where the CPU has it (run_on_host,
# src/core/host_fma.hpp); no contraction of other products and sums
# keeps its results the same bits on CPUs with and without FMA.
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/monte_carlo_cpu.cpp PROPERTIES COMPILE_OPTIONS "-ffp-contract=off")

# The MPI layer is its own library, cunum::monte_carlo_mpi, built with MPI
# (CUNUM_WITH_MPI, cmake/CunumMPI.cmake).
include(CunumMPI)
cunum_find_mpi(cunum_monte_carlo_has_mpi)
if(cunum_monte_carlo_has_mpi)
  cunum_add_mpi_library(monte_carlo_mpi ${CMAKE_CURRENT_LIST_DIR}/monte_carlo_mpi.cpp)
else()
  message(STATUS "monte_carlo_mpi: not built (CUNUM_WITH_MPI ${CUNUM_WITH_MPI}; MPI on Debian: libopenmpi-dev "
                 "openmpi-bin)")
endif()
