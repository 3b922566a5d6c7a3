#pragma once
// The bench's peer lines for European calls under GBM, written for this bench (no
// code copied):
// - SampleDesignPeer: the design of NVIDIA's MonteCarloMultiGPU CUDA sample, one
//   XORWOW state per thread set up once (untimed), curand_normal in the pricing
//   kernel, __expf, float partial sums of payoff and payoff^2, one block per option
//   (several when options are too few to fill the device), a second kernel adding
//   the blocks' partials.
// - ReferenceRoute: the reference work's two-kernel route, cuRAND's host MT19937
//   writing every normal to memory, then a pricing kernel reading them (one block per
//   option).
// Both return the discounted price and standard error per option.

#include <cstdint>
#include <memory>
#include <vector>

#include "cunum/core/stream.hpp"

namespace cunum::bench {

struct PeerOption {
  float spot, strike, expiry, rate, volatility;
};

struct PeerEstimate {
  double price, standard_error;
};

class SampleDesignPeer {
 public:
  SampleDesignPeer(std::int64_t options, std::int64_t paths, int multiprocessor_count, StreamHandle stream);
  ~SampleDesignPeer();
  SampleDesignPeer(const SampleDesignPeer&) = delete;
  SampleDesignPeer& operator=(const SampleDesignPeer&) = delete;
  // Enqueues the pricing of the options uploaded by load().
  void price();
  void load(const std::vector<PeerOption>& options);
  std::vector<PeerEstimate> results() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

class ReferenceRoute {
 public:
  // The normals buffer holds options x paths floats.
  ReferenceRoute(std::int64_t options, std::int64_t paths, StreamHandle stream);
  ~ReferenceRoute();
  ReferenceRoute(const ReferenceRoute&) = delete;
  ReferenceRoute& operator=(const ReferenceRoute&) = delete;
  void load(const std::vector<PeerOption>& options);
  void generate();  // the MT19937 normals alone
  void price();     // generate() then the pricing kernel
  std::vector<PeerEstimate> results() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// cuRAND's host API writing n standard normals (PHILOX4_32_10), float or double:
// the rate a two-kernel route could at best feed a pricer.
class CurandNormals {
 public:
  CurandNormals(std::int64_t n, bool double_precision, StreamHandle stream);
  ~CurandNormals();
  CurandNormals(const CurandNormals&) = delete;
  CurandNormals& operator=(const CurandNormals&) = delete;
  void generate();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace cunum::bench
