// cunum::RandomGenerator's CUDA backend: bit for bit the CPU backend's uniforms and its
// Philox and MRG32k3a float normals (the other normals to a few ulps) at awkward sizes
// and offsets, into poisoned outputs; and the Philox4x32-10 stream against cuRAND's
// host API for the same seed and offset.

#include <cuda_runtime.h>
#include <curand.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "cunum/core/device_buffer.hpp"
#include "cunum/core/stream.hpp"
#include "cunum/core/value_types.hpp"
#include "cunum/random.hpp"
#include "curand_kind.hpp"
#include "sobol_normal_reference.hpp"
#include "test_support.hpp"

namespace {

using cunum::Backend;
using cunum::DeviceBuffer;
using cunum::RandomGenerator;
using cunum::RandomGeneratorKind;
using cunum::testing::curand_type;

constexpr std::uint64_t kOffsets[] = {0, 1, 2, 3, 6, (1ull << 34) + 5};
// The normals' mean and standard deviation: the latter not a power of two, so that the
// rounding of mean + stddev z counts.
constexpr double kMean = -1.0, kStddev = 1.5;
constexpr std::int64_t kSizes[] = {1, 2, 3, 5, 31, 257, 1021, 65537, 1048573};

void check_curand(curandStatus_t status, const char* call) {
  ASSERT_EQ(status, CURAND_STATUS_SUCCESS) << call;
}

template <class T>
class RandomGpu : public ::testing::Test {};
using RealTypes = ::testing::Types<CUNUM_REAL_TYPES>;
TYPED_TEST_SUITE(RandomGpu, RealTypes);

template <class T>
std::vector<T> fill_on_device(RandomGenerator& generator, std::int64_t n, bool normal) {
  DeviceBuffer<T> out(static_cast<std::size_t>(n));
  out.fill_bytes_async(0xFF);  // NaN in every element the kernel forgets
  if (normal) {
    generator.normal(n, out.data(), T(kMean), T(kStddev), out.stream());
  } else {
    generator.uniform(n, out.data(), out.stream());
  }
  return out.to_host();
}

// The CUDA backend's normals against the CPU's: the float normals of Philox and
// MRG32k3a to the bit (their Box-Muller and mean + stddev z round alike on both), the
// others to a few ulps (the Sobol float normals take the GPU's lg2.approx, the double
// Box-Muller its approximate reciprocal and reciprocal square root).
template <class T>
void expect_normals_equal(RandomGeneratorKind kind, const T* device, const std::vector<T>& host,
                          const std::string& where) {
  const bool to_the_bit = sizeof(T) == sizeof(float) && !cunum::is_quasi_random(kind);
  const T tolerance = T(16) * std::numeric_limits<T>::epsilon();
  for (std::size_t i = 0; i < host.size(); ++i) {
    if (to_the_bit) {
      ASSERT_EQ(std::memcmp(device + i, host.data() + i, sizeof(T)), 0)
          << where << " i " << i << ": " << device[i] << " on the GPU, " << host[i] << " on the CPU";
    } else {
      ASSERT_NEAR(device[i], host[i], tolerance * (T(1) + std::abs(host[i]))) << where << " i " << i;
    }
  }
}

// Calls check(gpu, cpu, offset, n) with two Philox4x32-10 generators of one fresh seed,
// on either backend, both at `offset`, for every offset and size of the suite.
template <class Check>
void for_each_offset_and_size(Check check) {
  const std::uint64_t seed = cunum::testing::fresh_seed();
  for (std::uint64_t offset : kOffsets) {
    for (std::int64_t n : kSizes) {
      RandomGenerator gpu(RandomGeneratorKind::philox4x32_10, seed, Backend::cuda);
      RandomGenerator cpu(RandomGeneratorKind::philox4x32_10, seed, Backend::cpu);
      gpu.set_offset(offset);
      cpu.set_offset(offset);
      check(gpu, cpu, offset, n);
    }
  }
}

TYPED_TEST(RandomGpu, UniformsEqualTheCpuBitForBit) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  for_each_offset_and_size([](RandomGenerator& gpu, RandomGenerator& cpu, std::uint64_t offset, std::int64_t n) {
    const std::vector<T> device = fill_on_device<T>(gpu, n, false);
    const std::vector<T> host = cpu.uniform<T>(n);
    ASSERT_EQ(std::memcmp(device.data(), host.data(), host.size() * sizeof(T)), 0)
        << "offset " << offset << " n " << n;
    EXPECT_EQ(gpu.offset(), cpu.offset());
  });
}

TYPED_TEST(RandomGpu, NormalsEqualTheCpu) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  for_each_offset_and_size([](RandomGenerator& gpu, RandomGenerator& cpu, std::uint64_t offset, std::int64_t n) {
    const std::vector<T> device = fill_on_device<T>(gpu, n, true);
    const std::vector<T> host = cpu.normal<T>(n, T(kMean), T(kStddev));
    expect_normals_equal(RandomGeneratorKind::philox4x32_10, device.data(), host,
                         "offset " + std::to_string(offset) + " n " + std::to_string(n));
  });
}

// A cuRAND host generator of Philox4x32-10 at (seed, offset), default ordering.
struct CurandPhilox {
  curandGenerator_t generator = nullptr;
  CurandPhilox(std::uint64_t seed, std::uint64_t offset) {
    check_curand(curandCreateGenerator(&generator, CURAND_RNG_PSEUDO_PHILOX4_32_10), "curandCreateGenerator");
    check_curand(curandSetPseudoRandomGeneratorSeed(generator, seed), "curandSetPseudoRandomGeneratorSeed");
    check_curand(curandSetGeneratorOffset(generator, offset), "curandSetGeneratorOffset");
  }
  ~CurandPhilox() { curandDestroyGenerator(generator); }
};

// cuRAND's host API fills in the order of the stream defined in
// cunum/device/philox.hpp (generator_block: 65536 interleaved subsequences): its float
// uniforms are ours, bit for bit, after any number of calls. (Its double fills pair
// the words differently; cunum's double stream is its own, two consecutive words of
// this stream per double.)
TEST(RandomGpuCurand, FloatUniformsEqualCurandHostApi) {
  CUNUM_REQUIRE_GPU();
  const std::uint64_t seed = cunum::testing::fresh_seed();
  for (std::uint64_t offset : {0ull, 4ull, 1000ull}) {
    CurandPhilox curand(seed, offset);
    RandomGenerator ours(RandomGeneratorKind::philox4x32_10, seed, Backend::cuda);
    ours.set_offset(offset);
    for (std::int64_t n : {4096, 1048576}) {
      DeviceBuffer<float> theirs(static_cast<std::size_t>(n));
      check_curand(curandGenerateUniform(curand.generator, theirs.data(), static_cast<std::size_t>(n)),
                   "curandGenerateUniform");
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const std::vector<float> expected = theirs.to_host();
      const std::vector<float> actual = fill_on_device<float>(ours, n, false);
      std::int64_t first_difference = -1;
      for (std::int64_t i = 0; i < n && first_difference < 0; ++i) {
        if (std::memcmp(&actual[i], &expected[i], sizeof(float)) != 0) first_difference = i;
      }
      ASSERT_EQ(first_difference, -1) << "offset " << offset << " n " << n;
    }
  }
}

// Float normals: the same Box-Muller pairs as cuRAND's (u1 from the first word, the
// angle from the second, sine first); cuRAND takes the fast __sincosf, so the values
// agree to its absolute error (about 1e-6 times the radius), not bit for bit.
TEST(RandomGpuCurand, FloatNormalsAgreeWithCurandHostApi) {
  CUNUM_REQUIRE_GPU();
  const std::uint64_t seed = cunum::testing::fresh_seed();
  const std::int64_t n = 1 << 18;
  CurandPhilox curand(seed, 0);
  RandomGenerator ours(RandomGeneratorKind::philox4x32_10, seed, Backend::cuda);
  DeviceBuffer<float> theirs(static_cast<std::size_t>(n));
  check_curand(curandGenerateNormal(curand.generator, theirs.data(), static_cast<std::size_t>(n), float(kMean),
                                    float(kStddev)),
               "curandGenerateNormal");
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<float> expected = theirs.to_host();
  const std::vector<float> actual = fill_on_device<float>(ours, n, true);
  for (std::int64_t i = 0; i < n; ++i) ASSERT_NEAR(actual[i], expected[i], 2e-4f) << "i " << i;
}

// MRG32k3a and the Sobol kinds: the CUDA backend equals the CPU backend bit for bit
// for uniforms and MRG32k3a's float normals (the rest to a few ulps), into poisoned
// outputs, at awkward sizes
// and offsets (MRG32k3a: raw outputs, around the 81920 lanes; Sobol: points).
constexpr RandomGeneratorKind kNewKinds[] = {RandomGeneratorKind::mrg32k3a, RandomGeneratorKind::sobol32,
                                             RandomGeneratorKind::scrambled_sobol32, RandomGeneratorKind::sobol64,
                                             RandomGeneratorKind::scrambled_sobol64};

TYPED_TEST(RandomGpu, Mrg32k3aAndSobolEqualTheCpu) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t seed = cunum::testing::fresh_seed();
  for (RandomGeneratorKind kind : kNewKinds) {
    const int dimensions = cunum::is_quasi_random(kind) ? 3 : 1;
    for (std::uint64_t offset : {0ull, 1ull, 81919ull, 81925ull, (1ull << 31) + 7}) {
      for (std::int64_t points : {1, 5, 1021, 81921, 400003}) {
        const std::int64_t n = points * dimensions;
        for (bool normal : {false, true}) {
          RandomGenerator gpu(kind, seed, Backend::cuda);
          RandomGenerator cpu(kind, seed, Backend::cpu);
          if (dimensions > 1) {
            gpu.set_dimensions(dimensions);
            cpu.set_dimensions(dimensions);
          }
          gpu.set_offset(offset);
          cpu.set_offset(offset);
          const std::vector<T> device = fill_on_device<T>(gpu, n, normal);
          const std::vector<T> host = normal ? cpu.normal<T>(n, T(kMean), T(kStddev)) : cpu.uniform<T>(n);
          EXPECT_EQ(gpu.offset(), cpu.offset());
          if (!normal) {
            ASSERT_EQ(std::memcmp(device.data(), host.data(), host.size() * sizeof(T)), 0)
                << cunum::to_string(kind) << " offset " << offset << " n " << n;
            continue;
          }
          expect_normals_equal(
              kind, device.data(), host,
              std::string(cunum::to_string(kind)) + " offset " + std::to_string(offset) + " n " + std::to_string(n));
        }
      }
    }
  }
}

// A fill of generator `kind` (in `dimensions` dimensions) at each output shift of 0 to 3
// elements, from each offset, of each count of values: equal to the CPU (uniforms bit
// for bit, normals by expect_normals_equal), the poisoned neighbours of the output
// untouched.
template <class T>
void expect_every_output_alignment_equals_the_cpu(RandomGeneratorKind kind, int dimensions,
                                                  std::initializer_list<std::uint64_t> offsets,
                                                  std::initializer_list<std::int64_t> counts) {
  const std::uint64_t seed = cunum::testing::fresh_seed();
  constexpr std::int64_t kMaxShift = 3;
  for (std::uint64_t offset : offsets) {
    for (std::int64_t shift = 0; shift <= kMaxShift; ++shift) {
      for (std::int64_t n : counts) {
        for (bool normal : {false, true}) {
          RandomGenerator gpu(kind, seed, Backend::cuda);
          RandomGenerator cpu(kind, seed, Backend::cpu);
          if (dimensions > 1) {
            gpu.set_dimensions(dimensions);
            cpu.set_dimensions(dimensions);
          }
          gpu.set_offset(offset);
          cpu.set_offset(offset);
          DeviceBuffer<T> out(static_cast<std::size_t>(n + kMaxShift));
          out.fill_bytes_async(0xFF);
          if (normal) {
            gpu.normal(n, out.data() + shift, T(kMean), T(kStddev), out.stream());
          } else {
            gpu.uniform(n, out.data() + shift, out.stream());
          }
          const std::vector<T> device = out.to_host();
          const std::vector<T> host = normal ? cpu.normal<T>(n, T(kMean), T(kStddev)) : cpu.uniform<T>(n);
          const std::string where = std::string(cunum::to_string(kind)) + " offset " + std::to_string(offset) +
                                    " shift " + std::to_string(shift) + " n " + std::to_string(n);
          for (std::int64_t i = 0; i < shift; ++i) ASSERT_TRUE(std::isnan(device[i])) << where << " before, i " << i;
          for (std::int64_t i = shift + n; i < n + kMaxShift; ++i) {
            ASSERT_TRUE(std::isnan(device[i])) << where << " after, i " << i;
          }
          if (!normal) {
            ASSERT_EQ(std::memcmp(device.data() + shift, host.data(), host.size() * sizeof(T)), 0) << where;
            continue;
          }
          expect_normals_equal(kind, device.data() + shift, host, where);
        }
      }
    }
  }
}

// Philox writes a fill's whole blocks with 16-, 8- or 4-byte stores by the output's
// alignment, and the fill's edge blocks and straddling offsets unit by unit.
TYPED_TEST(RandomGpu, PhiloxAtEveryOutputAlignmentEqualsTheCpu) {
  CUNUM_REQUIRE_GPU();
  expect_every_output_alignment_equals_the_cpu<TypeParam>(RandomGeneratorKind::philox4x32_10, 1,
                                                          {0, 1, 2, 3, 5, (1ull << 40) + 17}, {1, 6, 7, 4099, 262147});
}

// Sobol writes a dimension's whole groups of 16 bytes of values with 16-, 8- or 4-byte
// stores by their alignment (the same for all of a dimension's groups, not for all
// dimensions when the points are not a multiple of a group), and the points of the
// fill's edge groups (offsets and ends inside a group, a fill inside one group) one by one.
TYPED_TEST(RandomGpu, SobolAtEveryOutputAlignmentEqualsTheCpu) {
  CUNUM_REQUIRE_GPU();
  for (RandomGeneratorKind kind : {RandomGeneratorKind::sobol32, RandomGeneratorKind::scrambled_sobol64}) {
    for (int dimensions : {1, 3}) {
      for (std::int64_t points : {1, 2, 3, 6, 4099, 65539}) {
        expect_every_output_alignment_equals_the_cpu<TypeParam>(kind, dimensions, {0, 1, 2, 3, 1000003},
                                                                {points * dimensions});
      }
    }
  }
}

// The Sobol grid (its blocks a dimension, and each lane's groups of points) follows the
// points and the dimensions: one wide dimension, a few, and many dimensions of few
// points each equal the CPU, uniforms bit for bit, normals to a few ulps.
TYPED_TEST(RandomGpu, SobolAtEveryGridWidthEqualsTheCpu) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  struct Shape {
    int dimensions;
    std::int64_t points;
  };
  for (RandomGeneratorKind kind : {RandomGeneratorKind::scrambled_sobol32, RandomGeneratorKind::sobol64}) {
    for (Shape shape : {Shape{1, 4194307}, Shape{2, 65537}, Shape{5000, 7}, Shape{20000, 1}}) {
      for (bool normal : {false, true}) {
        RandomGenerator gpu(kind, 0, Backend::cuda);
        RandomGenerator cpu(kind, 0, Backend::cpu);
        gpu.set_dimensions(shape.dimensions);
        cpu.set_dimensions(shape.dimensions);
        gpu.set_offset(1000003);
        cpu.set_offset(1000003);
        const std::int64_t n = shape.points * shape.dimensions;
        const std::vector<T> device = fill_on_device<T>(gpu, n, normal);
        const std::vector<T> host = normal ? cpu.normal<T>(n, T(kMean), T(kStddev)) : cpu.uniform<T>(n);
        if (!normal) {
          ASSERT_EQ(std::memcmp(device.data(), host.data(), host.size() * sizeof(T)), 0)
              << cunum::to_string(kind) << " dimensions " << shape.dimensions;
          continue;
        }
        expect_normals_equal(kind, device.data(), host,
                             std::string(cunum::to_string(kind)) + " dimensions " + std::to_string(shape.dimensions));
      }
    }
  }
}

// Against cuRAND's device generator of the same kind (the host generator is compared
// on the CPU): uniforms bit for bit, normals to cuRAND's fast-math error.
TYPED_TEST(RandomGpu, Mrg32k3aAndSobolAgreeWithCurandDeviceGenerator) {
  CUNUM_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t seed = cunum::testing::fresh_seed();
  for (RandomGeneratorKind kind : kNewKinds) {
    const bool quasi = cunum::is_quasi_random(kind);
    const int dimensions = quasi ? 4 : 1;
    const std::int64_t n = 4 * 262147;
    for (bool normal : {false, true}) {
      curandGenerator_t curand = nullptr;
      check_curand(curandCreateGenerator(&curand, curand_type(kind)), "curandCreateGenerator");
      if (quasi) {
        check_curand(curandSetQuasiRandomGeneratorDimensions(curand, dimensions), "dimensions");
      } else {
        check_curand(curandSetPseudoRandomGeneratorSeed(curand, seed), "seed");
      }
      check_curand(curandSetGeneratorOffset(curand, 12345), "offset");
      DeviceBuffer<T> theirs(static_cast<std::size_t>(n));
      const auto count = static_cast<std::size_t>(n);
      if constexpr (sizeof(T) == sizeof(float)) {
        check_curand(normal ? curandGenerateNormal(curand, theirs.data(), count, float(kMean), float(kStddev))
                            : curandGenerateUniform(curand, theirs.data(), count),
                     "generate");
      } else {
        check_curand(normal ? curandGenerateNormalDouble(curand, theirs.data(), count, kMean, kStddev)
                            : curandGenerateUniformDouble(curand, theirs.data(), count),
                     "generate");
      }
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      curandDestroyGenerator(curand);
      const std::vector<T> expected = theirs.to_host();
      RandomGenerator ours(kind, seed, Backend::cuda);
      if (quasi) ours.set_dimensions(dimensions);
      ours.set_offset(12345);
      const std::vector<T> actual = fill_on_device<T>(ours, n, normal);
      const T tolerance = normal ? T(2e-4) : T(0);
      for (std::int64_t i = 0; i < n; ++i) {
        ASSERT_LE(std::abs(actual[i] - expected[i]), tolerance * (T(1) + std::abs(expected[i])))
            << cunum::to_string(kind) << (normal ? " normal" : " uniform") << " i " << i;
      }
    }
  }
}

// Sobol float normals on the GPU against the long double truth, cuRAND's device fill
// of the same points beside them: sobol32's first dimension's first 2^24 points are
// the words j 2^8, every 256th word (both extreme tails, the end of the centre
// polynomial, around one half), read back exactly from the CPU's double uniforms. The
// GPU's logarithm is the lg2.approx instruction: its bound (2^-22) gives 3.29 ulps when
// the CPU emulates it (docs/random.md), and this test holds 3.5. It also counts the
// values that differ from the CPU's (the logarithm may, and the tail's square root rarely).
TEST(RandomGpuSobolNormal, FloatWithinItsBoundOfTheTrueNormalBesideCurand) {
  CUNUM_REQUIRE_GPU();
  const std::int64_t n = std::int64_t{1} << 24;
  const auto count = static_cast<std::size_t>(n);
  RandomGenerator gpu(RandomGeneratorKind::sobol32, 0, Backend::cuda);
  DeviceBuffer<float> ours(count);
  gpu.normal(n, ours.data(), 0.0f, 1.0f, ours.stream());
  const std::vector<float> device = ours.to_host();
  curandGenerator_t curand = nullptr;
  check_curand(curandCreateGenerator(&curand, CURAND_RNG_QUASI_SOBOL32), "curandCreateGenerator");
  check_curand(curandSetQuasiRandomGeneratorDimensions(curand, 1), "dimensions");
  DeviceBuffer<float> theirs_buffer(count);
  check_curand(curandGenerateNormal(curand, theirs_buffer.data(), count, 0.0f, 1.0f), "curandGenerateNormal");
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  curandDestroyGenerator(curand);
  const std::vector<float> theirs = theirs_buffer.to_host();
  RandomGenerator cpu(RandomGeneratorKind::sobol32, 0, Backend::cpu);
  const std::vector<double> uniforms = cpu.uniform<double>(n);  // x 2^-32 + 2^-32, exact
  const std::vector<float> host = cpu.normal<float>(n, 0.0f, 1.0f);
  double worst = 0, worst_curand = 0, worst_absolute_curand = 0;
  std::uint32_t worst_word = 0, worst_word_curand = 0;
  std::int64_t differ_from_cpu = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const auto word = static_cast<std::uint32_t>((uniforms[i] - 0x1p-32) * 0x1p32);
    const long double truth = cunum::testing::reference_normal(word);
    const double ulps = cunum::testing::float_ulps(device[i], truth);
    const double ulps_curand = cunum::testing::float_ulps(theirs[i], truth);
    if (ulps > worst) {
      worst = ulps;
      worst_word = word;
    }
    if (ulps_curand > worst_curand) {
      worst_curand = ulps_curand;
      worst_word_curand = word;
    }
    worst_absolute_curand =
        std::fmax(worst_absolute_curand, static_cast<double>(std::fabs(static_cast<long double>(theirs[i]) - truth)));
    differ_from_cpu += std::memcmp(&device[i], &host[i], sizeof(float)) != 0;
  }
  std::printf("[ cunum    ] Sobol float normals, every 256th word: GPU within %.3f ulps (word %u), %lld of %lld "
              "differ from the CPU; cuRAND within %.3f ulps (word %u), %.3g absolute\n",
              worst, worst_word, static_cast<long long>(differ_from_cpu), static_cast<long long>(n), worst_curand,
              worst_word_curand, worst_absolute_curand);
  EXPECT_LE(worst, 3.5);
}

// The plan-object contract (cunum/core/placement.hpp): a Sobol kind's tables and the
// host-vector fills' buffers come from the placement's resource and go back to it;
// a copy shares its original's tables.
TEST(RandomGpuValidation, AllocatesFromThePlacementsResource) {
  CUNUM_REQUIRE_GPU();
  cunum::Stream stream;
  cunum::testing::CountingResource resource;
  cunum::Placement placement(Backend::cuda, stream);
  placement.device_memory = &resource;
  {
    RandomGenerator sobol(RandomGeneratorKind::scrambled_sobol64, 0, placement);
    const int made = resource.allocations.load();
    EXPECT_GT(made, 0) << "the Sobol tables";
    const cunum::Placement& resolved = sobol.placement();
    EXPECT_EQ(resolved.backend, Backend::cuda);
    EXPECT_EQ(resolved.devices, std::vector<int>{cunum::current_device()});
    EXPECT_EQ(resolved.stream, stream.get());
    EXPECT_EQ(resolved.device_memory, &resource);
    sobol.set_dimensions(3);
    const int resized = resource.allocations.load();
    EXPECT_GT(resized, made) << "the tables of 3 dimensions";
    const RandomGenerator copy = sobol;
    EXPECT_EQ(resource.allocations.load(), resized) << "a copy shares the tables";
    EXPECT_EQ(copy.placement().device_memory, &resource);
    RandomGenerator cpu(RandomGeneratorKind::scrambled_sobol64, 0, Backend::cpu);
    cpu.set_dimensions(3);
    EXPECT_EQ(sobol.uniform<double>(30), cpu.uniform<double>(30));
    EXPECT_GT(resource.allocations.load(), resized) << "the host-vector fill's buffer";

    RandomGenerator philox(RandomGeneratorKind::philox4x32_10, 5, placement);
    const int before = resource.allocations.load();
    EXPECT_EQ(philox.normal<float>(17, 0.0f, 1.0f).size(), 17u);
    EXPECT_GT(resource.allocations.load(), before) << "the host-vector fill's buffer";
  }
  cunum::synchronize(stream);
  EXPECT_EQ(resource.deallocations.load(), resource.allocations.load());
}

// Every device allocation, refused in turn by an exhausted placement.device_memory:
// the Sobol tables (at construction and set_dimensions) and the host-vector fills'
// buffers are out_of_memory naming the routine, give back what they were served, and
// leave the generator as it was.
TEST(RandomGpuValidation, AnExhaustedResourceIsOutOfMemoryNamingTheRoutine) {
  CUNUM_REQUIRE_GPU();
  using cunum::testing::cuda_placement;
  using cunum::testing::ExhaustibleResource;
  cunum::Stream stream;
  cunum::testing::expect_out_of_memory_at_each_allocation("cunum::RandomGenerator", [&](ExhaustibleResource* resource) {
    resource->arm();
    const RandomGenerator sobol(RandomGeneratorKind::scrambled_sobol64, 0, cuda_placement(stream, resource));
  });
  cunum::testing::expect_out_of_memory_at_each_allocation(
      "cunum::RandomGenerator::set_dimensions", [&](ExhaustibleResource* resource) {
        RandomGenerator sobol(RandomGeneratorKind::sobol32, 0, cuda_placement(stream, resource));
        resource->arm();
        try {
          sobol.set_dimensions(3);
        } catch (const cunum::Error&) {
          EXPECT_EQ(sobol.dimensions(), 1) << "a refused set_dimensions changed the generator";
          throw;
        }
      });
  for (const RandomGeneratorKind kind : cunum::RandomGeneratorKindValues::all) {
    SCOPED_TRACE(cunum::to_string(kind));
    cunum::testing::expect_out_of_memory_at_each_allocation(
        "cunum::RandomGenerator::normal", [&](ExhaustibleResource* resource) {
          RandomGenerator generator(kind, 3, cuda_placement(stream, resource));
          resource->arm();
          try {
            generator.normal<double>(64, 0.0, 1.0);
          } catch (const cunum::Error&) {
            EXPECT_EQ(generator.offset(), 0u) << "a refused fill moved the offset";
            throw;
          }
        });
  }
}

// A generator made on device 0 refuses fills made with device 1 current: nothing
// written, the offset unchanged.
TEST(RandomGpuValidation, FillsWithAnotherDeviceCurrentAreRefused) {
  CUNUM_REQUIRE_GPUS(2);
  const cunum::testing::ScopedCurrentDevice on_device_0(0);
  DeviceBuffer<float> out(64);
  for (const RandomGeneratorKind kind : cunum::RandomGeneratorKindValues::all) {
    SCOPED_TRACE(cunum::to_string(kind));
    RandomGenerator generator(kind, 3, Backend::cuda);
    out.fill_bytes_async(0xFF);
    {
      const cunum::testing::ScopedCurrentDevice on_device_1(1);
      EXPECT_CUNUM_ERROR(generator.uniform<float>(64, out.data()), cunum::ErrorCode::invalid_argument,
                         std::string("cunum::RandomGenerator::uniform: ") + cunum::testing::kMadeForDevice0);
      EXPECT_CUNUM_ERROR(generator.normal<float>(64, out.data(), 0.0f, 1.0f), cunum::ErrorCode::invalid_argument,
                         std::string("cunum::RandomGenerator::normal: ") + cunum::testing::kMadeForDevice0);
      // The host-vector fills too, whatever they stage first.
      EXPECT_CUNUM_ERROR(generator.uniform<double>(64), cunum::ErrorCode::invalid_argument,
                         std::string("cunum::RandomGenerator::uniform: ") + cunum::testing::kMadeForDevice0);
    }
    EXPECT_EQ(generator.offset(), 0u);
    for (const float value : out.to_host()) ASSERT_TRUE(std::isnan(value)) << "a refused fill wrote its output";
  }
}

TEST(RandomGpuValidation, HostPointerIsRefusedByTheCudaBackend) {
  CUNUM_REQUIRE_GPU();
  RandomGenerator generator(RandomGeneratorKind::philox4x32_10, 1, Backend::cuda);
  std::vector<float> host(8, 0.0f);
  int pageable_access = 0;
  cudaDeviceGetAttribute(&pageable_access, cudaDevAttrPageableMemoryAccess, cunum::current_device());
  if (pageable_access != 0) GTEST_SKIP() << "this device reads pageable host memory";
  EXPECT_CUNUM_ERROR(generator.uniform(8, host.data()), cunum::ErrorCode::invalid_argument, "out");
  EXPECT_EQ(generator.offset(), 0u);
}

// The graph-capture contract: uniform() and normal() are captured. A capture moves the
// generator's offset on once, as a direct call does, and every replay writes the
// numbers of the offset the capture saw, bit for bit those of the direct call.
TEST(RandomGpuGraphs, FillsReplayFromACapturedGraph) {
  CUNUM_REQUIRE_GPU();
  const std::int64_t n = 3 * 1021;  // a multiple of the Sobol kinds' 3 dimensions, odd for MRG32k3a normals
  const auto size = static_cast<std::size_t>(n);
  cunum::Stream stream;
  DeviceBuffer<float> uniforms(size, stream);
  DeviceBuffer<double> normals(size, stream);
  for (const RandomGeneratorKind kind : cunum::RandomGeneratorKindValues::all) {
    SCOPED_TRACE(cunum::to_string(kind));
    RandomGenerator generator(kind, cunum::testing::fresh_seed(), Backend::cuda);
    if (cunum::is_quasi_random(kind)) generator.set_dimensions(3);
    generator.set_offset(5);
    const auto fill = [&] {
      generator.uniform(n, uniforms.data(), stream);
      generator.normal(n, normals.data(), -1.0, 2.0, stream);
    };
    const auto poison = [&] {
      uniforms.fill_bytes_async(0xFF);
      normals.fill_bytes_async(0xFF);
    };
    poison();
    fill();
    const std::vector<float> direct_uniforms = uniforms.to_host();
    const std::vector<double> direct_normals = normals.to_host();
    const std::uint64_t after = generator.offset();
    for (const cudaStreamCaptureMode mode : cunum::testing::kCaptureModes) {
      SCOPED_TRACE(cunum::testing::capture_mode_name(mode));
      generator.set_offset(5);
      cunum::testing::CapturedGraph graph(stream, mode, fill);
      ASSERT_TRUE(graph.ok());
      EXPECT_EQ(generator.offset(), after) << "the capture moves the offset as the direct call did";
      for (int replay = 0; replay < 2; ++replay) {
        poison();
        graph.launch();
        const std::string which = ", replay " + std::to_string(replay);
        cunum::testing::expect_same_bits(uniforms.to_host(), direct_uniforms, "uniforms" + which);
        cunum::testing::expect_same_bits(normals.to_host(), direct_normals, "normals" + which);
      }
      EXPECT_EQ(generator.offset(), after) << "replays do not move the generator";
    }
  }
}

// What waits on the placement's stream refuses it while it is captured: the
// constructor, set_dimensions() (the tables' upload) and the host-vector fills; the
// generator is unchanged.
TEST(RandomGpuGraphs, WhatWaitsOnThePlacementsStreamRefusesACapture) {
  CUNUM_REQUIRE_GPU();
  cunum::Stream stream;
  RandomGenerator generator(RandomGeneratorKind::scrambled_sobol32, 0, {Backend::cuda, stream});
  for (const cudaStreamCaptureMode mode : cunum::testing::kCaptureModes) {
    SCOPED_TRACE(cunum::testing::capture_mode_name(mode));
    cunum::testing::expect_capture_refused(
        stream, mode, [&] { RandomGenerator(RandomGeneratorKind::sobol32, 0, {Backend::cuda, stream}); });
    cunum::testing::expect_capture_refused(stream, mode, [&] { generator.set_dimensions(4); });
    cunum::testing::expect_capture_refused(stream, mode, [&] { generator.uniform<float>(16); });
    cunum::testing::expect_capture_refused(stream, mode, [&] { generator.normal<double>(16, 0.0, 1.0); });
  }
  EXPECT_EQ(generator.dimensions(), 1);
  EXPECT_EQ(generator.offset(), 0u);
  EXPECT_EQ(generator.uniform<float>(16).size(), 16u);
}

}  // namespace
