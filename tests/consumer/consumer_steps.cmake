# The steps the install-tree tests share (relocation_test.cmake, package_test.cmake):
# building and running examples/consumer against an installed cunum, with CMake and with
# pkg-config, and looking for the build machine's paths in an installed tree. Variables:
# CUNUM_SOURCE_DIR, CUNUM_BINARY_DIR, CONSUMER_SOURCE_DIR, CXX_COMPILER, CXX_FLAGS (the
# build's, so that a sanitized library links with the sanitizers' runtime),
# PROJECT_VERSION, WITH_HIMENO_MPI (1 when cunum::himeno_mpi is built) and MPIEXEC (to
# run its consumer).

function(run_step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "step failed (${status}): ${ARGN}")
  endif()
endfunction()

# Runs a program (with its launcher, if any) and fails unless it exits 0 and prints `expected`.
function(run_and_expect expected)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE errors)
  string(JOIN " " command ${ARGN})
  message("${command}:\n${output}${errors}")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "step failed (${status}): ${command}")
  endif()
  string(FIND "${output}" "${expected}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "${command} does not print '${expected}'")
  endif()
endfunction()

# Runs a consumer and checks that the version macros it was compiled with are the project's.
function(run_consumer executable)
  string(REPLACE "." ";" parts ${PROJECT_VERSION})
  list(GET parts 0 major)
  list(GET parts 1 minor)
  list(GET parts 2 patch)
  math(EXPR number "${major} * 10000 + ${minor} * 100 + ${patch}")
  run_and_expect("cunum ${PROJECT_VERSION} (CUNUM_VERSION ${number})" ${executable})
endfunction()

# Without LeakSanitizer where the build has it: Open MPI leaves allocations at exit
# (as the MPI tests, tests/CMakeLists.txt).
function(run_mpi_consumer executable)
  run_and_expect("cunum consumer (himeno_mpi): gosa = " ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0
                 ${MPIEXEC} -n 1 ${executable})
endfunction()

# Fails if any file under `tree` names the source or build directory, or a path in ARGN.
function(expect_no_build_paths tree)
  set(paths ${CUNUM_SOURCE_DIR} ${CUNUM_BINARY_DIR} ${ARGN})
  set(patterns "")
  foreach(path IN LISTS paths)
    list(APPEND patterns -e ${path})
  endforeach()
  execute_process(COMMAND grep -rlF ${patterns} ${tree} RESULT_VARIABLE status OUTPUT_VARIABLE files)
  if(status EQUAL 0)
    message(FATAL_ERROR "installed files under ${tree} name the build machine's paths (${paths}):\n${files}")
  elseif(NOT status EQUAL 1)
    message(FATAL_ERROR "grep failed (${status}) on ${tree}")
  endif()
  message("no file under ${tree} names ${paths}")
endfunction()

# Fails if a file of the CMake package under `cmake_dir` names any absolute path: every
# dependency is an imported target found again on the consumer's machine.
function(expect_relative_cmake_package cmake_dir)
  file(GLOB package_files ${cmake_dir}/*.cmake)
  if(NOT package_files)
    message(FATAL_ERROR "no CMake package in ${cmake_dir}")
  endif()
  foreach(package_file IN LISTS package_files)
    file(STRINGS ${package_file} absolute_paths REGEX "(^|[ \"=;(])/[A-Za-z]")
    if(absolute_paths)
      message(FATAL_ERROR "${package_file} names absolute paths:\n${absolute_paths}")
    endif()
  endforeach()
  message("no file of the CMake package in ${cmake_dir} names an absolute path")
endfunction()

# examples/consumer configured with CMAKE_PREFIX_PATH=`prefix` into `build`, built and
# run: without components (MPI must not be looked for), then, where cunum::himeno_mpi
# is built (WITH_HIMENO_MPI), configured again with the himeno_mpi component.
function(build_consumer_with_cmake prefix build)
  run_step(${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR} -B ${build} -DCMAKE_PREFIX_PATH=${prefix}
           -DCMAKE_CXX_COMPILER=${CXX_COMPILER} "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}")
  file(STRINGS ${build}/CMakeCache.txt cunum_dir REGEX "^cunum_DIR:")
  string(FIND "${cunum_dir}" "=${prefix}/" found)
  if(NOT found GREATER -1)
    message(FATAL_ERROR "the consumer found another cunum than the one under ${prefix}: ${cunum_dir}")
  endif()
  file(STRINGS ${build}/CMakeCache.txt mpi_entries REGEX "^MPI")
  if(mpi_entries)
    message(FATAL_ERROR "find_package(cunum) without components looked for MPI: ${mpi_entries}")
  endif()
  run_step(${CMAKE_COMMAND} --build ${build})
  run_consumer(${build}/consumer)

  if(WITH_HIMENO_MPI)
    run_step(${CMAKE_COMMAND} -DCONSUMER_WITH_MPI=ON ${build})
    run_step(${CMAKE_COMMAND} --build ${build} --target consumer-mpi)
    run_mpi_consumer(${build}/consumer-mpi)
  endif()
endfunction()

# The same sources through pkg-config and the compiler alone, as a non-CMake build
# would: `pkg-config --static`, as libcunum is static.
function(build_consumer_with_pkg_config pc_dir out)
  find_program(PKG_CONFIG pkg-config REQUIRED)
  set(ENV{PKG_CONFIG_PATH} ${pc_dir})
  execute_process(COMMAND ${PKG_CONFIG} --modversion cunum OUTPUT_VARIABLE pc_version
                  OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  if(NOT pc_version STREQUAL PROJECT_VERSION)
    message(FATAL_ERROR "cunum.pc says version '${pc_version}', the project ${PROJECT_VERSION}")
  endif()
  execute_process(COMMAND ${PKG_CONFIG} --cflags --libs --static cunum OUTPUT_VARIABLE pc_flags
                  OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
  message("pkg-config --cflags --libs --static cunum: ${pc_flags}")
  separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
  separate_arguments(cxx_flags UNIX_COMMAND "${CXX_FLAGS}")
  run_step(${CXX_COMPILER} -std=c++17 ${cxx_flags} ${CONSUMER_SOURCE_DIR}/main.cpp ${pc_flags} -o ${out})
  run_consumer(${out})

  if(WITH_HIMENO_MPI)
    execute_process(COMMAND ${PKG_CONFIG} --cflags --libs --static cunum-himeno-mpi OUTPUT_VARIABLE pc_flags
                    OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
    message("pkg-config --cflags --libs --static cunum-himeno-mpi: ${pc_flags}")
    separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
    run_step(${CXX_COMPILER} -std=c++17 ${cxx_flags} ${CONSUMER_SOURCE_DIR}/mpi_main.cpp ${pc_flags} -o ${out}-mpi)
    run_mpi_consumer(${out}-mpi)
  endif()
endfunction()
