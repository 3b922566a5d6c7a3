target_sources(cunum PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/himeno.cpp
  ${CMAKE_CURRENT_LIST_DIR}/himeno_cpu.cpp
  ${CMAKE_CURRENT_LIST_DIR}/himeno_multi_device.cpp
  ${CMAKE_CURRENT_LIST_DIR}/himeno_cuda.cpp
  ${PROJECT_SOURCE_DIR}/kernels/himeno/himeno.cu)
# Both backends evaluate the update as the serial C code writes it, without fused
# multiply-adds, so that the GPU's pressure equals the CPU's bit for bit: float's
# residual cancels most of its digits, and a contracted update moved gosa at M by
# 3e-4 relative. The sweeps are bound by memory, not by the extra instructions.
# The kernels are instantiated in kernels/himeno/himeno.cu alone (himeno_cuda.cpp, the
# host orchestration, does no arithmetic on the fields).
set_source_files_properties(${PROJECT_SOURCE_DIR}/kernels/himeno/himeno.cu PROPERTIES COMPILE_OPTIONS "-fmad=false")
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/himeno_cpu.cpp PROPERTIES COMPILE_OPTIONS "-ffp-contract=off")

# The MPI layer is its own library, cunum::himeno_mpi, built when MPI is found; its
# CUDA backend exchanges halos through NCCL (shipped with the CUDA toolkit) when found.
# (MPI and NCCL are found in cmake/CunumMPI.cmake.)
if(MPI_CXX_FOUND)
  add_library(cunum_himeno_mpi ${CMAKE_CURRENT_LIST_DIR}/himeno_mpi.cpp)
  add_library(cunum::himeno_mpi ALIAS cunum_himeno_mpi)
  target_link_libraries(cunum_himeno_mpi PUBLIC cunum MPI::MPI_CXX PRIVATE CUDA::cudart)
  target_include_directories(cunum_himeno_mpi PRIVATE ${PROJECT_SOURCE_DIR})
  if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    target_include_directories(cunum_himeno_mpi SYSTEM PRIVATE ${NCCL_INCLUDE_DIR})
    target_link_libraries(cunum_himeno_mpi PRIVATE ${NCCL_LIBRARY})
    target_compile_definitions(cunum_himeno_mpi PRIVATE CUNUM_HAVE_NCCL=1)
    message(STATUS "himeno_mpi: MPI and NCCL (${NCCL_LIBRARY})")
  else()
    target_compile_definitions(cunum_himeno_mpi PRIVATE CUNUM_HAVE_NCCL=0)
    message(STATUS "himeno_mpi: MPI without NCCL (the CUDA backend is not supported)")
  endif()
  cunum_set_warnings(cunum_himeno_mpi)
else()
  message(STATUS "himeno_mpi: MPI not found, not built (Debian: libopenmpi-dev openmpi-bin)")
endif()
