#pragma once
// Internal: one Jacobi point update of the Himeno stencil, shared by the CPU backend
// and the CUDA kernels so that both evaluate the same expression in the same order:
// the published serial C code's (himenobmtxpa.c, jacobi()), term by term.

#include "cunum/device/detail/host_device.hpp"

namespace cunum::detail {

// The twelve coefficient arrays, in HimenoCoefficients' order.
constexpr int kHimenoCoefficientArrays = 12;

// The twelve coefficients of one point, in the benchmark's names.
template <class T>
struct HimenoCoefficients {
  T a0, a1, a2, a3, b0, b1, b2, c0, c1, c2, wrk1, bnd;
};

// Coefficient `index` of `q`, in the arrays' order.
template <class T>
CUNUM_HOST_DEVICE inline T himeno_coefficient(const HimenoCoefficients<T>& q, int index) {
  const T values[kHimenoCoefficientArrays] = {q.a0, q.a1, q.a2, q.a3, q.b0, q.b1, q.b2, q.c0, q.c1, q.c2, q.wrk1, q.bnd};
  return values[index];
}

// `p(di, dj, dk)` reads the previous pressure at (i + di, j + dj, k + dk).
// Returns ss; the new pressure is p(0,0,0) + omega * ss and gosa adds ss * ss.
template <class T, class Pressure>
CUNUM_HOST_DEVICE inline T himeno_update(const HimenoCoefficients<T>& q, const Pressure& p) {
  const T s0 = q.a0 * p(1, 0, 0) + q.a1 * p(0, 1, 0) + q.a2 * p(0, 0, 1) +
               q.b0 * (p(1, 1, 0) - p(1, -1, 0) - p(-1, 1, 0) + p(-1, -1, 0)) +
               q.b1 * (p(0, 1, 1) - p(0, -1, 1) - p(0, 1, -1) + p(0, -1, -1)) +
               q.b2 * (p(1, 0, 1) - p(-1, 0, 1) - p(1, 0, -1) + p(-1, 0, -1)) + q.c0 * p(-1, 0, 0) +
               q.c1 * p(0, -1, 0) + q.c2 * p(0, 0, -1) + q.wrk1;
  return (s0 * q.a3 - p(0, 0, 0)) * q.bnd;
}

// The benchmark's fields (main() of the C code): a = (1, 1, 1, 1/6), b = 0, c = 1,
// wrk1 = 0, bnd = 1, and the initial pressure at global plane i computed as the C code
// does in single precision, (float)(i*i) / (float)((nx-1)*(nx-1)), in T.
template <class T>
CUNUM_HOST_DEVICE inline HimenoCoefficients<T> himeno_benchmark_coefficients() {
  return {T(1), T(1), T(1), static_cast<T>(1.0 / 6.0), T(0), T(0), T(0), T(1), T(1), T(1), T(0), T(1)};
}

template <class T>
CUNUM_HOST_DEVICE inline T himeno_initial_pressure(long long i, long long nx) {
  return static_cast<T>(i * i) / static_cast<T>((nx - 1) * (nx - 1));
}

}  // namespace cunum::detail
