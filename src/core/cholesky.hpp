#pragma once
// Internal: the one Cholesky factorisation of cunum's small dense matrices (a
// Brownian bridge's covariance, a Monte Carlo pricer's correlation), so that both
// refuse the same matrices.
//
// The rule for a matrix that is not positive definite: column j's pivot (a_jj less the
// squares of the factor's row j so far) must exceed kCholeskyRelativePivot times a_jj.
// A pivot at or below that (or NaN) refuses the matrix: its variable j is, to twelve
// digits, a combination of the ones before, and the factor would amplify rounding by
// 1 / sqrt(pivot). Relative to a_jj, so the rule does not depend on the matrix's scale
// (a correlation's unit diagonal makes it pivot > 1e-12). Callers check symmetry and
// name the argument themselves.

#include <cmath>
#include <cstddef>
#include <vector>

namespace cunum::detail {

constexpr double kCholeskyRelativePivot = 1e-12;

// The lower factor L of the symmetric n x n row-major matrix `a` (its lower triangle is
// read), L L^T = a, into `factor` (n x n row-major, zeros above the diagonal).
// @return -1, or the first column whose pivot breaks the rule (`factor` is then partial)
inline std::ptrdiff_t cholesky_lower(const std::vector<double>& a, std::size_t n, std::vector<double>& factor) {
  factor.assign(n * n, 0.0);
  for (std::size_t j = 0; j < n; ++j) {
    double pivot = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k) pivot -= factor[j * n + k] * factor[j * n + k];
    if (!(pivot > kCholeskyRelativePivot * a[j * n + j])) return static_cast<std::ptrdiff_t>(j);
    factor[j * n + j] = std::sqrt(pivot);
    for (std::size_t i = j + 1; i < n; ++i) {
      double value = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) value -= factor[i * n + k] * factor[j * n + k];
      factor[i * n + j] = value / factor[j * n + j];
    }
  }
  return -1;
}

}  // namespace cunum::detail
