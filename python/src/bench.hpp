#pragma once
// The C++ side of bench/python/bench_overhead.py, in the private submodule
// cunum._cunum._bench: a small call timed as a C++ program makes it, on the plan, the
// arrays and the stream the Python call uses, so that the bench reports what calling
// from Python adds.

#include <time.h>

#include <chrono>
#include <string>

#include "python/src/arrays.hpp"

namespace cunum::python {

// Seconds on `clock`: "wall" (steady_clock) or "thread" (the calling thread's CPU
// time, for a machine whose cores other processes share).
class BenchClock {
 public:
  explicit BenchClock(const std::string& clock) : thread_(clock == "thread") {
    detail::require(thread_ || clock == "wall", "cunum._cunum._bench", "clock", "is neither 'wall' nor 'thread'");
  }
  double seconds() const {
    if (!thread_) return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
  }

 private:
  bool thread_;
};

// The seconds of `calls` back-to-back repetitions of one part of a call, no wait
// between them:
// - "routine": the C++ routine alone, `run` on one prepared call, with the GIL
//   released, as a C++ program calls it;
// - "binding": what the binding does before the routine, `prepare` (resolve the
//   stream, import and check the arrays, make the results), its result dropped each
//   time as the Python call drops it.
template <class Prepare, class Run>
double seconds_of_calls(const std::string& part, int calls, const std::string& clock, Prepare&& prepare, Run&& run) {
  const char* routine = "cunum._cunum._bench";
  detail::require(calls > 0, routine, "calls", "must be positive");
  const BenchClock timer(clock);
  if (part == "binding") {
    const double start = timer.seconds();
    for (int i = 0; i < calls; ++i) prepare();
    return timer.seconds() - start;
  }
  detail::require(part == "routine", routine, "part", "is neither 'routine' nor 'binding'");
  const auto call = prepare();
  nb::gil_scoped_release unlocked;
  const double start = timer.seconds();
  for (int i = 0; i < calls; ++i) run(call);
  return timer.seconds() - start;
}

}  // namespace cunum::python
