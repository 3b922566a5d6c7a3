#pragma once
/// @file
/// The finance vocabulary that several modules share (black_scholes, monte_carlo):
/// plain C++17, no CUDA header.

#include "cunum/core/enum.hpp"
#include "cunum/core/error.hpp"

namespace cunum {

/// The kind of a European option (cunum::OptionType).
#define CUNUM_OPTION_TYPES(X) \
  X(call, "call")             \
  X(put, "put")
CUNUM_ENUM(OptionType, CUNUM_OPTION_TYPES)

}  // namespace cunum
