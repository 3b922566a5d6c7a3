#pragma once
/// @file
/// cunum::Placement: where a plan runs and where its memory comes from. Every plan
/// class takes one as the last argument of its constructors.

#include <vector>

#include "cunum/core/backend.hpp"
#include "cunum/core/memory_resource.hpp"
#include "cunum/core/stream.hpp"

namespace cunum {

/// Where a plan runs and where its memory comes from: the last argument of every
/// plan constructor (Reducer, BrownianBridge, BlackScholesPricer, MonteCarloPricer,
/// MonteCarloDistributed, PoissonSolver, RandomGenerator, HimenoProblem,
/// HimenoDistributed). The constructor resolves it once; the plan's placement()
/// returns the resolved form: backend cpu or cuda, and for CUDA the devices and
/// both resources filled in.
///
///     cunum::Reducer<float> on_host(cunum::Backend::cpu);             // a Backend converts
///     cunum::PoissonSolver<double> solver(grid, {}, {cunum::Backend::cuda, stream});
///     cunum::Placement two_gpus(cunum::Backend::cuda);
///     two_gpus.devices = {0, 1};                                       // MonteCarloPricer, HimenoProblem
///
/// CPU backend: `stream` and the resources are ignored and `devices` must be empty.
struct Placement {
  /// Where the plan runs. `automatic` resolves as resolve_backend() does, except that
  /// a non-empty `devices` list asks for CUDA.
  Backend backend = Backend::automatic;
  /// CUDA: the stream the plan's one-time setup (allocation, uploads, tables) is
  /// enqueued on, and on which its destructor frees that memory. The constructor
  /// waits only where the plan's documentation says so. BrownianBridge alone sets up
  /// on a stream of cunum's own instead (its constructor says why). A plan is made
  /// outside CUDA graph captures: a stream being captured is refused with
  /// ErrorCode::not_supported, before anything is allocated (the setup, and the memory
  /// the plan keeps, would belong to the graph).
  StreamHandle stream = nullptr;
  /// CUDA: the devices the plan runs on. Empty: the device current when the plan is
  /// made. Plans that run on one device take at most one entry (the plan is then
  /// made on that device, and its calls must be made with it current); only
  /// MonteCarloPricer and HimenoProblem spread their work over several.
  std::vector<int> devices;
  /// CUDA: where every device allocation the plan makes comes from, at construction
  /// and per call. nullptr: current_device_resource() when the plan is made. The
  /// state CUDA libraries allocate for themselves (cuRAND generators, cuFFT plans'
  /// own tables) does not come from it.
  DeviceMemoryResource* device_memory = nullptr;
  /// CUDA: where the page-locked host memory the plan keeps (staging buffers) comes
  /// from. nullptr: pinned_memory_resource().
  HostMemoryResource* pinned_memory = nullptr;

  Placement() = default;
  /// Implicit, so that a Backend, or a backend and a stream in braces, reads as a Placement.
  Placement(Backend backend, StreamHandle stream = nullptr) : backend(backend), stream(stream) {}  // NOLINT
};

}  // namespace cunum
