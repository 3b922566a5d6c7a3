target_sources(cunum PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/random.cpp
  ${CMAKE_CURRENT_LIST_DIR}/random_cpu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/random_cuda.cpp
  ${CMAKE_CURRENT_LIST_DIR}/curand_generator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sobol_tables.cpp
  ${PROJECT_SOURCE_DIR}/kernels/random/random.cu)
