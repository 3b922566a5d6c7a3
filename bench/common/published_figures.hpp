#pragma once
// The published figures of the work a module reproduces (a paper, slides or a sample),
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
struct PublishedFigure {
  std::string case_name;
  std::string precision;
  std::int64_t n = 0;
  std::string note;  // e.g. "G80 (published): 8.054 ms, 2.083 GB/s"
};

class PublishedFigures {
 public:
  PublishedFigures(std::initializer_list<PublishedFigure> figures) : figures_(figures) {}

  // The figure for the row's case, precision and n; null where the published work has none.
  const PublishedFigure* find(const BenchRow& row) const;
  // Appends the row's figure, if any, to row.note ("; " after a note already there).
  void annotate(BenchRow& row) const;

 private:
  std::vector<PublishedFigure> figures_;
};

}  // namespace cunum::bench
