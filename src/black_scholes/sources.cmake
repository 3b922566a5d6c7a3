target_sources(cunum PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/black_scholes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/black_scholes_cpu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/black_scholes_cuda.cpp
  ${PROJECT_SOURCE_DIR}/kernels/black_scholes/black_scholes.cu)
# float kernels divide and take square roots to within 2 ulps instead of rounding
# correctly: fewer instructions for kernels bound by instruction issue, far inside
# float's accuracy target (double arithmetic is unaffected).
set_source_files_properties(${PROJECT_SOURCE_DIR}/kernels/black_scholes/black_scholes.cu
                            PROPERTIES COMPILE_OPTIONS "-prec-div=false;-prec-sqrt=false")
