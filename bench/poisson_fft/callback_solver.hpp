#pragma once
// A bench experiment: the periodic Poisson solve as two cuFFT transforms, the
// spectral division folded into the R2C transform as an LTO store callback
// (divide_callback.cu), against which the library's three-pass solve is timed.

#include <cufft.h>

#include <string>

#include "cunum/core/device_buffer.hpp"
#include "cunum/poisson_fft.hpp"
#include "divide_callback.hpp"

template <class T>
class CallbackPoissonSolver {
 public:
  // Plans for a periodic grid (spectral, alpha = 0, zero mean). Where cuFFT refuses
  // the callback (no LTO support, a failed JIT link) available() is false and why()
  // says which call failed with which status.
  CallbackPoissonSolver(const cunum::PoissonGrid& grid, cunum::StreamHandle stream);
  ~CallbackPoissonSolver();
  CallbackPoissonSolver(const CallbackPoissonSolver&) = delete;
  CallbackPoissonSolver& operator=(const CallbackPoissonSolver&) = delete;

  bool available() const noexcept { return why_.empty(); }
  const std::string& why() const noexcept { return why_; }
  // R2C with the division in its store, then C2R; asynchronous on the constructor's stream.
  void solve(const T* rhs, T* solution);

 private:
  bool succeeded(cufftResult status, const char* call);

  cunum::DeviceBuffer<T> eigenvalues_;
  cunum::DeviceBuffer<PoissonDivideInfo> info_;
  cunum::DeviceBuffer<T> spectrum_;  // interleaved real and imaginary parts
  cufftHandle forward_ = 0;
  cufftHandle inverse_ = 0;
  std::string why_;
};
