// cunum::RandomGenerator: validation at the API boundary, the stream position, and
// dispatch to the CPU or CUDA backend.

#include <cmath>
#include <limits>
#include <type_traits>

#include "cunum/core/device_buffer.hpp"
#include "cunum/random.hpp"
#include "src/core/device_binding.hpp"
#include "src/core/enum_functions.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"
#include "src/random/random_backends.hpp"
#include "src/random/sobol_tables.hpp"

namespace cunum {

CUNUM_DEFINE_ENUM_FUNCTIONS(RandomGeneratorKind, CUNUM_RANDOM_GENERATOR_KINDS)

bool is_quasi_random(RandomGeneratorKind kind) noexcept {
  return kind == RandomGeneratorKind::sobol32 || kind == RandomGeneratorKind::scrambled_sobol32 ||
         kind == RandomGeneratorKind::sobol64 || kind == RandomGeneratorKind::scrambled_sobol64;
}

namespace {

constexpr const char* kConstructorRoutine = "cunum::RandomGenerator";
constexpr const char* kDimensionsRoutine = "cunum::RandomGenerator::set_dimensions";
constexpr const char* kUniformRoutine = "cunum::RandomGenerator::uniform";
constexpr const char* kNormalRoutine = "cunum::RandomGenerator::normal";
constexpr int kMaxSobolDimensions = 20000;
constexpr std::uint64_t kLastPosition = std::numeric_limits<std::uint64_t>::max();

SobolSequence sobol_sequence(RandomGeneratorKind kind) {
  switch (kind) {
    case RandomGeneratorKind::scrambled_sobol32: return SobolSequence::scrambled_sobol32;
    case RandomGeneratorKind::sobol64: return SobolSequence::sobol64;
    case RandomGeneratorKind::scrambled_sobol64: return SobolSequence::scrambled_sobol64;
    default: return SobolSequence::sobol32;
  }
}

// Each dimension's direction vectors then its scrambling constant (SobolFillArgs).
template <class Word>
std::vector<Word> interleaved_sobol_tables(SobolSequence sequence, int dimensions) {
  constexpr std::size_t bits = sizeof(Word) * 8;
  const detail::SobolTables<Word> tables = detail::sobol_tables<Word>(sequence, dimensions);
  std::vector<Word> words;
  words.reserve(static_cast<std::size_t>(dimensions) * (bits + 1));
  for (std::size_t k = 0; k < static_cast<std::size_t>(dimensions); ++k) {
    words.insert(words.end(), tables.direction_vectors.begin() + k * bits,
                 tables.direction_vectors.begin() + (k + 1) * bits);
    words.push_back(tables.scramble[k]);
  }
  return words;
}

// The lane tables of MRG32k3a fills: seed-independent, formed once.
struct MrgLaneTables {
  device::MrgMatrix component1[detail::kMrgLaneTables];
  device::MrgMatrix component2[detail::kMrgLaneTables];
};

const MrgLaneTables& mrg_lane_tables() {
  static const MrgLaneTables tables = [] {
    std::vector<device::MrgMatrix> all(2 * device::kMrgSubstreamTables);
    device::mrg32k3a_substream_tables(all.data());
    MrgLaneTables lane{};
    for (int k = 0; k < detail::kMrgLaneTables; ++k) {
      lane.component1[k] = all[static_cast<std::size_t>(k)];
      lane.component2[k] = all[static_cast<std::size_t>(device::kMrgSubstreamTables + k)];
    }
    return lane;
  }();
  return tables;
}

}  // namespace

// One kind's tables: only the vector of the kind's word size is filled.
struct RandomGenerator::SobolTables {
  std::vector<std::uint32_t> host32;
  std::vector<std::uint64_t> host64;
  DeviceBuffer<std::uint32_t> device32;
  DeviceBuffer<std::uint64_t> device64;
};

RandomGenerator::RandomGenerator(RandomGeneratorKind kind, std::uint64_t seed, Backend backend)
    : kind_(kind), seed_(seed) {
  const detail::RoutineScope scope(kConstructorRoutine);
  detail::require_enum(kind, kConstructorRoutine, "kind", "RandomGeneratorKind");
  backend_ = resolve_backend(backend);
  if (backend_ == Backend::cuda) {
    const detail::DeviceBinding binding = detail::DeviceBinding::current();
    device_ = binding.device;
    multiprocessor_count_ = binding.multiprocessor_count;
  }
  if (is_quasi_random(kind_)) set_dimensions(1);
}

void RandomGenerator::set_dimensions(int dimensions) {
  const detail::RoutineScope scope(kDimensionsRoutine);
  detail::require(is_quasi_random(kind_), kDimensionsRoutine, "dimensions", "applies to the Sobol kinds only");
  detail::require(dimensions >= 1 && dimensions <= kMaxSobolDimensions, kDimensionsRoutine, "dimensions",
                  "is outside 1..20000");
  // Built completely before it replaces the old tables, so an error leaves them.
  auto tables = std::make_shared<SobolTables>();
  const SobolSequence sequence = sobol_sequence(kind_);
  if (detail::is_64_bit(sequence)) {
    tables->host64 = interleaved_sobol_tables<std::uint64_t>(sequence, dimensions);
    if (backend_ == Backend::cuda) tables->device64 = DeviceBuffer<std::uint64_t>::from_host(tables->host64);
  } else {
    tables->host32 = interleaved_sobol_tables<std::uint32_t>(sequence, dimensions);
    if (backend_ == Backend::cuda) tables->device32 = DeviceBuffer<std::uint32_t>::from_host(tables->host32);
  }
  sobol_ = std::move(tables);
  dimensions_ = dimensions;
}

void RandomGenerator::set_seed(std::uint64_t seed) {
  seed_ = seed;
  offset_ = 0;
}

void RandomGenerator::set_offset(std::uint64_t offset) { offset_ = offset; }

template <class T>
void RandomGenerator::fill(std::int64_t n, T* out, bool normal, T mean, T stddev, StreamHandle stream,
                           const char* routine) {
  detail::require_element_count(n, sizeof(T), routine, "n");
  detail::require_memory(out, n, backend_, routine, "out");
  if (normal) {
    detail::require_finite(static_cast<double>(mean), routine, "mean");
    detail::require_finite(static_cast<double>(stddev), routine, "stddev");
    detail::require(stddev >= 0, routine, "stddev", "is negative");
  }
  if (kind_ == RandomGeneratorKind::mrg32k3a) {
    fill_mrg(n, out, normal, mean, stddev, stream);
    return;
  }
  if (is_quasi_random(kind_)) {
    fill_sobol(n, out, normal, mean, stddev, stream);
    return;
  }
  const detail::RandomFillArgs<T> args{seed_, offset_, n, out, normal, mean, stddev};
  if (n == 0) return;
  if (backend_ == Backend::cpu) {
    detail::random_fill_cpu(args);
  } else {
    detail::DeviceBinding{device_, multiprocessor_count_}.require_current(routine);
    detail::random_fill_cuda(args, multiprocessor_count_, stream);
  }
  offset_ += args.words();
}

template <class T>
void RandomGenerator::fill_mrg(std::int64_t n, T* out, bool normal, T mean, T stddev, StreamHandle stream) {
  const char* routine = normal ? kNormalRoutine : kUniformRoutine;
  detail::MrgFillArgs<T> args{};
  args.n = n;
  args.out = out;
  args.normal = normal;
  args.mean = mean;
  args.stddev = stddev;
  const auto units = static_cast<std::uint64_t>(args.units());
  const std::uint64_t advance = detail::mrg_advance(units, normal ? 2 : 1);
  detail::require(advance <= kLastPosition - offset_, routine, "n", "runs past the end of the stream from the offset");
  if (n == 0) return;
  args.seeded = device::mrg32k3a_curand_seeded_state(seed_);
  const MrgLaneTables& tables = mrg_lane_tables();
  for (int k = 0; k < detail::kMrgLaneTables; ++k) {
    args.lane_tables1[k] = tables.component1[k];
    args.lane_tables2[k] = tables.component2[k];
  }
  const std::uint64_t first_output = offset_ / detail::kMrgLanes;
  args.start_jump[0] = device::mrg32k3a_jump(first_output);
  args.start_jump[1] = device::mrg32k3a_jump(first_output + 1);
  args.first_lane = offset_ % detail::kMrgLanes;
  if (backend_ == Backend::cpu) {
    detail::mrg_fill_cpu(args);
  } else {
    detail::DeviceBinding{device_, multiprocessor_count_}.require_current(routine);
    detail::mrg_fill_cuda(args, stream);
  }
  offset_ += advance;
}

template <class T>
void RandomGenerator::fill_sobol(std::int64_t n, T* out, bool normal, T mean, T stddev, StreamHandle stream) {
  const char* routine = normal ? kNormalRoutine : kUniformRoutine;
  detail::require(n % dimensions_ == 0, routine, "n", "is not a multiple of the dimensions");
  const std::int64_t points = n / dimensions_;
  const bool wide = detail::is_64_bit(sobol_sequence(kind_));
  const std::uint64_t end = wide ? kLastPosition : (std::uint64_t{1} << 32);
  detail::require(static_cast<std::uint64_t>(points) <= end - offset_, routine, "n",
                  "runs past the end of the sequence from the offset");
  if (n == 0) return;
  if (backend_ == Backend::cuda) detail::DeviceBinding{device_, multiprocessor_count_}.require_current(routine);
  const auto run = [&](const auto* host_tables, const auto* device_tables) {
    using Word = std::remove_cv_t<std::remove_pointer_t<decltype(host_tables)>>;
    detail::SobolFillArgs<T, Word> args{host_tables, offset_, points, n, out, normal, mean, stddev};
    if (backend_ == Backend::cpu) {
      detail::sobol_fill_cpu(args);
    } else {
      args.tables = device_tables;
      detail::sobol_fill_cuda(args, multiprocessor_count_, stream);
    }
  };
  if (wide) {
    run(sobol_->host64.data(), sobol_->device64.data());
  } else {
    run(sobol_->host32.data(), sobol_->device32.data());
  }
  offset_ += static_cast<std::uint64_t>(points);
}

template <class T>
void RandomGenerator::uniform(std::int64_t n, T* out, StreamHandle stream) {
  const detail::RoutineScope scope(kUniformRoutine);
  fill(n, out, false, T(0), T(1), stream, kUniformRoutine);
}

template <class T>
void RandomGenerator::normal(std::int64_t n, T* out, T mean, T stddev, StreamHandle stream) {
  const detail::RoutineScope scope(kNormalRoutine);
  fill(n, out, true, mean, stddev, stream, kNormalRoutine);
}

template <class T>
std::vector<T> RandomGenerator::uniform(std::int64_t n) {
  const detail::RoutineScope scope(kUniformRoutine);
  detail::require_element_count(n, sizeof(T), kUniformRoutine, "n");
  std::vector<T> host(static_cast<std::size_t>(n));
  if (backend_ == Backend::cpu || n == 0) {
    uniform(n, host.data());
    return host;
  }
  DeviceBuffer<T> device(host.size());
  uniform(n, device.data(), device.stream());
  device.copy_to_host(host.data(), host.size());
  return host;
}

template <class T>
std::vector<T> RandomGenerator::normal(std::int64_t n, T mean, T stddev) {
  const detail::RoutineScope scope(kNormalRoutine);
  detail::require_element_count(n, sizeof(T), kNormalRoutine, "n");
  std::vector<T> host(static_cast<std::size_t>(n));
  if (backend_ == Backend::cpu || n == 0) {
    normal(n, host.data(), mean, stddev);
    return host;
  }
  DeviceBuffer<T> device(host.size());
  normal(n, device.data(), mean, stddev, device.stream());
  device.copy_to_host(host.data(), host.size());
  return host;
}

#define CUNUM_INSTANTIATE_RANDOM(T)                                                        \
  template void RandomGenerator::uniform<T>(std::int64_t, T*, StreamHandle);               \
  template void RandomGenerator::normal<T>(std::int64_t, T*, T, T, StreamHandle);          \
  template std::vector<T> RandomGenerator::uniform<T>(std::int64_t);                       \
  template std::vector<T> RandomGenerator::normal<T>(std::int64_t, T, T);
CUNUM_INSTANTIATE_RANDOM(float)
CUNUM_INSTANTIATE_RANDOM(double)
#undef CUNUM_INSTANTIATE_RANDOM

}  // namespace cunum
