#pragma once
/// @file
/// The value types cunum's routines are built for, each list written once. A list
/// is a comma-separated sequence, usable as template arguments (a test's
/// `testing::Types<CUNUM_REAL_TYPES>`) and, inside cunum, to instantiate every
/// template for every type (src/core/instantiate.hpp). Adding a type is one edit.
/// A template used with a type outside its list does not link.

#include <cstdint>

/// Floating-point routines: Brownian bridge, and the modules that follow it.
#define CUNUM_REAL_TYPES float, double
/// Reductions (Reducer, reduce): the real types and the integers
/// whose sums are exact.
#define CUNUM_REDUCE_TYPES CUNUM_REAL_TYPES, std::int32_t, std::int64_t
