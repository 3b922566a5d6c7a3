#pragma once
// Internal: what the library's other Monte Carlo layers (the MPI one) need of a
// pricer and a batch: the arguments of a call, so that they can sum any range of
// chunks and finish the estimates exactly as MonteCarloPricer::price() does.

#include "src/monte_carlo/monte_carlo_backends.hpp"

namespace cunum::detail {

struct MonteCarloAccess {
  // The arguments of pricing `batch` with `pricer` into `results` (the batch's
  // constants as its home device, or the CPU, reads them). Validates nothing.
  template <class T>
  static MonteCarloArgs<T> args(const MonteCarloPricer<T>& pricer, const MonteCarloBatch<T>& batch,
                                MonteCarloEstimate<T>* results);

  template <class T>
  static const typename MonteCarloBatch<T>::Data* data(const MonteCarloBatch<T>& batch) {
    return batch.data_.get();
  }
};

}  // namespace cunum::detail
