# Writes OUTPUT, a header defining CUNUM_BENCH_SOURCE_COMMIT: COMMIT where given (a tree
# without git, e.g. a copy on the GPU machine: -DCUNUM_SOURCE_COMMIT=<hash> at configure),
# else the git commit of SOURCE_DIR with "-dirty" when tracked files differ from it, else
# "unknown". Run at every build (bench/common/CMakeLists.txt); the header is rewritten only
# when its text changes, so that an unchanged commit rebuilds nothing.
if(COMMIT STREQUAL "")
  execute_process(COMMAND git -C "${SOURCE_DIR}" describe --always --dirty --abbrev=40 --exclude=*
                  OUTPUT_VARIABLE COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE status ERROR_QUIET)
  if(NOT status EQUAL 0 OR COMMIT STREQUAL "")
    set(COMMIT unknown)
  endif()
endif()
file(WRITE "${OUTPUT}.new" "#pragma once\n#define CUNUM_BENCH_SOURCE_COMMIT \"${COMMIT}\"\n")
file(COPY_FILE "${OUTPUT}.new" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.new")
