// The shared finance vocabulary's enum functions (cunum/finance.hpp).

#include "cunum/finance.hpp"

#include "src/core/enum_functions.hpp"

namespace cunum {

CUNUM_DEFINE_ENUM_FUNCTIONS(OptionType, CUNUM_OPTION_TYPES)

}  // namespace cunum
