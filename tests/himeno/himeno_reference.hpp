#pragma once
// The published serial algorithm (Himeno benchmark 3.0, C edition, himenobmtxpa.c:
// jacobi() and the fields main() sets), transcribed loop for loop with the C code's
// names, gosa accumulated in double: the truth the backends are held to. Also the
// caller fields the tests draw at random.

#include <cmath>
#include <cstdint>
#include <vector>

#include "cunum/himeno.hpp"
#include "test_support.hpp"

namespace cunum::testing {

template <class T>
struct HimenoArrays {
  std::int64_t mrows = 0, mcols = 0, mdeps = 0;
  std::vector<T> a[4], b[3], c[3], bnd, wrk1, p;

  std::int64_t at(std::int64_t i, std::int64_t j, std::int64_t k) const { return (i * mcols + j) * mdeps + k; }

  HimenoFields<T> fields() const {
    HimenoFields<T> f;
    for (int n = 0; n < 4; ++n) f.a[n] = a[n].data();
    for (int n = 0; n < 3; ++n) f.b[n] = b[n].data();
    for (int n = 0; n < 3; ++n) f.c[n] = c[n].data();
    f.bnd = bnd.data();
    f.wrk1 = wrk1.data();
    f.pressure = p.data();
    return f;
  }
};

// main(): mat_set_init(&p), mat_set(&bnd, 0, 1.0), ..., mat_set(&c, 2, 1.0).
template <class T>
HimenoArrays<T> himeno_benchmark_arrays(const HimenoGrid& grid) {
  HimenoArrays<T> m;
  m.mrows = grid.nx;
  m.mcols = grid.ny;
  m.mdeps = grid.nz;
  const std::size_t n = static_cast<std::size_t>(grid.points());
  for (int l = 0; l < 4; ++l) m.a[l].assign(n, l == 3 ? static_cast<T>(1.0 / 6.0) : T(1));
  for (int l = 0; l < 3; ++l) m.b[l].assign(n, T(0));
  for (int l = 0; l < 3; ++l) m.c[l].assign(n, T(1));
  m.bnd.assign(n, T(1));
  m.wrk1.assign(n, T(0));
  m.p.resize(n);
  for (std::int64_t i = 0; i < m.mrows; ++i)
    for (std::int64_t j = 0; j < m.mcols; ++j)
      for (std::int64_t k = 0; k < m.mdeps; ++k)
        m.p[m.at(i, j, k)] = static_cast<T>(i * i) / static_cast<T>((m.mrows - 1) * (m.mrows - 1));
  return m;
}

// Random fields that keep the iteration bounded: a3 = 1/(sum of the neighbour
// weights) as in the benchmark, the other weights in [0.5, 1.5), cross terms b small,
// bnd in {0, 1}, a source wrk1 and an initial pressure in [-1, 1).
template <class T>
HimenoArrays<T> himeno_random_arrays(const HimenoGrid& grid, std::uint64_t stream_id) {
  HimenoArrays<T> m;
  m.mrows = grid.nx;
  m.mcols = grid.ny;
  m.mdeps = grid.nz;
  const std::size_t n = static_cast<std::size_t>(grid.points());
  const auto uniform = [&](std::uint64_t id, T low, T high) {
    std::vector<T> v = random_vector<T>(n, stream_id * 64 + id);
    for (T& x : v) x = low + (high - low) * (x + T(1)) / T(2);
    return v;
  };
  for (int l = 0; l < 3; ++l) m.a[l] = uniform(l, T(0.5), T(1.5));
  for (int l = 0; l < 3; ++l) m.b[l] = uniform(3 + l, T(-0.05), T(0.05));
  for (int l = 0; l < 3; ++l) m.c[l] = uniform(6 + l, T(0.5), T(1.5));
  m.a[3].resize(n);
  for (std::size_t x = 0; x < n; ++x) {
    m.a[3][x] = T(1) / (m.a[0][x] + m.a[1][x] + m.a[2][x] + m.c[0][x] + m.c[1][x] + m.c[2][x]);
  }
  m.bnd = uniform(9, T(0), T(1));
  for (T& x : m.bnd) x = x < T(0.9) ? T(1) : T(0);
  m.wrk1 = uniform(10, T(-0.1), T(0.1));
  m.p = uniform(11, T(-1), T(1));
  return m;
}

// jacobi(nn, ...): returns gosa of the last sweep (in double, summed in the loop
// order); p holds the result.
template <class T>
double himeno_serial_jacobi(int nn, HimenoArrays<T>& m, T omega = T(0.8)) {
  const std::int64_t imax = m.mrows - 1, jmax = m.mcols - 1, kmax = m.mdeps - 1;
  std::vector<T> wrk2 = m.p;
  double gosa = 0.0;
  const auto P = [&](std::int64_t i, std::int64_t j, std::int64_t k) { return m.p[m.at(i, j, k)]; };
  for (int n = 0; n < nn; ++n) {
    gosa = 0.0;
    for (std::int64_t i = 1; i < imax; ++i)
      for (std::int64_t j = 1; j < jmax; ++j)
        for (std::int64_t k = 1; k < kmax; ++k) {
          const std::int64_t x = m.at(i, j, k);
          const T s0 = m.a[0][x] * P(i + 1, j, k) + m.a[1][x] * P(i, j + 1, k) + m.a[2][x] * P(i, j, k + 1) +
                       m.b[0][x] * (P(i + 1, j + 1, k) - P(i + 1, j - 1, k) - P(i - 1, j + 1, k) + P(i - 1, j - 1, k)) +
                       m.b[1][x] * (P(i, j + 1, k + 1) - P(i, j - 1, k + 1) - P(i, j + 1, k - 1) + P(i, j - 1, k - 1)) +
                       m.b[2][x] * (P(i + 1, j, k + 1) - P(i - 1, j, k + 1) - P(i + 1, j, k - 1) + P(i - 1, j, k - 1)) +
                       m.c[0][x] * P(i - 1, j, k) + m.c[1][x] * P(i, j - 1, k) + m.c[2][x] * P(i, j, k - 1) +
                       m.wrk1[x];
          const T ss = (s0 * m.a[3][x] - P(i, j, k)) * m.bnd[x];
          gosa += static_cast<double>(ss) * static_cast<double>(ss);
          wrk2[x] = P(i, j, k) + omega * ss;
        }
    for (std::int64_t i = 1; i < imax; ++i)
      for (std::int64_t j = 1; j < jmax; ++j)
        for (std::int64_t k = 1; k < kmax; ++k) m.p[m.at(i, j, k)] = wrk2[m.at(i, j, k)];
  }
  return gosa;
}

// max |x - y| / max(1, max |y|).
template <class T>
double max_relative_difference(const std::vector<T>& x, const std::vector<T>& y) {
  double difference = 0.0, scale = 1.0;
  for (std::size_t n = 0; n < x.size(); ++n) {
    difference = std::fmax(difference, std::fabs(static_cast<double>(x[n]) - static_cast<double>(y[n])));
    scale = std::fmax(scale, std::fabs(static_cast<double>(y[n])));
  }
  return difference / scale;
}

}  // namespace cunum::testing
