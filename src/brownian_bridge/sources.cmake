target_sources(cunum PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/brownian_bridge.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bridge_compiler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/brownian_bridge_cpu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bridge_sobol_cpu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/brownian_bridge_cuda.cpp
  ${CMAKE_CURRENT_LIST_DIR}/constant_image_order.cpp
  ${PROJECT_SOURCE_DIR}/kernels/brownian_bridge/brownian_bridge_constant.cu
  ${PROJECT_SOURCE_DIR}/kernels/brownian_bridge/brownian_bridge_shared.cu
  ${PROJECT_SOURCE_DIR}/kernels/brownian_bridge/brownian_bridge_sobol.cu)
