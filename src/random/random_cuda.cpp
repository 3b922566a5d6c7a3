// The CUDA backend of cunum::RandomGenerator: the device the generator was made for,
// the Sobol tables on it (from the placement's device memory, uploaded on its
// stream), and each fill's launch (kernels/random/random_launch.hpp).

#include <memory>
#include <type_traits>
#include <utility>

#include "cunum/core/device_buffer.hpp"
#include "kernels/random/random_launch.hpp"
#include "src/core/device_binding.hpp"
#include "src/core/graph_capture.hpp"
#include "src/random/random_backends.hpp"
#include "src/random/sobol_tables.hpp"

namespace cunum::detail {

namespace {

// The device tables of one Sobol kind's dimensions: only the buffer of the kind's
// word size is filled.
struct DeviceSobolTables {
  DeviceBuffer<std::uint32_t> words32;
  DeviceBuffer<std::uint64_t> words64;
};

class RandomCuda final : public RandomBackend {
 public:
  explicit RandomCuda(const Placement& placement)
      : binding_(DeviceBinding::current()), stream_(placement.stream), memory_(placement.device_memory) {}

  std::unique_ptr<RandomBackend> clone() const override { return std::make_unique<RandomCuda>(*this); }

  void philox_fill(const RandomFillArgs<float>& args, StreamHandle stream, const char* routine) override {
    philox(args, stream, routine);
  }
  void philox_fill(const RandomFillArgs<double>& args, StreamHandle stream, const char* routine) override {
    philox(args, stream, routine);
  }
  void mrg_fill(const MrgFillArgs<float>& args, StreamHandle stream, const char* routine) override {
    mrg(args, stream, routine);
  }
  void mrg_fill(const MrgFillArgs<double>& args, StreamHandle stream, const char* routine) override {
    mrg(args, stream, routine);
  }

  void set_sobol_dimensions(SobolSequence sequence, int dimensions) override {
    refuse_capture(stream_, "it uploads the Sobol tables on placement.stream and waits");
    auto tables = std::make_shared<DeviceSobolTables>();
    // from_host returns with the copy complete, so fills on any stream may read the tables.
    if (is_64_bit(sequence)) {
      tables->words64 = DeviceBuffer<std::uint64_t>::from_host(
          interleaved_sobol_tables<std::uint64_t>(sequence, dimensions), stream_, memory_);
    } else {
      tables->words32 = DeviceBuffer<std::uint32_t>::from_host(
          interleaved_sobol_tables<std::uint32_t>(sequence, dimensions), stream_, memory_);
    }
    wide_ = is_64_bit(sequence);
    sobol_ = std::move(tables);
  }
  void sobol_fill(const SobolFillRequest<float>& request, StreamHandle stream, const char* routine) override {
    sobol(request, stream, routine);
  }
  void sobol_fill(const SobolFillRequest<double>& request, StreamHandle stream, const char* routine) override {
    sobol(request, stream, routine);
  }

  void fill_host(std::int64_t count, float* host, const FillInto<float>& fill) override {
    through_device(count, host, fill);
  }
  void fill_host(std::int64_t count, double* host, const FillInto<double>& fill) override {
    through_device(count, host, fill);
  }

 private:
  template <class T>
  void philox(const RandomFillArgs<T>& args, StreamHandle stream, const char* routine) const {
    binding_.require_current(routine);
    launch_philox_fill(args, binding_.arch, binding_.multiprocessor_count, stream);
  }

  template <class T>
  void mrg(const MrgFillArgs<T>& args, StreamHandle stream, const char* routine) const {
    binding_.require_current(routine);
    launch_mrg_fill(args, binding_.arch, stream);
  }

  template <class T>
  void sobol(const SobolFillRequest<T>& r, StreamHandle stream, const char* routine) const {
    binding_.require_current(routine);
    const auto run = [&](const auto* tables) {
      using Word = std::remove_cv_t<std::remove_pointer_t<decltype(tables)>>;
      const SobolFillArgs<T, Word> args{tables, r.first_point, r.points, r.n, r.out, r.normal, r.mean, r.stddev};
      launch_sobol_fill(args, binding_.arch, binding_.multiprocessor_count, stream);
    };
    if (wide_) {
      run(sobol_->words64.data());
    } else {
      run(sobol_->words32.data());
    }
  }

  template <class T>
  void through_device(std::int64_t count, T* host, const FillInto<T>& fill) const {
    refuse_capture(stream_, "it fills through the device on placement.stream and waits");
    DeviceBuffer<T> device(static_cast<std::size_t>(count), stream_, memory_);
    fill(device.data(), stream_);
    device.copy_to_host(host, static_cast<std::size_t>(count));
  }

  DeviceBinding binding_;
  StreamHandle stream_;           // the placement's: table uploads and the host-vector fills
  DeviceMemoryResource* memory_;  // the placement's: the tables and the host-vector fills' buffers
  // Shared by copies (RandomGenerator's copy), read-only once made.
  std::shared_ptr<const DeviceSobolTables> sobol_;
  bool wide_ = false;
};

}  // namespace

std::unique_ptr<RandomBackend> make_random_cuda(const Placement& placement) {
  return std::make_unique<RandomCuda>(placement);
}

}  // namespace cunum::detail
