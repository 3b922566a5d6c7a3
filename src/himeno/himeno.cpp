// Himeno front end: validation at the API boundary, the placement resolved once, and
// the grid's backend object: one box (iterate() through the one sweep sequence,
// himeno_sequence.hpp) or slabs on several devices (himeno_multi_device.cpp).

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "cunum/core/error.hpp"
#include "src/core/device_binding.hpp"
#include "src/core/enum_functions.hpp"
#include "src/core/graph_capture.hpp"
#include "src/core/instantiate.hpp"
#include "src/core/memory_need.hpp"
#include "src/core/placement.hpp"
#include "src/core/routine.hpp"
#include "src/core/validate.hpp"
#include "src/himeno/himeno_backends.hpp"
#include "src/himeno/himeno_policy.hpp"
#include "src/himeno/himeno_sequence.hpp"
#include "src/himeno/himeno_setup.hpp"

namespace cunum {

CUNUM_DEFINE_ENUM_FUNCTIONS(HimenoSize, CUNUM_HIMENO_SIZES)

namespace {
constexpr const char* kProblemRoutine = "cunum::HimenoProblem";
constexpr const char* kIterateRoutine = "cunum::HimenoProblem::iterate";
constexpr const char* kClassName = "HimenoProblem";
}  // namespace

HimenoGrid himeno_grid(HimenoSize size) {
  detail::require_enum(size, "cunum::himeno_grid", "size", "HimenoSize");
  const std::int64_t scale = std::int64_t{1} << static_cast<int>(size);
  return {32 * scale, 32 * scale, 64 * scale};
}

double himeno_flops(const HimenoGrid& grid, std::int64_t sweeps) noexcept {
  return 34.0 * static_cast<double>(grid.interior_points()) * static_cast<double>(sweeps);
}

namespace detail {

void validate_himeno_grid(const HimenoGrid& grid, std::size_t value_bytes, const char* routine) {
  const std::int64_t extents[] = {grid.nx, grid.ny, grid.nz};
  const char* names[] = {"grid.nx", "grid.ny", "grid.nz"};
  double bytes = static_cast<double>(value_bytes) * (kHimenoCoefficientArrays + 2);
  for (int axis = 0; axis < 3; ++axis) {
    require(extents[axis] >= 3, routine, names[axis],
            [&] { return "must be >= 3 (a boundary point on each side of an interior one), got " + std::to_string(extents[axis]); });
    bytes *= static_cast<double>(extents[axis]);
  }
  require(bytes < static_cast<double>(std::numeric_limits<std::int64_t>::max()), routine, "grid",
          "needs more than 2^63 bytes for its 14 fields");
  // The kernels index within a (j, k) plane in 32 bits, and MPI counts a plane in an int.
  require(static_cast<double>(grid.ny) * static_cast<double>(grid.nz) <= std::numeric_limits<int>::max(), routine,
          "grid", "has (j, k) planes of more than 2^31 - 1 points (ny * nz)");
}

void validate_himeno_options(const HimenoOptions& options, const char* routine) {
  require(std::isfinite(options.omega), routine, "options.omega",
          [&] { return "must be finite, got " + std::to_string(options.omega); });
  require(options.sweeps_per_pass >= 0 && options.sweeps_per_pass <= kHimenoMaxSweepsPerPass, routine,
          "options.sweeps_per_pass",
          [&] { return "must be 0 (automatic) to " + std::to_string(kHimenoMaxSweepsPerPass) + ", got " +
              std::to_string(options.sweeps_per_pass); });
}

template <class T>
void validate_himeno_fields(const HimenoFields<T>& fields, std::int64_t points, const char* routine) {
  const auto require_finite_array = [&](const T* values, const char* name) {
    require(values != nullptr, routine, name, "must not be null");
    bool finite = true;
#pragma omp parallel for reduction(&& : finite)
    for (std::int64_t x = 0; x < points; ++x) finite = finite && std::isfinite(values[x]);
    require(finite, routine, name, "holds a value that is not finite");
  };
  for (int c = 0; c < kHimenoCoefficientArrays; ++c) {
    require_finite_array(himeno_coefficient_array(fields, c), himeno_coefficient_name(c));
  }
  require_finite_array(fields.pressure, "fields.pressure");
}

#define CUNUM_INSTANTIATE_VALIDATE_HIMENO_FIELDS(T) \
  template void validate_himeno_fields(const HimenoFields<T>&, std::int64_t, const char*);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_VALIDATE_HIMENO_FIELDS, CUNUM_REAL_TYPES)

void require_himeno_field_memory(const HimenoBox* boxes, std::size_t count, std::size_t value_bytes,
                                 Backend backend, const char* routine) {
  constexpr int arrays = kHimenoCoefficientArrays + 2;  // the coefficients and two pressures
  MemoryNeed need;
  std::int64_t planes = 0;
  for (std::size_t b = 0; b < count; ++b) {
    need.add(boxes[b].points(), arrays * value_bytes);
    planes += boxes[b].planes;
  }
  require_memory_need(need, backend, routine, [&] {
    return "for its " + std::to_string(arrays) + " field arrays of " + std::to_string(planes) + " x " +
           std::to_string(boxes[0].ny) + " x " + std::to_string(boxes[0].nz) + " points" +
           (count > 1 ? " (" + std::to_string(count) + " slabs there, ghost planes included)" : "");
  });
}

template <class T>
std::unique_ptr<HimenoBackend<T>> make_himeno_backend(const Placement& placement, const HimenoBox& box,
                                                      const HimenoFieldSource<T>& source, double omega,
                                                      StreamHandle stream) {
  if (placement.backend == Backend::cuda) {
    return make_himeno_cuda<T>(box, source, omega, stream, placement.device_memory);
  }
  return make_himeno_cpu<T>(box, source, omega);
}

#define CUNUM_INSTANTIATE_MAKE_HIMENO_BACKEND(T)                                                                 \
  template std::unique_ptr<HimenoBackend<T>> make_himeno_backend(const Placement&, const HimenoBox&,              \
                                                                 const HimenoFieldSource<T>&, double, StreamHandle);
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_MAKE_HIMENO_BACKEND, CUNUM_REAL_TYPES)

HimenoSlab himeno_slab(const HimenoGrid& grid, int index, int slabs, int halo_depth) {
  const std::int64_t interior = grid.nx - 2;
  const std::int64_t base = interior / slabs;
  const std::int64_t extra = interior % slabs;
  HimenoSlab slab;
  slab.count = base + (index < extra ? 1 : 0);
  slab.first = 1 + index * base + std::min<std::int64_t>(index, extra);
  slab.lower = index == 0 ? 1 : halo_depth;
  const std::int64_t upper = index == slabs - 1 ? 1 : halo_depth;
  slab.box = {slab.lower + slab.count + upper, grid.ny, grid.nz, slab.first - slab.lower, grid.nx};
  return slab;
}

template <class T>
int himeno_best_sweeps_per_pass(Backend backend) noexcept {
  return backend == Backend::cuda ? HimenoBestSweeps<T>::value : 1;
}

template <class T>
int himeno_slab_sweeps_per_pass(const HimenoOptions& options, const HimenoGrid& grid, int slabs, Backend backend,
                                const char* routine) {
  const std::int64_t thinnest = (grid.nx - 2) / slabs;
  require(options.sweeps_per_pass <= thinnest, routine, "options.sweeps_per_pass", [&] {
    return "asks " + std::to_string(options.sweeps_per_pass) + " sweeps a pass, which need halos as deep, but the " +
           "thinnest of the " + std::to_string(slabs) + " slabs has " + std::to_string(thinnest) +
           (thinnest == 1 ? " plane" : " planes") + ": at most " + std::to_string(thinnest) + " here";
  });
  if (options.sweeps_per_pass != 0) return options.sweeps_per_pass;
  const int best = himeno_best_sweeps_per_pass<T>(backend);
  return best < thinnest ? best : static_cast<int>(thinnest);
}

template <class T>
int himeno_sweeps_per_pass(const HimenoOptions& options, Backend backend) noexcept {
  return options.sweeps_per_pass == 0 ? himeno_best_sweeps_per_pass<T>(backend) : options.sweeps_per_pass;
}

#define CUNUM_INSTANTIATE_HIMENO_SWEEPS_PER_PASS(T) \
  template int himeno_best_sweeps_per_pass<T>(Backend) noexcept;                                        \
  template int himeno_slab_sweeps_per_pass<T>(const HimenoOptions&, const HimenoGrid&, int, Backend,     \
                                              const char*);                                              \
  template int himeno_sweeps_per_pass<T>(const HimenoOptions&, Backend) noexcept;
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_HIMENO_SWEEPS_PER_PASS, CUNUM_REAL_TYPES)

namespace {

// The whole grid in one box, on either backend: the one sweep sequence without halos.
template <class T>
class HimenoOneBox final : public HimenoGridBackend<T> {
 public:
  HimenoOneBox(std::unique_ptr<HimenoBackend<T>> box, std::int64_t planes, int sweeps_per_pass)
      : box_(std::move(box)), planes_(planes), sweeps_per_pass_(sweeps_per_pass) {}

  double iterate(std::int64_t sweeps, StreamHandle stream) override {
    HimenoSlabWork<T> whole_grid{box_.get(), 1, planes_ - 1, stream};
    NoHalo halo;
    return himeno_iterate(&whole_grid, 1, sweeps_per_pass_, sweeps, halo);
  }
  void copy_pressure(T* host, StreamHandle stream) override { box_->copy_pressure(host, stream); }
  int sweeps_per_pass() const noexcept override { return sweeps_per_pass_; }

 private:
  std::unique_ptr<HimenoBackend<T>> box_;
  std::int64_t planes_;
  int sweeps_per_pass_;
};

}  // namespace
}  // namespace detail

template <class T>
struct HimenoProblem<T>::Impl {
  HimenoGrid grid;
  HimenoOptions options;
  Placement placement;
  detail::DeviceBinding binding;  // CUDA: the device, the first of several
  std::unique_ptr<detail::HimenoGridBackend<T>> backend;
};

template <class T>
HimenoProblem<T>::HimenoProblem(const HimenoGrid& grid, const HimenoOptions& options, const Placement& placement)
    : HimenoProblem(grid, nullptr, options, placement) {}

template <class T>
HimenoProblem<T>::HimenoProblem(const HimenoGrid& grid, const HimenoFields<T>& fields,
                                const HimenoOptions& options, const Placement& placement)
    : HimenoProblem(grid, &fields, options, placement) {}

template <class T>
HimenoProblem<T>::HimenoProblem(const HimenoGrid& grid, const HimenoFields<T>* fields,
                                const HimenoOptions& options, const Placement& placement) {
  const detail::RoutineScope scope(kProblemRoutine);
  detail::validate_himeno_grid(grid, sizeof(T), kProblemRoutine);
  detail::validate_himeno_options(options, kProblemRoutine);
  detail::require(static_cast<std::int64_t>(placement.devices.size()) <= grid.nx - 2, kProblemRoutine,
                  "placement.devices", [&] {
                    return "lists " + std::to_string(placement.devices.size()) + " devices, more than the grid's " +
                           std::to_string(grid.nx - 2) + " interior planes (nx - 2): one slab each";
                  });
  auto impl = std::make_unique<Impl>();
  impl->placement = detail::resolve_placement(placement, detail::DeviceCount::several, kProblemRoutine);
  if (fields != nullptr) detail::validate_himeno_fields(*fields, grid.points(), kProblemRoutine);
  impl->grid = grid;
  impl->options = options;
  const detail::PlacementDeviceScope on_device(impl->placement);
  if (impl->placement.backend == Backend::cuda) impl->binding = detail::DeviceBinding::current();
  if (impl->placement.devices.size() > 1) {
    impl->backend = detail::make_himeno_multi_device<T>(grid, fields, options, impl->placement);
  } else {
    const detail::HimenoBox whole_grid{grid.nx, grid.ny, grid.nz, 0, grid.nx};
    detail::require_himeno_field_memory(&whole_grid, 1, sizeof(T), impl->placement.backend, kProblemRoutine);
    impl->backend = std::make_unique<detail::HimenoOneBox<T>>(
        detail::make_himeno_backend<T>(impl->placement, whole_grid, {fields, 0}, options.omega,
                                       impl->placement.stream),
        grid.nx, detail::himeno_sweeps_per_pass<T>(options, impl->placement.backend));
  }
  impl_ = std::move(impl);
}

template <class T>
HimenoProblem<T>::~HimenoProblem() = default;
template <class T>
HimenoProblem<T>::HimenoProblem(HimenoProblem&&) noexcept = default;
template <class T>
HimenoProblem<T>& HimenoProblem<T>::operator=(HimenoProblem&&) noexcept = default;

template <class T>
double HimenoProblem<T>::iterate(std::int64_t sweeps, StreamHandle stream) {
  const detail::RoutineScope scope(kIterateRoutine);
  Impl& self = detail::require_plan(impl_, kIterateRoutine, kClassName);
  detail::require_at_least(sweeps, 1, kIterateRoutine, "sweeps");
  if (self.placement.backend == Backend::cuda) {
    self.binding.require_current(kIterateRoutine);
    detail::refuse_capture(stream, "it waits for gosa");
  }
  return self.backend->iterate(sweeps, stream);
}

template <class T>
std::vector<T> HimenoProblem<T>::pressure(StreamHandle stream) const {
  constexpr const char* routine = "cunum::HimenoProblem::pressure";
  const detail::RoutineScope scope(routine);
  const Impl& self = detail::require_plan(impl_, routine, kClassName);
  if (self.placement.backend == Backend::cuda) {
    self.binding.require_current(routine);
    detail::refuse_capture(stream, "it copies the pressure to the host and waits");
  }
  std::vector<T> host(static_cast<std::size_t>(self.grid.points()));
  self.backend->copy_pressure(host.data(), stream);
  return host;
}

template <class T>
const HimenoGrid& HimenoProblem<T>::grid() const {
  return detail::require_plan(impl_, "cunum::HimenoProblem::grid", kClassName).grid;
}
template <class T>
const HimenoOptions& HimenoProblem<T>::options() const {
  return detail::require_plan(impl_, "cunum::HimenoProblem::options", kClassName).options;
}
template <class T>
Backend HimenoProblem<T>::backend() const {
  return detail::require_plan(impl_, "cunum::HimenoProblem::backend", kClassName).placement.backend;
}
template <class T>
const Placement& HimenoProblem<T>::placement() const {
  return detail::require_plan(impl_, "cunum::HimenoProblem::placement", kClassName).placement;
}
template <class T>
int HimenoProblem<T>::sweeps_per_pass() const {
  return detail::require_plan(impl_, "cunum::HimenoProblem::sweeps_per_pass", kClassName).backend->sweeps_per_pass();
}
template <class T>
std::int64_t HimenoProblem<T>::field_bytes() const {
  const Impl& self = detail::require_plan(impl_, "cunum::HimenoProblem::field_bytes", kClassName);
  return self.grid.points() * (detail::kHimenoCoefficientArrays + 2) * static_cast<std::int64_t>(sizeof(T));
}

#define CUNUM_INSTANTIATE_HIMENO_PROBLEM(T) template class HimenoProblem<T>;
CUNUM_INSTANTIATE_FOR_EACH(CUNUM_INSTANTIATE_HIMENO_PROBLEM, CUNUM_REAL_TYPES)

}  // namespace cunum
