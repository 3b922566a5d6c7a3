#include "seed_figures.hpp"

namespace cunum::bench {

const SeedFigure* SeedFigures::find(const BenchRow& row) const {
  for (const SeedFigure& figure : figures_) {
    if (figure.case_name == row.case_name && figure.precision == row.precision && figure.n == row.n) {
      return &figure;
    }
  }
  return nullptr;
}

void SeedFigures::annotate(BenchRow& row) const {
  const SeedFigure* figure = find(row);
  if (figure == nullptr) return;
  row.note += row.note.empty() ? figure->note : "; " + figure->note;
}

}  // namespace cunum::bench
