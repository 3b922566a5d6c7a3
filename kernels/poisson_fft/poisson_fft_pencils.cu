// Poisson solver, CUDA backend: the launchers of the pencil kernels
// (kernels/poisson_fft/pencil_fft.cuh), declared in kernels/poisson_fft/poisson_fft_launch.hpp;
// a file of their own because their instantiations (every pencil length, both
// precisions, every stage) are most of the module's compile time. Each picks the policy
// for the device's architecture and the pencil length (src/poisson_fft/poisson_fft_policy.hpp),
// tiles the shape and launches a block a tile.

#include <cstdint>
#include <type_traits>

#include "kernels/common/launch.cuh"
#include "kernels/poisson_fft/pencil_fft.cuh"
#include "kernels/poisson_fft/poisson_fft_kernel.cuh"
#include "kernels/poisson_fft/poisson_fft_launch.hpp"
#include "src/core/instantiate.hpp"
#include "src/poisson_fft/poisson_fft_policy.hpp"

namespace cunum::detail {

namespace {

// The shape with its tiles of Policy::pencils units a problem.
template <class Policy>
PencilShape with_tiles(PencilShape shape) {
  shape.tiles = (shape.pencils + Policy::pencils - 1) / Policy::pencils;
  return shape;
}

// A block a tile of a shape with its tiles set.
template <class Policy>
LaunchConfig pencil_launch(const PencilShape& shape, const char* name, StreamHandle stream) {
  return {grid_1d(shape.problems * shape.tiles, name), dim3(Policy::block_threads), Policy::shared_bytes, stream};
}

template <class T>
const PencilValue<T>* pencil_values(const PoissonComplex<T>* values) {
  return reinterpret_cast<const PencilValue<T>*>(values);
}

// Calls f(PolicyTag<Policy>{}) with the pencil policy that the chain `Policies` gives
// the device's architecture for pencils of `length` complex T; nothing for a length that
// is not a pencil length (the backend plans pencils only for those).
template <class Policies, class T, class F>
void with_pencil_policy(const PoissonDevice& device, std::int64_t length, F&& f) {
  Policies::dispatch(device.arch, [&](auto tag) {
    using Tuning = typename decltype(tag)::type;
    with_pencil_length(length, [&](auto pencil_length) {
      f(PolicyTag<PencilPolicyFor<Tuning, T, decltype(pencil_length)::value>>{});
    });
  });
}

// Calls f(std::integral_constant<WallStage, stage>{}): a kernel template's stage from the
// run-time one.
template <class F>
void with_wall_stage(WallStage stage, F&& f) {
  switch (stage) {
    case WallStage::forward:
      return f(std::integral_constant<WallStage, WallStage::forward>{});
    case WallStage::turnaround:
      return f(std::integral_constant<WallStage, WallStage::turnaround>{});
    case WallStage::inverse:
      return f(std::integral_constant<WallStage, WallStage::inverse>{});
  }
}

}  // namespace

template <class T>
void launch_poisson_pencil_turnaround(const PoissonDevice& device, std::int64_t length,
                                      const SpectralTables<T>& division, PencilShape shape,
                                      const PoissonComplex<T>* twiddles, PoissonComplex<T>* spectrum,
                                      StreamHandle stream) {
  with_pencil_policy<PoissonPencilPolicies, T>(device, length, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const char* name = "poisson_pencil_turnaround_kernel";
    const PencilShape tiled = with_tiles<Policy>(shape);
    launch_kernel(pencil_turnaround_kernel<Policy, SpectralDivision<T>>, name, pencil_launch<Policy>(tiled, name, stream),
                  spectral_division(division), tiled, pencil_values(twiddles),
                  reinterpret_cast<PencilValue<T>*>(spectrum));
  });
}

template <class T>
void launch_poisson_cosine_pencils(const PoissonDevice& device, WallStage stage, std::int64_t length,
                                   const SpectralTables<T>& division, PencilShape shape,
                                   const PoissonComplex<T>* twiddles, const PoissonComplex<T>* quarter_twiddles,
                                   GridSide grid_side, bool dct3_first, const PencilFold<T>& fold, const T* source,
                                   T* target, StreamHandle stream) {
  with_pencil_policy<PoissonWallPencilPolicies, T>(device, length, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const char* name = "poisson_cosine_pencil_kernel";
    const PencilShape tiled = with_tiles<Policy>(shape);
    const auto launch = [&](auto kernel) {
      launch_kernel(kernel, name, pencil_launch<Policy>(tiled, name, stream), spectral_division(division), tiled,
                    pencil_values(twiddles), pencil_values(quarter_twiddles), grid_side, fold, source, target);
    };
    with_wall_stage(stage, [&](auto tag) {
      constexpr WallStage kStage = decltype(tag)::value;
      if constexpr (kStage == WallStage::turnaround) {
        if (dct3_first) return launch(cosine_pencil_kernel<Policy, kStage, SpectralDivision<T>, true>);
      }
      launch(cosine_pencil_kernel<Policy, kStage, SpectralDivision<T>>);
    });
  });
}

template <class T>
void launch_poisson_quarter_pencils(const PoissonDevice& device, WallStage stage, std::int64_t length,
                                    const SpectralTables<T>& division, PencilShape shape,
                                    const PoissonComplex<T>* twiddles, const PoissonComplex<T>* quarter_twiddles,
                                    bool alternating, const T* source, T* target, StreamHandle stream) {
  with_pencil_policy<PoissonWallPencilPolicies, T>(device, length, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const char* name = "poisson_quarter_pencil_kernel";
    const PencilShape tiled = with_tiles<Policy>(shape);
    const auto launch = [&](auto kernel) {
      launch_kernel(kernel, name, pencil_launch<Policy>(tiled, name, stream), spectral_division(division), tiled,
                    pencil_values(twiddles), pencil_values(quarter_twiddles), alternating, source, target);
    };
    with_wall_stage(stage, [&](auto tag) {
      launch(quarter_pencil_kernel<Policy, decltype(tag)::value, SpectralDivision<T>>);
    });
  });
}

template <class T>
void launch_poisson_folded_quarter_pencil_turnaround(const PoissonDevice& device, std::int64_t length,
                                                     const SpectralTables<T>& division, PencilShape shape,
                                                     const PoissonComplex<T>* twiddles,
                                                     const PoissonComplex<T>* quarter_twiddles, bool alternating,
                                                     const PencilFold<T>& fold, StreamHandle stream) {
  with_pencil_policy<PoissonWallPencilPolicies, T>(device, length, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const char* name = "poisson_folded_quarter_pencil_turnaround_kernel";
    const PencilShape tiled = with_tiles<Policy>(shape);
    launch_kernel(folded_quarter_pencil_turnaround_kernel<Policy, SpectralDivision<T>>, name,
                  pencil_launch<Policy>(tiled, name, stream), spectral_division(division), tiled,
                  pencil_values(twiddles), pencil_values(quarter_twiddles), alternating, fold);
  });
}

template <class T>
void launch_poisson_folded_pencil_turnaround(const PoissonDevice& device, std::int64_t length,
                                             const SpectralTables<T>& division, PencilShape shape,
                                             const PoissonComplex<T>* twiddles, const PencilFold<T>& fold,
                                             StreamHandle stream) {
  with_pencil_policy<PoissonWallPencilPolicies, T>(device, length, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const char* name = "poisson_folded_pencil_turnaround_kernel";
    const PencilShape tiled = with_tiles<Policy>(shape);
    const auto launch = [&](auto kernel) {
      launch_kernel(kernel, name, pencil_launch<Policy>(tiled, name, stream), spectral_division(division), tiled,
                    pencil_values(twiddles), fold);
    };
    using Division = SpectralDivision<T>;
    if (fold.line == WallLine::quarter_pairs) return launch(folded_pencil_turnaround_kernel<Policy, true, Division>);
    launch(folded_pencil_turnaround_kernel<Policy, false, Division>);
  });
}

template <class T>
void launch_poisson_extension_pencils(const PoissonDevice& device, WallLine line, WallStage stage,
                                      std::int64_t length, const SpectralTables<T>& division, PencilShape shape,
                                      const PoissonComplex<T>* twiddles, const PencilFold<T>& fold, const T* source,
                                      T* target, StreamHandle stream) {
  with_pencil_policy<PoissonWallPencilPolicies, T>(device, length, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const bool odd = line == WallLine::odd_extension;
    const char* name = odd ? "poisson_sine_pencil_kernel" : "poisson_cosine_vertex_pencil_kernel";
    const PencilShape tiled = with_tiles<Policy>(shape);
    const auto launch = [&](auto kernel) {
      launch_kernel(kernel, name, pencil_launch<Policy>(tiled, name, stream), spectral_division(division), tiled,
                    pencil_values(twiddles), fold, source, target);
    };
    // DST-I and DCT-I are their own inverses: one kernel serves both directions (a
    // fold's sides are the launch's arguments).
    constexpr WallStage kTurnaround = WallStage::turnaround, kOneWay = WallStage::forward;
    constexpr WallLine kOdd = WallLine::odd_extension, kEven = WallLine::even_extension;
    using Division = SpectralDivision<T>;
    if (stage == kTurnaround) {
      return odd ? launch(extension_pencil_kernel<Policy, kTurnaround, kOdd, Division>)
                 : launch(extension_pencil_kernel<Policy, kTurnaround, kEven, Division>);
    }
    return odd ? launch(extension_pencil_kernel<Policy, kOneWay, kOdd, Division>)
               : launch(extension_pencil_kernel<Policy, kOneWay, kEven, Division>);
  });
}

#define CUNUM_INSTANTIATE_POISSON_PENCIL_LAUNCHERS(T)                                                              \
  template void launch_poisson_pencil_turnaround(const PoissonDevice&, std::int64_t, const SpectralTables<T>&,    \
                                                 PencilShape, const PoissonComplex<T>*, PoissonComplex<T>*,       \
                                                 StreamHandle);                                                   \
  template void launch_poisson_cosine_pencils(const PoissonDevice&, WallStage, std::int64_t,                      \
                                              const SpectralTables<T>&, PencilShape, const PoissonComplex<T>*,    \
                                              const PoissonComplex<T>*, GridSide, bool, const PencilFold<T>&,     \
                                              const T*, T*, StreamHandle);                                        \
  template void launch_poisson_quarter_pencils(const PoissonDevice&, WallStage, std::int64_t,                     \
                                               const SpectralTables<T>&, PencilShape, const PoissonComplex<T>*,   \
                                               const PoissonComplex<T>*, bool, const T*, T*, StreamHandle);        \
  template void launch_poisson_folded_quarter_pencil_turnaround(                                                 \
      const PoissonDevice&, std::int64_t, const SpectralTables<T>&, PencilShape, const PoissonComplex<T>*,         \
      const PoissonComplex<T>*, bool, const PencilFold<T>&, StreamHandle);                                         \
  template void launch_poisson_folded_pencil_turnaround(const PoissonDevice&, std::int64_t,                      \
                                                        const SpectralTables<T>&, PencilShape,                     \
                                                        const PoissonComplex<T>*, const PencilFold<T>&,            \
                                                        StreamHandle);                                             \
  template void launch_poisson_extension_pencils(const PoissonDevice&, WallLine, WallStage, std::int64_t,          \
                                                 const SpectralTables<T>&, PencilShape, const PoissonComplex<T>*,    \
                                                 const PencilFold<T>&, const T*, T*, StreamHandle);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_POISSON_PENCIL_LAUNCHERS, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
