# Runs a bench with --json FILE for one CTest test (tests/programs/CMakeLists.txt):
#
#   cmake -DPROGRAM=<bench> -DARGS="... --json <JSON>" -DEXIT=0 -DJSON=<the file>
#         -DVERSION=<cunum's version> -P bench_json_test.cmake
#
# Fails unless the run passes program_test.cmake's checks and the file holds at least
# one row, each a JSON object carrying the run's provenance (commit, cunum_version,
# device, driver, cuda_runtime, date) and a module, and its numbers keep their digits:
# some number has more than 6 significant digits (the rows were once written with %.6g).

file(REMOVE "${JSON}")
include(${CMAKE_CURRENT_LIST_DIR}/../program_test.cmake)

if(NOT EXISTS "${JSON}")
  message(FATAL_ERROR "the bench wrote no ${JSON}")
endif()
file(READ "${JSON}" text)
# A ';' can only stand inside a JSON string; CMake lists would split on it.
string(REPLACE ";" ":" text "${text}")
string(REGEX REPLACE "\n$" "" text "${text}")
string(REPLACE "\n" ";" rows "${text}")
list(LENGTH rows count)
if(text STREQUAL "" OR count EQUAL 0)
  message(FATAL_ERROR "${JSON} holds no row")
endif()
foreach(row IN LISTS rows)
  foreach(key module commit cunum_version device driver cuda_runtime date)
    string(JSON value ERROR_VARIABLE error GET "${row}" ${key})
    if(error OR value STREQUAL "")
      message(FATAL_ERROR "a row without '${key}' (${error}):\n${row}")
    endif()
    set(${key} "${value}")
  endforeach()
  if(NOT cunum_version STREQUAL VERSION)
    message(FATAL_ERROR "cunum_version '${cunum_version}', the build's is '${VERSION}':\n${row}")
  endif()
  if(NOT commit MATCHES "^([0-9a-f]+(-dirty)?|unknown)$")
    message(FATAL_ERROR "commit '${commit}' is neither a hash nor 'unknown':\n${row}")
  endif()
  if(NOT date MATCHES "^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9] UTC$")
    message(FATAL_ERROR "date '${date}' is not 'YYYY-MM-DD HH:MM UTC':\n${row}")
  endif()
endforeach()
# Significant digits of the decimal numbers (leading zeros, the point and any exponent aside).
set(most 0)
string(REGEX MATCHALL ":-?[0-9]+\\.[0-9]+" numbers "${text}")
foreach(number IN LISTS numbers)
  string(REGEX REPLACE "[^0-9]" "" digits "${number}")
  string(REGEX REPLACE "^0+" "" digits "${digits}")
  string(LENGTH "${digits}" length)
  if(length GREATER most)
    set(most ${length})
  endif()
endforeach()
if(most LESS 7)
  message(FATAL_ERROR "no number in ${JSON} has more than 6 significant digits: rounded?")
endif()
message(STATUS "${count} row(s), each with its provenance; numbers to ${most} significant digits")
