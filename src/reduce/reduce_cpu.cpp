// The OpenMP backend of cunum::Reducer: each thread reduces a contiguous chunk in blocks of
// CpuReducePolicy::block elements. Inside a block, element i goes to lane
// i mod CpuReducePolicy::lanes; each lane accumulates its elements in order and the
// lanes are merged as a binary tree, which breaks the serial dependency chain so
// that the compiler vectorises without reassociating anything itself (the lane
// loops carry `omp simd` without a reduction clause: lanes are independent, so it
// reorders nothing, and it stops GCC unrolling them into scalar chains). Blocks are
// merged as a binary tree, then the per-thread results in thread order, so the
// result is deterministic for a given thread count.
// min/max keep the answer of the serial fmin/fmax chain the lanes replaced: NaN
// ignored unless all are NaN, and of +0 and -0 (equal, and C leaves fmin's choice
// open) a block returns its last, as glibc's fmin(sum, x) did; blocks and threads
// still merge with Operation::combine.

#include <omp.h>

#include <algorithm>
#include <array>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "src/core/instantiate.hpp"
#include "src/reduce/reduce_backends.hpp"
#include "src/reduce/reduce_ops.hpp"
#include "src/reduce/reduce_policy.hpp"

namespace cunum::detail {
namespace {

static_assert((CpuReducePolicy::lanes & (CpuReducePolicy::lanes - 1)) == 0, "lanes merge as a binary tree");
static_assert(CpuReducePolicy::block % CpuReducePolicy::lanes == 0,
              "every lane of a full block has block / lanes elements");

// Merges lane j with lane j + width, halving the width: log2(lanes) levels.
template <class Value, class Combine>
Value merge_lanes(std::array<Value, CpuReducePolicy::lanes>& lane, Combine combine) {
  for (int width = CpuReducePolicy::lanes / 2; width > 0; width /= 2) {
#pragma omp simd
    for (int j = 0; j < width; ++j) lane[j] = combine(lane[j], lane[j + width]);
  }
  return lane[0];
}

// Sum or sum of squares of data[0, count), count <= block: lanes of the accumulator
// type, each adding at most block / lanes elements in order.
template <class Operation, class T>
typename Operation::Accumulator block_sum(const T* data, std::int64_t count) {
  using Accumulator = typename Operation::Accumulator;
  std::array<Accumulator, CpuReducePolicy::lanes> lane;
  lane.fill(Operation::identity());
  std::int64_t i = 0;
  for (; i + CpuReducePolicy::lanes <= count; i += CpuReducePolicy::lanes) {
#pragma omp simd
    for (int j = 0; j < CpuReducePolicy::lanes; ++j) {
      lane[j] = Operation::combine(lane[j], Operation::transform(data[i + j]));
    }
  }
  for (int j = 0; i + j < count; ++j) lane[j] = Operation::combine(lane[j], Operation::transform(data[i + j]));
  return merge_lanes(lane, Operation::combine);
}

// min/max of data[0, count), count >= 1. Lanes compare in T: widening to the
// accumulator is exact and monotone, and T packs more lanes into a vector. A lane
// starts at the extreme the operation can never beat (+inf for a floating min) and
// takes x only when x < lane (x > lane for max), which is false for a NaN x: one
// minps/maxps per vector. Two floating results need the elements themselves, since
// lanes see a block out of order and cannot tell NaN from the starting infinity:
//   zero: +0 and -0 compare equal, and the serial fmin/fmax chain kept the last;
//   the starting infinity: a real infinity, or no element but NaN (the identity).
template <class Operation, ReduceOp Op, class T>
typename Operation::Accumulator block_extremum(const T* data, std::int64_t count) {
  constexpr bool is_min = Op == ReduceOp::min;
  constexpr T start = std::is_floating_point_v<T>
                          ? (is_min ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity())
                          : (is_min ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest());
  const auto keep_extreme = [](T kept, T x) {
    if constexpr (is_min) {
      return x < kept ? x : kept;
    } else {
      return x > kept ? x : kept;
    }
  };
  std::array<T, CpuReducePolicy::lanes> lane;
  lane.fill(start);
  std::int64_t i = 0;
  for (; i + CpuReducePolicy::lanes <= count; i += CpuReducePolicy::lanes) {
#pragma omp simd if(simd: CpuReducePolicy::vectorise_compares<T>)
    for (int j = 0; j < CpuReducePolicy::lanes; ++j) lane[j] = keep_extreme(lane[j], data[i + j]);
  }
  for (int j = 0; i + j < count; ++j) lane[j] = keep_extreme(lane[j], data[i + j]);
  const T extreme = merge_lanes(lane, keep_extreme);
  if constexpr (std::is_floating_point_v<T>) {
    if (extreme == T(0) || extreme == start) {
      for (std::int64_t last = count - 1; last >= 0; --last) {
        if (data[last] == extreme) return Operation::transform(data[last]);
      }
      return Operation::identity();
    }
  }
  return Operation::transform(extreme);
}

template <class T, ReduceOp Op>
typename ReduceOperation<T, Op>::Accumulator reduce_block(const T* data, std::int64_t count) {
  using Operation = ReduceOperation<T, Op>;
  if constexpr (Operation::is_additive) {
    return block_sum<Operation>(data, count);
  } else {
    return block_extremum<Operation, Op>(data, count);
  }
}

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
      const std::int64_t count = std::min(end - block, CpuReducePolicy::block);
      pairwise.push(reduce_block<T, Op>(data + block, count));
    }
    per_thread[static_cast<std::size_t>(thread)] = pairwise.total();
  }

  Accumulator result = Operation::identity();
  for (int t = 0; t < used_threads; ++t) {
    result = Operation::combine(result, per_thread[static_cast<std::size_t>(t)]);
  }
  return Operation::finish(result);
}

// Host pointers, synchronous.
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

// Keeps nothing between calls.
template <class T>
class CpuReducer final : public ReducerBackend<T> {
 public:
  void reduce(ReduceOp op, const T* data, std::int64_t n, reduce_result_t<T>* result, StreamHandle) override {
    *result = reduce_cpu(op, data, n);
  }
};

}  // namespace

template <class T>
std::unique_ptr<ReducerBackend<T>> make_reduce_cpu() {
  return std::make_unique<CpuReducer<T>>();
}

#define CUNUM_INSTANTIATE_MAKE_REDUCE_CPU(T) template std::unique_ptr<ReducerBackend<T>> make_reduce_cpu();
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_MAKE_REDUCE_CPU, CUNUM_REDUCE_TYPES)

}  // namespace cunum::detail
