# Warnings for cunum's own targets: -Wall -Wextra on host code, the same passed
# through nvcc to the host compiler for .cu files.
function(cunum_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --Werror=all-warnings>)
endfunction()
