// cunum::RandomGenerator's front end: validation at the API boundary, the stream
// position (each fill's arguments, src/random/random_fill.hpp), and the backend object
// made once at construction (src/random/random_backends.hpp) that runs the fills.

#include <cmath>
#include <limits>
#include <type_traits>

#include "cunum/random.hpp"
#include "src/core/enum_functions.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/memory_need.hpp"
#include "src/core/placement.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"
#include "src/random/random_backends.hpp"
#include "src/random/random_internal.hpp"
#include "src/random/sobol_tables.hpp"

namespace cunum {

CUNUM_DEFINE_ENUM_FUNCTIONS(RandomGeneratorKind, CUNUM_RANDOM_GENERATOR_KINDS)

bool is_quasi_random(RandomGeneratorKind kind) noexcept {
  return kind == RandomGeneratorKind::sobol32 || kind == RandomGeneratorKind::scrambled_sobol32 ||
         kind == RandomGeneratorKind::sobol64 || kind == RandomGeneratorKind::scrambled_sobol64;
}

namespace {

constexpr const char* kConstructorRoutine = "cunum::RandomGenerator";
constexpr const char* kSeedRoutine = "cunum::RandomGenerator::set_seed";
constexpr const char* kOffsetRoutine = "cunum::RandomGenerator::set_offset";
constexpr const char* kDimensionsRoutine = "cunum::RandomGenerator::set_dimensions";
constexpr const char* kUniformRoutine = "cunum::RandomGenerator::uniform";
constexpr const char* kNormalRoutine = "cunum::RandomGenerator::normal";
constexpr const char* kClassName = "RandomGenerator";
constexpr std::uint64_t kLastPosition = std::numeric_limits<std::uint64_t>::max();

SobolSequence sobol_sequence(RandomGeneratorKind kind) {
  switch (kind) {
    case RandomGeneratorKind::scrambled_sobol32: return SobolSequence::scrambled_sobol32;
    case RandomGeneratorKind::sobol64: return SobolSequence::sobol64;
    case RandomGeneratorKind::scrambled_sobol64: return SobolSequence::scrambled_sobol64;
    default: return SobolSequence::sobol32;
  }
}

// The end of a kind's stream, in its units (Philox: words; MRG32k3a: raw outputs;
// Sobol: points): the largest offset, which no fill reads at or past. A 32-bit Sobol
// sequence has 2^32 points a dimension (0 to 2^32 - 1), so its offset runs to 2^32;
// the other streams have at least the 2^64 positions a 64-bit offset counts, so
// theirs is the largest offset there is, 2^64 - 1 (a fill reads up to 2^64 - 2).
std::uint64_t stream_end(RandomGeneratorKind kind) {
  if (is_quasi_random(kind) && !detail::is_64_bit(sobol_sequence(kind))) return std::uint64_t{1} << 32;
  return kLastPosition;
}

// A fill's use of the stream from the offset, in the kind's units: it reads the
// `reach` positions from the offset and moves the offset on by `advance` (<= reach:
// an MRG32k3a normal fill's partial last round reads further than it moves).
struct StreamUse {
  std::uint64_t reach;
  std::uint64_t advance;
};

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

namespace detail {

template <class Word>
std::vector<Word> interleaved_sobol_tables(SobolSequence sequence, int dimensions) {
  constexpr std::size_t bits = sizeof(Word) * 8;
  const SobolTables<Word> tables = sobol_tables<Word>(sequence, dimensions);
  std::vector<Word> words;
  words.reserve(static_cast<std::size_t>(dimensions) * (bits + 1));
  for (std::size_t k = 0; k < static_cast<std::size_t>(dimensions); ++k) {
    words.insert(words.end(), tables.direction_vectors.begin() + k * bits,
                 tables.direction_vectors.begin() + (k + 1) * bits);
    words.push_back(tables.scramble[k]);
  }
  return words;
}

template std::vector<std::uint32_t> interleaved_sobol_tables<std::uint32_t>(SobolSequence, int);
template std::vector<std::uint64_t> interleaved_sobol_tables<std::uint64_t>(SobolSequence, int);

}  // namespace detail

struct RandomGenerator::Impl {
  RandomGeneratorKind kind;
  std::uint64_t seed;
  std::uint64_t offset = 0;
  int dimensions = 1;
  Placement placement;  // resolved
  std::unique_ptr<detail::RandomBackend> backend;

  Impl(RandomGeneratorKind kind_, std::uint64_t seed_, const Placement& resolved)
      : kind(kind_),
        seed(seed_),
        placement(resolved),
        backend(resolved.backend == Backend::cpu ? detail::make_random_cpu() : detail::make_random_cuda(resolved)) {}
  Impl(const Impl& other)
      : kind(other.kind),
        seed(other.seed),
        offset(other.offset),
        dimensions(other.dimensions),
        placement(other.placement),
        backend(other.backend->clone()) {}

  void set_dimensions(int count) {
    detail::require(is_quasi_random(kind), kDimensionsRoutine, "dimensions", "applies to the Sobol kinds only");
    detail::require(count >= 1 && count <= detail::kMaxSobolDimensions, kDimensionsRoutine, "dimensions",
                    "is outside 1..20000");
    backend->set_sobol_dimensions(sobol_sequence(kind), count);
    dimensions = count;
  }

  // The checks of a fill but for `out` (n >= 0 with a 64-bit byte count is checked
  // before): mean and stddev of a normal fill, then the stream: a Sobol fill's n a
  // multiple of the dimensions, and every position the fill reads before the end of
  // the stream (one rule for every kind, in overflow-free arithmetic). Returns the
  // fill's use of the stream; nothing has been written or enqueued.
  template <class T>
  StreamUse check_fill(std::int64_t n, bool normal, T mean, T stddev, const char* routine) const;
  template <class T>
  void fill(std::int64_t n, T* out, bool normal, T mean, T stddev, StreamHandle stream, const char* routine);
  template <class T>
  void fill_mrg(std::int64_t n, T* out, bool normal, T mean, T stddev, StreamHandle stream);
};

RandomGenerator::RandomGenerator(RandomGeneratorKind kind, std::uint64_t seed, const Placement& placement) {
  const detail::RoutineScope scope(kConstructorRoutine);
  detail::require_enum(kind, kConstructorRoutine, "kind", "RandomGeneratorKind");
  const Placement resolved = detail::resolve_placement(placement, detail::DeviceCount::one, kConstructorRoutine);
  const detail::PlacementDeviceScope on_device(resolved);
  impl_ = std::make_unique<Impl>(kind, seed, resolved);
  if (is_quasi_random(kind)) impl_->set_dimensions(1);
}

RandomGenerator::RandomGenerator(const RandomGenerator& other)
    : impl_(other.impl_ != nullptr ? std::make_unique<Impl>(*other.impl_) : nullptr) {}

RandomGenerator& RandomGenerator::operator=(const RandomGenerator& other) {
  if (this != &other) impl_ = other.impl_ != nullptr ? std::make_unique<Impl>(*other.impl_) : nullptr;
  return *this;
}

RandomGenerator::RandomGenerator(RandomGenerator&& other) noexcept = default;
RandomGenerator& RandomGenerator::operator=(RandomGenerator&& other) noexcept = default;
RandomGenerator::~RandomGenerator() = default;

void RandomGenerator::set_dimensions(int dimensions) {
  const detail::RoutineScope scope(kDimensionsRoutine);
  detail::require_plan(impl_, kDimensionsRoutine, kClassName).set_dimensions(dimensions);
}

void RandomGenerator::set_seed(std::uint64_t seed) {
  Impl& impl = detail::require_plan(impl_, kSeedRoutine, kClassName);
  impl.seed = seed;
  impl.offset = 0;
}

void RandomGenerator::set_offset(std::uint64_t offset) {
  Impl& impl = detail::require_plan(impl_, kOffsetRoutine, kClassName);
  // Only the 32-bit Sobol kinds end before the largest offset: refused here, so that
  // the offset of every generator lies in its stream.
  const std::uint64_t end = stream_end(impl.kind);
  detail::require(offset <= end, kOffsetRoutine, "offset", [&] {
    return "= " + std::to_string(offset) + " is past the end of the " + to_string(impl.kind) + " sequence (" +
           std::to_string(end) + " points a dimension: offsets 0 to " + std::to_string(end) + ")";
  });
  impl.offset = offset;
}

std::uint64_t RandomGenerator::seed() const {
  return detail::require_plan(impl_, "cunum::RandomGenerator::seed", kClassName).seed;
}

std::uint64_t RandomGenerator::offset() const {
  return detail::require_plan(impl_, "cunum::RandomGenerator::offset", kClassName).offset;
}

int RandomGenerator::dimensions() const {
  return detail::require_plan(impl_, "cunum::RandomGenerator::dimensions", kClassName).dimensions;
}

Backend RandomGenerator::backend() const {
  return detail::require_plan(impl_, "cunum::RandomGenerator::backend", kClassName).placement.backend;
}

const Placement& RandomGenerator::placement() const {
  return detail::require_plan(impl_, "cunum::RandomGenerator::placement", kClassName).placement;
}

RandomGeneratorKind RandomGenerator::kind() const {
  return detail::require_plan(impl_, "cunum::RandomGenerator::kind", kClassName).kind;
}

template <class T>
StreamUse RandomGenerator::Impl::check_fill(std::int64_t n, bool normal, T mean, T stddev,
                                            const char* routine) const {
  if (normal) {
    detail::require_finite(static_cast<double>(mean), routine, "mean");
    detail::require_finite(static_cast<double>(stddev), routine, "stddev");
    detail::require(stddev >= 0, routine, "stddev", "is negative");
  }
  StreamUse use{};
  if (kind == RandomGeneratorKind::mrg32k3a) {
    // Values, or Box-Muller pairs of two draws (MrgFillArgs::units).
    const auto units = static_cast<std::uint64_t>(normal ? n / 2 + n % 2 : n);
    const std::uint64_t draws = normal ? 2 : 1;
    use = {detail::mrg_reach(units, draws), detail::mrg_advance(units, draws)};
  } else if (is_quasi_random(kind)) {
    detail::require(n % dimensions == 0, routine, "n", "is not a multiple of the dimensions");
    const auto points = static_cast<std::uint64_t>(n / dimensions);
    use = {points, points};
  } else {
    // At most 4 words per 2 values: below 2^64 for any n >= 0.
    const std::uint64_t words = detail::RandomFillArgs<T>{seed, offset, n, nullptr, normal, mean, stddev}.words();
    use = {words, words};
  }
  const std::uint64_t end = stream_end(kind);
  detail::require(offset <= end && use.reach <= end - offset, routine, "n", [&] {
    return "= " + std::to_string(n) + " reads " + std::to_string(use.reach) + " positions from offset " +
           std::to_string(offset) + ", past the end of the " + to_string(kind) + " stream at " +
           std::to_string(end);
  });
  return use;
}

template <class T>
void RandomGenerator::Impl::fill(std::int64_t n, T* out, bool normal, T mean, T stddev, StreamHandle stream,
                                 const char* routine) {
  detail::require_element_count(n, sizeof(T), routine, "n");
  detail::require_memory(out, n, placement.backend, routine, "out");
  const StreamUse use = check_fill(n, normal, mean, stddev, routine);
  if (n == 0) return;
  if (kind == RandomGeneratorKind::mrg32k3a) {
    fill_mrg(n, out, normal, mean, stddev, stream);
  } else if (is_quasi_random(kind)) {
    backend->sobol_fill(detail::SobolFillRequest<T>{offset, n / dimensions, n, out, normal, mean, stddev}, stream,
                        routine);
  } else {
    backend->philox_fill(detail::RandomFillArgs<T>{seed, offset, n, out, normal, mean, stddev}, stream, routine);
  }
  offset += use.advance;
}

// A validated MRG32k3a fill of n > 0 values.
template <class T>
void RandomGenerator::Impl::fill_mrg(std::int64_t n, T* out, bool normal, T mean, T stddev, StreamHandle stream) {
  const char* routine = normal ? kNormalRoutine : kUniformRoutine;
  detail::MrgFillArgs<T> args{};
  args.n = n;
  args.out = out;
  args.normal = normal;
  args.mean = mean;
  args.stddev = stddev;
  args.seeded = device::mrg32k3a_curand_seeded_state(seed);
  const MrgLaneTables& tables = mrg_lane_tables();
  for (int k = 0; k < detail::kMrgLaneTables; ++k) {
    args.lane_tables1[k] = tables.component1[k];
    args.lane_tables2[k] = tables.component2[k];
  }
  const std::uint64_t first_output = offset / detail::kMrgLanes;
  args.start_jump[0] = device::mrg32k3a_jump(first_output);
  args.start_jump[1] = device::mrg32k3a_jump(first_output + 1);
  args.first_lane = offset % detail::kMrgLanes;
  backend->mrg_fill(args, stream, routine);
}

template <class T>
void RandomGenerator::uniform(std::int64_t n, T* out, StreamHandle stream) {
  const detail::RoutineScope scope(kUniformRoutine);
  detail::require_plan(impl_, kUniformRoutine, kClassName).fill(n, out, false, T(0), T(1), stream, kUniformRoutine);
}

template <class T>
void RandomGenerator::normal(std::int64_t n, T* out, T mean, T stddev, StreamHandle stream) {
  const detail::RoutineScope scope(kNormalRoutine);
  detail::require_plan(impl_, kNormalRoutine, kClassName).fill(n, out, true, mean, stddev, stream, kNormalRoutine);
}

// The host-vector fills allocate n values on the host and, for the CUDA backend, as
// many on the device to fill through: refused past either memory before anything is
// allocated (n itself is bounded only by the stream's 2^64 positions).
namespace {
template <class T>
void require_host_fill_fits(std::int64_t n, Backend backend, const char* routine) {
  const detail::MemoryNeed need = detail::MemoryNeed{}.add(n, sizeof(T));
  detail::require_memory_need(need, Backend::cpu, routine, "for the host vector of 'n' values");
  if (backend == Backend::cuda) {
    detail::require_memory_need(need, Backend::cuda, routine, "for the device array the values are filled into");
  }
}
}  // namespace

template <class T>
std::vector<T> RandomGenerator::uniform(std::int64_t n) {
  const detail::RoutineScope scope(kUniformRoutine);
  Impl& impl = detail::require_plan(impl_, kUniformRoutine, kClassName);
  detail::require_element_count(n, sizeof(T), kUniformRoutine, "n");
  impl.check_fill(n, false, T(0), T(1), kUniformRoutine);  // before anything is allocated
  require_host_fill_fits<T>(n, impl.placement.backend, kUniformRoutine);
  std::vector<T> host(static_cast<std::size_t>(n));
  if (n == 0) {
    uniform(n, host.data());
    return host;
  }
  impl.backend->fill_host(n, host.data(), [&](T* out, StreamHandle stream) { uniform(n, out, stream); });
  return host;
}

template <class T>
std::vector<T> RandomGenerator::normal(std::int64_t n, T mean, T stddev) {
  const detail::RoutineScope scope(kNormalRoutine);
  Impl& impl = detail::require_plan(impl_, kNormalRoutine, kClassName);
  detail::require_element_count(n, sizeof(T), kNormalRoutine, "n");
  impl.check_fill(n, true, mean, stddev, kNormalRoutine);  // before anything is allocated
  require_host_fill_fits<T>(n, impl.placement.backend, kNormalRoutine);
  std::vector<T> host(static_cast<std::size_t>(n));
  if (n == 0) {
    normal(n, host.data(), mean, stddev);
    return host;
  }
  impl.backend->fill_host(n, host.data(), [&](T* out, StreamHandle stream) { normal(n, out, mean, stddev, stream); });
  return host;
}

#define CUNUM_INSTANTIATE_RANDOM(T)                                                        \
  template void RandomGenerator::uniform<T>(std::int64_t, T*, StreamHandle);               \
  template void RandomGenerator::normal<T>(std::int64_t, T*, T, T, StreamHandle);          \
  template std::vector<T> RandomGenerator::uniform<T>(std::int64_t);                       \
  template std::vector<T> RandomGenerator::normal<T>(std::int64_t, T, T);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_RANDOM, CUNUM_REAL_TYPES)
#undef CUNUM_INSTANTIATE_RANDOM

}  // namespace cunum
