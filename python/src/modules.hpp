#pragma once
// The binding of each module of the C++ API, one file each (python/src/<module>.cpp).
// `bench` is the private submodule cunum._cunum._bench (python/src/bench.hpp).

#include <nanobind/nanobind.h>

namespace cunum::python {

void bind_reduce(nanobind::module_& m, nanobind::module_& bench);
void bind_black_scholes(nanobind::module_& m, nanobind::module_& bench);
void bind_brownian_bridge(nanobind::module_& m);
void bind_random(nanobind::module_& m);
void bind_monte_carlo(nanobind::module_& m);
void bind_poisson_fft(nanobind::module_& m);
void bind_himeno(nanobind::module_& m);
void bind_access_model(nanobind::module_& m);

}  // namespace cunum::python
