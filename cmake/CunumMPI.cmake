# MPI and NCCL, found once for the optional MPI libraries (cunum::himeno_mpi and
# cunum::monte_carlo_mpi, in src/<m>/sources.cmake), so that no module's CMake file
# relies on another having looked them up first. NCCL ships with the CUDA toolkit.
find_package(MPI COMPONENTS CXX)
if(MPI_CXX_FOUND)
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
endif()
