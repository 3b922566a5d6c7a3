#pragma once
// Times device work on a stream with a pair of CUDA events.

#include "cunum/core/stream.hpp"

struct CUevent_st;

namespace cunum {

class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void start(StreamHandle stream = nullptr);
  void stop(StreamHandle stream = nullptr);
  // Waits for the stop event; milliseconds between start and stop.
  float elapsed_ms() const;

 private:
  CUevent_st* start_ = nullptr;
  CUevent_st* stop_ = nullptr;
};

}  // namespace cunum
