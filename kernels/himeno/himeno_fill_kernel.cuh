#pragma once
// Internal: the benchmark's fields computed in place on the device (no host copy of 14
// large arrays), and a caller's coefficient array put in its places among the grouped
// coefficients (kernels/himeno/himeno_launch.hpp): grid-stride kernels templated on
// their policy (src/himeno/himeno_policy.hpp).

#include <cstdint>

#include "kernels/himeno/himeno_launch.hpp"
#include "src/himeno/himeno_backends.hpp"
#include "src/himeno/himeno_stencil.hpp"

namespace cunum::detail {

template <class Policy, class T>
__global__ void __launch_bounds__(Policy::block_threads)
    himeno_fill_kernel(HimenoBox box, std::int64_t stride, T* fields) {
  const HimenoCoefficients<T> q = himeno_benchmark_coefficients<T>();
  const std::int64_t plane_points = box.plane_points();
  const std::int64_t step = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t x = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; x < box.points(); x += step) {
    for (int c = 0; c < kHimenoCoefficientArrays; ++c) {
      fields[himeno_coefficient_slot<T>(c, x, stride)] = himeno_coefficient(q, c);
    }
    const T p = himeno_initial_pressure<T>(box.first_plane + x / plane_points, box.global_nx);
    for (int a = 0; a < kHimenoPressureArrays; ++a) fields[(kHimenoCoefficientArrays + a) * stride + x] = p;
  }
}

template <class Policy, class T>
__global__ void __launch_bounds__(Policy::block_threads)
    himeno_group_coefficient_kernel(std::int64_t points, std::int64_t stride, int index, const T* values, T* fields) {
  const std::int64_t step = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t x = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; x < points; x += step) {
    fields[himeno_coefficient_slot<T>(index, x, stride)] = values[x];
  }
}

}  // namespace cunum::detail
