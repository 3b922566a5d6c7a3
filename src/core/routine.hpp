#pragma once
// Internal: the public routine in progress on this thread, so that an error raised
// deep inside (a failed CUDA call, an allocation) names the routine the caller
// called. Each API entry point opens one scope; nested scopes restore the outer name.

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

}  // namespace cunum::detail
