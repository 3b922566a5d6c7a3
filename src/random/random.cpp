// cunum::RandomGenerator: validation at the API boundary, the stream position, and
// dispatch to the CPU or CUDA backend.

#include <cmath>

#include "cunum/core/device_buffer.hpp"
#include "cunum/random.hpp"
#include "src/core/device_binding.hpp"
#include "src/core/enum_functions.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"
#include "src/random/random_backends.hpp"

namespace cunum {

CUNUM_DEFINE_ENUM_FUNCTIONS(RandomGeneratorKind, CUNUM_RANDOM_GENERATOR_KINDS)

namespace {

constexpr const char* kConstructorRoutine = "cunum::RandomGenerator";
constexpr const char* kUniformRoutine = "cunum::RandomGenerator::uniform";
constexpr const char* kNormalRoutine = "cunum::RandomGenerator::normal";

}  // namespace

RandomGenerator::RandomGenerator(RandomGeneratorKind kind, std::uint64_t seed, Backend backend)
    : kind_(kind), seed_(seed) {
  const detail::RoutineScope scope(kConstructorRoutine);
  detail::require_enum(kind, kConstructorRoutine, "kind", "RandomGeneratorKind");
  backend_ = resolve_backend(backend);
  if (backend_ != Backend::cuda) return;
  const detail::DeviceBinding binding = detail::DeviceBinding::current();
  device_ = binding.device;
  multiprocessor_count_ = binding.multiprocessor_count;
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
