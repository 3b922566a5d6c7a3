# Find module for NCCL (nccl.h and libnccl), through which cunum::himeno_mpi's CUDA
# backend exchanges halos. Looked for beside the CUDA toolkit (found first: the
# toolkit's bundle and NVIDIA's packages put it there or in the system directories),
# then in the usual places; CunumNCCL_ROOT or CMAKE_PREFIX_PATH may name another. Used
# by cunum's build and, installed beside cunumConfig.cmake, on the consumer's machine.
#
# Defines CunumNCCL_FOUND and the imported target CunumNCCL::NCCL.
find_path(CunumNCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
find_library(CunumNCCL_LIBRARY NAMES nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
mark_as_advanced(CunumNCCL_INCLUDE_DIR CunumNCCL_LIBRARY)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CunumNCCL
  REQUIRED_VARS CunumNCCL_LIBRARY CunumNCCL_INCLUDE_DIR
  REASON_FAILURE_MESSAGE "NCCL (nccl.h, libnccl) is looked for beside the CUDA toolkit, CunumNCCL_ROOT or CMAKE_PREFIX_PATH may name its prefix.")

if(CunumNCCL_FOUND AND NOT TARGET CunumNCCL::NCCL)
  add_library(CunumNCCL::NCCL UNKNOWN IMPORTED)
  set_target_properties(CunumNCCL::NCCL PROPERTIES
    IMPORTED_LOCATION "${CunumNCCL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${CunumNCCL_INCLUDE_DIR}")
endif()
