file(REMOVE_RECURSE ${SCRATCH_DIR})
function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "step failed (${status}): ${ARGN}")
  endif()
endfunction()

# Runs a consumer and checks that the version macros it was compiled with are the project's.
function(run_consumer executable)
  execute_process(COMMAND ${executable} RESULT_VARIABLE status OUTPUT_VARIABLE output)
  message("${output}")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "step failed (${status}): ${executable}")
  endif()
  string(REPLACE "." ";" parts ${PROJECT_VERSION})
  list(GET parts 0 major)
  list(GET parts 1 minor)
  list(GET parts 2 patch)
  math(EXPR number "${major} * 10000 + ${minor} * 100 + ${patch}")
  set(expected "cunum ${PROJECT_VERSION} (CUNUM_VERSION ${number})")
  string(FIND "${output}" "${expected}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "${executable} does not print '${expected}': version.hpp disagrees with the project")
  endif()
endfunction()

set(prefix ${SCRATCH_DIR}/prefix)
run_step(${CMAKE_COMMAND} --install ${CUNUM_BINARY_DIR} --prefix ${prefix})

# find_package(cunum) and cunum::cunum.
run_step(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${SCRATCH_DIR}/build
         -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
run_step(${CMAKE_COMMAND} --build ${SCRATCH_DIR}/build)
run_consumer(${SCRATCH_DIR}/build/consumer)

# The same source through pkg-config and the compiler alone, as a non-CMake build would.
find_program(PKG_CONFIG pkg-config)
if(NOT PKG_CONFIG)
  message(WARNING "pkg-config not found: the installed cunum.pc was not tried")
  return()
endif()
set(ENV{PKG_CONFIG_PATH} ${prefix}/${INSTALL_LIBDIR}/pkgconfig)
execute_process(COMMAND ${PKG_CONFIG} --modversion cunum OUTPUT_VARIABLE pc_version
                OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
if(NOT pc_version STREQUAL PROJECT_VERSION)
  message(FATAL_ERROR "cunum.pc says version '${pc_version}', the project ${PROJECT_VERSION}")
endif()
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs cunum OUTPUT_VARIABLE pc_flags
                OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
message("pkg-config --cflags --libs cunum: ${pc_flags}")
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
run_step(${CXX_COMPILER} -std=c++17 ${CONSUMER_SOURCE_DIR}/main.cpp ${pc_flags}
         -o ${SCRATCH_DIR}/consumer-pkg-config)
run_consumer(${SCRATCH_DIR}/consumer-pkg-config)
