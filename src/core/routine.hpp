#pragma once
// Internal: the public routine in progress on this thread, so that an error raised
// deep inside (a failed CUDA call, an allocation) names the routine the caller
// called. Each API entry point opens one scope; nested scopes restore the outer name.
// The innermost open scope is the one named. Public utilities that library routines
// also call (Stream, DeviceBuffer, EventTimer, synchronize, the memory:: copies) open a
// UtilityScope instead, which names the utility only where no routine is in progress.

namespace cunum::detail {

class RoutineScope {
 public:
  explicit RoutineScope(const char* routine) noexcept : outer_(current_) { current_ = routine; }
  ~RoutineScope() { current_ = outer_; }
  RoutineScope(const RoutineScope&) = delete;
  RoutineScope& operator=(const RoutineScope&) = delete;

  // The innermost open scope's routine, or nullptr outside every scope.
  static const char* current() noexcept { return current_; }

 private:
  const char* outer_;
  inline static thread_local const char* current_ = nullptr;
};

// The scope of a public utility that library routines call too: names `routine` when
// the caller called the utility itself, and leaves the routine in progress named when
// one is (a DeviceBuffer allocated inside cunum::Reducer reports cunum::Reducer).
class UtilityScope {
 public:
  explicit UtilityScope(const char* routine) noexcept
      : scope_(RoutineScope::current() != nullptr ? RoutineScope::current() : routine) {}

 private:
  RoutineScope scope_;
};

}  // namespace cunum::detail
