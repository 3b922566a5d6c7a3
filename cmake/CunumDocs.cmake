# API reference: `cmake --build build --target cunum-docs` runs Doxygen over the
# public headers (include/cunum and the generated version header) with README.md as
# the main page and docs/*.md as pages, into ${PROJECT_BINARY_DIR}/docs/api. Not part
# of ALL: nothing else needs it.

# Script mode: run by the target after Doxygen to say where the output and warnings are.
if(CMAKE_SCRIPT_MODE_FILE)
  file(STRINGS "${WARNINGS}" warning_lines REGEX "warning:")
  list(LENGTH warning_lines warning_count)
  message("API reference: ${INDEX}\n${warning_count} Doxygen warning(s), listed in ${WARNINGS}")
  return()
endif()

find_package(Doxygen QUIET)
if(DOXYGEN_FOUND)
  set(CUNUM_DOCS_DIR ${PROJECT_BINARY_DIR}/docs)
  configure_file(docs/Doxyfile.in ${CUNUM_DOCS_DIR}/Doxyfile @ONLY)
  add_custom_target(cunum-docs
    COMMAND Doxygen::doxygen ${CUNUM_DOCS_DIR}/Doxyfile
    COMMAND ${CMAKE_COMMAND} -DINDEX=${CUNUM_DOCS_DIR}/api/index.html
            -DWARNINGS=${CUNUM_DOCS_DIR}/doxygen-warnings.txt -P ${CMAKE_CURRENT_LIST_FILE}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    COMMENT "Doxygen: API reference into ${CUNUM_DOCS_DIR}/api"
    VERBATIM)
else()
  add_custom_target(cunum-docs
    COMMAND ${CMAKE_COMMAND} -E echo
            "cunum-docs needs Doxygen, which CMake did not find. Install it (Debian/Ubuntu: apt-get install doxygen) and configure again."
    COMMAND ${CMAKE_COMMAND} -E false
    VERBATIM)
endif()
