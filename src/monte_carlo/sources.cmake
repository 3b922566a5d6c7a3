target_sources(cunum PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/monte_carlo.cpp
  ${CMAKE_CURRENT_LIST_DIR}/monte_carlo_cpu.cpp
  ${PROJECT_SOURCE_DIR}/kernels/monte_carlo/monte_carlo.cu)
