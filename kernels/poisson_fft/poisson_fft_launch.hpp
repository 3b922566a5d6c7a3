#pragma once
// Internal: the launchers of the Poisson solver's kernels, plain C++, for the CUDA
// backend's host orchestration (src/poisson_fft/poisson_fft_cuda.cpp), and the plain
// parameter structs the kernels take. Each launcher picks the policy of the device's
// architecture (src/poisson_fft/poisson_fft_policy.hpp), shapes the grid and launches
// one kernel, asynchronously on `stream`; defined in kernels/poisson_fft/poisson_fft.cu
// (the line, division and grid-stride kernels, kernels/poisson_fft/poisson_fft_kernel.cuh)
// and kernels/poisson_fft/poisson_fft_pencils.cu (the pencil kernels,
// kernels/poisson_fft/pencil_fft.cuh), for float and double.
//
// Arrays are device memory. A complex array is PoissonComplex<T>: the layout of cuFFT's
// complex types and of the kernels' PencilValue<T>.

#include <cstddef>
#include <cstdint>

#include "cunum/core/stream.hpp"
#include "src/poisson_fft/wall_transforms.hpp"  // WallLine, GridSide

namespace cunum::detail {

// A complex value as the kernels' arrays hold it: (re, im), aligned to its size.
template <class T>
struct alignas(2 * sizeof(T)) PoissonComplex {
  T re, im;
};

// The device a launch is shaped for: the architecture whose policy it takes (compute
// capability x 100) and the multiprocessors that bound a grid-stride kernel's grid.
struct PoissonDevice {
  int arch;
  int multiprocessor_count;
};

// The eigenvalue tables of the spectral division of modes (m_outer, m_middle, m_inner)
// of three axes in some order: each axis's table, resolved on the host so that no kernel
// indexes an array by a run-time axis (which would put it in local memory).
// The kernels' SpectralDivision<T> (kernels/poisson_fft/poisson_fft_kernel.cuh) holds
// the same and adds the factor of a mode.
template <class T>
struct SpectralTables {
  const T* outer;
  const T* middle;
  const T* inner;
  T screening;
  T scale;  // 1 / pair_factor: the transform pairs' normalisation
};

// One wall axis's pass: `lines` 1-D transforms of `length` real samples (half =
// length / 2 + 1 complex modes), one per grid line along `axis`. The line arrays are
// always contiguous (sample e of line r at r * pitch + e), so every cuFFT plan of a pass
// is a plain batched 1-D transform: a strided one costs cuFFT extra passes of its own.
// Line r is the grid line of problem b through (m[slow], m[fast]) with
// r = (b * n[slow] + m[slow]) * n[fast] + m[fast].
// wall_pass_kind (src/poisson_fft/wall_passes.hpp) gives each AxisTransform its kind.
template <class T>
struct WallPass {
  int axis;
  WallLine line;
  bool dct3_forward;                       // cosine: DCT-III forward and DCT-II back (the mixed axes at vertices)
  GridSide grid_side;
  std::int64_t n;                          // grid points on the axis
  std::int64_t length;                     // the R2C's length: 2(n + 1), 2(n - 1), n or 2n by `line`
                                           // (quarter_pairs: n, the reals of its C2C's n / 2 values)
  std::int64_t half;                       // modes a line: length / 2 + 1 (quarter_pairs: n / 2)
  std::int64_t lines;
  std::int64_t line_pitch;                 // reals from a line to the next in its line array
  // (cos, sin) of line_twiddle_angle, interleaved: cosine pi k / 2n; quarter_cosine
  // pi (2k + 1) / 4n; quarter_pairs coefficient k's, then sample j's at n + j
  const T* twiddles;
};

// How a pass's lines meet one grid-shaped array (the caller's grid or the coefficient
// array). Where the array is contiguous along the pass's axis ("along"), blocks stage
// whole lines in shared memory (the staged kernels), or, for lines longer than those
// hold, a thread takes one sample of one line; otherwise 32 x 32 tiles are transposed
// through shared memory, lanes running along `lane`, the other axis's contiguous one
// ("across"), so that both the array and the lines are read and written in whole
// sectors. The third axis, `block`, and the problem index come from blockIdx.z (the
// staged kernels: from the block's run): one division per block, none per element.
struct LineGeometry {
  bool along;
  int axis, lane, block;
  std::int64_t n_axis, n_lane, n_block, batch;
  std::int64_t lane_lines, block_lines, problem_lines;  // line index = b pl + m[lane] ll + m[block] bl
  std::int64_t problem, axis_stride, lane_stride, block_stride;  // the array's strides
};

// The spectrum of a batch as rows of its innermost axis: `rows` of `inner` modes, row r
// of problem r / (outer middle) at (outer index, middle index) = (r / middle % outer,
// r % middle).
struct SpectrumRows {
  std::int64_t rows, outer, middle, inner;
};

// A tile's pencils along the slowest axis of an array (kernels/poisson_fft/pencil_fft.cuh):
// `pencils` units (complex pencils, or pairs of real ones) of each of `problems`
// contiguous blocks of length x row_stride values, tiles of Policy::pencils units a block
// (`tiles`: set by the launcher from its policy). Where the pencil axis is the outer one
// of the division's three, problem q is the batch index and pencil p sits at
// (middle, inner) = (p / inner, p % inner); otherwise the outer axis is q mod `outer` and
// the pencil is the inner index.
struct PencilShape {
  std::int64_t pencils, problems, tiles, row_stride;
  std::int64_t inner, outer;
  bool pencil_is_outer;
};

// A wall pencil kernel's fold of the array's contiguous axis, of `points` points
// (kernels/poisson_fft/pencil_fft.cuh, WallPencilPair): the kernel reads that axis's
// half spectra (its R2C's output, `modes` a line) in place of its own grid samples
// (`reads`), and writes the half spectra its C2R takes in place of its own results
// (`writes`), turning modes into that axis's coefficients and back on the way. `line`:
// cosine, a wall at cells (Makhoul's post- and pre-processing, mode c giving
// coefficients c and n - c; `twiddles`: that axis's (cos, sin)(pi k / 2n));
// odd_extension, Dirichlet at vertices (DST-I: coefficient k the negated imaginary part
// of mode k + 1); even_extension, Neumann at vertices (DCT-I: coefficient k the real
// part of mode k); quarter_pairs, a mixed axis at cells (mode c of its C2C of n / 2
// pre-twiddled pairs giving coefficients 2c and n - 1 - 2c; `twiddles`: that pass's
// table; folded_quarter_pencil_turnaround_kernel and folded_pencil_turnaround_kernel). Its real arrays hold unit u's
// pencils as a pair of that axis's coefficients, or with `slots` the same pair in the
// spectrum's slot of the first one's mode instead. None of these: no fold.
template <class T>
struct PencilFold {
  PoissonComplex<T>* spectrum;
  const PoissonComplex<T>* twiddles;
  std::int64_t points, modes;
  WallLine line;
  bool reads, writes, slots;
};

// The units (pairs of coefficients) a line of a folded axis of n points gives a pencil
// kernel (WallPencilPair): n / 2 + 1 for a cosine wall at cells, (n + 1) / 2 for a wall
// at vertices (an extension) and n / 2 for a mixed axis at cells by pairs (n even; its
// modes: folded_quarter_pencil_turnaround_kernel, folded_pencil_turnaround_kernel).
CUNUM_HOST_DEVICE inline std::int64_t fold_units(WallLine line, std::int64_t n) {
  return line == WallLine::cosine ? n / 2 + 1 : (n + 1) / 2;
}

// What a wall pencil kernel does: the forward transform of a wall axis (the grid's
// samples to its coefficients: DCT-II or DST-I), the inverse (back: DCT-III or DST-I
// again), or both with the division between them (the turnaround).
enum class WallStage { forward, turnaround, inverse };

// --- the wall passes' line kernels (lines_from_grid_kernel, grid_from_lines_kernel) ---

// lines[r * pitch + e] = sample e of the R2C input `line` makes of line r's n points
// (taken as `side` says) from the grid-shaped array `grid`, e < pitch.
template <class T>
void launch_poisson_wall_lines(const PoissonDevice& device, WallLine line, GridSide side, std::int64_t n,
                               const LineGeometry& g, std::int64_t pitch, const T* grid, T* lines,
                               StreamHandle stream);

// lines[r * pitch + k] = mode k of the half spectrum whose C2R is the shuffled DCT-III
// of line r's n values (taken as `side` says), k < pitch; `twiddles`:
// (cos, sin)(pi k / 2n) interleaved.
template <class T>
void launch_poisson_cosine_inverse_spectrum(const PoissonDevice& device, GridSide side, std::int64_t n,
                                            const T* twiddles, const LineGeometry& g, std::int64_t pitch,
                                            const T* grid, PoissonComplex<T>* lines, StreamHandle stream);

// DCT-IV by pairs (quarter_pairs): lines[r * pitch + j] = the pre-twiddled pair j of
// line r's n values (taken as `side` says), j < pitch = n / 2, the input of its C2C;
// `twiddles` the pass's (line_twiddle_angle: sample j's at n + j).
template <class T>
void launch_poisson_quarter_pair_lines(const PoissonDevice& device, GridSide side, std::int64_t n, const T* twiddles,
                                       const LineGeometry& g, std::int64_t pitch, const T* grid,
                                       PoissonComplex<T>* lines, StreamHandle stream);

// Grid point i of each line = real coefficient i (written as `side` says) of the
// transform `line` names, from the line's half spectrum (quarter_pairs: its C2C's
// output) at lines + r * pitch.
template <class T>
void launch_poisson_wall_coefficients(const PoissonDevice& device, WallLine line, GridSide side, std::int64_t n,
                                      const T* twiddles, const LineGeometry& g, std::int64_t pitch,
                                      const PoissonComplex<T>* lines, T* grid, StreamHandle stream);

// Grid point i of each line = element c2r_line_position(line, n, i) of the C2R's line r
// (unshuffled for the DCT-III, sample i + 1 for DST-I, sample i for DCT-I; written as
// `side` says).
template <class T>
void launch_poisson_c2r_line_samples(const PoissonDevice& device, WallLine line, GridSide side, std::int64_t n,
                                     const LineGeometry& g, std::int64_t pitch, const T* lines, T* grid,
                                     StreamHandle stream);

// --- the division and the grid-stride kernels ---

// The last wall pass of a grid without periodic axes turned around on its lines
// (turnaround_kernel): its half spectra -> the inverse's lines, divided (a forward
// DCT-III's lines, in `extended`, divided in place).
template <class T>
void launch_poisson_turnaround(const PoissonDevice& device, const WallPass<T>& pass, const LineGeometry& g,
                               const SpectralTables<T>& division, PoissonComplex<T>* spectrum, T* extended,
                               StreamHandle stream);

// Each mode of the spectrum divided by the operator's eigenvalue, `in` to `out` (may be
// equal): complex after the periodic R2C, real without a periodic axis.
template <class T>
void launch_poisson_divide(const PoissonDevice& device, const SpectralTables<T>& division, const SpectrumRows& shape,
                           const PoissonComplex<T>* in, PoissonComplex<T>* out, StreamHandle stream);
template <class T>
void launch_poisson_divide(const PoissonDevice& device, const SpectralTables<T>& division, const SpectrumRows& shape,
                           const T* in, T* out, StreamHandle stream);

// out = in, less in's value at the first grid point of each problem of `points` with
// subtract_origin, `total` values.
template <class T>
void launch_poisson_copy(const PoissonDevice& device, std::int64_t total, std::int64_t points, bool subtract_origin,
                         const T* in, T* out, StreamHandle stream);

// The weights of a singular problem's mean (PoissonLayout::half_weight_ends): the end
// points of the axes flagged in `half_ends` count half; `shape` is the problem's.
struct MeanWeights {
  bool half_ends[3];
  std::int64_t shape[3];
};

// sums[2b], sums[2b + 1] = sum w f and sum w |f| of problem b of `batch` (in double, in
// a fixed order), w the point's weight.
template <class T>
void launch_poisson_sums(const PoissonDevice& device, std::int64_t batch, std::int64_t points,
                         const MeanWeights& weights, const T* rhs, double* sums, StreamHandle stream);

// --- the pencil kernels (pencil lengths: with_pencil_length, poisson_fft_policy.hpp) ---

// The periodic turnaround along pencils of `length` complex values of `spectrum`, in
// place; `twiddles`: the length's pencil twiddle table (pencil_twiddle_offset). `shape`'s
// tiles are set here.
template <class T>
void launch_poisson_pencil_turnaround(const PoissonDevice& device, std::int64_t length,
                                      const SpectralTables<T>& division, PencilShape shape,
                                      const PoissonComplex<T>* twiddles, PoissonComplex<T>* spectrum,
                                      StreamHandle stream);

// Stage `stage` of a Neumann axis's cosine transforms of DFT length `length` along
// pencils, source -> target (may be equal); `quarter_twiddles`: (cos, sin)(pi k / 2n);
// `grid_side`: grid point i times (-1)^i on the grid's side (alternating: Dirichlet at
// cells), or a mixed axis's grid samples read and written reversed (dirichlet_neumann at
// vertices); `dct3_first`: the turnaround runs the DCT-III first (a mixed axis at vertices);
// `fold`: the contiguous axis folded in (its spectrum read or written in place of
// `source` or `target`).
template <class T>
void launch_poisson_cosine_pencils(const PoissonDevice& device, WallStage stage, std::int64_t length,
                                   const SpectralTables<T>& division, PencilShape shape,
                                   const PoissonComplex<T>* twiddles, const PoissonComplex<T>* quarter_twiddles,
                                   GridSide grid_side, bool dct3_first, const PencilFold<T>& fold,
                                   const T* source, T* target, StreamHandle stream);

// Stage `stage` of a mixed axis's quarter-wave transform at cells (DCT-IV; DST-IV with
// `alternating`) of n = 2 `length` points along pencils, each real pencil by a complex DFT
// of `length` pairs, source -> target (may be equal); `quarter_twiddles`: the pass's
// table (line_twiddle_angle).
template <class T>
void launch_poisson_quarter_pencils(const PoissonDevice& device, WallStage stage, std::int64_t length,
                                    const SpectralTables<T>& division, PencilShape shape,
                                    const PoissonComplex<T>* twiddles, const PoissonComplex<T>* quarter_twiddles,
                                    bool alternating, const T* source, T* target, StreamHandle stream);

// The turnaround of quarter_pencil_kernel with the contiguous axis folded in, itself a
// mixed axis at cells by pairs (`fold` reads and writes its C2C's spectrum), in place.
template <class T>
void launch_poisson_folded_quarter_pencil_turnaround(const PoissonDevice& device, std::int64_t length,
                                                     const SpectralTables<T>& division, PencilShape shape,
                                                     const PoissonComplex<T>* twiddles,
                                                     const PoissonComplex<T>* quarter_twiddles, bool alternating,
                                                     const PencilFold<T>& fold, StreamHandle stream);

// The turnaround along pencils of `length` points of a periodic axis with the
// contiguous wall axis folded in (`fold` reads and writes its half spectra, or a mixed
// axis's pairs' spectra), in place.
template <class T>
void launch_poisson_folded_pencil_turnaround(const PoissonDevice& device, std::int64_t length,
                                             const SpectralTables<T>& division, PencilShape shape,
                                             const PoissonComplex<T>* twiddles, const PencilFold<T>& fold,
                                             StreamHandle stream);

// Stage `stage` of an extension transform along pencils, source -> target (may be
// equal): `line` odd_extension, a Dirichlet axis's DST-I (DFT length `length` =
// 2(n + 1)), or even_extension, a Neumann axis's DCT-I at vertices (2(n - 1)). Each is
// its own inverse: forward and inverse are one kernel. `fold` as for the cosine pencils.
template <class T>
void launch_poisson_extension_pencils(const PoissonDevice& device, WallLine line, WallStage stage,
                                      std::int64_t length, const SpectralTables<T>& division, PencilShape shape,
                                      const PoissonComplex<T>* twiddles, const PencilFold<T>& fold, const T* source,
                                      T* target, StreamHandle stream);

}  // namespace cunum::detail
