// The pencil FFTs' twiddle table as the host builds it (pencil_twiddle_table,
// src/poisson_fft/poisson_fft_policy.hpp) against the layout the kernels read it by
// (pencil_twiddle_offset, pencil_twiddle_run, pencil_twiddle_count), at every pencil
// length: each radix-16 pass's runs w^k and w^(4 k), w = e^(-2 pi i / L), where the
// kernels look for them, and nothing else in the table.

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstddef>
#include <vector>

#include "src/poisson_fft/poisson_fft_policy.hpp"

namespace {

using cunum::detail::pencil_first_radix;
using cunum::detail::pencil_twiddle_count;
using cunum::detail::pencil_twiddle_offset;
using cunum::detail::pencil_twiddle_run;
using cunum::detail::pencil_twiddle_table;

TEST(PencilTwiddles, TheTableHoldsEachPassRunsWhereTheKernelsReadThem) {
  const double two_pi = 2.0 * std::acos(-1.0);
  for (int length = 2; length <= 8192; length *= 2) {
    SCOPED_TRACE(length);
    const std::vector<std::complex<double>> table = pencil_twiddle_table(length);
    ASSERT_EQ(table.size(), static_cast<std::size_t>(pencil_twiddle_count(length)));
    int expected_offset = 0;
    for (int pass_length = 16 * pencil_first_radix(length); pass_length <= length; pass_length *= 16) {
      const int offset = pencil_twiddle_offset(length, pass_length);
      const int run = pencil_twiddle_run(pass_length);
      EXPECT_EQ(offset, expected_offset) << "the pass completing " << pass_length;
      for (int k = 0; k < run; ++k) {
        const std::complex<double> low = std::polar(1.0, -two_pi * k / pass_length);
        const std::complex<double> high = std::polar(1.0, -two_pi * 4 * k / pass_length);
        ASSERT_LE(std::abs(table[static_cast<std::size_t>(offset + k)] - low), 1e-15) << "w^" << k;
        ASSERT_LE(std::abs(table[static_cast<std::size_t>(offset + run + k)] - high), 1e-15) << "w^(4 x " << k << ")";
      }
      expected_offset = offset + 2 * run;
    }
    EXPECT_EQ(expected_offset, pencil_twiddle_count(length));
  }
}

}  // namespace
