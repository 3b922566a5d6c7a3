// cunum-bench-monte-carlo-scaling: Monte Carlo over several GPUs of one host, both
// ways: one process spreading each call over placement.devices, and MPI ranks
// (MonteCarloDistributed, one GPU a rank). Cases, float: one European call with 2^32
// paths, and 4096 arithmetic Asian calls on 64 dates with 65,536 paths each. Times
// are medians of wall-clock calls (results on the host) between barriers; efficiency
// is against one GPU in the same run; every multi-GPU estimate is checked bit for bit
// against the one-GPU pricer's.
// Usage: mpirun -np N cunum-bench-monte-carlo-scaling [--quick] [--json FILE] (--help and
// --version say so without MPI; with -np 1 it also runs the one-process plan over 1, 2,
// ... devices). --json writes one row per table line, with the run's provenance
// (bench/common/bench_json.hpp).

#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "cunum/core.hpp"
#include "cunum/monte_carlo_mpi.hpp"
#include "mpi_scaling_bench.hpp"

namespace {

using cunum::Backend;
using cunum::MonteCarloEstimate;
using cunum::MonteCarloOption;
using cunum::MonteCarloPayoff;
using cunum::MonteCarloSettings;

int rank = 0;
int ranks = 1;
int failures = 0;
std::string json_path;                     // --json FILE; empty: none
cunum::bench::RunProvenance provenance;  // of rank 0's run, in every JSON row

struct Case {
  const char* name;
  MonteCarloSettings settings;
  std::vector<MonteCarloOption<float>> options;
};

std::vector<Case> cases(bool quick) {
  std::vector<Case> out;
  MonteCarloSettings european;
  european.paths = quick ? std::int64_t{1} << 28 : std::int64_t{1} << 32;
  european.seed = 20261124;
  out.push_back({"1 European call, 2^32 paths", european, {{100.0f, 100.0f, 1.0f, 0.03f, 0.0f, 0.25f, 0.0f}}});
  MonteCarloSettings asian = european;
  asian.payoff = MonteCarloPayoff::asian_arithmetic;
  asian.time_steps = 64;
  asian.paths = quick ? 4096 : 65536;
  std::vector<MonteCarloOption<float>> book;
  for (int i = 0; i < 4096; ++i) {
    book.push_back({100.0f, 80.0f + 40.0f * float(i % 97) / 96.0f, 0.5f + 1.5f * float(i % 13) / 12.0f, 0.03f, 0.0f,
                    0.25f, 0.0f});
  }
  out.push_back({"4096 arithmetic Asian calls, 64 dates, 65,536 paths", asian, book});
  return out;
}

bool same(const std::vector<MonteCarloEstimate<float>>& a, const std::vector<MonteCarloEstimate<float>>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i].price, &b[i].price, sizeof(float)) != 0 ||
        std::memcmp(&a[i].standard_error, &b[i].standard_error, sizeof(float)) != 0) {
      return false;
    }
  }
  return a.size() == b.size();
}

// Median wall-clock milliseconds of `call` over `repeats` calls after one warm-up,
// between barriers of every rank.
double median_ms(int repeats, const std::function<void()>& call) {
  call();
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    call();
    MPI_Barrier(MPI_COMM_WORLD);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

void row(const char* mode, const Case& c, int gpus, double ms, double one_gpu_ms, bool identical) {
  if (rank != 0) return;
  const double paths = double(c.settings.paths) * double(c.options.size());
  const double gpaths_per_second = paths / (ms * 1e6);
  const double efficiency = one_gpu_ms / (gpus * ms);
  std::printf("| %s | %s | %d | %.3f | %.1f | %.1f%% | %s |\n", mode, c.name, gpus, ms, gpaths_per_second,
              100.0 * efficiency, identical ? "yes" : "NO");
  std::fflush(stdout);
  if (!json_path.empty()) {
    cunum::bench::JsonRow json;
    json.text("module", "monte_carlo")
        .text("plan", mode)
        .text("case", c.name)
        .text("precision", "float32")
        .integer("gpus", gpus)
        .number("median_ms", ms)
        .number("gpaths_per_second", gpaths_per_second)
        .number("efficiency", efficiency)
        .boolean("bit_identical_to_one_gpu", identical);
    cunum::bench::append_json_row(json_path, cunum::bench::add_provenance(json, provenance));
  }
  if (!identical) ++failures;
}

}  // namespace

int main(int argc, char** argv) {
  cunum::bench::MpiScalingRun run;
  const int early_status = cunum::bench::start_mpi_scaling_bench(
      argc, argv, "cunum-bench-monte-carlo-scaling",
      "Monte Carlo over several GPUs of one host, both ways: one process spreading each call over "
      "placement.devices, and MPI ranks (MonteCarloDistributed, one GPU a rank). One European call with 2^32 paths "
      "and 4096 arithmetic Asian calls, float; medians of wall-clock calls, efficiency against one GPU, every "
      "multi-GPU estimate checked bit for bit against the one-GPU pricer's. Run it as mpirun -np N "
      "cunum-bench-monte-carlo-scaling (with -np 1 it also runs the one-process plan over 1, 2, ... devices). "
      "--quick: fewer paths (2^28 for the European call, 4096 an Asian call) and repeats.",
      run);
  if (early_status >= 0) return early_status;
  rank = run.rank;
  ranks = run.ranks;
  const int devices = run.devices;
  const bool quick = run.options.quick;
  json_path = run.options.json_path;
  if (cudaSetDevice(rank % devices) != cudaSuccess) {
    std::printf("rank %d: cannot select device %d\n", rank, rank % devices);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int repeats = quick ? 3 : 9;
  provenance = cunum::bench::run_provenance(Backend::cuda);
  if (rank == 0) {
    std::printf("Monte Carlo scaling on %d x %s, %d rank(s)\n\n", devices, cunum::device_properties().name.c_str(),
                ranks);
    std::printf("| plan | case | GPUs | median ms | Gpaths/s | efficiency | bit-identical to 1 GPU |\n");
    std::printf("|---|---|---:|---:|---:|---:|---|\n");
  }
  try {
    for (const Case& c : cases(quick)) {
      // The one-GPU reference on every rank (each on its own device).
      const cunum::MonteCarloPricer<float> single(c.settings, Backend::cuda);
      std::vector<MonteCarloEstimate<float>> reference;
      const double one_gpu_ms = median_ms(repeats, [&] { reference = single.price(c.options); });
      if (ranks == 1) {
        row("one process", c, 1, one_gpu_ms, one_gpu_ms, true);
        for (int gpus = 2; gpus <= devices; gpus *= 2) {
          cunum::Placement spread(Backend::cuda);
          for (int d = 0; d < gpus; ++d) spread.devices.push_back(d);
          const cunum::MonteCarloPricer<float> pricer(c.settings, spread);
          std::vector<MonteCarloEstimate<float>> estimates;
          const double ms = median_ms(repeats, [&] { estimates = pricer.price(c.options); });
          row("one process", c, gpus, ms, one_gpu_ms, same(estimates, reference));
        }
      }
      const cunum::MonteCarloDistributed<float> distributed(MPI_COMM_WORLD, c.settings, Backend::cuda);
      std::vector<MonteCarloEstimate<float>> estimates;
      const double ms = median_ms(repeats, [&] { estimates = distributed.price(c.options); });
      row("MPI ranks", c, ranks, ms, one_gpu_ms, same(estimates, reference));
    }
  } catch (const std::exception& error) {
    std::printf("rank %d FAILED: %s\n", rank, error.what());
    ++failures;
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
