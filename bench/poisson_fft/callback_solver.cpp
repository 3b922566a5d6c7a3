// The LTO-callback Poisson solve of callback_solver.hpp.

#include "callback_solver.hpp"

#include <cufftXt.h>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "poisson_divide_callback_fatbin.h"
#include "src/poisson_fft/poisson_layout.hpp"

template <class T>
CallbackPoissonSolver<T>::CallbackPoissonSolver(const cunum::PoissonGrid& grid, cunum::StreamHandle stream) {
  const cunum::detail::PoissonLayout layout = cunum::detail::make_poisson_layout<T>(grid, {});
  const std::vector<T> tables(layout.eigenvalues.begin(), layout.eigenvalues.end());
  eigenvalues_ = cunum::DeviceBuffer<T>(tables.size(), stream);
  eigenvalues_.copy_from_host(tables.data(), tables.size());
  PoissonDivideInfo info{};
  for (int a = 0; a < cunum::detail::kPoissonAxes; ++a) {
    info.eigenvalues[a] = eigenvalues_.data() + layout.eigen_offset[a];
    info.extended[a] = layout.extended[a];
  }
  info.half_last = layout.spectrum_shape[cunum::detail::kPoissonAxes - 1];  // periodic grids only: the halved axis
  info.screening = layout.screening;
  info.scale = 1.0 / static_cast<double>(layout.pair_factor);
  info_ = cunum::DeviceBuffer<PoissonDivideInfo>(1, stream);
  info_.copy_from_host(&info, 1);
  spectrum_ = cunum::DeviceBuffer<T>(static_cast<std::size_t>(2 * layout.batch * layout.modes), stream);

  std::vector<long long> dims(grid.shape.begin(), grid.shape.end());
  constexpr bool is_float = std::is_same_v<T, float>;
  std::size_t bytes = 0;
  void* caller_info = info_.data();
  // Each step runs only while the previous ones succeeded; why_ keeps the first failure.
  static_cast<void>(
      succeeded(cufftCreate(&forward_), "cufftCreate") && succeeded(cufftCreate(&inverse_), "cufftCreate") &&
      succeeded(cufftXtSetJITCallback(forward_,
                                      is_float ? CUNUM_POISSON_DIVIDE_STORE_FLOAT : CUNUM_POISSON_DIVIDE_STORE_DOUBLE,
                                      poisson_divide_callback_fatbin, sizeof(poisson_divide_callback_fatbin),
                                      is_float ? CUFFT_CB_ST_COMPLEX : CUFFT_CB_ST_COMPLEX_DOUBLE, &caller_info),
                "cufftXtSetJITCallback") &&
      succeeded(cufftMakePlanMany64(forward_, static_cast<int>(dims.size()), dims.data(), nullptr, 1, 0, nullptr, 1, 0,
                                    is_float ? CUFFT_R2C : CUFFT_D2Z, layout.batch, &bytes),
                "cufftMakePlanMany64 (R2C with the callback)") &&
      succeeded(cufftMakePlanMany64(inverse_, static_cast<int>(dims.size()), dims.data(), nullptr, 1, 0, nullptr, 1, 0,
                                    is_float ? CUFFT_C2R : CUFFT_Z2D, layout.batch, &bytes),
                "cufftMakePlanMany64 (C2R)") &&
      succeeded(cufftSetStream(forward_, stream), "cufftSetStream") &&
      succeeded(cufftSetStream(inverse_, stream), "cufftSetStream"));
}

template <class T>
CallbackPoissonSolver<T>::~CallbackPoissonSolver() {
  if (forward_ != 0) cufftDestroy(forward_);
  if (inverse_ != 0) cufftDestroy(inverse_);
}

template <class T>
bool CallbackPoissonSolver<T>::succeeded(cufftResult status, const char* call) {
  if (status == CUFFT_SUCCESS) return true;
  why_ = std::string(call) + " returned cufftResult " + std::to_string(static_cast<int>(status));
  return false;
}

template <class T>
void CallbackPoissonSolver<T>::solve(const T* rhs, T* solution) {
  cufftResult status;
  if constexpr (std::is_same_v<T, float>) {
    auto* spectrum = reinterpret_cast<cufftComplex*>(spectrum_.data());
    status = cufftExecR2C(forward_, const_cast<float*>(rhs), spectrum);
    if (status == CUFFT_SUCCESS) status = cufftExecC2R(inverse_, spectrum, solution);
  } else {
    auto* spectrum = reinterpret_cast<cufftDoubleComplex*>(spectrum_.data());
    status = cufftExecD2Z(forward_, const_cast<double*>(rhs), spectrum);
    if (status == CUFFT_SUCCESS) status = cufftExecZ2D(inverse_, spectrum, solution);
  }
  if (status != CUFFT_SUCCESS) {
    throw std::runtime_error("LTO-callback solve: cufftExec returned cufftResult " +
                             std::to_string(static_cast<int>(status)));
  }
}

template class CallbackPoissonSolver<float>;
template class CallbackPoissonSolver<double>;
