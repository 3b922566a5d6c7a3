# Runs a program for one CTest test of its command line or output:
#
#   cmake -DPROGRAM=<executable> -DARGS="<its arguments>" -DEXIT=<status>|nonzero
#         [-DEXPECT=<regex>] [-DREJECT=<regex>] [-DTIMEOUT=<seconds, default 15>]
#         -P program_test.cmake
#
# Fails unless the program ends within TIMEOUT, its exit status is EXIT (a number; with
# EXIT=nonzero, any but 0), and its stdout and stderr together match EXPECT and do not
# match REJECT. A script that includes this one for further checks reads the output in
# `out` (stdout) and `all` (stdout then stderr).

if(NOT DEFINED TIMEOUT)
  set(TIMEOUT 15)
endif()
separate_arguments(program_args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND "${PROGRAM}" ${program_args} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT ${TIMEOUT})
set(all "${out}${err}")
get_filename_component(program_name "${PROGRAM}" NAME)
message(STATUS "${program_name} ${ARGS}: exit ${status}\n${all}")

if(EXIT MATCHES "^[0-9]+$")
  if(NOT status STREQUAL "${EXIT}")
    message(FATAL_ERROR "expected exit status ${EXIT}, got '${status}'")
  endif()
elseif(EXIT STREQUAL "nonzero")
  if(status STREQUAL "0" OR NOT status MATCHES "^[0-9]+$")
    message(FATAL_ERROR "expected a non-zero exit status, got '${status}'")
  endif()
else()
  message(FATAL_ERROR "EXIT must be a number or nonzero, not '${EXIT}'")
endif()

if(DEFINED EXPECT AND NOT all MATCHES "${EXPECT}")
  message(FATAL_ERROR "the output does not match '${EXPECT}'")
endif()
if(DEFINED REJECT AND all MATCHES "${REJECT}")
  message(FATAL_ERROR "the output matches '${REJECT}', which it must not")
endif()
