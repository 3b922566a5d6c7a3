target_sources(cunum PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/poisson_fft.cpp
  ${CMAKE_CURRENT_LIST_DIR}/poisson_fft_cpu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/poisson_fft_cuda.cpp
  ${PROJECT_SOURCE_DIR}/kernels/poisson_fft/poisson_fft.cu
  ${PROJECT_SOURCE_DIR}/kernels/poisson_fft/poisson_fft_pencils.cu)
# The CPU backend is FFTW (cmake/CunumFFTW.cmake); the CUDA backend is cuFFT.
target_include_directories(cunum SYSTEM PRIVATE ${FFTW_INCLUDE_DIR})
target_link_libraries(cunum PRIVATE ${FFTW_LIBRARIES} CUDA::cufft)
