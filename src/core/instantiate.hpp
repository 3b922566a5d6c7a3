#pragma once
// Internal: explicit instantiation over a value-type list (cunum/core/value_types.hpp),
// after Ginkgo's GKO_INSTANTIATE_FOR_EACH_VALUE_TYPE:
//     #define CUNUM_INSTANTIATE_REDUCER(T) template class Reducer<T>;
//     CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_REDUCER, CUNUM_REDUCE_TYPES)
// MACRO(T) must be a complete declaration (end with ';'). Lists of up to 8 types.

#include "cunum/core/value_types.hpp"

#define CUNUM_FOR_EACH_1(M, T) M(T)
#define CUNUM_FOR_EACH_2(M, T, ...) M(T) CUNUM_FOR_EACH_1(M, __VA_ARGS__)
#define CUNUM_FOR_EACH_3(M, T, ...) M(T) CUNUM_FOR_EACH_2(M, __VA_ARGS__)
#define CUNUM_FOR_EACH_4(M, T, ...) M(T) CUNUM_FOR_EACH_3(M, __VA_ARGS__)
#define CUNUM_FOR_EACH_5(M, T, ...) M(T) CUNUM_FOR_EACH_4(M, __VA_ARGS__)
#define CUNUM_FOR_EACH_6(M, T, ...) M(T) CUNUM_FOR_EACH_5(M, __VA_ARGS__)
#define CUNUM_FOR_EACH_7(M, T, ...) M(T) CUNUM_FOR_EACH_6(M, __VA_ARGS__)
#define CUNUM_FOR_EACH_8(M, T, ...) M(T) CUNUM_FOR_EACH_7(M, __VA_ARGS__)
#define CUNUM_PICK_FOR_EACH(_1, _2, _3, _4, _5, _6, _7, _8, NAME, ...) NAME
#define CUNUM_EXPAND(x) x
#define CUNUM_FOR_EACH_TYPE(M, ...)                                                              \
  CUNUM_EXPAND(CUNUM_PICK_FOR_EACH(__VA_ARGS__, CUNUM_FOR_EACH_8, CUNUM_FOR_EACH_7, CUNUM_FOR_EACH_6, \
                                   CUNUM_FOR_EACH_5, CUNUM_FOR_EACH_4, CUNUM_FOR_EACH_3,          \
                                   CUNUM_FOR_EACH_2, CUNUM_FOR_EACH_1)(M, __VA_ARGS__))
// Expands the list macro first, then applies MACRO to each of its types.
#define CUNUM_INSTANTIATE_FOR_EACH(MACRO, LIST) CUNUM_FOR_EACH_TYPE(MACRO, LIST)
