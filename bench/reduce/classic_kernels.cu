// The seven kernels of the classic CUDA reduction tutorial (Harris, "Optimizing
// Parallel Reduction in CUDA", NVIDIA, 2007), made correct for any n (bounds checks
// where the tutorial assumed a power of two) and for Volta and later (explicit
// __syncwarp() where the tutorial relied on implicit warp synchrony). Each pass
// reduces n values to one per block; classic_reducer.cpp repeats passes until one
// value remains, as in the tutorial.

#include "classic_reducer.hpp"
#include "kernels/common/launch.cuh"
#include "src/core/instantiate.hpp"

namespace cunum::bench {
using detail::launch_kernel;
using detail::LaunchConfig;

namespace {

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

}  // namespace

template <class T>
unsigned int launch_classic_pass(ClassicReduceKernel kernel, const T* in, T* out, unsigned int n,
                                 int multiprocessor_count, StreamHandle stream) {
  constexpr unsigned int block = ClassicReducePolicy::block_threads;
  const std::size_t shared_bytes = block * sizeof(T);
  const unsigned int blocks = classic_pass_blocks(kernel, n, multiprocessor_count);
  const LaunchConfig config{dim3(blocks), dim3(block), shared_bytes, stream};
  switch (kernel) {
    case ClassicReduceKernel::interleaved_divergent: launch_kernel(reduce1<T>, "reduce1", config, in, out, n); break;
    case ClassicReduceKernel::interleaved_strided: launch_kernel(reduce2<T>, "reduce2", config, in, out, n); break;
    case ClassicReduceKernel::sequential_addressing: launch_kernel(reduce3<T>, "reduce3", config, in, out, n); break;
    case ClassicReduceKernel::first_add_during_load: launch_kernel(reduce4<T>, "reduce4", config, in, out, n); break;
    case ClassicReduceKernel::unroll_last_warp: launch_kernel(reduce5<T>, "reduce5", config, in, out, n); break;
    case ClassicReduceKernel::complete_unroll:
      launch_kernel(reduce6<block, T>, "reduce6", config, in, out, n);
      break;
    case ClassicReduceKernel::multiple_elements_per_thread:
      launch_kernel(reduce7<block, T>, "reduce7", config, in, out, n);
      break;
  }
  return blocks;
}

#define CUNUM_INSTANTIATE_CLASSIC_PASS(T)                                                                  \
  template unsigned int launch_classic_pass(ClassicReduceKernel, const T*, T*, unsigned int, int, StreamHandle);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_CLASSIC_PASS, CUNUM_REDUCE_TYPES)

}  // namespace cunum::bench
