// The bench's peer designs (himeno_peers.hpp).

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <vector>

#include "cunum/core/device_buffer.hpp"
#include "himeno_peers.hpp"
#include "kernels/common/grid_sum.cuh"
#include "kernels/common/launch.cuh"
#include "src/himeno/himeno_stencil.hpp"

namespace cunum::bench {
namespace {

using detail::HimenoCoefficients;
using detail::kHimenoCoefficientArrays;

constexpr int kThreads = 256;

template <class T>
struct Fields {
  const T* q[kHimenoCoefficientArrays];
  std::int64_t nx, ny, nz;
  T omega;
};

template <class T>
__device__ __forceinline__ HimenoCoefficients<T> coefficients_at(const Fields<T>& f, std::int64_t x) {
  return {f.q[0][x], f.q[1][x], f.q[2][x], f.q[3][x], f.q[4][x],  f.q[5][x],
          f.q[6][x], f.q[7][x], f.q[8][x], f.q[9][x], f.q[10][x], f.q[11][x]};
}

template <class T>
struct GlobalNeighbourhood {
  const T* centre;
  std::int64_t plane, row;
  __device__ T operator()(int di, int dj, int dk) const { return centre[di * plane + dj * row + dk]; }
};

// The port: block of 32 (k) x 8 (j) points of plane blockIdx.z + 1.
template <class T>
__global__ void __launch_bounds__(kThreads) port_update(Fields<T> f, const T* p, T* wrk2, double* gosa) {
  const std::int64_t k = blockIdx.x * 32 + threadIdx.x % 32 + 1;
  const std::int64_t j = blockIdx.y * 8 + threadIdx.x / 32 + 1;
  const std::int64_t i = blockIdx.z + 1;
  double ss2 = 0.0;
  if (k < f.nz - 1 && j < f.ny - 1) {
    const std::int64_t x = (i * f.ny + j) * f.nz + k;
    const T ss = detail::himeno_update(coefficients_at(f, x), GlobalNeighbourhood<T>{p + x, f.ny * f.nz, f.nz});
    ss2 = static_cast<double>(ss) * static_cast<double>(ss);
    wrk2[x] = p[x] + f.omega * ss;
  }
  ss2 = detail::block_reduce<kThreads, detail::DoubleSum>(ss2);
  if (threadIdx.x == 0) atomicAdd(gosa, ss2);
}

template <class T>
__global__ void __launch_bounds__(kThreads) port_copy_back(Fields<T> f, const T* wrk2, T* p) {
  const std::int64_t k = blockIdx.x * 32 + threadIdx.x % 32 + 1;
  const std::int64_t j = blockIdx.y * 8 + threadIdx.x / 32 + 1;
  const std::int64_t i = blockIdx.z + 1;
  if (k < f.nz - 1 && j < f.ny - 1) {
    const std::int64_t x = (i * f.ny + j) * f.nz + k;
    p[x] = wrk2[x];
  }
}

// The reference tiles (the paper's design): 16 (k) x 16 (j) x 8 (i) points, the
// pressure with a one-point halo in shared memory; each of the 256 threads computes a
// column of 8 points.
constexpr int kTileK = 16, kTileJ = 16, kTileI = 8;

template <class T>
__global__ void __launch_bounds__(kThreads)
    reference_tile(Fields<T> f, const T* p, T* next, double* partials, unsigned int* ticket, double* gosa) {
  __shared__ T tile[kTileI + 2][kTileJ + 2][kTileK + 2];
  const std::int64_t k0 = std::int64_t{blockIdx.x} * kTileK + 1;
  const std::int64_t j0 = std::int64_t{blockIdx.y} * kTileJ + 1;
  const std::int64_t i0 = std::int64_t{blockIdx.z} * kTileI + 1;
  constexpr int staged = (kTileI + 2) * (kTileJ + 2) * (kTileK + 2);
  for (int e = threadIdx.x; e < staged; e += kThreads) {
    const int kk = e % (kTileK + 2), jj = e / (kTileK + 2) % (kTileJ + 2), ii = e / ((kTileK + 2) * (kTileJ + 2));
    const std::int64_t i = i0 - 1 + ii, j = j0 - 1 + jj, k = k0 - 1 + kk;
    if (i < f.nx && j < f.ny && k < f.nz) tile[ii][jj][kk] = p[(i * f.ny + j) * f.nz + k];
  }
  __syncthreads();
  const int tk = threadIdx.x % kTileK + 1, tj = threadIdx.x / kTileK + 1;
  double ss2 = 0.0;
  for (int ti = 1; ti <= kTileI; ++ti) {
    const std::int64_t i = i0 - 1 + ti, j = j0 - 1 + tj, k = k0 - 1 + tk;
    if (i >= f.nx - 1 || j >= f.ny - 1 || k >= f.nz - 1) continue;
    const std::int64_t x = (i * f.ny + j) * f.nz + k;
    struct Staged {
      const T (*t)[kTileJ + 2][kTileK + 2];
      int ti, tj, tk;
      __device__ T operator()(int di, int dj, int dk) const { return t[ti + di][tj + dj][tk + dk]; }
    };
    const T ss = detail::himeno_update(coefficients_at(f, x), Staged{tile, ti, tj, tk});
    ss2 += static_cast<double>(ss) * static_cast<double>(ss);
    next[x] = tile[ti][tj][tk] + f.omega * ss;
  }
  detail::grid_sum<kThreads>(ss2, partials, ticket, gosa);
}

template <class T>
__global__ void __launch_bounds__(kThreads) fill_benchmark(HimenoGrid grid, std::int64_t stride, T* arrays) {
  const HimenoCoefficients<T> q = detail::himeno_benchmark_coefficients<T>();
  const std::int64_t points = grid.nx * grid.ny * grid.nz;
  for (std::int64_t x = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x; x < points;
       x += std::int64_t{gridDim.x} * blockDim.x) {
    for (int c = 0; c < kHimenoCoefficientArrays; ++c) arrays[c * stride + x] = detail::himeno_coefficient(q, c);
    const T pressure = detail::himeno_initial_pressure<T>(x / (grid.ny * grid.nz), grid.nx);
    for (int a = 0; a < 2; ++a) arrays[(kHimenoCoefficientArrays + a) * stride + x] = pressure;
  }
}

}  // namespace

template <class T>
struct HimenoPeer<T>::State {
  HimenoPeerDesign design;
  HimenoGrid grid;
  std::int64_t stride;
  DeviceBuffer<T> arrays;  // 12 coefficient arrays, p, and wrk2 (or the next pressure)
  DeviceBuffer<double> gosa;
  DeviceBuffer<double> partials;
  DeviceBuffer<unsigned int> ticket;
  int current = 0;

  Fields<T> fields() const {
    Fields<T> f{};
    for (int c = 0; c < kHimenoCoefficientArrays; ++c) f.q[c] = arrays.data() + c * stride;
    f.nx = grid.nx;
    f.ny = grid.ny;
    f.nz = grid.nz;
    f.omega = static_cast<T>(0.8);
    return f;
  }
  T* pressure(int which) { return arrays.data() + (kHimenoCoefficientArrays + which) * stride; }
  const T* pressure(int which) const { return arrays.data() + (kHimenoCoefficientArrays + which) * stride; }
};

template <class T>
HimenoPeer<T>::HimenoPeer(HimenoPeerDesign design, const HimenoGrid& grid, StreamHandle stream) {
  const std::int64_t stride = (grid.points() + 31) / 32 * 32;
  const dim3 reference_grid((grid.nz - 2 + kTileK - 1) / kTileK, (grid.ny - 2 + kTileJ - 1) / kTileJ,
                       (grid.nx - 2 + kTileI - 1) / kTileI);
  state_.reset(new State{design, grid, stride,
                         DeviceBuffer<T>(static_cast<std::size_t>(stride) * (kHimenoCoefficientArrays + 2), stream),
                         DeviceBuffer<double>(1, stream),
                         DeviceBuffer<double>(
                             std::size_t{reference_grid.x} * reference_grid.y * reference_grid.z, stream),
                         DeviceBuffer<unsigned int>(1, stream), 0});
  state_->ticket.fill_bytes_async(0);
  detail::launch_kernel(fill_benchmark<T>, "fill_benchmark", detail::LaunchConfig{dim3(4096), dim3(kThreads), 0, stream},
                        grid, stride, state_->arrays.data());
  synchronize(stream);
}

template <class T>
HimenoPeer<T>::~HimenoPeer() = default;

template <class T>
double HimenoPeer<T>::iterate(int sweeps, StreamHandle stream) {
  State& s = *state_;
  const Fields<T> f = s.fields();
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    if (s.design == HimenoPeerDesign::two_kernel_port) {
      const dim3 grid((s.grid.nz - 2 + 31) / 32, (s.grid.ny - 2 + 7) / 8, s.grid.nx - 2);
      memory::fill_bytes_async(s.gosa.data(), 0, sizeof(double), stream);
      detail::launch_kernel(port_update<T>, "port_update", detail::LaunchConfig{grid, dim3(kThreads), 0, stream}, f,
                            s.pressure(0), s.pressure(1), s.gosa.data());
      detail::launch_kernel(port_copy_back<T>, "port_copy_back", detail::LaunchConfig{grid, dim3(kThreads), 0, stream},
                            f, s.pressure(1), s.pressure(0));
    } else {
      const dim3 grid((s.grid.nz - 2 + kTileK - 1) / kTileK, (s.grid.ny - 2 + kTileJ - 1) / kTileJ,
                      (s.grid.nx - 2 + kTileI - 1) / kTileI);
      detail::launch_kernel(reference_tile<T>, "reference_tile", detail::LaunchConfig{grid, dim3(kThreads), 0, stream},
                            f, s.pressure(s.current), s.pressure(1 - s.current), s.partials.data(), s.ticket.data(),
                            s.gosa.data());
      s.current = 1 - s.current;
    }
  }
  double gosa = 0.0;
  memory::copy_device_to_host(&gosa, s.gosa.data(), sizeof(double), stream);
  return gosa;
}

template <class T>
std::vector<T> HimenoPeer<T>::pressure(StreamHandle stream) const {
  std::vector<T> host(static_cast<std::size_t>(state_->grid.points()));
  memory::copy_device_to_host(host.data(), state_->pressure(state_->current), host.size() * sizeof(T), stream);
  return host;
}

template class HimenoPeer<float>;
template class HimenoPeer<double>;

}  // namespace cunum::bench
