// The bench's peer lines (monte_carlo_peers.hpp).

#include <curand.h>
#include <curand_kernel.h>

#include <cmath>

#include "bench/monte_carlo/monte_carlo_peers.hpp"
#include "cunum/core/device_buffer.hpp"
#include "cunum/device/detail/block_reduce.cuh"
#include "kernels/common/launch.cuh"
#include "src/core/check_libraries.hpp"

namespace cunum::bench {

namespace {

constexpr int kThreads = 256;

struct FloatSum {
  __device__ static float identity() { return 0.0f; }
  __device__ static float combine(float a, float b) { return a + b; }
};

__global__ void __launch_bounds__(kThreads) setup_states_kernel(curandState* states, std::uint64_t seed) {
  const std::int64_t id = std::int64_t{blockIdx.x} * kThreads + threadIdx.x;
  curand_init(seed, static_cast<unsigned long long>(id), 0, &states[id]);
}

// Block b prices paths [part * per_block, ...) of option b / blocks_per_option.
__global__ void __launch_bounds__(kThreads)
    sample_design_kernel(const PeerOption* options, std::int64_t paths, int blocks_per_option, curandState* states,
                         float2* partials) {
  const int option = blockIdx.x / blocks_per_option, part = blockIdx.x % blocks_per_option;
  const PeerOption o = options[option];
  const float drift = (o.rate - 0.5f * o.volatility * o.volatility) * o.expiry;
  const float diffusion = o.volatility * sqrtf(o.expiry);
  curandState state = states[std::int64_t{blockIdx.x} * kThreads + threadIdx.x];
  float sum = 0.0f, squares = 0.0f;
  const std::int64_t stride = std::int64_t{blocks_per_option} * kThreads;
  for (std::int64_t path = std::int64_t{part} * kThreads + threadIdx.x; path < paths; path += stride) {
    const float s_t = o.spot * __expf(drift + diffusion * curand_normal(&state));
    const float payoff = fmaxf(s_t - o.strike, 0.0f);
    sum += payoff;
    squares += payoff * payoff;
  }
  states[std::int64_t{blockIdx.x} * kThreads + threadIdx.x] = state;
  sum = detail::block_reduce<kThreads, FloatSum>(sum);
  __syncthreads();
  squares = detail::block_reduce<kThreads, FloatSum>(squares);
  if (threadIdx.x == 0) partials[blockIdx.x] = make_float2(sum, squares);
}

// Adds each option's block partials; threads = options.
__global__ void finish_kernel(const PeerOption* options, std::int64_t count, std::int64_t paths,
                              int blocks_per_option, const float2* partials, PeerEstimate* out) {
  const std::int64_t option = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (option >= count) return;
  double sum = 0, squares = 0;
  for (int b = 0; b < blocks_per_option; ++b) {
    sum += partials[option * blocks_per_option + b].x;
    squares += partials[option * blocks_per_option + b].y;
  }
  const double n = static_cast<double>(paths), mean = sum / n;
  const double discount = exp(-double(options[option].rate) * options[option].expiry);
  out[option] = {discount * mean, discount * sqrt((squares / n - mean * mean) / (n - 1))};
}

// The reference work's pricing kernel: one block per option reads the option's normals.
__global__ void __launch_bounds__(kThreads)
    reference_pricing_kernel(const PeerOption* options, std::int64_t paths, const float* normals, float2* partials) {
  const PeerOption o = options[blockIdx.x];
  const float drift = (o.rate - 0.5f * o.volatility * o.volatility) * o.expiry;
  const float diffusion = o.volatility * sqrtf(o.expiry);
  const float* z = normals + std::int64_t{blockIdx.x} * paths;
  float sum = 0.0f, squares = 0.0f;
  for (std::int64_t path = threadIdx.x; path < paths; path += kThreads) {
    const float payoff = fmaxf(o.spot * __expf(drift + diffusion * z[path]) - o.strike, 0.0f);
    sum += payoff;
    squares += payoff * payoff;
  }
  sum = detail::block_reduce<kThreads, FloatSum>(sum);
  __syncthreads();
  squares = detail::block_reduce<kThreads, FloatSum>(squares);
  if (threadIdx.x == 0) partials[blockIdx.x] = make_float2(sum, squares);
}

}  // namespace

struct SampleDesignPeer::State {
  std::int64_t options, paths;
  int blocks_per_option;
  StreamHandle stream;
  DeviceBuffer<PeerOption> device_options;
  DeviceBuffer<curandState> states;
  DeviceBuffer<float2> partials;
  DeviceBuffer<PeerEstimate> estimates;
};

SampleDesignPeer::SampleDesignPeer(std::int64_t options, std::int64_t paths, int multiprocessor_count,
                                   StreamHandle stream) {
  // One block per option when the options fill the device (8 blocks per SM), else more.
  const std::int64_t wanted = std::int64_t{8} * multiprocessor_count;
  const int blocks_per_option = options >= wanted ? 1 : static_cast<int>((wanted + options - 1) / options);
  const std::int64_t blocks = options * blocks_per_option;
  state_.reset(new State{options, paths, blocks_per_option, stream, {},
                         DeviceBuffer<curandState>(static_cast<std::size_t>(blocks * kThreads), stream),
                         DeviceBuffer<float2>(static_cast<std::size_t>(blocks), stream),
                         DeviceBuffer<PeerEstimate>(static_cast<std::size_t>(options), stream)});
  const detail::LaunchConfig config{detail::grid_1d(blocks, "setup_states_kernel"), dim3(kThreads), 0, stream};
  detail::launch_kernel(setup_states_kernel, "setup_states_kernel", config, state_->states.data(),
                        std::uint64_t{20261124});
}

SampleDesignPeer::~SampleDesignPeer() = default;

void SampleDesignPeer::load(const std::vector<PeerOption>& options) {
  state_->device_options = DeviceBuffer<PeerOption>::from_host(options, state_->stream);
}

void SampleDesignPeer::price() {
  State& s = *state_;
  const std::int64_t blocks = s.options * s.blocks_per_option;
  detail::launch_kernel(sample_design_kernel, "sample_design_kernel",
                        {detail::grid_1d(blocks, "sample_design_kernel"), dim3(kThreads), 0, s.stream},
                        s.device_options.data(), s.paths, s.blocks_per_option, s.states.data(), s.partials.data());
  detail::launch_kernel(finish_kernel, "finish_kernel",
                        {detail::grid_1d((s.options + kThreads - 1) / kThreads, "finish_kernel"), dim3(kThreads), 0,
                         s.stream},
                        s.device_options.data(), s.options, s.paths, s.blocks_per_option, s.partials.data(),
                        s.estimates.data());
}

std::vector<PeerEstimate> SampleDesignPeer::results() const { return state_->estimates.to_host(); }

struct ReferenceRoute::State {
  std::int64_t options, paths;
  StreamHandle stream;
  curandGenerator_t generator = nullptr;
  DeviceBuffer<PeerOption> device_options;
  DeviceBuffer<float> normals;
  DeviceBuffer<float2> partials;
  DeviceBuffer<PeerEstimate> estimates;
};

ReferenceRoute::ReferenceRoute(std::int64_t options, std::int64_t paths, StreamHandle stream) {
  state_.reset(new State{options, paths, stream, nullptr, {},
                         DeviceBuffer<float>(static_cast<std::size_t>(options * paths), stream),
                         DeviceBuffer<float2>(static_cast<std::size_t>(options), stream),
                         DeviceBuffer<PeerEstimate>(static_cast<std::size_t>(options), stream)});
  CUNUM_CHECK(curandCreateGenerator(&state_->generator, CURAND_RNG_PSEUDO_MT19937));
  CUNUM_CHECK(curandSetPseudoRandomGeneratorSeed(state_->generator, 20261124));
  CUNUM_CHECK(curandSetStream(state_->generator, static_cast<cudaStream_t>(stream)));
}

ReferenceRoute::~ReferenceRoute() { curandDestroyGenerator(state_->generator); }

void ReferenceRoute::load(const std::vector<PeerOption>& options) {
  state_->device_options = DeviceBuffer<PeerOption>::from_host(options, state_->stream);
}

void ReferenceRoute::generate() {
  CUNUM_CHECK(curandGenerateNormal(state_->generator, state_->normals.data(), state_->normals.size(), 0.0f, 1.0f));
}

void ReferenceRoute::price() {
  State& s = *state_;
  generate();
  detail::launch_kernel(reference_pricing_kernel, "reference_pricing_kernel",
                        {detail::grid_1d(s.options, "reference_pricing_kernel"), dim3(kThreads), 0, s.stream},
                        s.device_options.data(), s.paths, s.normals.data(), s.partials.data());
  detail::launch_kernel(finish_kernel, "finish_kernel",
                        {detail::grid_1d((s.options + kThreads - 1) / kThreads, "finish_kernel"), dim3(kThreads), 0,
                         s.stream},
                        s.device_options.data(), s.options, s.paths, 1, s.partials.data(), s.estimates.data());
}

std::vector<PeerEstimate> ReferenceRoute::results() const { return state_->estimates.to_host(); }

struct CurandNormals::State {
  std::int64_t n;
  bool double_precision;
  curandGenerator_t generator = nullptr;
  DeviceBuffer<double> out;  // room for n doubles or 2n floats
};

CurandNormals::CurandNormals(std::int64_t n, bool double_precision, StreamHandle stream) {
  state_.reset(new State{n, double_precision, nullptr,
                         DeviceBuffer<double>(static_cast<std::size_t>(double_precision ? n : (n + 1) / 2), stream)});
  CUNUM_CHECK(curandCreateGenerator(&state_->generator, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  CUNUM_CHECK(curandSetPseudoRandomGeneratorSeed(state_->generator, 20261124));
  CUNUM_CHECK(curandSetStream(state_->generator, static_cast<cudaStream_t>(stream)));
}

CurandNormals::~CurandNormals() { curandDestroyGenerator(state_->generator); }

void CurandNormals::generate() {
  State& s = *state_;
  const auto count = static_cast<std::size_t>(s.n);
  if (s.double_precision) {
    CUNUM_CHECK(curandGenerateNormalDouble(s.generator, s.out.data(), count, 0.0, 1.0));
  } else {
    CUNUM_CHECK(curandGenerateNormal(s.generator, reinterpret_cast<float*>(s.out.data()), count, 0.0f, 1.0f));
  }
}

}  // namespace cunum::bench
