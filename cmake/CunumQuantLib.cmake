# QuantLib, the external truth for bridges and Black-Scholes. Debian's
# libquantlib0-dev ships neither a CMake package nor a pkg-config file, so it is
# found by hand; CMAKE_PREFIX_PATH may point at a carried copy (scripts/device-deps).
# Defines the target cunum_quantlib when found. Included by the parts of the tree that
# compare with it (tests/, bench/).
include_guard(GLOBAL)
find_path(QuantLib_INCLUDE_DIR ql/methods/montecarlo/brownianbridge.hpp)
find_library(QuantLib_LIBRARY NAMES QuantLib)
find_path(QuantLib_BOOST_INCLUDE_DIR boost/shared_ptr.hpp)  # QuantLib's headers include Boost
if(QuantLib_INCLUDE_DIR AND QuantLib_LIBRARY AND QuantLib_BOOST_INCLUDE_DIR)
  add_library(cunum_quantlib INTERFACE)
  target_include_directories(cunum_quantlib SYSTEM INTERFACE ${QuantLib_INCLUDE_DIR} ${QuantLib_BOOST_INCLUDE_DIR})
  target_link_libraries(cunum_quantlib INTERFACE ${QuantLib_LIBRARY})
  message(STATUS "QuantLib: ${QuantLib_LIBRARY}")
else()
  message(STATUS "QuantLib not found: the QuantLib comparisons are not built (Debian: libquantlib0-dev)")
endif()
