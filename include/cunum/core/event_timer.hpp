#pragma once
/// @file
/// cunum::EventTimer: times device work on a stream with a pair of CUDA events.

#include "cunum/core/stream.hpp"

struct CUevent_st;

namespace cunum {

/// Measures the device time between two points of a stream's work: start() and
/// stop() enqueue timestamps, elapsed_ms() waits for the second and reads the
/// interval. The events belong to the device current at construction; the streams
/// passed must be of that device. Neither copyable nor movable; one caller at a time.
///
///     cunum::EventTimer timer;
///     timer.start(stream);
///     ... enqueue work on stream ...
///     timer.stop(stream);
///     float ms = timer.elapsed_ms();  // waits for the work
class EventTimer {
 public:
  /// Creates the two events.
  /// @throws Error ErrorCode::no_device without a device ("no CUDA device");
  ///         ErrorCode::cuda_failure when CUDA cannot create them.
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  /// Enqueues the start timestamp on `stream`; returns at once.
  /// @param stream where the timed work runs (nullptr: the default stream)
  /// @throws Error ErrorCode::cuda_failure
  void start(StreamHandle stream = nullptr);
  /// Enqueues the stop timestamp on `stream`; returns at once.
  /// @param stream where the timed work runs (nullptr: the default stream)
  /// @throws Error ErrorCode::cuda_failure
  void stop(StreamHandle stream = nullptr);
  /// Waits for the stop timestamp, then measures.
  /// @return milliseconds of device time between start() and stop() (resolution about
  ///         half a microsecond)
  /// @throws Error ErrorCode::invalid_argument naming 'this' when start() or stop()
  ///         has not been called (before CUDA is asked); ErrorCode::cuda_failure when
  ///         the work before stop() failed.
  float elapsed_ms() const;

 private:
  CUevent_st* start_ = nullptr;
  CUevent_st* stop_ = nullptr;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace cunum
