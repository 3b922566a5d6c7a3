# FindCunumCUDAToolkit: find_package(CUDAToolkit) for cunum's build and for its installed
# package, with the CUDA:: targets and CUDAToolkit_* variables that it defines.
#
# Why not CUDAToolkit directly: CMake 3.25's FindCUDAToolkit (Debian 12's cmake) marks
# CUDA::nvToolsExt deprecated whenever the calling project requires CMake 3.25 or later,
# without checking that the target exists, and CUDA 12.9 and later ship no nvToolsExt
# library (only the header-only nvtx3): "set_property could not find TARGET
# CUDA::nvToolsExt", a configure error. Later CMake checks first. So the search runs with
# the required minimum at 3.24, which skips only that deprecation notice, then restores it.
set(_cunum_minimum_required "${CMAKE_MINIMUM_REQUIRED_VERSION}")
if(CMAKE_MINIMUM_REQUIRED_VERSION VERSION_GREATER_EQUAL 3.25)
  set(CMAKE_MINIMUM_REQUIRED_VERSION 3.24)
endif()
set(_cunum_cuda_arguments ${CunumCUDAToolkit_FIND_VERSION})
if(CunumCUDAToolkit_FIND_QUIETLY)
  list(APPEND _cunum_cuda_arguments QUIET)
endif()
find_package(CUDAToolkit ${_cunum_cuda_arguments})
set(CMAKE_MINIMUM_REQUIRED_VERSION "${_cunum_minimum_required}")
unset(_cunum_minimum_required)
unset(_cunum_cuda_arguments)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(CunumCUDAToolkit REQUIRED_VARS CUDAToolkit_BIN_DIR CUDAToolkit_INCLUDE_DIRS
                                  VERSION_VAR CUDAToolkit_VERSION)
