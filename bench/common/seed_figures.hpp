#pragma once
// The published figures of a module's seed (the paper or slides it reproduces),
// printed in the note of the row that measures the same case, so that today's
// numbers stand beside the historical ones. One table type for every bench.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "bench_harness.hpp"

namespace cunum::bench {

// One published figure and the row it stands beside, named as the bench names its
// rows (BenchRow::case_name, precision, n).
struct SeedFigure {
  std::string case_name;
  std::string precision;
  std::int64_t n = 0;
  std::string note;  // e.g. "G80 (seed): 8.054 ms, 2.083 GB/s"
};

class SeedFigures {
 public:
  SeedFigures(std::initializer_list<SeedFigure> figures) : figures_(figures) {}

  // The figure for the row's case, precision and n; null where the seed has none.
  const SeedFigure* find(const BenchRow& row) const;
  // Appends the row's figure, if any, to row.note ("; " after a note already there).
  void annotate(BenchRow& row) const;

 private:
  std::vector<SeedFigure> figures_;
};

}  // namespace cunum::bench
