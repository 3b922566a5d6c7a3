#pragma once
// Internal: the one backend interface of cunum::RandomGenerator. The front end
// (random.cpp) validates a call, works out the fill's place in the stream (the
// arguments of src/random/random_fill.hpp) and moves the offset on; the backend made
// at construction runs the fill: the OpenMP one (random_cpu.cpp) or the CUDA one
// (random_cuda.cpp), which keeps the device binding and the Sobol tables on the
// device.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "cunum/core/placement.hpp"
#include "cunum/core/stream.hpp"
#include "cunum/random.hpp"
#include "src/random/random_fill.hpp"

namespace cunum::detail {

// A Sobol fill but for the tables, which are the backend's (set_sobol_dimensions):
// n = points x dimensions values from point first_point, in SobolFillArgs' layout.
template <class T>
struct SobolFillRequest {
  std::uint64_t first_point;
  std::int64_t points;  // per dimension
  std::int64_t n;
  T* out;
  bool normal;
  T mean;
  T stddev;
};

// Fills `count` values at `out` (memory the backend can write) on `stream`.
template <class T>
using FillInto = std::function<void(T* out, StreamHandle stream)>;

// One per generator. Every fill has n > 0 and validated arguments; `routine` names
// the call for errors (the CUDA backend refuses a call while another device is
// current). A fill on the CPU is synchronous; on the GPU asynchronous on `stream`.
class RandomBackend {
 public:
  virtual ~RandomBackend() = default;
  // A copy sharing the Sobol tables (RandomGenerator's copy).
  virtual std::unique_ptr<RandomBackend> clone() const = 0;

  virtual void philox_fill(const RandomFillArgs<float>& args, StreamHandle stream, const char* routine) = 0;
  virtual void philox_fill(const RandomFillArgs<double>& args, StreamHandle stream, const char* routine) = 0;
  virtual void mrg_fill(const MrgFillArgs<float>& args, StreamHandle stream, const char* routine) = 0;
  virtual void mrg_fill(const MrgFillArgs<double>& args, StreamHandle stream, const char* routine) = 0;

  // Replaces the Sobol tables with those of `dimensions` dimensions of `sequence`,
  // built completely first, so an error leaves the old ones.
  virtual void set_sobol_dimensions(SobolSequence sequence, int dimensions) = 0;
  virtual void sobol_fill(const SobolFillRequest<float>& request, StreamHandle stream, const char* routine) = 0;
  virtual void sobol_fill(const SobolFillRequest<double>& request, StreamHandle stream, const char* routine) = 0;

  // Runs `fill` on `count` values of memory the backend writes and copies them to
  // `host` (the CUDA backend through a device buffer, on the placement's stream; the
  // CPU one in place).
  virtual void fill_host(std::int64_t count, float* host, const FillInto<float>& fill) = 0;
  virtual void fill_host(std::int64_t count, double* host, const FillInto<double>& fill) = 0;
};

std::unique_ptr<RandomBackend> make_random_cpu();
// Binds the generator to the current device (the placement's). Its Sobol tables come
// from placement.device_memory, copied on placement.stream (complete on return), and
// fill_host's buffer too, filled on that stream. @throws Error(no_device) without a device.
std::unique_ptr<RandomBackend> make_random_cuda(const Placement& placement);

// Each dimension's direction vectors then its scrambling constant (bits + 1 words a
// dimension, SobolFillArgs::tables), for dimensions [0, dimensions) of `sequence`.
template <class Word>
std::vector<Word> interleaved_sobol_tables(SobolSequence sequence, int dimensions);

}  // namespace cunum::detail
