// OpenMP backend: each thread reduces a contiguous chunk with a pairwise
// accumulator (blocks of kBlock summed in order, blocks merged as a binary tree),
// then the per-thread results are combined in thread order, so the result is
// deterministic for a given thread count.

#include <omp.h>

#include <algorithm>
#include <vector>

#include "src/reduce/reduce_backends.hpp"
#include "src/reduce/reduce_ops.hpp"

namespace cunum::detail {
namespace {

struct CpuReducePolicy {
  static constexpr std::int64_t block = 256;                        // summed in order
  static constexpr std::int64_t parallel_threshold = std::int64_t{1} << 15;  // below: one thread
};

// Merges equal-sized partial results like a binary counter: at most log2(n/block)
// partials are pending, and every element sits at depth <= log2(n/block) of the tree.
template <class Operation>
class PairwiseAccumulator {
  using Accumulator = typename Operation::Accumulator;

 public:
  void push(Accumulator value) {
    int level = 0;
    while (!levels_.empty() && levels_.back().level == level) {
      value = Operation::combine(levels_.back().value, value);
      levels_.pop_back();
      ++level;
    }
    levels_.push_back({level, value});
  }
  Accumulator total() const {
    Accumulator result = Operation::identity();
    for (auto it = levels_.rbegin(); it != levels_.rend(); ++it) {
      result = Operation::combine(it->value, result);
    }
    return result;
  }

 private:
  struct Pending {
    int level;
    Accumulator value;
  };
  std::vector<Pending> levels_;
};

template <class T, ReduceOp Op>
reduce_result_t<T> reduce_chunks(const T* data, std::int64_t n) {
  using Operation = ReduceOperation<T, Op>;
  using Accumulator = typename Operation::Accumulator;

  const int max_threads = n >= CpuReducePolicy::parallel_threshold ? omp_get_max_threads() : 1;
  std::vector<Accumulator> per_thread(static_cast<std::size_t>(max_threads), Operation::identity());
  int used_threads = 1;

#pragma omp parallel num_threads(max_threads)
  {
    const int threads = omp_get_num_threads();
    const int thread = omp_get_thread_num();
#pragma omp single
    used_threads = threads;
    const std::int64_t begin = n * thread / threads;
    const std::int64_t end = n * (thread + 1) / threads;
    PairwiseAccumulator<Operation> pairwise;
    for (std::int64_t block = begin; block < end; block += CpuReducePolicy::block) {
      const std::int64_t block_end = std::min(end, block + CpuReducePolicy::block);
      Accumulator sum = Operation::identity();
      for (std::int64_t i = block; i < block_end; ++i) {
        sum = Operation::combine(sum, Operation::transform(data[i]));
      }
      pairwise.push(sum);
    }
    per_thread[static_cast<std::size_t>(thread)] = pairwise.total();
  }

  Accumulator result = Operation::identity();
  for (int t = 0; t < used_threads; ++t) {
    result = Operation::combine(result, per_thread[static_cast<std::size_t>(t)]);
  }
  return Operation::finish(result);
}

}  // namespace

template <class T>
reduce_result_t<T> reduce_cpu(ReduceOp op, const T* data, std::int64_t n) {
  switch (op) {
    case ReduceOp::sum: return reduce_chunks<T, ReduceOp::sum>(data, n);
    case ReduceOp::sum_of_squares: return reduce_chunks<T, ReduceOp::sum_of_squares>(data, n);
    case ReduceOp::min: return reduce_chunks<T, ReduceOp::min>(data, n);
    case ReduceOp::max: return reduce_chunks<T, ReduceOp::max>(data, n);
  }
  return {};
}

template reduce_result_t<float> reduce_cpu(ReduceOp, const float*, std::int64_t);
template reduce_result_t<double> reduce_cpu(ReduceOp, const double*, std::int64_t);
template reduce_result_t<std::int32_t> reduce_cpu(ReduceOp, const std::int32_t*, std::int64_t);
template reduce_result_t<std::int64_t> reduce_cpu(ReduceOp, const std::int64_t*, std::int64_t);

}  // namespace cunum::detail
