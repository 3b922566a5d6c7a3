#pragma once
// Internal: runs a piece of a CPU backend compiled for the host's FMA instructions where
// it has them. Code shared with the GPU writes its multiply-adds as fma() and fmaf()
// (cunum/device/detail/double_normal_math.hpp, float_normal_math.hpp), which
// x86-64's baseline makes library calls: monte_carlo's pair of double normals and two
// exp2s cost 2.6 times libm's functions that way, 0.9 times with the instruction. fma()
// is exact either way, so the results are the same bits where the translation unit
// does not contract other products and sums: a backend that runs its work through this
// is built with -ffp-contract=off. Host compilers only.

namespace cunum::detail {

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && !defined(__CUDACC__)
template <class Work>
__attribute__((target("fma"), flatten)) inline void run_with_fma(const Work& work) {
  work();
}

template <class Work>
inline void run_on_host(const Work& work) {
  static const bool has_fma = (__builtin_cpu_init(), __builtin_cpu_supports("fma"));
  has_fma ? run_with_fma(work) : work();
}
#else
template <class Work>
inline void run_on_host(const Work& work) {
  work();
}
#endif

}  // namespace cunum::detail
