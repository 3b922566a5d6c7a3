#pragma once
// Test helpers: a naive Brownian bridge that follows the caller's order over a
// full array of points (no stack, no compiled strategy), normals, poisoning and
// element access in either layout.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include <curand.h>

#include "cunum/brownian_bridge.hpp"

namespace cunum::testing {

// The cuRAND generator of each Sobol sequence: the two-step routes the fused
// bridge is held against.
inline curandRngType_t curand_sobol_type(SobolSequence sequence) {
  switch (sequence) {
    case SobolSequence::sobol32: return CURAND_RNG_QUASI_SOBOL32;
    case SobolSequence::scrambled_sobol32: return CURAND_RNG_QUASI_SCRAMBLED_SOBOL32;
    case SobolSequence::sobol64: return CURAND_RNG_QUASI_SOBOL64;
    case SobolSequence::scrambled_sobol64: return CURAND_RNG_QUASI_SCRAMBLED_SOBOL64;
  }
  return CURAND_RNG_QUASI_SOBOL32;
}

struct BridgeSetup {
  double t0 = 0;
  double T = 1;
  std::vector<double> order;  // interior times in construction order
  int d = 1;
  std::vector<double> factor;  // lower triangular C, row-major
  std::vector<double> start;
  std::optional<std::vector<double>> end;
};

inline std::int64_t layout_index(BridgeLayout layout, std::int64_t paths, std::int64_t records,
                                 int d, std::int64_t p, std::int64_t r, int j) {
  return layout == BridgeLayout::path_fastest ? (r * d + j) * paths + p : (p * records + r) * d + j;
}

// Reference in double: returns X at t_1..t_N, T (records x d) for one path, with
// the Z record of caller step k read through z(record, j).
template <class ZAt>
std::vector<double> naive_path(const BridgeSetup& s, ZAt&& z) {
  std::vector<double> sorted = s.order;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  std::vector<double> times{s.t0};
  times.insert(times.end(), sorted.begin(), sorted.end());
  times.push_back(s.T);
  const int d = s.d;
  std::vector<double> x((n + 2) * d, 0.0);
  auto correlated = [&](std::int64_t record, int i) {
    double sum = 0;
    for (int j = 0; j <= i; ++j) sum += s.factor[i * d + j] * z(record, j);
    return sum;
  };
  for (int j = 0; j < d; ++j) x[j] = s.start[j];
  const std::int64_t offset = s.end ? -1 : 0;  // fixed end: caller step k reads record k - 1
  for (int j = 0; j < d; ++j) {
    x[(n + 1) * d + j] = s.end ? (*s.end)[j]
                               : s.start[j] + std::sqrt(s.T - s.t0) * correlated(0, j);
  }
  std::set<std::size_t> built{0, n + 1};
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t v =
        static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), s.order[k]) - sorted.begin()) + 1;
    const auto right_it = built.upper_bound(v);
    const std::size_t r = *right_it, l = *std::prev(right_it);
    const double tl = times[l], tr = times[r], tv = times[v];
    for (int j = 0; j < d; ++j) {
      x[v * d + j] = (tr - tv) / (tr - tl) * x[l * d + j] + (tv - tl) / (tr - tl) * x[r * d + j] +
                     std::sqrt((tr - tv) * (tv - tl) / (tr - tl)) *
                         correlated(static_cast<std::int64_t>(k) + 1 + offset, j);
    }
    built.insert(v);
  }
  return std::vector<double>(x.begin() + d, x.end());
}

// Scaled increments from a path produced by naive_path.
inline std::vector<double> naive_increments(const BridgeSetup& s, const std::vector<double>& path) {
  std::vector<double> sorted = s.order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> times{s.t0};
  times.insert(times.end(), sorted.begin(), sorted.end());
  times.push_back(s.T);
  std::vector<double> inc(path.size());
  const std::size_t records = path.size() / s.d;
  for (std::size_t i = 0; i < records; ++i) {
    for (int j = 0; j < s.d; ++j) {
      const double previous = i == 0 ? s.start[j] : path[(i - 1) * s.d + j];
      inc[i * s.d + j] = (path[i * s.d + j] - previous) / (times[i + 1] - times[i]);
    }
  }
  return inc;
}

template <class T>
std::vector<T> normals(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal;
  std::vector<T> values(n);
  for (auto& v : values) v = static_cast<T>(normal(engine));
  return values;
}

// Every byte 0xFF: a NaN pattern for float and double.
template <class T>
std::vector<T> poisoned(std::size_t n) {
  std::vector<T> values(n);
  std::memset(values.data(), 0xFF, n * sizeof(T));
  return values;
}

// A random lower-triangular factor with a positive diagonal.
inline std::vector<double> random_factor(int d, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  std::vector<double> c(static_cast<std::size_t>(d) * d, 0.0);
  for (int i = 0; i < d; ++i) {
    for (int j = 0; j < i; ++j) c[i * d + j] = u(engine);
    c[i * d + i] = 0.5 + std::fabs(u(engine));
  }
  return c;
}

// Random strictly increasing times in (t0, T).
inline std::vector<double> random_grid(std::size_t n, double t0, double T, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> u(0.2, 1.0);
  std::vector<double> gaps(n + 1);
  double total = 0;
  for (auto& g : gaps) total += (g = u(engine));
  std::vector<double> times(n);
  double t = t0;
  for (std::size_t i = 0; i < n; ++i) times[i] = (t += gaps[i] / total * (T - t0));
  return times;
}

}  // namespace cunum::testing
