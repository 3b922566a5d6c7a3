target_sources(cunum PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/monte_carlo.cpp
  ${CMAKE_CURRENT_LIST_DIR}/monte_carlo_cpu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/monte_carlo_cuda.cpp
  ${PROJECT_SOURCE_DIR}/kernels/monte_carlo/monte_carlo.cu)
# The path kernel's float square roots and divisions are approximate (within 2 ulps)
# and float denormals flush to zero: no range fix-ups around the special-function
# instructions of a kernel bound by instruction issue, far inside float's
# statistical error (double arithmetic is unaffected).
set_source_files_properties(${PROJECT_SOURCE_DIR}/kernels/monte_carlo/monte_carlo.cu
                            PROPERTIES COMPILE_OPTIONS "-prec-div=false;-prec-sqrt=false;-ftz=true")
# The CPU loop runs each chunk compiled for FMA where the CPU has it (run_on_host in
# monte_carlo_cpu.cpp); no contraction of other products and sums
# keeps its results the same bits on CPUs with and without FMA.
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/monte_carlo_cpu.cpp PROPERTIES COMPILE_OPTIONS "-ffp-contract=off")

# The MPI layer is its own library, cunum::monte_carlo_mpi, built when MPI is found
# (cmake/CunumMPI.cmake).
if(MPI_CXX_FOUND)
  add_library(cunum_monte_carlo_mpi ${CMAKE_CURRENT_LIST_DIR}/monte_carlo_mpi.cpp)
  add_library(cunum::monte_carlo_mpi ALIAS cunum_monte_carlo_mpi)
  target_link_libraries(cunum_monte_carlo_mpi PUBLIC cunum MPI::MPI_CXX PRIVATE CUDA::cudart)
  target_include_directories(cunum_monte_carlo_mpi PRIVATE ${PROJECT_SOURCE_DIR})
  cunum_set_warnings(cunum_monte_carlo_mpi)
else()
  message(STATUS "monte_carlo_mpi: MPI not found, not built (Debian: libopenmpi-dev openmpi-bin)")
endif()
