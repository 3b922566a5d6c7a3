#pragma once
/// @file
/// A probabilistic model of random global-memory access on GPUs (Inuma's model, brought
/// to Hopper): how many memory segments a warp's random gather touches, how a cache
/// fills as warps keep gathering, and what that costs. Plain C++: no GPU is needed,
/// except to read the parameters of the GPU in hand (gpu_memory_parameters()).
///
/// The random process: D threads that access memory together (a warp's active
/// threads) each pick one of m equally likely segments, independently. A segment is
/// the unit the memory system moves: on Hopper a 32-byte sector of a 128-byte line.
///
/// Example (a 32-thread gather of 4-byte elements from a 1 MiB table):
/// @code
/// cunum::GatherQuery query;
/// query.table_elements = 1 << 18;
/// query.element_bytes = 4;
/// query.gathers = 1 << 26;
/// cunum::GatherEstimate e = cunum::estimate_gather(query, cunum::gpu_memory_parameters());
/// // e.sectors_per_request, e.l1_hit_rate, e.l2_hit_rate, e.seconds, e.warps_to_hide_latency
/// @endcode

#include <cstdint>
#include <vector>

#include "cunum/core/error.hpp"

namespace cunum {

/// F(D, m, n): the probability that D threads, each picking one of m segments uniformly
/// and independently, touch exactly n distinct segments,
///     F(D, m, n) = m (m-1) ... (m-n+1) S(D, n) / m^D,
/// with S(D, n) the Stirling numbers of the second kind. Computed by the occupancy
/// recurrence over the threads, P_d(n) = P_{d-1}(n) n/m + P_{d-1}(n-1) (m-n+1)/m, in
/// probabilities (never the factorials or m^D), so it neither overflows nor underflows
/// to garbage: exact to rounding for D up to 1024 and m up to 2^40 and beyond.
/// @param threads   D, 1..1024
/// @param segments  m, a whole number >= 1 (a count, held in a double: exact to 2^53)
/// @return F(D, m, n) for n = 0..D, summing to 1 (entries with n > m are 0)
/// @throws Error ErrorCode::invalid_argument naming 'threads' or 'segments' (also when m
///         is not a whole number: between whole numbers the formula is no distribution)
std::vector<double> segment_count_distribution(int threads, double segments);

/// The mean and variance of the number of distinct segments touched (the transactions,
/// or sectors, of one request), in closed form:
///     mean = m (1 - (1 - 1/m)^D),
///     variance = m (m-1) (1 - 2/m)^D + m (1 - 1/m)^D - m^2 (1 - 1/m)^(2D),
/// evaluated with log1p/expm1 in a form whose terms do not cancel, so that large m
/// (2^40 with D = 1024: variance 4.8e-7 beside a mean of 1024) loses no digits.
struct SegmentCountMoments {
  double mean = 0;
  double variance = 0;
};
/// @param threads   D, 1..1024
/// @param segments  m, a whole number >= 1, as segment_count_distribution
/// @throws Error ErrorCode::invalid_argument naming 'threads' or 'segments'
SegmentCountMoments segment_count_moments(int threads, double segments);

/// The cache-fill chain: an absorbing Markov chain over the number i of cached segments
/// out of m, for a cache of C segments, saturating at M = min(m, C). Each step is one
/// request of D threads; from i, the request touches u uncached segments with
/// probability G(i, i + u) (the occupancy recurrence started from i already-touched
/// segments), and the state moves to min(i + u, M). W(0) = (1, 0, ...), W(t) = W(t-1) G.
/// Once full (C < m), a cache keeps C segments: a request's segment is cached with
/// probability C/m, as before saturation it is with probability i/m.
class CacheFillChain {
 public:
  /// @param threads   D, 1..1024
  /// @param segments  m, a whole number >= 1, as segment_count_distribution
  /// @param capacity  C in segments, >= 1
  /// @throws Error ErrorCode::invalid_argument naming the argument; 'segments' also when
  ///         min(m, C) exceeds 2^20 states (use the saturated rate C/m there);
  ///         ErrorCode::out_of_memory "needs N bytes", before anything is allocated, when
  ///         the transition table, (M + 1)(D + 1) doubles (8.6 GB at D = 1024 and 2^20
  ///         states), exceeds the machine's physical memory
  CacheFillChain(int threads, double segments, double capacity);
  /// Copies share nothing. A moved-from chain holds no table: every member but
  /// assignment and the destructor then throws ErrorCode::invalid_argument naming 'this'.
  CacheFillChain(const CacheFillChain&) = default;
  CacheFillChain& operator=(const CacheFillChain&) = default;
  CacheFillChain(CacheFillChain&& other) noexcept;
  CacheFillChain& operator=(CacheFillChain&& other) noexcept;

  /// @return W(t): the probability of each state 0..M after t requests, t >= 0
  /// @throws Error ErrorCode::invalid_argument naming 'steps' (< 0)
  std::vector<double> distribution(std::int64_t steps) const;
  /// @return E[i] after t requests
  /// @throws Error ErrorCode::invalid_argument naming 'steps' (< 0)
  double expected_cached(std::int64_t steps) const;
  /// @return the expected fraction of the (t+1)-th request's segments found cached:
  ///         E[i_t] / m
  /// @throws Error ErrorCode::invalid_argument naming 'steps' (< 0)
  double hit_rate(std::int64_t steps) const;
  /// @return the mean hit rate over requests 1..`requests`, each weighted equally (the
  ///         transactions of a request do not depend on the state)
  double mean_hit_rate(std::int64_t requests) const;
  /// @return M = min(m, C)
  std::int64_t saturation() const;

 private:
  // Refuses a moved-from chain (no table) in the name of `routine`.
  void require_table(const char* routine) const;
  // W(steps), `steps` checked in the name of `routine`.
  std::vector<double> state_after(std::int64_t steps, const char* routine) const;
  // W <- W G (next is scratch of W's size); whether any weight left a transient state.
  bool step(std::vector<double>& w, std::vector<double>& next) const;
  static double mean_state(const std::vector<double>& w);

  int threads_;
  double segments_;
  std::int64_t saturation_;
  std::vector<std::vector<double>> transitions_;  // G(i, i + u), u = 0..D, per state i; empty once moved from
};

/// The mean hit rate of `requests` requests into a cache of `capacity` segments that
/// starts empty, in closed form: before the cache is full, E[i_t] = m (1 - (1 - 1/m)^(D t))
/// exactly (a segment is cached once touched), so the hit rate of request t is
/// 1 - (1 - 1/m)^(D t), summed as a geometric series; once the mean reaches C (C < m) the
/// rate is C/m. Exact for C >= m; for C < m it replaces E[min(i_t, C)] by min(E[i_t], C),
/// which differs only around the requests where the cache fills. What estimate_gather
/// uses, at any m; the chain gives the whole distribution where m or C is small.
/// `segments` is a whole number >= 1, as segment_count_distribution.
/// @throws Error ErrorCode::invalid_argument naming the argument
double mean_fill_hit_rate(int threads, double segments, double capacity, double requests);

/// The memory system the estimate runs on. gpu_memory_parameters() reads what the CUDA
/// runtime can tell; the rest are documented Hopper (H100 SXM) defaults, all overridable.
struct GpuMemoryParameters {
  int multiprocessors = 132;          ///< SMs (runtime)
  double clock_hz = 1.98e9;           ///< SM clock (runtime: peak clock)
  double sector_bytes = 32;           ///< the unit L1, L2 and DRAM move (Hopper)
  double line_bytes = 128;            ///< a cache line: 4 sectors (Hopper); a cache holds
                                      ///< cache bytes / line_bytes random sectors
  double dram_fetch_bytes = 64;       ///< what an L2 miss reads from DRAM: two sectors on the
                                      ///< H100 (measured: docs/access_model.md)
  double l1_bytes = 256.0 * 1024;     ///< L1 per SM: Hopper's unified 256 KiB, all of it L1
                                      ///< for a kernel without shared memory
  double l1_bytes_per_cycle = 128;    ///< L1 load bandwidth per SM per cycle (Hopper)
  double l2_bytes = 50.0 * 1024 * 1024;  ///< L2 (runtime)
  double dram_bytes_per_second = 3.35e12;  ///< DRAM peak (runtime: clock x bus width)
  double l2_bytes_per_second = 0;     ///< L2 to SMs for random sectors; 0: 2.5 x
                                      ///< dram_bytes_per_second (an assumption, not measured)
  /// Load-to-use latencies of a dependent load chain, measured on an H100 (SXM, 1980 MHz)
  /// by the bench's pointer chase on 2026-11-24 (docs/access_model.md); gpu_memory_parameters()
  /// does not read them: override them for another device (the bench measures them).
  double l1_latency_cycles = 40.8;
  double l2_latency_cycles = 277.7;
  double dram_latency_cycles = 680.0;
  int max_warps_per_multiprocessor = 64;  ///< (runtime)
};

/// The parameters of the current CUDA device where there is one (SMs, clock, L2, L1 left
/// beside the largest shared-memory carve-out, DRAM peak, resident warps), else the
/// defaults. Never throws; without a device it returns the defaults.
GpuMemoryParameters gpu_memory_parameters();

/// A random gather: `gathers` loads of `element_bytes` each, at uniformly random
/// indices into a table of `table_elements`, by warps of `active_threads` active lanes.
struct GatherQuery {
  double table_elements = 0;     ///< m elements, >= 1
  int element_bytes = 4;         ///< 1, 2, 4, 8 or 16 (one sector each, aligned)
  double gathers = 0;            ///< n loads in all, >= 1
  int active_threads = 32;       ///< D, 1..32
};

/// What the model predicts for a GatherQuery.
struct GatherEstimate {
  double requests_per_warp = 1;      ///< load instructions a warp issues for one element each
  double sectors_per_request = 0;    ///< E[distinct sectors] over the table's sectors
  double table_sectors = 0;          ///< m x element_bytes / sector_bytes
  double l1_hit_rate = 0;            ///< of sectors, averaged over each SM's requests
  double l2_hit_rate = 0;            ///< of the L1 misses, averaged over all requests
  double dram_bytes = 0;             ///< sectors that miss both, times dram_fetch_bytes
  double seconds = 0;                ///< max of the DRAM, L2 and latency-bound times
  double latency_cycles = 0;         ///< mean load latency of a request
  int warps_to_hide_latency = 0;     ///< per SM, by Little's law, for the bandwidth bound
  int block_threads = 0;             ///< a launch configuration that holds those warps
  int blocks = 0;
};

/// Estimates a random gather: sectors per request from F(D, m, .), L1 and L2 hit rates
/// from the cache fill (mean_fill_hit_rate: L1 per SM over its share of the requests,
/// L2 over all), DRAM bytes from the misses, and the time as the largest of DRAM bytes
/// over DRAM bandwidth, L2 sectors over L2 bandwidth, all sectors over L1 bandwidth, and
/// requests x latency over the warps in flight. Little's law gives the warps per SM that keep the memory system busy:
/// warps = bandwidth x latency / bytes in flight per warp.
/// @throws Error ErrorCode::invalid_argument naming the field of `query` or `parameters`
///         (e.g. 'parameters.l2_latency_cycles': every size, rate and latency finite and
///         > 0; l2_bytes_per_second finite and >= 0)
GatherEstimate estimate_gather(const GatherQuery& query, const GpuMemoryParameters& parameters);

}  // namespace cunum
