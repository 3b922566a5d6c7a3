target_sources(cunum PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/random.cpp
  ${CMAKE_CURRENT_LIST_DIR}/random_cpu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/random_cuda.cpp
  ${CMAKE_CURRENT_LIST_DIR}/curand_generator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sobol_tables.cpp
  ${PROJECT_SOURCE_DIR}/kernels/random/random.cu)
# The CUDA backend's generators and the Sobol direction numbers are cuRAND's (the
# bridge and Monte Carlo reach them through src/random/random_internal.hpp).
target_link_libraries(cunum PRIVATE CUDA::curand)
# The CPU backend runs its tasks compiled for FMA where the CPU has it (run_on_host,
# src/core/host_fma.hpp); no contraction of other products and sums keeps its values
# the same bits on CPUs with and without FMA (and the GPU's where they are promised).
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/random_cpu.cpp PROPERTIES COMPILE_OPTIONS "-ffp-contract=off")
