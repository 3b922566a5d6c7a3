#pragma once
// Internal: the names of the module's public routines, each written once. Every
// entry point opens a RoutineScope with its name (src/core/routine.hpp), so that an
// error raised below it, in the backends or a CUDA call, names the routine called.

#include <string>

#include "cunum/core/error.hpp"
#include "src/core/routine.hpp"

namespace cunum::detail::bridge_routines {

inline constexpr const char* make_order = "cunum::make_bridge_order";
inline constexpr const char* construct = "cunum::BrownianBridge";
inline constexpr const char* placement = "cunum::BrownianBridge::placement";
inline constexpr const char* stack_size = "cunum::BrownianBridge::stack_size";
inline constexpr const char* construction_steps = "cunum::BrownianBridge::construction_steps";
inline constexpr const char* generate_paths = "cunum::BrownianBridge::generate_paths";
inline constexpr const char* generate_increments = "cunum::BrownianBridge::generate_increments";
inline constexpr const char* generate_sobol_paths = "cunum::BrownianBridge::generate_sobol_paths";
inline constexpr const char* generate_sobol_increments = "cunum::BrownianBridge::generate_sobol_increments";
// Internal entry points of the bench and the docs.
inline constexpr const char* describe_kernel = "cunum::detail::describe_bridge_kernel";
inline constexpr const char* describe_sobol_kernel = "cunum::detail::describe_sobol_bridge_kernel";

// The routine in progress (the one the caller called), else the module's.
inline const char* current() {
  const char* routine = RoutineScope::current();
  return routine != nullptr ? routine : construct;
}

// Error(not_supported) naming the routine in progress: valid input that the routine,
// or the strategy asked for, cannot serve; `problem` names the limit.
[[noreturn]] inline void throw_not_supported(const std::string& problem) {
  throw Error(ErrorCode::not_supported, std::string(current()) + ": " + problem);
}

}  // namespace cunum::detail::bridge_routines
