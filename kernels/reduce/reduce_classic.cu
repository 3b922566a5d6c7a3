// The seven kernels of the classic CUDA reduction tutorial, made correct for any
// n (bounds checks where the tutorial assumed a power of two) and for Volta and
// later (explicit __syncwarp() where the tutorial relied on implicit warp
// synchrony). Each pass reduces n values to one per block; passes repeat until
// one value remains, as in the tutorial.

#include <algorithm>
#include <cstdint>

#include "src/core/cuda_check.hpp"
#include "src/core/validate.hpp"
#include "cunum/core/device.hpp"
#include "cunum/core/device_buffer.hpp"
#include "cunum/reduce.hpp"

namespace cunum {
namespace {

struct ClassicReducePolicy {
  static constexpr unsigned int block_threads = 256;
  static constexpr int kernel7_blocks_per_multiprocessor = 8;
};
constexpr unsigned int kBlock = ClassicReducePolicy::block_threads;

template <class T>
__device__ __forceinline__ T* shared_array() {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  return reinterpret_cast<T*>(shared_bytes);
}

template <class T>
__device__ __forceinline__ T load_or_zero(const T* in, unsigned int i, unsigned int n) {
  return i < n ? in[i] : T(0);
}

// Kernel 1: interleaved addressing; `tid % (2*s)` makes warps diverge.
template <class T>
__global__ void reduce1(const T* in, T* out, unsigned int n) {
  T* sdata = shared_array<T>();
  const unsigned int tid = threadIdx.x;
  sdata[tid] = load_or_zero(in, blockIdx.x * blockDim.x + tid, n);
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// Kernel 2: interleaved addressing with a strided index: no divergence, bank conflicts.
template <class T>
__global__ void reduce2(const T* in, T* out, unsigned int n) {
  T* sdata = shared_array<T>();
  const unsigned int tid = threadIdx.x;
  sdata[tid] = load_or_zero(in, blockIdx.x * blockDim.x + tid, n);
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    const unsigned int index = 2 * s * tid;
    if (index < blockDim.x) sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// Halving loop shared by kernels 3 and 4, from `start` down to `stop` (exclusive).
template <class T>
__device__ __forceinline__ void sequential_halving(T* sdata, unsigned int tid, unsigned int start,
                                                   unsigned int stop) {
  for (unsigned int s = start; s > stop; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
}

// Kernel 3: sequential addressing: conflict-free, but half the threads idle from the start.
template <class T>
__global__ void reduce3(const T* in, T* out, unsigned int n) {
  T* sdata = shared_array<T>();
  const unsigned int tid = threadIdx.x;
  sdata[tid] = load_or_zero(in, blockIdx.x * blockDim.x + tid, n);
  __syncthreads();
  sequential_halving(sdata, tid, blockDim.x / 2, 0);
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

template <class T>
__device__ __forceinline__ T first_add(const T* in, unsigned int n, unsigned int block_size) {
  const unsigned int i = blockIdx.x * (block_size * 2) + threadIdx.x;
  return load_or_zero(in, i, n) + load_or_zero(in, i + block_size, n);
}

// Kernel 4: first add during the global load: each block covers twice the elements.
template <class T>
__global__ void reduce4(const T* in, T* out, unsigned int n) {
  T* sdata = shared_array<T>();
  const unsigned int tid = threadIdx.x;
  sdata[tid] = first_add(in, n, blockDim.x);
  __syncthreads();
  sequential_halving(sdata, tid, blockDim.x / 2, 0);
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// The last warp without __syncthreads(). Since Volta, warps are not implicitly
// synchronous: each step reads, syncs the warp, then writes.
template <unsigned int BlockSize, class T>
__device__ __forceinline__ void warp_reduce_shared(T* sdata, unsigned int tid) {
  T v = sdata[tid];
#pragma unroll
  for (unsigned int s = 32; s > 0; s >>= 1) {
    if (BlockSize >= 2 * s) {
      v += sdata[tid + s];
      __syncwarp();
      sdata[tid] = v;
      __syncwarp();
    }
  }
}

// Kernel 5: kernel 4 with the last warp unrolled (block size >= 64).
template <class T>
__global__ void reduce5(const T* in, T* out, unsigned int n) {
  T* sdata = shared_array<T>();
  const unsigned int tid = threadIdx.x;
  sdata[tid] = first_add(in, n, blockDim.x);
  __syncthreads();
  sequential_halving(sdata, tid, blockDim.x / 2, 32);
  if (tid < 32) warp_reduce_shared<64>(sdata, tid);
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

template <unsigned int BlockSize, class T>
__device__ __forceinline__ void unrolled_block_tree(T* sdata, unsigned int tid) {
#pragma unroll
  for (unsigned int s = 512; s > 32; s >>= 1) {
    if (BlockSize >= 2 * s) {
      if (tid < s) sdata[tid] += sdata[tid + s];
      __syncthreads();
    }
  }
  if (tid < 32) warp_reduce_shared<BlockSize>(sdata, tid);
}

// Kernel 6: completely unrolled, the block size a template parameter.
template <unsigned int BlockSize, class T>
__global__ void reduce6(const T* in, T* out, unsigned int n) {
  T* sdata = shared_array<T>();
  const unsigned int tid = threadIdx.x;
  sdata[tid] = first_add(in, n, BlockSize);
  __syncthreads();
  unrolled_block_tree<BlockSize>(sdata, tid);
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

// Kernel 7: multiple elements per thread (algorithm cascading), grid-stride.
template <unsigned int BlockSize, class T>
__global__ void reduce7(const T* in, T* out, unsigned int n) {
  T* sdata = shared_array<T>();
  const unsigned int tid = threadIdx.x;
  const unsigned int grid_size = BlockSize * 2 * gridDim.x;
  T sum = T(0);
  for (unsigned int i = blockIdx.x * (BlockSize * 2) + tid; i < n; i += grid_size) {
    sum += in[i];
    if (i + BlockSize < n) sum += in[i + BlockSize];
  }
  sdata[tid] = sum;
  __syncthreads();
  unrolled_block_tree<BlockSize>(sdata, tid);
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

unsigned int blocks_for(unsigned int n, unsigned int elements_per_block) {
  return (n + elements_per_block - 1) / elements_per_block;
}

// One pass: returns the number of partial sums written to `out`.
template <class T>
unsigned int launch_pass(ClassicReduceKernel kernel, const T* in, T* out, unsigned int n,
                         StreamHandle stream) {
  const std::size_t shared_bytes = kBlock * sizeof(T);
  unsigned int blocks = 0;
  switch (kernel) {
    case ClassicReduceKernel::interleaved_divergent:
      blocks = blocks_for(n, kBlock);
      reduce1<<<blocks, kBlock, shared_bytes, stream>>>(in, out, n);
      break;
    case ClassicReduceKernel::interleaved_strided:
      blocks = blocks_for(n, kBlock);
      reduce2<<<blocks, kBlock, shared_bytes, stream>>>(in, out, n);
      break;
    case ClassicReduceKernel::sequential_addressing:
      blocks = blocks_for(n, kBlock);
      reduce3<<<blocks, kBlock, shared_bytes, stream>>>(in, out, n);
      break;
    case ClassicReduceKernel::first_add_during_load:
      blocks = blocks_for(n, 2 * kBlock);
      reduce4<<<blocks, kBlock, shared_bytes, stream>>>(in, out, n);
      break;
    case ClassicReduceKernel::unroll_last_warp:
      blocks = blocks_for(n, 2 * kBlock);
      reduce5<<<blocks, kBlock, shared_bytes, stream>>>(in, out, n);
      break;
    case ClassicReduceKernel::complete_unroll:
      blocks = blocks_for(n, 2 * kBlock);
      reduce6<kBlock><<<blocks, kBlock, shared_bytes, stream>>>(in, out, n);
      break;
    case ClassicReduceKernel::multiple_elements_per_thread: {
      const unsigned int cap = static_cast<unsigned int>(
          device_properties().multiprocessor_count * ClassicReducePolicy::kernel7_blocks_per_multiprocessor);
      blocks = std::min(blocks_for(n, 2 * kBlock), cap);
      reduce7<kBlock><<<blocks, kBlock, shared_bytes, stream>>>(in, out, n);
      break;
    }
  }
  CUNUM_CHECK_LAUNCH("classic reduce pass");
  return blocks;
}

}  // namespace

const char* to_string(ClassicReduceKernel kernel) noexcept {
  switch (kernel) {
    case ClassicReduceKernel::interleaved_divergent: return "1 interleaved, divergent";
    case ClassicReduceKernel::interleaved_strided: return "2 interleaved, bank conflicts";
    case ClassicReduceKernel::sequential_addressing: return "3 sequential addressing";
    case ClassicReduceKernel::first_add_during_load: return "4 first add during load";
    case ClassicReduceKernel::unroll_last_warp: return "5 unroll last warp";
    case ClassicReduceKernel::complete_unroll: return "6 completely unrolled";
    case ClassicReduceKernel::multiple_elements_per_thread: return "7 multiple elements per thread";
  }
  return "unknown";
}

// Two ping-pong buffers of partial sums, grown on demand.
template <class T>
struct ClassicReducer<T>::Scratch {
  DeviceBuffer<T> ping;
  DeviceBuffer<T> pong;
};

template <class T>
ClassicReducer<T>::ClassicReducer() : scratch_(std::make_unique<Scratch>()) {
  resolve_backend(Backend::cuda);
}
template <class T>
ClassicReducer<T>::~ClassicReducer() = default;
template <class T>
ClassicReducer<T>::ClassicReducer(ClassicReducer&&) noexcept = default;
template <class T>
ClassicReducer<T>& ClassicReducer<T>::operator=(ClassicReducer&&) noexcept = default;

template <class T>
void ClassicReducer<T>::sum(ClassicReduceKernel kernel, const T* data, std::int64_t n, T* result,
                            StreamHandle stream) {
  constexpr const char* routine = "ClassicReducer::sum";
  detail::require(static_cast<int>(kernel) >= 1 && static_cast<int>(kernel) <= 7, routine, "kernel",
                  "is not one of the seven classic kernels");
  detail::require_non_negative(n, routine, "n");
  detail::require(n <= max_elements, routine, "n",
                  "exceeds 2^31, the limit of the classic kernels' 32-bit indexing (got " +
                      std::to_string(n) + "); use cunum::Reducer");
  detail::require_pointer(data, n, routine, "data");
  detail::require(result != nullptr, routine, "result", "is null");
  if (n == 0) {
    CUNUM_CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(T), stream));
    return;
  }

  auto count = static_cast<unsigned int>(n);
  const std::size_t partials = blocks_for(count, kBlock);
  if (scratch_->ping.size() < partials) {
    scratch_->ping = DeviceBuffer<T>(partials, stream);
    scratch_->pong = DeviceBuffer<T>(partials, stream);
  }
  const T* in = data;
  T* buffers[2] = {scratch_->ping.data(), scratch_->pong.data()};
  for (int pass = 0; count > 1; ++pass) {
    T* out = buffers[pass % 2];
    count = launch_pass(kernel, in, out, count, stream);
    in = out;
  }
  CUNUM_CUDA_CHECK(cudaMemcpyAsync(result, in, sizeof(T), cudaMemcpyDeviceToDevice, stream));
}

template class ClassicReducer<std::int32_t>;
template class ClassicReducer<float>;
template class ClassicReducer<double>;

}  // namespace cunum
