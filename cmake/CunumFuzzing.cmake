# CUNUM_BUILD_FUZZERS: the libFuzzer harnesses of fuzz/ (fuzz/README.md). Included
# before src/, so that every host C++ unit of this build, the library's included, is
# compiled with libFuzzer's coverage instrumentation, AddressSanitizer and
# UndefinedBehaviorSanitizer: the fuzzers steer by the library's own branches. The
# CUDA units (nvcc and its host compiler) are not instrumented.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "CUNUM_BUILD_FUZZERS needs clang++ (libFuzzer is clang's): configure with --preset fuzz, "
                      "or -DCMAKE_CXX_COMPILER=clang++ (Debian: apt-get install clang libclang-rt-dev libomp-dev).")
endif()
add_compile_options(
  "$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link,address,undefined;-fno-sanitize-recover=undefined;-fno-omit-frame-pointer;-gline-tables-only>")
add_link_options(-fsanitize=address,undefined)
