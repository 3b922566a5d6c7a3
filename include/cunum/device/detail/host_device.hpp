#pragma once
// Internal: mark functions shared by the CPU backend and the CUDA kernels.
#if defined(__CUDACC__)
#define CUNUM_HOST_DEVICE __host__ __device__
#else
#define CUNUM_HOST_DEVICE
#endif

// `#pragma unroll` (and `#pragma unroll 3`) for the device pass only (host
// compilers warn on it).
#if defined(__CUDA_ARCH__)
#define CUNUM_UNROLL _Pragma("unroll")
#define CUNUM_UNROLL_BY_3 _Pragma("unroll 3")
#else
#define CUNUM_UNROLL
#define CUNUM_UNROLL_BY_3
#endif
