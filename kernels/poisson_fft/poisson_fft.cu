// Poisson solver, CUDA backend: the launchers of the line, division and grid-stride
// kernels (kernels/poisson_fft/poisson_fft_kernel.cuh), declared in
// kernels/poisson_fft/poisson_fft_launch.hpp. Each picks its kernel family's policy for
// the device's architecture (src/poisson_fft/poisson_fft_policy.hpp), shapes the grid
// and launches; the plans, work areas and the sequence of passes are the backend's
// (src/poisson_fft/poisson_fft_cuda.cpp).

#include <cstdint>

#include "kernels/common/launch.cuh"
#include "kernels/poisson_fft/poisson_fft_kernel.cuh"
#include "kernels/poisson_fft/poisson_fft_launch.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/launch_shape.hpp"
#include "src/poisson_fft/poisson_fft_policy.hpp"

namespace cunum::detail {

namespace {

// A launch of lines_from_grid_kernel or grid_from_lines_kernel over `samples` samples
// (or grid points) of each line; blockIdx.y and .z loop where the grid is capped.
template <class Policy, class Kernel, class... Args>
void launch_lines(Kernel kernel, const char* name, const LineGeometry& g, std::int64_t samples, StreamHandle stream,
                  Args... args) {
  constexpr std::int64_t kMaxGridYZ = 65535;  // the hardware's limit on gridDim.y and .z
  // Along: x over each line's samples, y over runs of line_group lines (lines shorter
  // than a block's samples share it). Across: x over the lane tiles, y over the tiles
  // along the axis.
  const std::int64_t line_group =
      g.along && samples < Policy::along_samples ? Policy::along_samples / samples : 1;
  const std::int64_t sample_blocks = g.along ? (samples + Policy::along_samples - 1) / Policy::along_samples
                                             : (samples + Policy::across_samples - 1) / Policy::across_samples;
  const std::int64_t lane_blocks =
      g.along ? (g.n_lane + line_group - 1) / line_group : (g.n_lane + Policy::tile - 1) / Policy::tile;
  const std::int64_t x = g.along ? sample_blocks : lane_blocks;
  const std::int64_t y = g.along ? lane_blocks : sample_blocks;
  const std::int64_t z = g.batch * g.n_block;
  const dim3 grid(grid_1d(x, name).x, static_cast<unsigned>(y < kMaxGridYZ ? y : kMaxGridYZ),
                  static_cast<unsigned>(z < kMaxGridYZ ? z : kMaxGridYZ));
  const LaunchConfig config{grid, dim3(Policy::tile, Policy::tile_rows), 0, stream};
  launch_kernel(kernel, name, config, args..., line_group);
}

// The staged kernels' launch shape (PoissonStagedLinesPolicies): where the pass's axis
// is contiguous and a line of row_bytes fits the policy, runs of `rows` lanes of about
// Policy::run_bytes, a block a run (blocks loop where the grid would pass 2^31 - 1);
// rows 0 where lines_from_grid_kernel or grid_from_lines_kernel must take the pass.
struct StagedLaunch {
  std::int64_t rows;
  LaunchConfig config;
};

template <class Policy>
StagedLaunch staged_launch(const LineGeometry& g, std::int64_t row_bytes, const char* name, StreamHandle stream) {
  if (!g.along || row_bytes > Policy::max_row_bytes) return {0, {}};
  const std::int64_t fit = Policy::run_bytes / row_bytes;
  const std::int64_t rows = fit < 1 ? 1 : fit < g.n_lane ? fit : g.n_lane;
  const std::int64_t runs = g.batch * g.n_block * ((g.n_lane + rows - 1) / rows);
  constexpr std::int64_t kMaxBlocks = 0x7FFFFFFF;
  return {rows, LaunchConfig{grid_1d(runs < kMaxBlocks ? runs : kMaxBlocks, name), dim3(Policy::block_threads),
                             static_cast<std::size_t>(rows * row_bytes), stream}};
}

// lines[r * pitch + e] = sample(e, line r's grid points): staged where it fits.
template <class T, class Sample>
void launch_lines_from_grid(const PoissonDevice& device, const char* name, const Sample& sample,
                            const LineGeometry& g, std::int64_t pitch, const T* grid, typename Sample::Value* lines,
                            StreamHandle stream) {
  const bool staged = PoissonStagedLinesPolicies::dispatch(device.arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const StagedLaunch launch =
        staged_launch<Policy>(g, g.n_axis * static_cast<std::int64_t>(sizeof(T)), name, stream);
    if (launch.rows == 0) return false;
    launch_kernel(staged_lines_from_grid_kernel<Policy, T, Sample>, name, launch.config, sample, g, pitch, grid,
                  lines, launch.rows);
    return true;
  });
  if (staged) return;
  PoissonLinesPolicies::dispatch(device.arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    launch_lines<Policy>(lines_from_grid_kernel<Policy, T, Sample>, name, g, pitch, stream, sample, g, pitch, grid,
                         lines);
  });
}

// Grid point k of each line = coefficient(k, line): staged where it fits.
template <class T, class Coefficient>
void launch_grid_from_lines(const PoissonDevice& device, const char* name, const Coefficient& coefficient,
                            const LineGeometry& g, std::int64_t pitch, const typename Coefficient::Line* lines,
                            T* grid, StreamHandle stream) {
  using Line = typename Coefficient::Line;
  const bool staged = PoissonStagedLinesPolicies::dispatch(device.arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const StagedLaunch launch = staged_launch<Policy>(g, pitch * static_cast<std::int64_t>(sizeof(Line)), name, stream);
    if (launch.rows == 0) return false;
    launch_kernel(staged_grid_from_lines_kernel<Policy, T, Coefficient>, name, launch.config, coefficient, g, pitch,
                  lines, grid, launch.rows);
    return true;
  });
  if (staged) return;
  PoissonLinesPolicies::dispatch(device.arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    launch_lines<Policy>(grid_from_lines_kernel<Policy, T, Coefficient>, name, g, g.n_axis, stream, coefficient, g,
                         pitch, lines, grid);
  });
}

// divide_kernel over the spectrum's rows, of complex or real modes (Value).
template <class T, class Value>
void launch_divide(const PoissonDevice& device, const SpectralTables<T>& division, const SpectrumRows& shape,
                   const Value* in, Value* out, StreamHandle stream) {
  PoissonDividePolicies::dispatch(device.arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const char* name = "poisson_divide_kernel";
    const std::int64_t blocks =
        resident_blocks(shape.rows, Policy::rows, Policy::blocks_per_multiprocessor, device.multiprocessor_count);
    const LaunchConfig config{grid_1d(blocks, name), dim3(Policy::lanes, Policy::rows), 0, stream};
    launch_kernel(divide_kernel<Policy, T, Value>, name, config, spectral_division(division), shape, in, out);
  });
}

}  // namespace

template <class T>
void launch_poisson_wall_lines(const PoissonDevice& device, WallLine line, GridSide side, std::int64_t n,
                               const LineGeometry& g, std::int64_t pitch, const T* grid, T* lines,
                               StreamHandle stream) {
  launch_lines_from_grid(device, "poisson_wall_lines_kernel", ExtendedLine<T>{line, side, n}, g, pitch, grid, lines,
                         stream);
}

template <class T>
void launch_poisson_cosine_inverse_spectrum(const PoissonDevice& device, GridSide side, std::int64_t n,
                                            const T* twiddles, const LineGeometry& g, std::int64_t pitch,
                                            const T* grid, PoissonComplex<T>* lines, StreamHandle stream) {
  using Complex = CufftComplex<T>;
  launch_lines_from_grid(device, "poisson_cosine_inverse_spectrum_kernel",
                         CosineInverseSpectrum<T, Complex>{side, n, twiddles}, g, pitch, grid,
                         reinterpret_cast<Complex*>(lines), stream);
}

template <class T>
void launch_poisson_quarter_pair_lines(const PoissonDevice& device, GridSide side, std::int64_t n, const T* twiddles,
                                       const LineGeometry& g, std::int64_t pitch, const T* grid,
                                       PoissonComplex<T>* lines, StreamHandle stream) {
  using Complex = CufftComplex<T>;
  launch_lines_from_grid(device, "poisson_quarter_pair_lines_kernel", QuarterPairLine<T, Complex>{side, n, twiddles},
                         g, pitch, grid, reinterpret_cast<Complex*>(lines), stream);
}

template <class T>
void launch_poisson_wall_coefficients(const PoissonDevice& device, WallLine line, GridSide side, std::int64_t n,
                                      const T* twiddles, const LineGeometry& g, std::int64_t pitch,
                                      const PoissonComplex<T>* lines, T* grid, StreamHandle stream) {
  using Complex = CufftComplex<T>;
  launch_grid_from_lines(device, "poisson_wall_coefficients_kernel",
                         WallCoefficient<T, Complex>{line, side, n, twiddles}, g, pitch,
                         reinterpret_cast<const Complex*>(lines), grid, stream);
}

template <class T>
void launch_poisson_c2r_line_samples(const PoissonDevice& device, WallLine line, GridSide side, std::int64_t n,
                                     const LineGeometry& g, std::int64_t pitch, const T* lines, T* grid,
                                     StreamHandle stream) {
  launch_grid_from_lines(device, "poisson_c2r_line_samples_kernel", C2rLineSamples<T>{line, side, n}, g, pitch, lines,
                         grid, stream);
}

template <class T>
void launch_poisson_turnaround(const PoissonDevice& device, const WallPass<T>& pass, const LineGeometry& g,
                               const SpectralTables<T>& division, PoissonComplex<T>* spectrum, T* extended,
                               StreamHandle stream) {
  using Complex = CufftComplex<T>;
  PoissonStridePolicies::dispatch(device.arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const char* name = "poisson_turnaround_kernel";
    // A block a line.
    const std::int64_t blocks =
        resident_blocks(pass.lines, 1, Policy::blocks_per_multiprocessor, device.multiprocessor_count);
    const LaunchConfig config{grid_1d(blocks, name), dim3(Policy::block_threads), 0, stream};
    launch_kernel(turnaround_kernel<Policy, T, Complex>, name, config, pass, g, spectral_division(division),
                  reinterpret_cast<Complex*>(spectrum), extended);
  });
}

template <class T>
void launch_poisson_divide(const PoissonDevice& device, const SpectralTables<T>& division, const SpectrumRows& shape,
                           const PoissonComplex<T>* in, PoissonComplex<T>* out, StreamHandle stream) {
  using Complex = CufftComplex<T>;
  launch_divide(device, division, shape, reinterpret_cast<const Complex*>(in), reinterpret_cast<Complex*>(out),
                stream);
}

template <class T>
void launch_poisson_divide(const PoissonDevice& device, const SpectralTables<T>& division, const SpectrumRows& shape,
                           const T* in, T* out, StreamHandle stream) {
  launch_divide(device, division, shape, in, out, stream);
}

template <class T>
void launch_poisson_copy(const PoissonDevice& device, std::int64_t total, std::int64_t points, bool subtract_origin,
                         const T* in, T* out, StreamHandle stream) {
  PoissonStridePolicies::dispatch(device.arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const char* name = "poisson_copy_kernel";
    const std::int64_t blocks = resident_blocks(total, Policy::block_threads, Policy::blocks_per_multiprocessor,
                                                device.multiprocessor_count);
    const LaunchConfig config{grid_1d(blocks, name), dim3(Policy::block_threads), 0, stream};
    launch_kernel(copy_out_kernel<Policy, T>, name, config, total, points, subtract_origin, in, out);
  });
}

template <class T>
void launch_poisson_sums(const PoissonDevice& device, std::int64_t batch, std::int64_t points,
                         const MeanWeights& weights, const T* rhs, double* sums, StreamHandle stream) {
  PoissonStridePolicies::dispatch(device.arch, [&](auto tag) {
    using Policy = typename decltype(tag)::type;
    const char* name = "poisson_sums_kernel";
    const LaunchConfig config{grid_1d(batch, name), dim3(Policy::block_threads), 0, stream};  // a block a problem
    launch_kernel(sums_kernel<Policy, T>, name, config, points, weights, rhs, sums);
  });
}

#define CUNUM_INSTANTIATE_POISSON_LAUNCHERS(T)                                                                       \
  template void launch_poisson_wall_lines(const PoissonDevice&, WallLine, GridSide, std::int64_t,                 \
                                          const LineGeometry&, std::int64_t, const T*, T*, StreamHandle);           \
  template void launch_poisson_cosine_inverse_spectrum(const PoissonDevice&, GridSide, std::int64_t, const T*,      \
                                                       const LineGeometry&, std::int64_t, const T*,                 \
                                                       PoissonComplex<T>*, StreamHandle);                           \
  template void launch_poisson_quarter_pair_lines(const PoissonDevice&, GridSide, std::int64_t, const T*,         \
                                                  const LineGeometry&, std::int64_t, const T*, PoissonComplex<T>*, \
                                                  StreamHandle);                                                   \
  template void launch_poisson_wall_coefficients(const PoissonDevice&, WallLine, GridSide, std::int64_t, const T*,  \
                                                 const LineGeometry&, std::int64_t, const PoissonComplex<T>*, T*,   \
                                                 StreamHandle);                                                     \
  template void launch_poisson_c2r_line_samples(const PoissonDevice&, WallLine, GridSide, std::int64_t,             \
                                                const LineGeometry&, std::int64_t, const T*, T*, StreamHandle);     \
  template void launch_poisson_turnaround(const PoissonDevice&, const WallPass<T>&, const LineGeometry&,            \
                                          const SpectralTables<T>&, PoissonComplex<T>*, T*, StreamHandle);          \
  template void launch_poisson_divide(const PoissonDevice&, const SpectralTables<T>&, const SpectrumRows&,          \
                                      const PoissonComplex<T>*, PoissonComplex<T>*, StreamHandle);                  \
  template void launch_poisson_divide(const PoissonDevice&, const SpectralTables<T>&, const SpectrumRows&,          \
                                      const T*, T*, StreamHandle);                                                  \
  template void launch_poisson_copy(const PoissonDevice&, std::int64_t, std::int64_t, bool, const T*, T*,           \
                                    StreamHandle);                                                                  \
  template void launch_poisson_sums(const PoissonDevice&, std::int64_t, std::int64_t, const MeanWeights&,        \
                                    const T*, double*, StreamHandle);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_POISSON_LAUNCHERS, CUNUM_REAL_TYPES)

}  // namespace cunum::detail
