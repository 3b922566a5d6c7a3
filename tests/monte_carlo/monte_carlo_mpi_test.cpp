// MonteCarloDistributed on however many ranks mpirun starts, against one
// MonteCarloPricer on the same backend: every estimate bit for bit, for a plain and a
// full (control variate, Greeks, antithetic) path-dependent case and an option count
// that does not split evenly, and on GPU ranks options of over 256 chunks (the folded
// exchange); the placement resolved (GPU ranks: every device allocation from its
// resource), two devices refused by name, and a moved-from object refused.
// Usage: cunum-test-monte-carlo-mpi cpu|cuda. Exit status 0: passed or skipped, 1:
// failed (a cuda run without a device skips loudly: mpi_test_support.hpp).

#include <mpi.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cunum/core/error.hpp"
#include "cunum/core/stream.hpp"
#include "cunum/monte_carlo_mpi.hpp"
#include "monte_carlo_cases.hpp"
#include "mpi_test_support.hpp"
#include "test_support.hpp"

namespace {

using cunum::Backend;
using cunum::MonteCarloPayoff;

int rank = 0;
int ranks = 1;
int failures = 0;

void fail(const std::string& what) {
  std::printf("[monte-carlo-mpi] rank %d of %d FAILED: %s\n", rank, ranks, what.c_str());
  ++failures;
}

template <class T>
void compare(Backend backend, MonteCarloPayoff payoff, bool full, std::int64_t paths = 20002) {
  cunum::MonteCarloSettings s;
  s.payoff = payoff;
  s.time_steps = 6;
  s.paths = paths;
  s.seed = 20261124;
  s.antithetic = s.control_variate = s.greeks = full;
  std::vector<cunum::MonteCarloOption<T>> options;
  for (int i = 0; i < 11; ++i) {
    options.push_back({T(100), T(80 + 4 * i), T(0.5 + 0.1 * i), T(0.02), T(0.01), T(0.3), T(0)});
  }
  const auto distributed = cunum::MonteCarloDistributed<T>(MPI_COMM_WORLD, s, backend).price(options, 5);
  const auto single = cunum::MonteCarloPricer<T>(s, backend).price(options, 5);
  const std::string name = std::string(sizeof(T) == 4 ? "float " : "double ") + to_string(payoff) +
                           (full ? " with antithetic, control and Greeks" : " plain") + ", " +
                           std::to_string(paths) + " paths";
  for (std::size_t i = 0; i < options.size(); ++i) {
    if (!cunum::testing::bit_identical(distributed[i], single[i])) {
      fail(name + ": option " + std::to_string(i) + " differs from one pricer");
      return;
    }
  }
  if (rank == 0) std::printf("[       OK ] %s on %d ranks\n", name.c_str(), ranks);
}

// The placement resolved once (CUDA: every device allocation of a call from its
// resource, returned to it), and the same estimates as the default placement's.
void placement_resolved(Backend backend) {
  cunum::MonteCarloSettings s;
  s.paths = 4096;
  s.seed = 20261124;
  const std::vector<cunum::MonteCarloOption<float>> options{{100, 100, 1, 0.02f, 0, 0.3f, 0}};
  const auto expected = cunum::MonteCarloDistributed<float>(MPI_COMM_WORLD, s, backend).price(options);
  std::optional<cunum::Stream> stream;  // CUDA only: there may be no device
  if (backend == Backend::cuda) stream.emplace();
  cunum::testing::CountingResource resource;
  cunum::Placement placement(backend, stream ? stream->get() : nullptr);
  placement.device_memory = &resource;
  {
    const cunum::MonteCarloDistributed<float> distributed(MPI_COMM_WORLD, s, placement);
    const cunum::Placement& resolved = distributed.placement();
    if (distributed.backend() != backend || resolved.backend != backend) fail("placement(): another backend");
    if (&distributed.pricer().placement() != &resolved) fail("placement() is not the pricer's");
    if (backend == Backend::cpu) {
      if (!resolved.devices.empty() || resolved.stream != nullptr || resolved.device_memory != nullptr) {
        fail("a CPU placement kept devices, a stream or a resource");
      }
    } else if (resolved.devices != std::vector<int>{cunum::current_device()} || resolved.stream != stream->get() ||
               resolved.device_memory != &resource || resolved.pinned_memory != cunum::pinned_memory_resource()) {
      fail("a CUDA placement resolved to other devices, stream or resources");
    }
    const auto estimates = distributed.price(options);
    if (!cunum::testing::bit_identical(estimates[0], expected[0])) fail("the placement changed the estimate");
    if ((backend == Backend::cuda) != (resource.allocations.load() > 0)) {
      fail("the resource saw " + std::to_string(resource.allocations.load()) + " allocations");
    }
  }
  if (stream) stream->synchronize();
  if (resource.deallocations.load() != resource.allocations.load()) fail("memory not returned to the resource");
}

// A rank prices on one device: two are refused by name (on the CPU, any).
void devices_refused(Backend backend) {
  cunum::MonteCarloSettings s;
  cunum::Placement placement(backend);
  placement.devices = {0, 0};
  try {
    cunum::MonteCarloDistributed<float>(MPI_COMM_WORLD, s, placement);
    fail("a list of two devices was accepted");
  } catch (const cunum::Error& error) {
    if (std::string(error.what()).find("'placement.devices'") == std::string::npos) fail(error.what());
  }
}

// Only Philox paths are split over ranks: the other sources are refused by name, before
// any MPI call.
void other_sources_refused(Backend backend) {
  for (const cunum::MonteCarloSource source : {cunum::MonteCarloSource::mrg32k3a, cunum::MonteCarloSource::sobol_bridge}) {
    cunum::MonteCarloSettings s;
    s.source = source;
    try {
      cunum::MonteCarloDistributed<float>(MPI_COMM_WORLD, s, backend);
      fail(std::string("the source ") + cunum::to_string(source) + " was accepted");
    } catch (const cunum::Error& error) {
      if (error.code() != cunum::ErrorCode::invalid_argument ||
          std::string(error.what()).find("cunum::MonteCarloDistributed: argument 'settings.source'") ==
              std::string::npos) {
        fail(error.what());
      }
    }
  }
}

// A moved-from object has no state: every member refuses it by name (before any MPI
// call, so no rank waits on another).
void moved_from_is_refused(Backend backend) {
  cunum::MonteCarloSettings s;
  s.paths = 64;
  cunum::MonteCarloDistributed<float> distributed(MPI_COMM_WORLD, s, backend);
  const cunum::MonteCarloDistributed<float> moved(std::move(distributed));
  if (moved.pricer().settings().paths != 64) fail("the moved-to object lost its settings");
  const auto expect_refused = [&](const char* member, const auto& call) {
    try {
      call();
      fail(std::string(member) + " of a moved-from MonteCarloDistributed did not throw");
    } catch (const cunum::Error& error) {
      if (error.code() != cunum::ErrorCode::invalid_argument ||
          std::string(error.what()).find("'this' is a moved-from MonteCarloDistributed") == std::string::npos) {
        fail(std::string(member) + " of a moved-from object: " + error.what());
      }
    }
  };
  const std::vector<cunum::MonteCarloOption<float>> options{{100, 100, 1, 0.02f, 0, 0.3f, 0}};
  expect_refused("price", [&] { distributed.price(options); });
  expect_refused("pricer", [&] { distributed.pricer(); });
  expect_refused("backend", [&] { distributed.backend(); });
  expect_refused("placement", [&] { distributed.placement(); });
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const std::string which = argc > 1 ? argv[1] : "cpu";
  const Backend backend = which == "cuda" ? Backend::cuda : Backend::cpu;
  if (cunum::testing::skip_without_device(backend == Backend::cuda, rank, "cunum-test-monte-carlo-mpi")) {
    MPI_Finalize();
    return 0;
  }
  try {
    for (MonteCarloPayoff payoff : {MonteCarloPayoff::european, MonteCarloPayoff::asian_arithmetic}) {
      for (bool full : {false, true}) {
        compare<float>(backend, payoff, full);
        compare<double>(backend, payoff, full);
      }
    }
    if (backend == Backend::cuda) {
      // Over 256 chunks an option: GPU ranks exchange their once-folded sums (units
      // that do not split evenly over the ranks).
      compare<float>(backend, MonteCarloPayoff::european, false, (std::int64_t{1} << 21) + 6);
      compare<double>(backend, MonteCarloPayoff::european, true, (std::int64_t{1} << 21) + 6);
    }
    placement_resolved(backend);
    devices_refused(backend);
    other_sources_refused(backend);
    moved_from_is_refused(backend);
  } catch (const std::exception& error) {
    cunum::testing::abort_all_ranks(rank, error);
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf(total == 0 ? "[  PASSED  ] monte-carlo-mpi on %d ranks\n" : "[  FAILED  ] on %d ranks\n", ranks);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
