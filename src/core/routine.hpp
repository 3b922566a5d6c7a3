#pragma once
// Internal: the public routine the caller called, so that an error raised deep inside
// it (a failed CUDA call, an allocation, another public routine it calls on the way:
// a convenience's plan, Monte Carlo's bridge) names the routine the caller called, as
// cunum::Error promises. Each API entry point, and each public utility that library
// routines also call (Stream, DeviceBuffer, EventTimer, synchronize, the memory::
// copies), opens a scope; a scope opened while another is open names nothing new, so
// the outermost open scope is the one named.

namespace cunum::detail {

class RoutineScope {
 public:
  explicit RoutineScope(const char* routine) noexcept : outer_(current_) {
    if (current_ == nullptr) current_ = routine;
  }
  ~RoutineScope() { current_ = outer_; }
  RoutineScope(const RoutineScope&) = delete;
  RoutineScope& operator=(const RoutineScope&) = delete;

  // The outermost open scope's routine, or nullptr outside every scope.
  static const char* current() noexcept { return current_; }

 private:
  const char* outer_;
  inline static thread_local const char* current_ = nullptr;
};

}  // namespace cunum::detail
