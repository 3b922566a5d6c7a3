#pragma once
// Internal: the 64-bit product of two 32-bit words, for the generators' arithmetic
// (cunum/device/philox.hpp, cunum/device/mrg32k3a.hpp).
//
// On the device it is PTX's mul.wide.u32 (one wide multiply, fused with a following
// 64-bit addition into a multiply-add): written as a 64-bit product of zero-extended
// words, it is left a 64 x 64-bit multiplication, and the compiler then carries the
// zero high halves through the generators' arithmetic, an addition of zero or more a
// product.

#include <cstdint>

#include "cunum/device/detail/host_device.hpp"

namespace cunum::detail {

CUNUM_HOST_DEVICE inline std::uint64_t wide_product(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  std::uint64_t product;
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(product) : "r"(a), "r"(b));
  return product;
#else
  return std::uint64_t{a} * b;
#endif
}

}  // namespace cunum::detail
