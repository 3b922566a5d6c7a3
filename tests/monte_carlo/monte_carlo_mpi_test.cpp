// MonteCarloDistributed on however many ranks mpirun starts, against one
// MonteCarloPricer on the same backend: every estimate bit for bit, for a plain and a
// full (control variate, Greeks, antithetic) path-dependent case and an option count
// that does not split evenly, and on GPU ranks options of over 256 chunks (the folded
// exchange); a devices list refused by name.
// Usage: cunum-test-monte-carlo-mpi cpu|cuda. Exit status 0: passed or skipped, 1:
// failed (a cuda run without a device skips loudly: mpi_test_support.hpp).

#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cunum/core/error.hpp"
#include "cunum/monte_carlo_mpi.hpp"
#include "monte_carlo_cases.hpp"
#include "mpi_test_support.hpp"

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
  s.backend = backend;
  std::vector<cunum::MonteCarloOption<T>> options;
  for (int i = 0; i < 11; ++i) {
    options.push_back({T(100), T(80 + 4 * i), T(0.5 + 0.1 * i), T(0.02), T(0.01), T(0.3), T(0)});
  }
  const auto distributed = cunum::MonteCarloDistributed<T>(MPI_COMM_WORLD, s).price(options, 5);
  const auto single = cunum::MonteCarloPricer<T>(s).price(options, 5);
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

void devices_refused(Backend backend) {
  cunum::MonteCarloSettings s;
  s.backend = backend;
  s.devices = {0};
  try {
    cunum::MonteCarloDistributed<float>(MPI_COMM_WORLD, s);
    fail("a devices list was accepted");
  } catch (const cunum::Error& error) {
    if (std::string(error.what()).find("settings.devices") == std::string::npos) fail(error.what());
  }
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
    devices_refused(backend);
  } catch (const std::exception& error) {
    fail(error.what());
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf(total == 0 ? "[  PASSED  ] monte-carlo-mpi on %d ranks\n" : "[  FAILED  ] on %d ranks\n", ranks);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
