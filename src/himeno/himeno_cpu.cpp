// The Himeno CPU backend (OpenMP): the published serial algorithm's sweep, with the
// point update shared with the GPU (himeno_stencil.hpp) and gosa accumulated in double.
// Each plane's gosa is summed by one thread in (j, k) order and the planes are added
// in order, so gosa does not depend on the thread count. A pass of several sweeps
// (HimenoBackend::sweep) keeps its intermediate sweeps in two scratch pressure arrays,
// so that it runs the slabs' deep-halo sequence as the GPU does.

#include <algorithm>
#include <cstring>
#include <vector>

#include "src/core/instantiate.hpp"
#include "src/himeno/himeno_backends.hpp"
#include "src/himeno/himeno_stencil.hpp"

namespace cunum::detail {
namespace {

template <class T>
class HimenoCpu final : public HimenoBackend<T> {
 public:
  HimenoCpu(const HimenoBox& box, const HimenoFieldSource<T>& source, double omega)
      : box_(box), omega_(static_cast<T>(omega)), plane_gosa_(static_cast<std::size_t>(box.planes)) {
    const std::size_t points = static_cast<std::size_t>(box.points());
    for (auto& array : coefficients_) array.resize(points);
    current_.resize(points);
    if (source.fields == nullptr) {
      fill_benchmark_fields();
    } else {
      for (int c = 0; c < kHimenoCoefficientArrays; ++c) {
        const T* from = himeno_coefficient_array(*source.fields, c) + source.offset;
        std::copy(from, from + points, coefficients_[c].begin());
      }
      const T* from = source.fields->pressure + source.offset;
      std::copy(from, from + points, current_.begin());
    }
    next_ = current_;  // the boundary points, which sweeps never write, in both arrays
  }

  void sweep(int sweeps, std::int64_t begin, std::int64_t end, int slot, StreamHandle) override {
    if (sweeps > 1 && scratch_[0].empty()) {
      // Copies of the pressure for their boundary points, which no sweep writes.
      scratch_[0] = current_;
      scratch_[1] = current_;
    }
    const T* from = current_.data();
    for (int t = 1; t <= sweeps; ++t) {
      T* to = t == sweeps ? next_.data() : scratch_[t % 2].data();
      const std::int64_t reach = sweeps - t;
      sweep_once(from, to, std::max<std::int64_t>(1, begin - reach), std::min(box_.planes - 1, end + reach));
      from = to;
    }
    double gosa = 0.0;
    for (std::int64_t i = begin; i < end; ++i) gosa += plane_gosa_[static_cast<std::size_t>(i)];
    gosa_[slot] = gosa;
  }

  void swap() noexcept override { current_.swap(next_); }

  double gosa(int slots, StreamHandle) override {
    double total = 0.0;
    for (int s = 0; s < slots; ++s) total += gosa_[s];
    return total;
  }

  void copy_pressure(T* host, StreamHandle) const override {
    std::memcpy(host, current_.data(), current_.size() * sizeof(T));
  }

  T* pressure_plane(bool next, std::int64_t plane) noexcept override {
    return (next ? next_ : current_).data() + plane * box_.plane_points();
  }


 private:
  void fill_benchmark_fields() {
    const HimenoCoefficients<T> q = himeno_benchmark_coefficients<T>();
    for (int c = 0; c < kHimenoCoefficientArrays; ++c) {
      std::fill(coefficients_[c].begin(), coefficients_[c].end(), himeno_coefficient(q, c));
    }
    const std::int64_t plane_points = box_.plane_points();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < box_.planes; ++i) {
      const T value = himeno_initial_pressure<T>(box_.first_plane + i, box_.global_nx);
      std::fill_n(current_.data() + i * plane_points, plane_points, value);
    }
  }

  // Reads p(i + di, j + dj, k + dk) of the current pressure around one point.
  struct Neighbourhood {
    const T* centre;
    std::int64_t plane_stride;
    std::int64_t row_stride;
    T operator()(int di, int dj, int dk) const { return centre[di * plane_stride + dj * row_stride + dk]; }
  };

  // One sweep of planes [begin, end) of pressure `p` into `next`.
  void sweep_once(const T* p, T* next, std::int64_t begin, std::int64_t end) {
    const std::int64_t ny = box_.ny;
    const std::int64_t nz = box_.nz;
    const T* const* q = coefficient_pointers();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = begin; i < end; ++i) {
      double gosa = 0.0;
      for (std::int64_t j = 1; j < ny - 1; ++j) {
        const std::int64_t row = (i * ny + j) * nz;
        for (std::int64_t k = 1; k < nz - 1; ++k) {
          const std::int64_t x = row + k;
          const HimenoCoefficients<T> coefficients{q[0][x], q[1][x], q[2][x], q[3][x],  q[4][x],  q[5][x],
                                                   q[6][x], q[7][x], q[8][x], q[9][x], q[10][x], q[11][x]};
          const T ss = himeno_update(coefficients, Neighbourhood{p + x, ny * nz, nz});
          gosa += static_cast<double>(ss) * static_cast<double>(ss);
          next[x] = p[x] + omega_ * ss;
        }
      }
      plane_gosa_[static_cast<std::size_t>(i)] = gosa;
    }
  }

  const T* const* coefficient_pointers() {
    for (int c = 0; c < kHimenoCoefficientArrays; ++c) pointers_[c] = coefficients_[c].data();
    return pointers_;
  }

  HimenoBox box_;
  T omega_;
  std::vector<T> coefficients_[kHimenoCoefficientArrays];
  const T* pointers_[kHimenoCoefficientArrays] = {};
  std::vector<T> current_;
  std::vector<T> next_;
  std::vector<T> scratch_[2];  // a pass's intermediate sweeps, once a pass has several
  std::vector<double> plane_gosa_;
  double gosa_[kHimenoGosaSlots] = {};
};

}  // namespace

template <class T>
std::unique_ptr<HimenoBackend<T>> make_himeno_cpu(const HimenoBox& box, const HimenoFieldSource<T>& source,
                                                  double omega) {
  return std::make_unique<HimenoCpu<T>>(box, source, omega);
}

#define CUNUM_INSTANTIATE_MAKE_HIMENO_CPU(T) \
  template std::unique_ptr<HimenoBackend<T>> make_himeno_cpu(const HimenoBox&, const HimenoFieldSource<T>&, double);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_MAKE_HIMENO_CPU, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
