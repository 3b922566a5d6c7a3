target_sources(cunum PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/monte_carlo.cpp
  ${CMAKE_CURRENT_LIST_DIR}/monte_carlo_cpu.cpp
  ${PROJECT_SOURCE_DIR}/kernels/monte_carlo/monte_carlo.cu)
# The path kernel's float square roots and divisions are approximate (within 2 ulps)
# and float denormals flush to zero: no range fix-ups around the special-function
# instructions of a kernel bound by instruction issue, far inside float's
# statistical error (double arithmetic is unaffected).
set_source_files_properties(${PROJECT_SOURCE_DIR}/kernels/monte_carlo/monte_carlo.cu
                            PROPERTIES COMPILE_OPTIONS "-prec-div=false;-prec-sqrt=false;-ftz=true")
