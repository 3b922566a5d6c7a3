#include "published_figures.hpp"

namespace cunum::bench {

const PublishedFigure* PublishedFigures::find(const BenchRow& row) const {
  for (const PublishedFigure& figure : figures_) {
    if (figure.case_name == row.case_name && figure.precision == row.precision && figure.n == row.n) {
      return &figure;
    }
  }
  return nullptr;
}

void PublishedFigures::annotate(BenchRow& row) const {
  const PublishedFigure* figure = find(row);
  if (figure == nullptr) return;
  row.note += row.note.empty() ? figure->note : "; " + figure->note;
}

}  // namespace cunum::bench
