#pragma once
// Internal: mark functions shared by the CPU backend and the CUDA kernels.
#if defined(__CUDACC__)
#define CUNUM_HOST_DEVICE __host__ __device__
#else
#define CUNUM_HOST_DEVICE
#endif
