target_sources(cunum PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/reduce.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reduce_cpu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reduce_cuda.cpp
  ${PROJECT_SOURCE_DIR}/kernels/reduce/reduce.cu)
