#pragma once
// Loss curves of a training run: a CSV (one row per step) and a PNG line plot (log10 of each
// series against the step, one colour per series, a legend), drawn without a plotting library.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace wobble::neural {

class LossCurves {
 public:
  // Values by column name; columns are created in the order first seen. NaN leaves a gap.
  void add(int step, const std::vector<std::pair<std::string, double>>& values);
  const std::vector<int>& steps() const { return steps_; }
  const std::vector<std::string>& columns() const { return columns_; }
  std::vector<double> series(const std::string& column) const;  // empty if unknown

  void write_csv(const std::filesystem::path& file) const;  // atomic
  // The named series (those present) on one log-scaled plot; width x height pixels.
  void write_plot(const std::filesystem::path& file, const std::vector<std::string>& names, int width = 800,
                  int height = 480) const;

 private:
  std::vector<int> steps_;
  std::vector<std::string> columns_;
  std::vector<std::vector<double>> rows_;
};

// Rows of a CSV written by write_csv with step <= up_to_step (for resuming). Missing file: empty;
// a cell that is not a number (or empty) throws Error naming the file, line and column.
LossCurves read_loss_csv(const std::filesystem::path& file, int up_to_step);

}  // namespace wobble::neural
