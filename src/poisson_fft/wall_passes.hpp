#pragma once
// Internal: which wall pass the CUDA backend runs for each AxisTransform
// (src/poisson_fft/poisson_layout.hpp), shared by the backend and by the host test that
// runs every pass around FFTW's real DFTs against FFTW's real-to-real kinds.

#include <cstdint>

#include "src/poisson_fft/poisson_layout.hpp"
#include "src/poisson_fft/wall_transforms.hpp"

namespace cunum::detail {

struct WallPassKind {
  WallLine line;
  bool dct3_forward;         // cosine: DCT-III forward, DCT-II back
  GridSide grid_side;
  std::int64_t length;       // the R2C's length
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
//   cosine_quarter_cell    quarter_cosine, 2n
//   sine_quarter_cell      quarter_cosine, 2n, alternating (DST-IV)
inline WallPassKind wall_pass_kind(AxisTransform transform, std::int64_t n) {
  const bool alternating = transform == AxisTransform::sine_cell || transform == AxisTransform::sine_quarter_cell;
  const bool dct3_forward =
      transform == AxisTransform::cosine_quarter_vertex || transform == AxisTransform::sine_quarter_vertex;
  const GridSide side{alternating, transform == AxisTransform::sine_quarter_vertex};
  switch (transform) {
    case AxisTransform::sine_vertex: return {WallLine::odd_extension, false, side, 2 * (n + 1), false};
    case AxisTransform::cosine_vertex: return {WallLine::even_extension, false, side, 2 * (n - 1), false};
    case AxisTransform::sine_quarter_cell:
    case AxisTransform::cosine_quarter_cell: return {WallLine::quarter_cosine, false, side, 2 * n, alternating};
    default: return {WallLine::cosine, dct3_forward, side, n, alternating};
  }
}

}  // namespace cunum::detail
