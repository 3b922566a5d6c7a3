// cunum-bench-himeno: HimenoProblem's sweeps at 1 to 4 sweeps per pass and Ogawa and
// Aoki's tiled design, each against the plain two-kernel CUDA port run interleaved on
// the same size (bench/himeno/himeno_peers.cu, our code); the bound is the copy
// bandwidth measured in the same run over the 56 B (float) or 112 B (double) a point
// that one sweep must move. Checked outside the timing: every sweeps-per-pass gives
// the port's pressure, and at M, gosa after 100 sweeps against the CPU backend. Then
// the CPU backend, and HimenoDistributed on one rank against HimenoProblem.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <omp.h>

#include "bench_harness.hpp"
#include "cunum/core.hpp"
#include "cunum/himeno.hpp"
#include "himeno_peers.hpp"
#include "himeno_tuning.hpp"
#include "published_figures.hpp"
#if CUNUM_BENCH_HIMENO_MPI
#include "cunum/himeno_mpi.hpp"
#endif

namespace {

using cunum::Backend;
using cunum::HimenoGrid;
using cunum::HimenoOptions;
using cunum::HimenoProblem;
using cunum::HimenoSize;
using cunum::bench::BenchEnvironment;
using cunum::bench::BenchOptions;
using cunum::bench::BenchReport;
using cunum::bench::BenchRow;
using cunum::bench::FailureLog;
using cunum::bench::HimenoPeer;
using cunum::bench::HimenoPeerDesign;
using cunum::bench::precision_name;

constexpr const char* kModule = "himeno";
constexpr int kSweepsPerCall = 12;  // a multiple of 1, 2, 3 and 4 sweeps per pass
constexpr const char* kPeerName = "two-kernel port (update + copy back)";

FailureLog failures;

// The bytes one sweep must move per interior point: 13 arrays read, one written.
template <class T>
constexpr double bytes_per_point() {
  return 14.0 * sizeof(T);
}

const cunum::bench::PublishedFigures& published_figures() {
  static const cunum::bench::PublishedFigures figures{
      {"reference tiles 16x16x8, S", "float32", 0, "GeForce 8800 Ultra (published, Table 4): 30.6 GFLOPS"},
      {"reference tiles 16x16x8, M", "float32", 0, "GeForce 8800 Ultra (published, Table 4): 29.4 GFLOPS"},
  };
  return figures;
}

std::string gflops_note(const HimenoGrid& grid, double ms_per_call) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.0f GFLOPS", cunum::himeno_flops(grid, kSweepsPerCall) / (ms_per_call * 1e6));
  return text;
}

template <class T>
BenchRow sweep_row(const std::string& name, const HimenoGrid& grid, double ms, double peer_ms) {
  BenchRow row = cunum::bench::bench_row(kModule, name, precision_name<T>(), grid.interior_points());
  row.median_ms = ms;
  row.bytes_moved = bytes_per_point<T>() * static_cast<double>(grid.interior_points()) * kSweepsPerCall;
  row.peer = kPeerName;
  row.peer_median_ms = peer_ms;
  row.note = gflops_note(grid, ms) + " (" + std::to_string(kSweepsPerCall) + " sweeps a call)";
  published_figures().annotate(row);
  return row;
}

template <class T>
void one_size(const BenchOptions& options, BenchReport& report, HimenoSize size, cunum::StreamHandle stream) {
  const HimenoGrid grid = cunum::himeno_grid(size);
  const std::string size_name = to_string(size);
  HimenoPeer<T> port(HimenoPeerDesign::two_kernel_port, grid, stream);
  const double port_gosa = port.iterate(kSweepsPerCall, stream);
  const std::vector<T> port_pressure = port.pressure(stream);

  for (int sweeps_per_pass = 1; sweeps_per_pass <= 4; ++sweeps_per_pass) {
    HimenoOptions himeno_options;
    himeno_options.sweeps_per_pass = sweeps_per_pass;
    HimenoProblem<T> ours(grid, himeno_options, {Backend::cuda, stream});
    const double gosa = ours.iterate(kSweepsPerCall, stream);
    const double difference = std::fabs(gosa - port_gosa) / port_gosa;
    if (difference > 1e-9) {
      failures.fail(size_name + " " + precision_name<T>() + ": gosa after " + std::to_string(kSweepsPerCall) +
                    " sweeps differs from the port's by " + std::to_string(difference) + " relative");
    }
    const std::vector<T> pressure = ours.pressure(stream);
    double largest = 0.0;
    for (std::size_t x = 0; x < pressure.size(); ++x) {
      largest = std::max(largest, std::fabs(static_cast<double>(pressure[x]) - port_pressure[x]));
    }
    if (largest > 0.0) {
      std::printf("note: %s %s, %d sweeps a pass: the pressure differs from the port's by %.3g at most\n",
                  size_name.c_str(), precision_name<T>(), sweeps_per_pass, largest);
    }
    const auto medians = cunum::bench::compare_device_ms(
        options, stream, [&] { ours.iterate(kSweepsPerCall, stream); },
        [&] { port.iterate(kSweepsPerCall, stream); });
    report.add(sweep_row<T>("ours, " + std::to_string(sweeps_per_pass) + " sweeps a pass, " + size_name, grid,
                            medians.ours_ms, medians.peer_ms));
  }

  HimenoPeer<T> reference(HimenoPeerDesign::reference_tiles, grid, stream);
  const auto medians = cunum::bench::compare_device_ms(
      options, stream, [&] { reference.iterate(kSweepsPerCall, stream); },
      [&] { port.iterate(kSweepsPerCall, stream); });
  report.add(sweep_row<T>("reference tiles 16x16x8, " + size_name, grid, medians.ours_ms, medians.peer_ms));
}

// The GPU test leaves M's 100 sweeps to the bench: gosa against the CPU backend.
template <class T>
void check_m_against_cpu(cunum::StreamHandle stream) {
  const HimenoGrid grid = cunum::himeno_grid(HimenoSize::m);
  HimenoProblem<T> gpu(grid, {}, {Backend::cuda, stream});
  HimenoProblem<T> cpu(grid, {}, Backend::cpu);
  const double gpu_gosa = gpu.iterate(100, stream);
  const double cpu_gosa = cpu.iterate(100);
  const double relative = std::fabs(gpu_gosa - cpu_gosa) / cpu_gosa;
  const double bound = std::is_same_v<T, float> ? 1e-4 : 1e-5;
  std::printf("M, %s, 100 sweeps: gosa %.9e on the GPU, %.9e on the CPU (relative difference %.2e, bound %.0e)\n",
              precision_name<T>(), gpu_gosa, cpu_gosa, relative, bound);
  if (!(relative <= bound)) failures.fail(std::string("M ") + precision_name<T>() + ": gosa after 100 sweeps");
}

template <class T>
void cpu_backend(const BenchOptions& options, BenchReport& report, HimenoSize size) {
  const HimenoGrid grid = cunum::himeno_grid(size);
  HimenoProblem<T> cpu(grid, {}, Backend::cpu);
  constexpr int sweeps = 3;
  const double ms = cunum::bench::median_host_ms(options, [&] { cpu.iterate(sweeps); });
  BenchRow row = cunum::bench::bench_row(kModule, std::string("CPU backend, ") + to_string(size), precision_name<T>(),
                                         grid.interior_points());
  row.median_ms = ms;
  row.bytes_moved = bytes_per_point<T>() * static_cast<double>(grid.interior_points()) * sweeps;
  char note[96];
  std::snprintf(note, sizeof(note), "%.1f GFLOPS on %d OpenMP threads (%d sweeps a call)",
                cunum::himeno_flops(grid, sweeps) / (ms * 1e6), omp_get_max_threads(), sweeps);
  row.note = note;
  report.add(row);
}

#if CUNUM_BENCH_HIMENO_MPI
// The distributed code on one rank against the one-box problem (the issue: within 3%).
template <class T>
void one_rank(const BenchOptions& options, BenchReport& report, HimenoSize size, cunum::StreamHandle stream) {
  const HimenoGrid grid = cunum::himeno_grid(size);
  HimenoProblem<T> box(grid, {}, {Backend::cuda, stream});
  cunum::HimenoDistributed<T> distributed(MPI_COMM_WORLD, grid, {}, {}, Backend::cuda);
  const auto medians = cunum::bench::compare_device_ms(
      options, stream, [&] { distributed.iterate(kSweepsPerCall); }, [&] { box.iterate(kSweepsPerCall, stream); });
  BenchRow row = sweep_row<T>(std::string("HimenoDistributed, 1 rank, ") + to_string(size), grid, medians.ours_ms,
                              medians.peer_ms);
  row.peer = "HimenoProblem (one box)";
  report.add(row);
}
#endif

void run(const BenchOptions& options) {
  const BenchEnvironment environment = cunum::bench::measure_environment(options);
  BenchReport report(environment, options, "cunum-bench-himeno");
  if (environment.backend == Backend::cpu) {
    if (cunum::bench::section_selected(options, "cpu")) {
      cpu_backend<float>(options, report, HimenoSize::s);
      cpu_backend<double>(options, report, HimenoSize::s);
    }
    return;
  }
  cunum::Stream stream;
  const std::vector<HimenoSize> sizes = options.quick ? std::vector<HimenoSize>{HimenoSize::s, HimenoSize::m}
                                                      : std::vector<HimenoSize>{HimenoSize::s, HimenoSize::m,
                                                                                HimenoSize::l, HimenoSize::xl};
  if (cunum::bench::section_selected(options, "sweeps")) {
    for (const HimenoSize size : sizes) {
      one_size<float>(options, report, size, stream.get());
      one_size<double>(options, report, size, stream.get());
    }
  }
  if (!options.quick && cunum::bench::section_selected(options, "tuning")) {
    cunum::bench::himeno_tuning_one_sweep<float>(options, report, failures, stream.get());
    cunum::bench::himeno_tuning_two_sweeps<float>(options, report, failures, stream.get());
    cunum::bench::himeno_tuning_more_sweeps<float>(options, report, failures, stream.get());
    cunum::bench::himeno_tuning_one_sweep<double>(options, report, failures, stream.get());
    cunum::bench::himeno_tuning_two_sweeps<double>(options, report, failures, stream.get());
    cunum::bench::himeno_tuning_more_sweeps<double>(options, report, failures, stream.get());
  }
  if (!options.quick && cunum::bench::section_selected(options, "deep")) {
    cunum::bench::himeno_tuning_deep<float>(options, report, failures, stream.get());
    cunum::bench::himeno_tuning_deep<double>(options, report, failures, stream.get());
  }
  if (cunum::bench::section_selected(options, "check")) {
    check_m_against_cpu<float>(stream.get());
    check_m_against_cpu<double>(stream.get());
  }
  if (cunum::bench::section_selected(options, "cpu")) {
    cpu_backend<float>(options, report, HimenoSize::m);
    cpu_backend<double>(options, report, HimenoSize::m);
  }
#if CUNUM_BENCH_HIMENO_MPI
  if (cunum::bench::section_selected(options, "mpi")) {
    one_rank<float>(options, report, options.quick ? HimenoSize::m : HimenoSize::l, stream.get());
    one_rank<double>(options, report, options.quick ? HimenoSize::m : HimenoSize::l, stream.get());
  }
#endif
}

#if CUNUM_BENCH_HIMENO_MPI
// MPI for the run's one-rank section, started after the command line is parsed (--help
// and a bad argument need no MPI) and finalized however the run ends.
struct MpiSession {
  MpiSession() { MPI_Init(nullptr, nullptr); }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};
#endif

}  // namespace

int main(int argc, char** argv) {
  return cunum::bench::bench_main(
      argc, argv, "cunum-bench-himeno",
      "Himeno sweeps against the two-kernel port and the reference tiles; sections: sweeps, tuning, deep, check, cpu, "
      "mpi",
      failures, [](const BenchOptions& options) {
#if CUNUM_BENCH_HIMENO_MPI
        const MpiSession mpi;
#endif
        run(options);
      });
}
