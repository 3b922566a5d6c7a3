# Runs cunum-himeno for one CTest smoke test (tests/himeno/CMakeLists.txt):
#
#   cmake -DPROGRAM=<cunum-himeno> -DARGS="<its arguments>" -DEXIT=0|nonzero
#         [-DEXPECT=<regex>] [-DREJECT=<regex>] [-DREFERENCE="<reference executable> SIZE PRECISION"]
#         [-DJSON=<the --json file>] -P himeno_program_test.cmake
#
# Fails unless the exit status is as EXIT says and, with EXPECT (REJECT), its stdout and
# stderr together match EXPECT (do not match REJECT). With REFERENCE, the printed gosa must equal, as printed, the
# reference's HimenoProblem::iterate(n) gosa for the sweeps the program says it ran:
# "Loop executed for n times" after --iterations n; after a rehearsal (the default
# mode), the rehearsal's gosa must be iterate(3)'s and the last one iterate(3 + n)'s,
# the measured sweeps continuing from the rehearsal's state as in the original.

# With JSON, the file --json wrote holds the result: one object naming the program, the
# loop count printed, and gosa written in full (more than the 7 digits printed).

if(DEFINED JSON)
  file(REMOVE "${JSON}")
endif()
# The run and the EXIT, EXPECT and REJECT checks (sets `out` and `all`).
include(${CMAKE_CURRENT_LIST_DIR}/../program_test.cmake)

if(DEFINED JSON)
  file(READ "${JSON}" result)
  string(STRIP "${result}" result)
  foreach(key program sweeps gosa mflops cunum_version backend date)
    string(JSON ${key} ERROR_VARIABLE error GET "${result}" ${key})
    if(error)
      message(FATAL_ERROR "--json wrote no '${key}' (${error}):\n${result}")
    endif()
  endforeach()
  if(NOT program STREQUAL "cunum-himeno" OR NOT out MATCHES "Loop executed for ${sweeps} times")
    message(FATAL_ERROR "--json's program '${program}' and sweeps ${sweeps} are not the run's:\n${result}")
  endif()
  string(REGEX REPLACE "e.*$" "" mantissa "${gosa}")
  string(REGEX REPLACE "[^0-9]" "" digits "${mantissa}")
  string(REGEX REPLACE "^0+" "" digits "${digits}")
  string(LENGTH "${digits}" length)
  if(length LESS 8)
    message(FATAL_ERROR "--json's gosa ${gosa} has ${length} significant digits: rounded?")
  endif()
endif()

if(DEFINED REFERENCE)
  if(NOT out MATCHES "Loop executed for ([0-9]+) times")
    message(FATAL_ERROR "no 'Loop executed for n times' line")
  endif()
  set(sweeps "${CMAKE_MATCH_1}")
  if(NOT out MATCHES " Gosa : ([^ \n]+) \n")
    message(FATAL_ERROR "no ' Gosa : ' line")
  endif()
  set(printed "${CMAKE_MATCH_1}")
  if(out MATCHES " MFLOPS: [^ ]+ time\\(s\\): [^ ]+ ([^ \n]+)\n")
    set(printed "${CMAKE_MATCH_1};${printed}")
    math(EXPR total "3 + ${sweeps}")
    set(counts 3 ${total})
  else()
    set(counts ${sweeps})
  endif()
  separate_arguments(reference UNIX_COMMAND "${REFERENCE}")
  execute_process(COMMAND ${reference} ${counts} RESULT_VARIABLE status OUTPUT_VARIABLE expected TIMEOUT 15)
  if(NOT status STREQUAL "0")
    message(FATAL_ERROR "the reference '${REFERENCE} ${counts}' failed: '${status}'")
  endif()
  string(STRIP "${expected}" expected)
  string(REPLACE "\n" ";" expected "${expected}")
  if(NOT printed STREQUAL expected)
    message(FATAL_ERROR "printed gosa ${printed} (after ${counts} sweeps), HimenoProblem::iterate gives ${expected}")
  endif()
  message(STATUS "gosa ${printed} after ${counts} sweeps: equals HimenoProblem::iterate")
endif()
