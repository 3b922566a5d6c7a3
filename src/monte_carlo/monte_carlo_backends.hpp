#pragma once
// Internal: what load() forms (a batch's resident constants); the backends' entry
// points are in cunum/device/detail/monte_carlo_args.hpp, which callers' own payoff
// kernels (cunum/device/monte_carlo_payoff.cuh) share.

#include <cstdint>
#include <vector>

#include "cunum/core/device_buffer.hpp"
#include "cunum/monte_carlo.hpp"
#include "cunum/device/detail/monte_carlo_args.hpp"

namespace cunum {

// A loaded batch: the per-option constants, on the host (CPU backend) or the device.
template <class T>
struct MonteCarloBatch<T>::Data {
  std::int64_t size = 0;
  std::uint64_t first_stream = 0;
  Backend backend = Backend::cpu;
  int device = -1;
  MonteCarloPayoff payoff = MonteCarloPayoff::european;  // validated for it (barrier side)
  int dates = 1;                                         // its constants assume this grid
  std::vector<detail::OptionSetup<T>> host;                    // CPU backend
  std::vector<DeviceBuffer<detail::OptionSetup<T>>> resident;  // CUDA: one copy per device of the pricer
  std::vector<T> host_factor;                                  // multi-asset: the Cholesky factor (CPU)
  std::vector<DeviceBuffer<T>> resident_factor;                // CUDA: one copy per device
  std::vector<device::MrgMatrix> host_mrg;                     // MRG32k3a: the substream tables (CPU)
  std::vector<DeviceBuffer<device::MrgMatrix>> resident_mrg;   // CUDA: one copy per device
  // The constants as device `entry` of the pricer's list (0 on the CPU) reads them.
  const detail::OptionSetup<T>* setups(std::size_t entry = 0) const {
    return backend == Backend::cpu ? host.data() : resident[entry].data();
  }
  const device::MrgMatrix* mrg_tables(std::size_t entry = 0) const {
    if (host_mrg.empty() && resident_mrg.empty()) return nullptr;
    return backend == Backend::cpu ? host_mrg.data() : resident_mrg[entry].data();
  }
  const T* factor(std::size_t entry = 0) const {
    if (host_factor.empty() && resident_factor.empty()) return nullptr;
    return backend == Backend::cpu ? host_factor.data() : resident_factor[entry].data();
  }
};

}  // namespace cunum
