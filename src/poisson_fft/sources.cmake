target_sources(cunum PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/poisson_fft.cpp
  ${CMAKE_CURRENT_LIST_DIR}/poisson_fft_cpu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/poisson_fft_cuda.cpp
  ${PROJECT_SOURCE_DIR}/kernels/poisson_fft/poisson_fft.cu
  ${PROJECT_SOURCE_DIR}/kernels/poisson_fft/poisson_fft_pencils.cu)
# The CPU backend is FFTW (through pkg-config: cmake/FindCunumFFTW.cmake, which the
# installed package uses again on the consumer's machine); the CUDA backend is cuFFT.
find_package(CunumFFTW REQUIRED GLOBAL)
target_link_libraries(cunum PRIVATE CunumFFTW::FFTW CUDA::cufft)
