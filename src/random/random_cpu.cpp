// The OpenMP backend of cunum::RandomGenerator: each generator's per-unit function
// (src/random/random_fill.hpp) over the threads, behind the backend interface
// (src/random/random_backends.hpp). Each task runs compiled for the host's FMA
// instructions where it has them (src/core/host_fma.hpp: the normals' fma() and
// fmaf(), library calls otherwise); the file is built with -ffp-contract=off, so the
// values are the same bits either way.

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "src/core/host_fma.hpp"
#include "src/random/random_backends.hpp"
#include "src/random/sobol_tables.hpp"

namespace cunum::detail {

namespace {

template <class T, bool Normal>
void philox_fill_cpu(const RandomFillArgs<T>& args) {
  constexpr std::int64_t run = 1024;  // blocks a task
  const PhiloxFill<T, Normal> fill(args);
  const auto blocks = static_cast<std::int64_t>(fill.blocks());
  const std::int64_t runs = (blocks + run - 1) / run;
#pragma omp parallel for schedule(static)
  for (std::int64_t task = 0; task < runs; ++task) {
    const std::int64_t first = task * run, end = std::min(first + run, blocks);
    run_on_host([&] {
      for (std::int64_t block = first; block < end; ++block) fill.fill_block(static_cast<std::uint64_t>(block));
    });
  }
}

template <class T>
void philox_fill_cpu(const RandomFillArgs<T>& args) {
  dispatch_normal(args.normal, [&](auto normal) { philox_fill_cpu<T, decltype(normal)::value>(args); });
}

template <bool Normal, class T>
void mrg_fill_cpu(const MrgFillArgs<T>& args) {
  constexpr std::int64_t run = 256;  // lanes a task: one lane start from scratch, then steps
  const std::int64_t lanes = args.lanes();
  const std::int64_t runs = (lanes + run - 1) / run;
#pragma omp parallel for schedule(static)
  for (std::int64_t task = 0; task < runs; ++task) {
    const std::int64_t first = task * run, end = first + run < lanes ? first + run : lanes;
    run_on_host([&] {
      device::Mrg32k3aState start = mrg_lane_start(args, first);
      for (std::int64_t thread = first; thread < end; ++thread) {
        fill_mrg_lane<Normal>(args, thread, start);
        if (thread + 1 < end) mrg_next_lane_start(args, thread, start);
      }
    });
  }
}

template <class T>
void mrg_fill_cpu(const MrgFillArgs<T>& args) {
  dispatch_normal(args.normal, [&](auto normal) { mrg_fill_cpu<decltype(normal)::value>(args); });
}

template <bool Normal, class T, class Word>
void sobol_fill_cpu(const SobolFillArgs<T, Word>& args) {
  // Groups a task (4096 points): one random access, then steps.
  constexpr std::int64_t run = 4096 >> SobolFillArgs<T, Word>::group_points_log2;
  constexpr std::int64_t table_words = sizeof(Word) * 8 + 1;
  const std::int64_t dimensions = args.n / args.points;
  const std::int64_t groups = args.whole_groups();
  const std::int64_t runs = (groups + run - 1) / run;
  const std::int64_t tasks = dimensions * runs;
#pragma omp parallel for schedule(static)
  for (std::int64_t task = 0; task < tasks; ++task) {
    const std::int64_t dimension = task / runs, first = task % runs * run;
    const std::int64_t end = first + run < groups ? first + run : groups;
    const Word* directions = args.tables + dimension * table_words;
    run_on_host([&] {
      SobolGroupRun<Normal, T, Word>(args, directions, dimension,
                                     args.whole_first_group() + static_cast<std::uint64_t>(first),
                                     args.whole_first_group() + static_cast<std::uint64_t>(end), 0)
          .fill();
    });
  }
  // At most two groups a dimension.
  for (std::int64_t dimension = 0; dimension < dimensions; ++dimension) {
    run_on_host([&] { fill_sobol_edges<Normal>(args, args.tables + dimension * table_words, dimension); });
  }
}

template <class T, class Word>
void sobol_fill_cpu(const SobolFillArgs<T, Word>& args) {
  dispatch_normal(args.normal, [&](auto normal) { sobol_fill_cpu<decltype(normal)::value>(args); });
}

// The host tables of one Sobol kind's dimensions: only the vector of the kind's word
// size is filled.
struct HostSobolTables {
  std::vector<std::uint32_t> words32;
  std::vector<std::uint64_t> words64;
};

class RandomCpu final : public RandomBackend {
 public:
  std::unique_ptr<RandomBackend> clone() const override { return std::make_unique<RandomCpu>(*this); }

  void philox_fill(const RandomFillArgs<float>& args, StreamHandle, const char*) override { philox_fill_cpu(args); }
  void philox_fill(const RandomFillArgs<double>& args, StreamHandle, const char*) override { philox_fill_cpu(args); }
  void mrg_fill(const MrgFillArgs<float>& args, StreamHandle, const char*) override { mrg_fill_cpu(args); }
  void mrg_fill(const MrgFillArgs<double>& args, StreamHandle, const char*) override { mrg_fill_cpu(args); }

  void set_sobol_dimensions(SobolSequence sequence, int dimensions) override {
    auto tables = std::make_shared<HostSobolTables>();
    if (is_64_bit(sequence)) {
      tables->words64 = interleaved_sobol_tables<std::uint64_t>(sequence, dimensions);
    } else {
      tables->words32 = interleaved_sobol_tables<std::uint32_t>(sequence, dimensions);
    }
    wide_ = is_64_bit(sequence);
    sobol_ = std::move(tables);
  }
  void sobol_fill(const SobolFillRequest<float>& request, StreamHandle, const char*) override {
    sobol_fill_host(request);
  }
  void sobol_fill(const SobolFillRequest<double>& request, StreamHandle, const char*) override {
    sobol_fill_host(request);
  }

  void fill_host(std::int64_t, float* host, const FillInto<float>& fill) override { fill(host, nullptr); }
  void fill_host(std::int64_t, double* host, const FillInto<double>& fill) override { fill(host, nullptr); }

 private:
  template <class T>
  void sobol_fill_host(const SobolFillRequest<T>& r) const {
    const auto run = [&](const auto* tables) {
      using Word = std::remove_cv_t<std::remove_pointer_t<decltype(tables)>>;
      sobol_fill_cpu(SobolFillArgs<T, Word>{tables, r.first_point, r.points, r.n, r.out, r.normal, r.mean, r.stddev});
    };
    if (wide_) {
      run(sobol_->words64.data());
    } else {
      run(sobol_->words32.data());
    }
  }

  // Shared by copies (RandomGenerator's copy), read-only once made.
  std::shared_ptr<const HostSobolTables> sobol_;
  bool wide_ = false;
};

}  // namespace

std::unique_ptr<RandomBackend> make_random_cpu() { return std::make_unique<RandomCpu>(); }

}  // namespace cunum::detail
