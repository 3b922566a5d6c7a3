target_sources(cunum PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/reduce.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reduce_cpu.cpp
  ${PROJECT_SOURCE_DIR}/kernels/reduce/reduce_production.cu)
