#pragma once
// Internal: the CUDA backend's host-side plan of its wall passes, shared by the backend
// and by the host test that checks it: which wall pass it runs for each AxisTransform
// (src/poisson_fft/poisson_layout.hpp; the test runs every pass around FFTW's real DFTs
// against FFTW's real-to-real kinds), and the axis orders of its coefficient array and
// of its division's rows.

#include <algorithm>
#include <array>
#include <cstdint>

#include "src/poisson_fft/poisson_layout.hpp"
#include "src/poisson_fft/wall_transforms.hpp"

namespace cunum::detail {

struct WallPassKind {
  WallLine line;
  bool dct3_forward;         // cosine: DCT-III forward, DCT-II back
  GridSide grid_side;
  std::int64_t length;       // the R2C's length (quarter_pairs: the reals of its C2C's n / 2 values)
  // The pass's coefficients are the transform's reversed (alternating signs): the
  // axis's eigenvalue table is reversed to match.
  bool reversed_coefficients;
};

//   sine_vertex            odd_extension, 2(n + 1)
//   cosine_vertex          even_extension, 2(n - 1)
//   cosine_cell            cosine, n
//   sine_cell              cosine, n, alternating (DST-II / DST-III)
//   cosine_quarter_vertex  cosine, n, DCT-III forward
//   sine_quarter_vertex    cosine, n, DCT-III forward, reversed (DST-III / DST-II)
//   cosine_quarter_cell    quarter_pairs, n (a C2C of n / 2); odd n or n = 2: quarter_cosine, 2n
//   sine_quarter_cell      the same, alternating (DST-IV)
inline WallPassKind wall_pass_kind(AxisTransform transform, std::int64_t n) {
  const bool alternating = transform == AxisTransform::sine_cell || transform == AxisTransform::sine_quarter_cell;
  const bool dct3_forward =
      transform == AxisTransform::cosine_quarter_vertex || transform == AxisTransform::sine_quarter_vertex;
  const GridSide side{alternating, transform == AxisTransform::sine_quarter_vertex};
  switch (transform) {
    case AxisTransform::sine_vertex: return {WallLine::odd_extension, false, side, 2 * (n + 1), false};
    case AxisTransform::cosine_vertex: return {WallLine::even_extension, false, side, 2 * (n - 1), false};
    case AxisTransform::sine_quarter_cell:
    case AxisTransform::cosine_quarter_cell:
      if (n % 2 == 0 && n >= 4) return {WallLine::quarter_pairs, false, side, n, alternating};
      return {WallLine::quarter_cosine, false, side, 2 * n, alternating};
    default: return {WallLine::cosine, dct3_forward, side, n, alternating};
  }
}

using AxisOrder = std::array<int, kPoissonAxes>;

// The coefficient array's axes, slowest first: the wall axes, then the periodic ones,
// each in grid order (so the periodic axes are one contiguous batched R2C).
inline AxisOrder coefficient_order(const PoissonLayout& layout) {
  AxisOrder order{};
  int count = 0;
  for (int w = 0; w < layout.wall_count; ++w) order[count++] = layout.walls[w];
  for (int a = 0; a < kPoissonAxes; ++a) {
    if (layout.boundaries[a] == PoissonBoundary::periodic) order[count++] = a;
  }
  return order;
}

// The axes of the division's rows, outer to inner (divide_kernel: a warp a row of the
// inner axis's modes): `order` with its one-point axes moved first. That moves no value
// (a one-point axis's index is always 0), but keeps a one-point axis from being the
// inner one: a 2-D grid's leading axis is periodic, so after two wall axes it came
// last, and a 4096^2 grid was divided as 16.8 million rows of one mode: a warp a mode,
// one lane busy, three 64-bit divisions to find its row (6.3 ms, 27x the periodic
// solve, H200).
inline AxisOrder division_order(const PoissonLayout& layout, const AxisOrder& order) {
  AxisOrder rows = order;
  std::stable_partition(rows.begin(), rows.end(), [&](int a) { return layout.shape[a] == 1; });
  return rows;
}

}  // namespace cunum::detail
