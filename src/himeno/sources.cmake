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

# The MPI layer is its own library, cunum::himeno_mpi, built with MPI (CUNUM_WITH_MPI,
# cmake/CunumMPI.cmake); its CUDA backend exchanges halos through NCCL where it is
# built with it (CUNUM_WITH_NCCL; NCCL ships with the CUDA toolkit).
include(CunumMPI)
cunum_find_mpi(cunum_himeno_has_mpi)
if(cunum_himeno_has_mpi)
  cunum_add_mpi_library(himeno_mpi ${CMAKE_CURRENT_LIST_DIR}/himeno_mpi.cpp)
  cunum_find_nccl(cunum_himeno_has_nccl)
  if(cunum_himeno_has_nccl)
    target_link_libraries(cunum_himeno_mpi PRIVATE CunumNCCL::NCCL)
    target_compile_definitions(cunum_himeno_mpi PRIVATE CUNUM_HAVE_NCCL=1)
    # The installed component finds NCCL again on the consumer's machine (cmake/CunumInstall.cmake).
    set_property(TARGET cunum_himeno_mpi APPEND PROPERTY CUNUM_FIND_DEPENDENCIES CunumNCCL)
    message(STATUS "himeno_mpi: MPI and NCCL (${CunumNCCL_LIBRARY})")
  else()
    target_compile_definitions(cunum_himeno_mpi PRIVATE CUNUM_HAVE_NCCL=0)
    message(STATUS "himeno_mpi: MPI without NCCL (CUNUM_WITH_NCCL ${CUNUM_WITH_NCCL}; the CUDA backend exchanges "
                   "through MPI)")
  endif()
else()
  cunum_refuse_nccl_without_mpi()
  message(STATUS "himeno_mpi: not built (CUNUM_WITH_MPI ${CUNUM_WITH_MPI}; MPI on Debian: libopenmpi-dev openmpi-bin)")
endif()
