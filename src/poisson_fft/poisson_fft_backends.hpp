#pragma once
// Internal: the entry points each Poisson backend provides; poisson_fft.cpp validates
// and dispatches. A backend is built once per solver from a validated layout and owns
// its FFT plans and work areas.

#include <cstddef>
#include <memory>

#include "cunum/core/placement.hpp"
#include "cunum/core/stream.hpp"
#include "src/poisson_fft/poisson_layout.hpp"

namespace cunum::detail {

template <class T>
class PoissonBackend {
 public:
  virtual ~PoissonBackend() = default;
  // Pointers validated for the backend; size() values each; may be equal.
  virtual void solve(const T* rhs, T* solution, StreamHandle stream) = 0;
  virtual std::size_t workspace_bytes() const noexcept = 0;
};

// FFTW (threads through OpenMP): host memory, synchronous.
template <class T>
std::unique_ptr<PoissonBackend<T>> make_poisson_cpu(const PoissonLayout& layout);

// cuFFT: device-accessible memory, asynchronous on the solve's stream; setup enqueued
// on placement.stream, every work area (the cuFFT plans' included) from
// placement.device_memory. Bound to the device current at construction (ErrorCode::no_device
// without one): solve throws Error(invalid_argument) naming 'this' when another is.
template <class T>
std::unique_ptr<PoissonBackend<T>> make_poisson_cuda(const PoissonLayout& layout, const Placement& placement);

// The `reject` rule: `sums` holds sum f and sum |f| of each problem of the batch,
// weighted as PoissonLayout::half_weight_ends says.
// @throws Error(invalid_argument) naming 'rhs' for the first problem whose sum |f| is
// not finite (f holds a NaN or an infinity) or whose |sum f| exceeds the tolerance
// times sum |f|. Both backends compute the sums only under this rule, so that no other
// mode pays for a check of its input.
void require_compatible(const PoissonLayout& layout, const double* sums, const char* routine);

}  // namespace cunum::detail
