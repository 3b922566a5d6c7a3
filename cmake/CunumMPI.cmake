# MPI and NCCL for the optional MPI libraries, cunum::himeno_mpi and
# cunum::monte_carlo_mpi. The module that builds one includes this file and asks here
# for what it uses (cunum_find_mpi, cunum_find_nccl), so that no module's CMake file
# relies on another having looked first; the imported targets are global.
#
#   CUNUM_WITH_MPI   the MPI libraries: AUTO (built when MPI is found), ON (configure
#                    fails without MPI) or OFF (MPI is never looked for)
#   CUNUM_WITH_NCCL  NCCL halo exchange in cunum::himeno_mpi's CUDA backend: the same
#                    three values (ON needs the MPI libraries too)
include_guard(GLOBAL)

set(CUNUM_WITH_MPI AUTO CACHE STRING "MPI libraries cunum::himeno_mpi and cunum::monte_carlo_mpi: AUTO, ON or OFF")
set(CUNUM_WITH_NCCL AUTO CACHE STRING "NCCL halo exchange in cunum::himeno_mpi's CUDA backend: AUTO, ON or OFF")
set_property(CACHE CUNUM_WITH_MPI PROPERTY STRINGS AUTO ON OFF)
set_property(CACHE CUNUM_WITH_NCCL PROPERTY STRINGS AUTO ON OFF)

# cunum_dependency_mode(<option> <result>): AUTO, ON or OFF from the option's value
# (any CMake true or false constant counts as ON or OFF); anything else fails.
function(cunum_dependency_mode option result)
  string(TOUPPER "${${option}}" value)
  if(value STREQUAL "AUTO")
    set(mode AUTO)
  elseif(value MATCHES "^(ON|YES|TRUE|Y|1)$")
    set(mode ON)
  elseif(value MATCHES "^(OFF|NO|FALSE|N|0)$")
    set(mode OFF)
  else()
    message(FATAL_ERROR "${option} is '${${option}}': it takes AUTO, ON or OFF")
  endif()
  set(${result} ${mode} PARENT_SCOPE)
endfunction()

# cunum_find_mpi(<result>): <result> is TRUE when MPI::MPI_CXX is there to link, as
# CUNUM_WITH_MPI says.
function(cunum_find_mpi result)
  cunum_dependency_mode(CUNUM_WITH_MPI mode)
  if(mode STREQUAL "OFF")
    set(${result} FALSE PARENT_SCOPE)
    return()
  endif()
  # FindMPI creates MPI::MPI_CXX even where it finds no MPI (an empty target), so
  # MPI_CXX_FOUND decides; it is local to this function, so every call asks again
  # (FindMPI keeps what it found in the cache).
  find_package(MPI QUIET COMPONENTS CXX GLOBAL)
  if(mode STREQUAL "ON" AND NOT MPI_CXX_FOUND)
    message(FATAL_ERROR "CUNUM_WITH_MPI is ON, but MPI (C++) was not found: install it (Debian: apt-get install "
                        "libopenmpi-dev openmpi-bin), or configure with -DCUNUM_WITH_MPI=AUTO or OFF.")
  endif()
  if(MPI_CXX_FOUND)
    set(${result} TRUE PARENT_SCOPE)
  else()
    set(${result} FALSE PARENT_SCOPE)
  endif()
endfunction()

# cunum_find_nccl(<result>): <result> is TRUE when CunumNCCL::NCCL is there to link,
# as CUNUM_WITH_NCCL says. Only the MPI library that uses it calls it.
function(cunum_find_nccl result)
  cunum_dependency_mode(CUNUM_WITH_NCCL mode)
  if(mode STREQUAL "OFF")
    set(${result} FALSE PARENT_SCOPE)
    return()
  endif()
  if(NOT TARGET CunumNCCL::NCCL)
    find_package(CunumNCCL QUIET GLOBAL)
  endif()
  if(mode STREQUAL "ON" AND NOT TARGET CunumNCCL::NCCL)
    message(FATAL_ERROR "CUNUM_WITH_NCCL is ON, but NCCL (nccl.h, libnccl) was not found beside the CUDA toolkit: "
                        "name its prefix in CunumNCCL_ROOT or CMAKE_PREFIX_PATH, or configure with "
                        "-DCUNUM_WITH_NCCL=AUTO or OFF.")
  endif()
  if(TARGET CunumNCCL::NCCL)
    set(${result} TRUE PARENT_SCOPE)
  else()
    set(${result} FALSE PARENT_SCOPE)
  endif()
endfunction()

# cunum_refuse_nccl_without_mpi(): fails when CUNUM_WITH_NCCL is ON although the MPI
# library that would use NCCL is not built.
function(cunum_refuse_nccl_without_mpi)
  cunum_dependency_mode(CUNUM_WITH_NCCL mode)
  if(mode STREQUAL "ON")
    message(FATAL_ERROR "CUNUM_WITH_NCCL is ON, but only cunum::himeno_mpi uses NCCL, and it is not built "
                        "without MPI (CUNUM_WITH_MPI is ${CUNUM_WITH_MPI}).")
  endif()
endfunction()

# cunum_add_mpi_library(<name> <sources>...): the library cunum_<name>, cunum::<name>
# (its export name <name> is also its find_package component, and its pkg-config file
# is cunum-<name with dashes>.pc: cmake/CunumInstall.cmake). Its public header is
# include/cunum/<name>.hpp, which includes <mpi.h>.
function(cunum_add_mpi_library name)
  add_library(cunum_${name} ${ARGN})
  add_library(cunum::${name} ALIAS cunum_${name})
  target_link_libraries(cunum_${name} PUBLIC cunum MPI::MPI_CXX PRIVATE CUDA::cudart)
  target_include_directories(cunum_${name} PRIVATE ${PROJECT_SOURCE_DIR})
  set_target_properties(cunum_${name} PROPERTIES EXPORT_NAME ${name} POSITION_INDEPENDENT_CODE ON)
  cunum_set_warnings(cunum_${name})
  set_property(GLOBAL APPEND PROPERTY CUNUM_MPI_LIBRARIES ${name})
endfunction()
