#pragma once
// Internal: the Himeno CUDA backend, a template on its policy chain
// (src/himeno/himeno_policy.hpp): the fields in one device allocation, the gosa slots
// and their partial sums, and the launches through the launchers
// (kernels/himeno/himeno_launch.hpp), which pick the policy for the device's
// architecture. himeno_cuda.cpp instantiates the library's chain (HimenoPolicies<T>);
// the bench's tuning sweep instantiates others.

#include <array>
#include <cstdint>
#include <memory>

#include "cunum/core/device_buffer.hpp"
#include "kernels/himeno/himeno_launch.hpp"
#include "src/core/device_binding.hpp"
#include "src/core/setup_fence.hpp"
#include "src/himeno/himeno_backends.hpp"
#include "src/himeno/himeno_policy.hpp"

namespace cunum::detail {

template <class T, class Policies>
class HimenoCuda final : public HimenoBackend<T> {
 public:
  // Every allocation from `memory`, on `stream`, which the setup is enqueued on.
  HimenoCuda(const HimenoBox& box, const HimenoFieldSource<T>& source, double omega, StreamHandle stream,
             DeviceMemoryResource* memory)
      : box_(box),
        omega_(static_cast<T>(omega)),
        binding_(DeviceBinding::current()),
        stride_(round_up(box.points(), kArrayAlignment)),
        fields_(static_cast<std::size_t>(stride_) * (kHimenoCoefficientArrays + kHimenoPressureArrays), stream,
                memory),
        gosa_(kHimenoGosaSlots, stream, memory) {
    for (int sweeps = 1; sweeps <= kHimenoMaxSweepsPerPass; ++sweeps) {
      resident_[sweeps] =
          himeno_sweep_resident_blocks<Policies, T>(binding_.arch, sweeps, binding_.multiprocessor_count);
    }
    // No launch makes more blocks than one per tile and plane.
    const std::int64_t most_blocks = himeno_most_blocks<Policies>(binding_.arch, box.planes, box.ny, box.nz);
    partials_ = DeviceBuffer<double>(static_cast<std::size_t>(most_blocks) * kHimenoGosaSlots, stream, memory);
    tickets_ = DeviceBuffer<unsigned int>(kHimenoGosaSlots, stream, memory);
    tickets_.fill_bytes_async(0);
    gosa_.fill_bytes_async(0);
    if (source.fields == nullptr) {
      launch_himeno_fill<T>(binding_.arch, binding_.multiprocessor_count, box, stride_, fields_.data(), stream);
    } else {
      const std::size_t bytes = static_cast<std::size_t>(box.points()) * sizeof(T);
      // Each coefficient array through the second pressure array, not yet in use, into
      // its places among the groups.
      T* const staging = array(kHimenoCoefficientArrays + 1);
      for (int c = 0; c < kHimenoCoefficientArrays; ++c) {
        memory::copy_host_to_device(staging, himeno_coefficient_array(*source.fields, c) + source.offset, bytes,
                                    stream);
        launch_himeno_group_coefficient<T>(binding_.arch, binding_.multiprocessor_count, box.points(), stride_, c,
                                           staging, fields_.data(), stream);
      }
      memory::copy_host_to_device(array(kHimenoCoefficientArrays), source.fields->pressure + source.offset, bytes,
                                  stream);
      // The boundary points, which sweeps never write, in both pressure arrays.
      memory::copy_device_to_device_async(array(kHimenoCoefficientArrays + 1), array(kHimenoCoefficientArrays),
                                          bytes, stream);
    }
    setup_.record(stream);
  }

  void sweep(int sweeps, std::int64_t begin, std::int64_t end, int slot, StreamHandle stream) override {
    setup_.order(stream);
    HimenoSweepArgs<T> args{};
    args.coefficients = fields_.data();
    args.stride = stride_;
    args.pressure = array(kHimenoCoefficientArrays + current_);
    args.next = array(kHimenoCoefficientArrays + 1 - current_);
    args.omega = omega_;
    args.planes = box_.planes;
    args.ny = box_.ny;
    args.nz = box_.nz;
    args.begin = begin;
    args.end = end;
    args.partials = partials_.data() + static_cast<std::size_t>(slot) * (partials_.size() / kHimenoGosaSlots);
    args.ticket = tickets_.data() + slot;
    args.gosa = gosa_.data() + slot;
    launch_himeno_sweep<Policies, T>(binding_.arch, sweeps, args, resident_[sweeps], stream);
  }

  void swap() noexcept override { current_ = 1 - current_; }

  double gosa(int slots, StreamHandle stream) override {
    std::array<double, kHimenoGosaSlots> host{};
    memory::copy_device_to_host(host.data(), gosa_.data(), sizeof(host), stream);
    double total = 0.0;
    for (int s = 0; s < slots; ++s) total += host[static_cast<std::size_t>(s)];
    return total;
  }

  void copy_pressure(T* host, StreamHandle stream) const override {
    memory::copy_device_to_host(host, array(kHimenoCoefficientArrays + current_),
                                static_cast<std::size_t>(box_.points()) * sizeof(T), stream);
  }

  T* pressure_plane(bool next, std::int64_t plane) noexcept override {
    return array(kHimenoCoefficientArrays + (next ? 1 - current_ : current_)) + plane * box_.plane_points();
  }

 private:
  // Each field starts on a 128-byte line (so each group of coefficients too).
  static constexpr std::int64_t kArrayAlignment = 128 / sizeof(T);

  static std::int64_t round_up(std::int64_t n, std::int64_t multiple) { return (n + multiple - 1) / multiple * multiple; }

  // Field `index`: the pressure arrays are kHimenoCoefficientArrays and the next one.
  T* array(int index) noexcept { return fields_.data() + index * stride_; }
  const T* array(int index) const noexcept { return fields_.data() + index * stride_; }

  HimenoBox box_;
  T omega_;
  DeviceBinding binding_;
  std::int64_t stride_;
  DeviceBuffer<T> fields_;  // the grouped coefficients, then the two pressure arrays (himeno_launch.hpp)
  DeviceBuffer<double> gosa_;
  DeviceBuffer<double> partials_;
  DeviceBuffer<unsigned int> tickets_;
  std::int64_t resident_[kHimenoMaxSweepsPerPass + 1] = {};  // resident sweep blocks, by sweeps per pass
  SetupFence setup_;
  int current_ = 0;  // which pressure array is current
};

}  // namespace cunum::detail
