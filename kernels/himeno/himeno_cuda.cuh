#pragma once
// Internal: the Himeno CUDA backend, a template on its policy set: the fields in one
// device allocation, the sweep kernel (himeno_sweep.cuh) launched with the policy of
// the sweeps per pass asked for. himeno_cuda.cu instantiates the library's policies.

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>

#include "cunum/core/device_buffer.hpp"
#include "kernels/common/launch.cuh"
#include "kernels/himeno/himeno_sweep.cuh"
#include "src/core/device_binding.hpp"
#include "src/core/setup_fence.hpp"
#include "src/himeno/himeno_backends.hpp"
#include "src/himeno/himeno_policy.hpp"

namespace cunum::detail {


constexpr int kHimenoFillThreads = 256;
constexpr int kHimenoPressureArrays = 2;

// The benchmark's fields, computed in place (no host copy of 14 large arrays).
template <class T>
__global__ void __launch_bounds__(kHimenoFillThreads)
    himeno_fill_kernel(HimenoBox box, std::int64_t stride, T* fields) {
  const HimenoCoefficients<T> q = himeno_benchmark_coefficients<T>();
  const std::int64_t plane_points = box.plane_points();
  const std::int64_t step = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t x = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; x < box.points(); x += step) {
    for (int c = 0; c < kHimenoCoefficientArrays; ++c) fields[c * stride + x] = himeno_coefficient(q, c);
    const T p = himeno_initial_pressure<T>(box.first_plane + x / plane_points, box.global_nx);
    for (int a = 0; a < kHimenoPressureArrays; ++a) fields[(kHimenoCoefficientArrays + a) * stride + x] = p;
  }
}

// The backend on a policy set (src/himeno/himeno_policy.hpp): the library's is
// HimenoPolicies<T>; the bench's tuning sweep instantiates others.
template <class T, class Policies>
class HimenoCuda final : public HimenoBackend<T> {
 public:
  HimenoCuda(const HimenoBox& box, const HimenoFieldSource<T>& source, double omega, StreamHandle stream)
      : box_(box),
        omega_(static_cast<T>(omega)),
        binding_(DeviceBinding::current()),
        stride_(round_up(box.points(), kArrayAlignment)),
        fields_(static_cast<std::size_t>(stride_) * (kHimenoCoefficientArrays + kHimenoPressureArrays), stream),
        gosa_(kHimenoGosaSlots, stream) {
    // No launch makes more blocks than one per tile and plane.
    std::int64_t most_blocks = 0;
    for (int sweeps = 1; sweeps <= kHimenoMaxSweepsPerPass; ++sweeps) {
      Policies::with(sweeps, [&](auto policy) {
        using Policy = decltype(policy);
        resident_[sweeps] = resident_blocks(policy);
        const std::int64_t tiles = ((box.ny - 2 + Policy::tile_j - 1) / Policy::tile_j) *
                                   ((box.nz - 2 + Policy::tile_k - 1) / Policy::tile_k);
        most_blocks = std::max(most_blocks, tiles * (box.planes - 2));
      });
    }
    partials_ = DeviceBuffer<double>(static_cast<std::size_t>(most_blocks) * kHimenoGosaSlots, stream);
    tickets_ = DeviceBuffer<unsigned int>(kHimenoGosaSlots, stream);
    tickets_.fill_bytes_async(0);
    gosa_.fill_bytes_async(0);
    if (source.fields == nullptr) {
      const std::int64_t blocks = std::min<std::int64_t>((box.points() + kHimenoFillThreads - 1) / kHimenoFillThreads,
                                                         std::int64_t{binding_.multiprocessor_count} * 16);
      launch_kernel(himeno_fill_kernel<T>, "himeno_fill_kernel",
                    LaunchConfig{grid_1d(blocks, "himeno_fill_kernel"), dim3(kHimenoFillThreads), 0, stream}, box,
                    stride_, fields_.data());
    } else {
      const std::size_t bytes = static_cast<std::size_t>(box.points()) * sizeof(T);
      for (int c = 0; c < kHimenoCoefficientArrays; ++c) {
        memory::copy_host_to_device(array(c), himeno_coefficient_array(*source.fields, c) + source.offset, bytes,
                                    stream);
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
    Policies::with(sweeps, [&](auto policy) {
      using Policy = decltype(policy);
      const HimenoLaunchShape shape = launch_shape(policy, begin, end);
      HimenoSweepArgs<T> args{};
      for (int c = 0; c < kHimenoCoefficientArrays; ++c) args.coefficients[c] = array(c);
      args.pressure = array(kHimenoCoefficientArrays + current_);
      args.next = array(kHimenoCoefficientArrays + 1 - current_);
      args.omega = omega_;
      args.planes = box_.planes;
      args.ny = box_.ny;
      args.nz = box_.nz;
      args.begin = begin;
      args.end = end;
      args.chunk_planes = shape.chunk_planes;
      args.tiles_j = shape.tiles_j;
      args.tiles_k = shape.tiles_k;
      args.partials = partials_.data() + static_cast<std::size_t>(slot) * (partials_.size() / kHimenoGosaSlots);
      args.ticket = tickets_.data() + slot;
      args.gosa = gosa_.data() + slot;
      const LaunchConfig config{grid_1d(shape.blocks, "himeno_sweep_kernel"), dim3(Policy::block_threads),
                                Policy::template shared_bytes<T>(), stream};
      launch_kernel(himeno_sweep_kernel<Policy, T>, "himeno_sweep_kernel", config, args);
    });
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

  int best_sweeps_per_pass() const noexcept override { return HimenoBestSweeps<T>::value; }
  int max_sweeps_per_pass() const noexcept override { return kHimenoMaxSweepsPerPass; }

 private:
  // Each array starts on a 128-byte line.
  static constexpr std::int64_t kArrayAlignment = 128 / sizeof(T);

  static std::int64_t round_up(std::int64_t n, std::int64_t multiple) { return (n + multiple - 1) / multiple * multiple; }

  T* array(int index) noexcept { return fields_.data() + index * stride_; }
  const T* array(int index) const noexcept { return fields_.data() + index * stride_; }

  // Resident blocks of the policy's kernel on this device.
  template <class Policy>
  std::int64_t resident_blocks(Policy) const {
    KernelReport report;
    LaunchConfig config{dim3(1), dim3(Policy::block_threads), Policy::template shared_bytes<T>(), nullptr};
    config.describe = &report;
    launch_kernel(himeno_sweep_kernel<Policy, T>, "himeno_sweep_kernel", config, HimenoSweepArgs<T>{});
    return std::int64_t{std::max(report.blocks_per_multiprocessor, 1)} * binding_.multiprocessor_count;
  }

  // Tiles over the interior (j, k), and the planes cut into chunks of C planes, one
  // block per tile and chunk. A block's time grows as C + sweeps (the planes it
  // recomputes or loads past its chunk), and the launch takes as many such times as it
  // has waves of resident blocks; C is the one that minimises the product, so that
  // neither a part-filled last wave nor the recomputed borders cost much.
  template <class Policy>
  HimenoLaunchShape launch_shape(Policy, std::int64_t begin, std::int64_t end) const {
    HimenoLaunchShape shape;
    shape.tiles_j = static_cast<int>((box_.ny - 2 + Policy::tile_j - 1) / Policy::tile_j);
    shape.tiles_k = static_cast<int>((box_.nz - 2 + Policy::tile_k - 1) / Policy::tile_k);
    const std::int64_t tiles = std::int64_t{shape.tiles_j} * shape.tiles_k;
    const std::int64_t planes = end - begin;
    const std::int64_t resident = resident_[Policy::sweeps];
    double best_cost = 0.0;
    for (std::int64_t chunk = 1; chunk <= planes; ++chunk) {
      const std::int64_t blocks = tiles * ((planes + chunk - 1) / chunk);
      const std::int64_t waves = (blocks + resident - 1) / resident;
      const double cost = static_cast<double>(waves) * static_cast<double>(chunk + Policy::sweeps);
      if (shape.blocks == 0 || cost < best_cost) {
        best_cost = cost;
        shape.chunk_planes = chunk;
        shape.blocks = blocks;
      }
    }
    return shape;
  }

  HimenoBox box_;
  T omega_;
  DeviceBinding binding_;
  std::int64_t stride_;
  DeviceBuffer<T> fields_;  // 12 coefficient arrays, then the two pressure arrays
  DeviceBuffer<double> gosa_;
  DeviceBuffer<double> partials_;
  DeviceBuffer<unsigned int> tickets_;
  std::int64_t resident_[kHimenoMaxSweepsPerPass + 1] = {};  // by sweeps per pass
  SetupFence setup_;
  int current_ = 0;  // which pressure array is current
};

}  // namespace cunum::detail
