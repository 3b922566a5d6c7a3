#pragma once
// The spectral division as a cuFFT LTO store callback on the R2C output, a bench
// experiment (the library runs a separate division kernel): what the callback reads,
// shared by the device code compiled to LTO-IR and the host code that fills it.

// One per plan, in device memory; the eigenvalue tables are of the plan's precision.
struct PoissonDivideInfo {
  const void* eigenvalues[3];  // per axis, indexed by the axis's mode
  long long extended[3];       // the transform's lengths (axis 0 is 1 in 2-D)
  long long half_last;         // extended[2] / 2 + 1
  double screening;
  double scale;                // 1 / (points of the transform)
};

// Symbol names of the callbacks in the fatbin.
#define CUNUM_POISSON_DIVIDE_STORE_FLOAT "poisson_divide_store_float"
#define CUNUM_POISSON_DIVIDE_STORE_DOUBLE "poisson_divide_store_double"
