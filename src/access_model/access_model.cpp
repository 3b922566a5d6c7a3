// The random-access model: the occupancy distribution F(D, m, n), its moments, the
// cache-fill chain and the gather estimate (cunum/access_model.hpp).

#include "cunum/access_model.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "cunum/core/device.hpp"
#include "src/core/memory_need.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"

namespace cunum {
namespace {

constexpr int kMaxThreads = 1024;
constexpr std::int64_t kMaxChainStates = std::int64_t{1} << 20;

// A double to all its digits, for messages: 1 + 2^-30 must not read "1.000000".
std::string exact(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", value);
  return text;
}

// The process is D picks among m segments: m counts them, so it is a whole number.
// (For m between whole numbers F(D, m, .) is no distribution: the header's formula has
// negative entries there, and the recurrence loses probability.)
void validate_process(int threads, double segments, const char* routine) {
  detail::require(threads >= 1 && threads <= kMaxThreads, routine, "threads",
                  [&] { return "must be 1 to 1024, got " + std::to_string(threads); });
  detail::require(std::isfinite(segments) && segments >= 1 && std::floor(segments) == segments, routine, "segments",
                  [&] { return "must be a whole number >= 1 (a count of segments), got " + exact(segments); });
}

// The distribution of the number of new segments touched by `threads` uniform picks
// among `segments`, `touched` of which count as already touched: the occupancy
// recurrence, in probabilities. touched = 0 gives F(D, m, .).
std::vector<double> new_segment_distribution(int threads, double segments, double touched) {
  std::vector<double> p(static_cast<std::size_t>(threads) + 1, 0.0);
  p[0] = 1.0;
  for (int d = 1; d <= threads; ++d) {
    // Going down in u so that p[u - 1] is still the previous thread's.
    for (int u = d; u >= 0; --u) {
      const double stays = p[static_cast<std::size_t>(u)] * ((touched + u) / segments);
      const double grows = u > 0 ? p[static_cast<std::size_t>(u) - 1] * ((segments - touched - (u - 1)) / segments) : 0.0;
      p[static_cast<std::size_t>(u)] = (touched + u <= segments ? stays : 0.0) + std::max(grows, 0.0);
    }
  }
  return p;
}

// (1 - x/m)^k computed as exp(k log1p(-x/m)).
double power_of_complement(double x, double m, double k) { return std::exp(k * std::log1p(-x / m)); }

}  // namespace

std::vector<double> segment_count_distribution(int threads, double segments) {
  const detail::RoutineScope scope("cunum::segment_count_distribution");
  validate_process(threads, segments, "cunum::segment_count_distribution");
  return new_segment_distribution(threads, segments, 0.0);
}

SegmentCountMoments segment_count_moments(int threads, double segments) {
  const detail::RoutineScope scope("cunum::segment_count_moments");
  validate_process(threads, segments, "cunum::segment_count_moments");
  const double m = segments;
  const double d = threads;
  // mean = m (1 - q^D) with q = 1 - 1/m; -expm1 keeps its digits for large m.
  const double mean = -m * std::expm1(d * std::log1p(-1.0 / m));
  // Var = m(m-1)(1-2/m)^D + m a - m^2 a^2 with a = (1-1/m)^D, rewritten so that its
  // large terms do not cancel: with (1-2/m)/(1-1/m)^2 = 1 - 1/(m-1)^2 and
  // (1-2/m)/(1-1/m) = 1 - 1/(m-1),
  //   Var = m^2 a^2 expm1(D log1p(-1/(m-1)^2)) - m a expm1(D log1p(-1/(m-1))).
  double variance = 0.0;
  if (m >= 2) {
    const double a = power_of_complement(1.0, m, d);
    const double r = 1.0 / (m - 1);
    variance = m * m * a * a * std::expm1(d * std::log1p(-r * r)) - m * a * std::expm1(d * std::log1p(-r));
    variance = std::max(0.0, variance);
  }
  return {mean, variance};
}

CacheFillChain::CacheFillChain(int threads, double segments, double capacity) : threads_(threads), segments_(segments) {
  const char* routine = "cunum::CacheFillChain";
  const detail::RoutineScope scope(routine);
  validate_process(threads, segments, routine);
  detail::require(std::isfinite(capacity) && capacity >= 1, routine, "capacity",
                  [&] { return "must be finite and >= 1, got " + std::to_string(capacity); });
  const double saturation = std::floor(std::min(segments, capacity));
  detail::require(saturation <= static_cast<double>(kMaxChainStates), routine, "segments",
                  [&] { return "with 'capacity' makes more than 2^20 states (min(m, C) = " + std::to_string(saturation) +
                      "); past saturation the hit rate is C/m"; });
  saturation_ = static_cast<std::int64_t>(saturation);
  detail::require_memory_need(
      detail::MemoryNeed{}.add(saturation_ + 1, (static_cast<std::size_t>(threads) + 1) * sizeof(double) +
                                                    sizeof(std::vector<double>)),
      Backend::cpu, routine, [&] {
        return "for the transition table of " + std::to_string(saturation_ + 1) + " states x " +
               std::to_string(threads + 1) + " doubles";
      });
  transitions_.resize(static_cast<std::size_t>(saturation_) + 1);
  for (std::int64_t i = 0; i <= saturation_; ++i) {
    transitions_[static_cast<std::size_t>(i)] = new_segment_distribution(threads, segments, static_cast<double>(i));
  }
}

CacheFillChain::CacheFillChain(CacheFillChain&& other) noexcept
    : threads_(other.threads_),
      segments_(other.segments_),
      saturation_(other.saturation_),
      transitions_(std::exchange(other.transitions_, {})) {}

CacheFillChain& CacheFillChain::operator=(CacheFillChain&& other) noexcept {
  if (this != &other) {
    threads_ = other.threads_;
    segments_ = other.segments_;
    saturation_ = other.saturation_;
    transitions_ = std::exchange(other.transitions_, {});
  }
  return *this;
}

void CacheFillChain::require_table(const char* routine) const {
  detail::require(!transitions_.empty(), routine, "this", "is a moved-from CacheFillChain");
}

bool CacheFillChain::step(std::vector<double>& w, std::vector<double>& next) const {
  std::fill(next.begin(), next.end(), 0.0);
  bool moved = false;
  for (std::int64_t i = 0; i <= saturation_; ++i) {
    const double weight = w[static_cast<std::size_t>(i)];
    if (weight == 0.0) continue;
    const std::vector<double>& g = transitions_[static_cast<std::size_t>(i)];
    for (std::size_t u = 0; u < g.size(); ++u) {
      const std::int64_t j = std::min<std::int64_t>(i + static_cast<std::int64_t>(u), saturation_);
      next[static_cast<std::size_t>(j)] += weight * g[u];
      moved = moved || (u > 0 && g[u] > 0.0 && i < saturation_);
    }
  }
  w.swap(next);
  return moved;
}

double CacheFillChain::mean_state(const std::vector<double>& w) {
  double mean = 0.0;
  for (std::size_t i = 0; i < w.size(); ++i) mean += static_cast<double>(i) * w[i];
  return mean;
}

std::vector<double> CacheFillChain::state_after(std::int64_t steps, const char* routine) const {
  require_table(routine);
  detail::require_non_negative(steps, routine, "steps");
  std::vector<double> w(static_cast<std::size_t>(saturation_) + 1, 0.0);
  w[0] = 1.0;
  std::vector<double> next(w.size());
  for (std::int64_t t = 0; t < steps; ++t) {
    if (!step(w, next)) break;  // absorbed: every later W(t) is this one
  }
  return w;
}

std::vector<double> CacheFillChain::distribution(std::int64_t steps) const {
  const char* routine = "cunum::CacheFillChain::distribution";
  const detail::RoutineScope scope(routine);
  return state_after(steps, routine);
}

double CacheFillChain::expected_cached(std::int64_t steps) const {
  const char* routine = "cunum::CacheFillChain::expected_cached";
  const detail::RoutineScope scope(routine);
  return mean_state(state_after(steps, routine));
}

double CacheFillChain::hit_rate(std::int64_t steps) const {
  const char* routine = "cunum::CacheFillChain::hit_rate";
  const detail::RoutineScope scope(routine);
  return mean_state(state_after(steps, routine)) / segments_;
}

double CacheFillChain::mean_hit_rate(std::int64_t requests) const {
  const detail::RoutineScope scope("cunum::CacheFillChain::mean_hit_rate");
  require_table("cunum::CacheFillChain::mean_hit_rate");
  detail::require(requests >= 1, "cunum::CacheFillChain::mean_hit_rate", "requests",
                  [&] { return "must be >= 1, got " + std::to_string(requests); });
  // One pass of the chain, adding E[i_t] / m for t = 0 .. requests - 1; once absorbed,
  // every remaining request sees the saturated rate.
  std::vector<double> w(static_cast<std::size_t>(saturation_) + 1, 0.0);
  w[0] = 1.0;
  std::vector<double> next(w.size());
  double total = 0.0;
  for (std::int64_t t = 0; t < requests; ++t) {
    const double mean = mean_state(w);
    if (w[static_cast<std::size_t>(saturation_)] >= 1.0 - 1e-15) {
      total += static_cast<double>(requests - t) * mean / segments_;
      break;
    }
    total += mean / segments_;
    step(w, next);
  }
  return total / static_cast<double>(requests);
}

std::int64_t CacheFillChain::saturation() const {
  const char* routine = "cunum::CacheFillChain::saturation";
  const detail::RoutineScope scope(routine);
  require_table(routine);
  return saturation_;
}

double mean_fill_hit_rate(int threads, double segments, double capacity, double requests) {
  const char* routine = "cunum::mean_fill_hit_rate";
  const detail::RoutineScope scope(routine);
  validate_process(threads, segments, routine);
  detail::require(std::isfinite(capacity) && capacity >= 1, routine, "capacity", "must be finite and >= 1");
  detail::require(std::isfinite(requests) && requests >= 1, routine, "requests", "must be finite and >= 1");
  const double m = segments;
  const double log_q = threads * std::log1p(-1.0 / m);  // log of (1 - 1/m)^D, the untouched share per request
  // Requests before the mean reaches C: m (1 - e^(t log_q)) >= C from t = log(1 - C/m) / log_q.
  double filling = requests;
  if (capacity < m) filling = std::min(requests, std::ceil(std::log1p(-capacity / m) / log_q));
  // sum over t < T of (1 - e^(t log_q)) = T - (1 - e^(T log_q)) / (1 - e^(log_q)).
  const double rising = filling - std::expm1(filling * log_q) / std::expm1(log_q);
  const double cached_sum = rising + (requests - filling) * std::min(capacity, m) / m;
  return std::min(1.0, cached_sum / requests);
}

GpuMemoryParameters gpu_memory_parameters() {
  GpuMemoryParameters parameters;
  if (device_count() == 0) return parameters;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return parameters;
  const auto attribute = [&](cudaDeviceAttr which, int fallback) {
    int value = 0;
    return cudaDeviceGetAttribute(&value, which, device) == cudaSuccess && value > 0 ? value : fallback;
  };
  parameters.multiprocessors = attribute(cudaDevAttrMultiProcessorCount, parameters.multiprocessors);
  parameters.clock_hz = 1e3 * attribute(cudaDevAttrClockRate, static_cast<int>(parameters.clock_hz / 1e3));
  parameters.l2_bytes = attribute(cudaDevAttrL2CacheSize, static_cast<int>(parameters.l2_bytes));
  const int memory_khz = attribute(cudaDevAttrMemoryClockRate, 0);
  const int bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, 0);
  if (memory_khz > 0 && bus_bits > 0) {
    parameters.dram_bytes_per_second = 2.0 * memory_khz * 1e3 * bus_bits / 8.0;  // double data rate
  }
  parameters.max_warps_per_multiprocessor =
      attribute(cudaDevAttrMaxThreadsPerMultiProcessor, parameters.max_warps_per_multiprocessor * 32) / 32;
  return parameters;
}

GatherEstimate estimate_gather(const GatherQuery& query, const GpuMemoryParameters& parameters) {
  const char* routine = "cunum::estimate_gather";
  const detail::RoutineScope scope(routine);
  detail::require(std::isfinite(query.table_elements) && query.table_elements >= 1, routine, "query.table_elements",
                  "must be finite and >= 1");
  const int s = query.element_bytes;
  detail::require(s == 1 || s == 2 || s == 4 || s == 8 || s == 16, routine, "query.element_bytes",
                  [&] { return "must be 1, 2, 4, 8 or 16, got " + std::to_string(s); });
  detail::require(std::isfinite(query.gathers) && query.gathers >= 1, routine, "query.gathers",
                  "must be finite and >= 1");
  detail::require(query.active_threads >= 1 && query.active_threads <= 32, routine, "query.active_threads",
                  [&] { return "must be 1 to 32, got " + std::to_string(query.active_threads); });
  const GpuMemoryParameters& p = parameters;
  detail::require(p.multiprocessors >= 1, routine, "parameters.multiprocessors",
                  [&] { return "must be >= 1, got " + std::to_string(p.multiprocessors); });
  detail::require(p.max_warps_per_multiprocessor >= 1, routine, "parameters.max_warps_per_multiprocessor",
                  [&] { return "must be >= 1, got " + std::to_string(p.max_warps_per_multiprocessor); });
  const struct {
    const char* name;
    double value;
  } sizes[] = {{"parameters.clock_hz", p.clock_hz},
               {"parameters.sector_bytes", p.sector_bytes},
               {"parameters.line_bytes", p.line_bytes},
               {"parameters.dram_fetch_bytes", p.dram_fetch_bytes},
               {"parameters.l1_bytes", p.l1_bytes},
               {"parameters.l1_bytes_per_cycle", p.l1_bytes_per_cycle},
               {"parameters.l2_bytes", p.l2_bytes},
               {"parameters.dram_bytes_per_second", p.dram_bytes_per_second},
               {"parameters.l1_latency_cycles", p.l1_latency_cycles},
               {"parameters.l2_latency_cycles", p.l2_latency_cycles},
               {"parameters.dram_latency_cycles", p.dram_latency_cycles}};
  for (const auto& size : sizes) {
    detail::require(std::isfinite(size.value) && size.value > 0, routine, size.name,
                    [&] { return "must be finite and > 0, got " + exact(size.value); });
  }
  // 0 means the documented default (2.5 x DRAM); a negative or non-finite rate would
  // give a negative or NaN time.
  detail::require(std::isfinite(p.l2_bytes_per_second) && p.l2_bytes_per_second >= 0, routine,
                  "parameters.l2_bytes_per_second",
                  [&] { return "must be finite and >= 0 (0: the default), got " + exact(p.l2_bytes_per_second); });
  GatherEstimate e;
  e.table_sectors = std::max(1.0, std::ceil(query.table_elements * s / p.sector_bytes));
  const double m = e.table_sectors;
  const int d = query.active_threads;
  e.sectors_per_request = segment_count_moments(d, m).mean;
  const double requests = std::ceil(query.gathers / d);
  const double requests_per_sm = std::ceil(requests / p.multiprocessors);
  // Hit rates from the cache-fill chain; a table past 2^20 sectors of cache is treated
  // as saturated from the start (the transient is then a negligible share).
  // A cache holds whole lines: a table larger than the cache, gathered a random sector
  // at a time, fills a line's slot with one sector, so the cache holds bytes/line_bytes
  // sectors, not bytes/sector_bytes (measured on the H100: docs/access_model.md). A table
  // that fits is held whole.
  const double table_bytes = m * p.sector_bytes;
  const auto mean_hit = [&](double capacity_bytes, double over_requests) {
    const double capacity = table_bytes <= capacity_bytes ? m : std::max(1.0, std::floor(capacity_bytes / p.line_bytes));
    return mean_fill_hit_rate(d, m, capacity, over_requests);
  };
  e.l1_hit_rate = mean_hit(p.l1_bytes, requests_per_sm);
  const double l2_all = mean_hit(p.l2_bytes, requests);
  // L2 sees the L1 misses; a segment L1 holds, L2 also holds: P(L2 hit | L1 miss).
  e.l2_hit_rate = e.l1_hit_rate < 1.0 ? std::max(0.0, (l2_all - e.l1_hit_rate) / (1.0 - e.l1_hit_rate)) : 1.0;
  const double sectors = requests * e.sectors_per_request;
  const double l1_misses = sectors * (1.0 - e.l1_hit_rate);
  const double dram_sectors = l1_misses * (1.0 - e.l2_hit_rate);
  e.dram_bytes = dram_sectors * p.dram_fetch_bytes;
  e.latency_cycles = e.l1_hit_rate * p.l1_latency_cycles +
                     (1.0 - e.l1_hit_rate) * (e.l2_hit_rate * p.l2_latency_cycles +
                                              (1.0 - e.l2_hit_rate) * p.dram_latency_cycles);
  const double l2_rate = p.l2_bytes_per_second > 0 ? p.l2_bytes_per_second : 2.5 * p.dram_bytes_per_second;
  const double dram_seconds = e.dram_bytes / p.dram_bytes_per_second;
  const double l2_seconds = l1_misses * p.sector_bytes / l2_rate;
  const double l1_seconds = sectors * p.sector_bytes / (p.l1_bytes_per_cycle * p.clock_hz * p.multiprocessors);
  // Little's law: to keep `bandwidth` busy with requests of `sectors_per_request`
  // sectors and `latency` seconds each, bytes in flight = bandwidth x latency.
  const double latency_seconds = e.latency_cycles / p.clock_hz;
  const double bound_seconds = std::max({dram_seconds, l2_seconds, l1_seconds});
  const double bytes_per_second_per_sm = bound_seconds > 0 ? sectors * p.sector_bytes / bound_seconds / p.multiprocessors
                                                           : 0.0;
  const double bytes_in_flight_per_warp = e.sectors_per_request * p.sector_bytes;
  const double warps = std::ceil(bytes_per_second_per_sm * latency_seconds / bytes_in_flight_per_warp);
  e.warps_to_hide_latency = static_cast<int>(std::clamp(warps, 1.0, static_cast<double>(p.max_warps_per_multiprocessor)));
  // With fewer warps than that, the requests queue behind the latency instead.
  const double latency_bound_seconds =
      requests_per_sm * latency_seconds / static_cast<double>(p.max_warps_per_multiprocessor);
  e.seconds = std::max(bound_seconds, latency_bound_seconds);
  e.block_threads = std::min(1024, 32 * std::max(1, std::min(e.warps_to_hide_latency, 8)));
  const int blocks_per_sm = std::max(1, (e.warps_to_hide_latency * 32 + e.block_threads - 1) / e.block_threads);
  e.blocks = p.multiprocessors * blocks_per_sm;
  return e;
}

}  // namespace cunum
