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

// Defines `accessor()`: the constexpr object `table` of type Type on the host, a
// __constant__ copy of it on the device, for the coefficient tables of the functions
// shared by both. The copy is not const: a const one would be folded back into
// literals, and a double literal whose low word is not zero costs two moves into
// registers at each use, where a constant is an operand of the multiply-add.
#if defined(__CUDACC__)
#if defined(__CUDA_ARCH__)
#define CUNUM_TABLE_ON_THIS_SIDE(device_copy, table) device_copy
#else
#define CUNUM_TABLE_ON_THIS_SIDE(device_copy, table) table
#endif
#define CUNUM_CONSTANT_TABLE(Type, table, accessor)                    \
  static __constant__ Type accessor##_device_copy = table;             \
  __host__ __device__ inline const Type& accessor() {                  \
    return CUNUM_TABLE_ON_THIS_SIDE(accessor##_device_copy, table);    \
  }
#else
#define CUNUM_CONSTANT_TABLE(Type, table, accessor) \
  inline const Type& accessor() { return table; }
#endif
