# Runs cunum-himeno for one CTest smoke test (tests/himeno/CMakeLists.txt):
#
#   cmake -DPROGRAM=<cunum-himeno> -DARGS="<its arguments>" -DEXIT=0|nonzero
#         [-DEXPECT=<regex>] [-DREFERENCE="<reference executable> SIZE PRECISION"]
#         -P himeno_program_test.cmake
#
# Fails unless the exit status is as EXIT says and, with EXPECT, its stdout and stderr
# together match EXPECT. With REFERENCE, the printed gosa must equal, as printed, the
# reference's HimenoProblem::iterate(n) gosa for the sweeps the program says it ran:
# "Loop executed for n times" after --iterations n; after a rehearsal (the default
# mode), the rehearsal's gosa must be iterate(3)'s and the last one iterate(3 + n)'s,
# the measured sweeps continuing from the rehearsal's state as in the original.

# The run and the EXIT and EXPECT checks (sets `out` and `all`).
include(${CMAKE_CURRENT_LIST_DIR}/../program_test.cmake)

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
