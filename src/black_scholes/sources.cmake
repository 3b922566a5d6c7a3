target_sources(cunum PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/black_scholes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/black_scholes_cpu.cpp
  ${PROJECT_SOURCE_DIR}/kernels/black_scholes/black_scholes.cu)
