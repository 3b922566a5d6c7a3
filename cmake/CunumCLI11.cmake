# CLI11 (header only; Debian: libcli11-dev), the command-line parser of cunum's programs:
# cunum-demo and cunum-himeno (examples/) and every bench, through the one shared
# header programs/command_line.hpp (target cunum_command_line); and the fuzzers of
# cunum-himeno's and the benches' parsers (fuzz/).
# Found once, here, when one of them is built; scripts/device-deps carries a copy to
# the GPU machine.
if(CUNUM_BUILD_EXAMPLES OR CUNUM_BUILD_BENCH OR CUNUM_BUILD_FUZZERS)
  find_package(CLI11 CONFIG)
  if(NOT CLI11_FOUND)
    message(FATAL_ERROR "CLI11 not found: cunum's programs (the demo, cunum-himeno and the benches) parse their "
                        "command lines with it, and their fuzzers (fuzz/) call those parsers. Install it (Debian: "
                        "apt-get install libcli11-dev), point CMAKE_PREFIX_PATH or CLI11_DIR at its CMake package, "
                        "or configure with -DCUNUM_BUILD_EXAMPLES=OFF, -DCUNUM_BUILD_BENCH=OFF and "
                        "-DCUNUM_BUILD_FUZZERS=OFF.")
  endif()
  add_library(cunum_command_line INTERFACE)
  target_include_directories(cunum_command_line INTERFACE ${PROJECT_SOURCE_DIR})
  target_link_libraries(cunum_command_line INTERFACE CLI11::CLI11 cunum::cunum)
endif()
