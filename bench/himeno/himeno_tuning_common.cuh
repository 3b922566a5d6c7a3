#pragma once
// The tuning sweep's shared part: one policy's row (himeno_tuning.hpp).

#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_harness.hpp"
#include "cunum/himeno.hpp"
#include "himeno_peers.hpp"
#include "kernels/himeno/himeno_launch.cuh"
#include "src/himeno/himeno_cuda.hpp"

namespace cunum::bench {

// (This file is built with -fmad=false, as the library's launchers are.)

constexpr int kTuningSweepsPerCall = 12;

// One policy's row; its pressure after the first call must equal `expected` (the
// library's at one sweep a pass) bit for bit.
template <class T, class Policy>
void tuning_row(const BenchOptions& options, BenchReport& report, FailureLog& failures, StreamHandle stream,
                HimenoPeer<T>& port, double port_gosa, const std::vector<T>& expected) {
  const HimenoGrid grid = himeno_grid(HimenoSize::l);
  const detail::HimenoBox box{grid.nx, grid.ny, grid.nz, 0, grid.nx};
  detail::HimenoCuda<T, detail::HimenoSinglePolicy<Policy>> backend(box, {}, 0.8, stream, current_device_resource());
  const auto run = [&] {
    for (int done = 0; done < kTuningSweepsPerCall; done += Policy::sweeps) {
      backend.sweep(Policy::sweeps, 1, grid.nx - 1, 0, stream);
      backend.swap();
    }
    return backend.gosa(1, stream);
  };
  const double gosa = run();
  if (std::abs(gosa - port_gosa) > 1e-9 * port_gosa) {
    failures.fail("tuning: gosa " + std::to_string(gosa) + " against the port's " + std::to_string(port_gosa));
  }
  std::vector<T> pressure(expected.size());
  backend.copy_pressure(pressure.data(), stream);
  if (pressure != expected) {
    failures.fail("tuning: " + std::to_string(Policy::sweeps) + " sweeps a pass, tile " +
                  std::to_string(Policy::tile_j) + "x" + std::to_string(Policy::tile_k) + ", lag " +
                  std::to_string(Policy::lag) + ": the pressure differs from the library's");
  }
  const auto medians = compare_device_ms(options, stream, [&] { run(); }, [&] { port.iterate(kTuningSweepsPerCall, stream); });
  const bool shipped =
      std::is_same_v<Policy, typename detail::HimenoPolicies<T>::newest::template policy<Policy::sweeps>>;
  char name[160];
  std::snprintf(name, sizeof(name),
                "tuning: %d sweeps a pass, tile %dx%d, %d threads, >= %d blocks/SM, batch %d, lag %d%s, L",
                Policy::sweeps, Policy::tile_j, Policy::tile_k, Policy::block_threads, Policy::min_blocks,
                Policy::batch, Policy::lag, shipped ? " (shipped)" : "");
  BenchRow row = bench_row("himeno", name, precision_name<T>(), grid.interior_points());
  row.median_ms = medians.ours_ms;
  row.bytes_moved = 14.0 * sizeof(T) * static_cast<double>(grid.interior_points()) * kTuningSweepsPerCall;
  row.peer = "two-kernel port (update + copy back)";
  row.peer_median_ms = medians.peer_ms;
  char note[64];
  std::snprintf(note, sizeof(note), "%.0f GFLOPS", himeno_flops(grid, kTuningSweepsPerCall) / (medians.ours_ms * 1e6));
  row.note = note;
  report.add(row);
}

// The rows of `Policies` at L, each against one two-kernel port built once.
template <class T, class... Policies>
void tuning_rows(const BenchOptions& options, BenchReport& report, FailureLog& failures, StreamHandle stream) {
  HimenoPeer<T> port(HimenoPeerDesign::two_kernel_port, himeno_grid(HimenoSize::l), stream);
  const double port_gosa = port.iterate(kTuningSweepsPerCall, stream);
  HimenoOptions one_sweep_a_pass;
  one_sweep_a_pass.sweeps_per_pass = 1;
  std::vector<T> expected;
  {
    HimenoProblem<T> library(himeno_grid(HimenoSize::l), one_sweep_a_pass, {Backend::cuda, stream});
    library.iterate(kTuningSweepsPerCall, stream);
    expected = library.pressure(stream);
  }
  (tuning_row<T, Policies>(options, report, failures, stream, port, port_gosa, expected), ...);
}

}  // namespace cunum::bench
