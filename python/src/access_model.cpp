// cunum.access_model: the probabilistic model of random GPU memory access
// (include/cunum/access_model.hpp). Host code only: no arrays, no streams.

#include <nanobind/stl/vector.h>

#include "cunum/access_model.hpp"
#include "python/src/modules.hpp"

namespace cunum::python {

namespace nb = nanobind;

void bind_access_model(nb::module_& m) {
  m.def("segment_count_distribution", &segment_count_distribution, nb::arg("threads"), nb::arg("segments"),
        R"(F(D, m, n): the probability that D threads, each picking one of m segments uniformly, touch exactly n.

    F(D, m, n) = m (m-1) ... (m-n+1) S(D, n) / m^D   (S: Stirling numbers of the second kind),

computed by the occupancy recurrence in probabilities, exact to rounding for D up to
1024 and m up to 2^40 and beyond.

Args:
    threads: D, 1..1024.
    segments: m, a whole number >= 1.

Returns:
    [F(D, m, 0), ..., F(D, m, D)], summing to 1.

Raises:
    InvalidArgument: naming 'threads' or 'segments'.)");

  nb::class_<SegmentCountMoments>(m, "SegmentCountMoments", "The mean and variance of the number of distinct segments touched.")
      .def_ro("mean", &SegmentCountMoments::mean, "m (1 - (1 - 1/m)^D)")
      .def_ro("variance", &SegmentCountMoments::variance,
              "m (m-1) (1 - 2/m)^D + m (1 - 1/m)^D - m^2 (1 - 1/m)^(2D)");
  m.def("segment_count_moments", &segment_count_moments, nb::arg("threads"), nb::arg("segments"),
        "The closed-form mean and variance of the distinct segments D threads touch among m (no cancellation for "
        "large m).\n\nRaises:\n    InvalidArgument: naming 'threads' or 'segments'.");

  nb::class_<CacheFillChain>(m, "CacheFillChain",
                             R"(The cache-fill chain: an absorbing Markov chain over the cached segments out of m.

A cache of C segments saturates at M = min(m, C); each step is one request of D
threads, which touches u uncached segments with the occupancy probabilities.

Args:
    threads: D, 1..1024.
    segments: m, a whole number >= 1.
    capacity: C in segments, >= 1.

Raises:
    InvalidArgument: naming the argument ('segments' also when min(m, C) exceeds 2^20 states).
    OutOfMemory: the transition table exceeds the machine's memory.)")
      .def(nb::init<int, double, double>(), nb::arg("threads"), nb::arg("segments"), nb::arg("capacity"))
      .def("distribution", &CacheFillChain::distribution, nb::arg("steps"),
           "W(t): the probability of each state 0..M after `steps` requests.")
      .def("expected_cached", &CacheFillChain::expected_cached, nb::arg("steps"), "E[i] after `steps` requests.")
      .def("hit_rate", &CacheFillChain::hit_rate, nb::arg("steps"),
           "The expected fraction of request steps + 1's segments found cached: E[i_t] / m.")
      .def("mean_hit_rate", &CacheFillChain::mean_hit_rate, nb::arg("requests"),
           "The mean hit rate over requests 1..`requests`.")
      .def_prop_ro("saturation", &CacheFillChain::saturation, "M = min(m, C)");

  m.def("mean_fill_hit_rate", &mean_fill_hit_rate, nb::arg("threads"), nb::arg("segments"), nb::arg("capacity"),
        nb::arg("requests"),
        "The mean hit rate of `requests` requests into a cache of `capacity` segments that starts empty, in closed "
        "form (what estimate_gather uses).\n\nRaises:\n    InvalidArgument: naming the argument.");

  nb::class_<GpuMemoryParameters>(m, "GpuMemoryParameters",
                                  "The memory system the estimate runs on: documented Hopper (H100 SXM) defaults, all "
                                  "writable; gpu_memory_parameters() reads what the CUDA runtime can tell.")
      .def(nb::init<>())
      .def_rw("multiprocessors", &GpuMemoryParameters::multiprocessors, "SMs")
      .def_rw("clock_hz", &GpuMemoryParameters::clock_hz, "SM clock")
      .def_rw("sector_bytes", &GpuMemoryParameters::sector_bytes, "the unit L1, L2 and DRAM move")
      .def_rw("line_bytes", &GpuMemoryParameters::line_bytes, "a cache line")
      .def_rw("dram_fetch_bytes", &GpuMemoryParameters::dram_fetch_bytes, "what an L2 miss reads from DRAM")
      .def_rw("l1_bytes", &GpuMemoryParameters::l1_bytes, "L1 per SM")
      .def_rw("l1_bytes_per_cycle", &GpuMemoryParameters::l1_bytes_per_cycle, "L1 load bandwidth per SM per cycle")
      .def_rw("l2_bytes", &GpuMemoryParameters::l2_bytes, "L2")
      .def_rw("dram_bytes_per_second", &GpuMemoryParameters::dram_bytes_per_second, "DRAM peak")
      .def_rw("l2_bytes_per_second", &GpuMemoryParameters::l2_bytes_per_second,
              "L2 to SMs for random sectors; 0: 2.5 x DRAM")
      .def_rw("l1_latency_cycles", &GpuMemoryParameters::l1_latency_cycles)
      .def_rw("l2_latency_cycles", &GpuMemoryParameters::l2_latency_cycles)
      .def_rw("dram_latency_cycles", &GpuMemoryParameters::dram_latency_cycles)
      .def_rw("max_warps_per_multiprocessor", &GpuMemoryParameters::max_warps_per_multiprocessor);
  m.def("gpu_memory_parameters", &gpu_memory_parameters,
        "The parameters of the current CUDA device where there is one (SMs, clock, L2, L1, DRAM peak, resident "
        "warps), else the defaults. Never raises.");

  nb::class_<GatherQuery>(m, "GatherQuery",
                          "A random gather: `gathers` loads of `element_bytes` each at uniformly random indices into "
                          "a table of `table_elements`, by warps of `active_threads` lanes.")
      .def(
          "__init__",
          [](GatherQuery* self, double table_elements, int element_bytes, double gathers, int active_threads) {
            new (self) GatherQuery{table_elements, element_bytes, gathers, active_threads};
          },
          nb::arg("table_elements") = 0.0, nb::arg("element_bytes") = 4, nb::arg("gathers") = 0.0,
          nb::arg("active_threads") = 32)
      .def_rw("table_elements", &GatherQuery::table_elements, "m elements, >= 1")
      .def_rw("element_bytes", &GatherQuery::element_bytes, "1, 2, 4, 8 or 16")
      .def_rw("gathers", &GatherQuery::gathers, "n loads in all, >= 1")
      .def_rw("active_threads", &GatherQuery::active_threads, "D, 1..32");

  nb::class_<GatherEstimate>(m, "GatherEstimate", "What the model predicts for a GatherQuery.")
      .def_ro("requests_per_warp", &GatherEstimate::requests_per_warp)
      .def_ro("sectors_per_request", &GatherEstimate::sectors_per_request, "E[distinct sectors]")
      .def_ro("table_sectors", &GatherEstimate::table_sectors)
      .def_ro("l1_hit_rate", &GatherEstimate::l1_hit_rate)
      .def_ro("l2_hit_rate", &GatherEstimate::l2_hit_rate)
      .def_ro("dram_bytes", &GatherEstimate::dram_bytes)
      .def_ro("seconds", &GatherEstimate::seconds, "max of the DRAM, L2 and latency-bound times")
      .def_ro("latency_cycles", &GatherEstimate::latency_cycles)
      .def_ro("warps_to_hide_latency", &GatherEstimate::warps_to_hide_latency, "per SM, by Little's law")
      .def_ro("block_threads", &GatherEstimate::block_threads)
      .def_ro("blocks", &GatherEstimate::blocks);
  m.def(
      "estimate_gather",
      [](const GatherQuery& query, const GpuMemoryParameters* parameters) {
        return estimate_gather(query, parameters != nullptr ? *parameters : gpu_memory_parameters());
      },
      nb::arg("query"), nb::arg("parameters") = nb::none(),
      R"(Estimates a random gather: sectors per request, L1 and L2 hit rates, DRAM bytes and time.

Args:
    query: the gather.
    parameters: the memory system; None: gpu_memory_parameters().

Raises:
    InvalidArgument: naming the field of query or parameters.)");
}

}  // namespace cunum::python
