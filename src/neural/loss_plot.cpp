// Loss CSV and a minimal PNG line plot of log10(loss) against the step.
#include <wobble/neural/loss_plot.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>

#include <wobble/io/output_file.hpp>
#include <wobble/error.hpp>
#include <wobble/io/image.hpp>
#include <wobble/parse.hpp>

#include "core/fail.hpp"

namespace wobble::neural {

namespace {

const Vec4f kPalette[] = {{0.12f, 0.47f, 0.71f, 1}, {1.0f, 0.5f, 0.05f, 1},  {0.17f, 0.63f, 0.17f, 1},
                          {0.84f, 0.15f, 0.16f, 1}, {0.58f, 0.4f, 0.74f, 1}, {0.55f, 0.34f, 0.29f, 1}};

}  // namespace

void LossCurves::add(int step, const std::vector<std::pair<std::string, double>>& values) {
  std::vector<double> row(columns_.size(), std::nan(""));
  for (const auto& [name, value] : values) {
    auto it = std::find(columns_.begin(), columns_.end(), name);
    if (it == columns_.end()) {
      columns_.push_back(name);
      for (auto& r : rows_) r.push_back(std::nan(""));
      row.push_back(value);
    } else {
      row[static_cast<std::size_t>(it - columns_.begin())] = value;
    }
  }
  steps_.push_back(step);
  rows_.push_back(std::move(row));
}

std::vector<double> LossCurves::series(const std::string& column) const {
  auto it = std::find(columns_.begin(), columns_.end(), column);
  if (it == columns_.end()) return {};
  const auto c = static_cast<std::size_t>(it - columns_.begin());
  std::vector<double> out;
  for (const auto& r : rows_) out.push_back(r[c]);
  return out;
}

void LossCurves::write_csv(const std::filesystem::path& file) const {
  std::ostringstream f;
  {
    f << "step";
    for (const auto& c : columns_) f << ',' << c;
    f << '\n';
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      f << steps_[r];
      for (double v : rows_[r]) {
        f << ',';
        if (std::isfinite(v)) f << fmt::format("{:.9g}", v);
      }
      f << '\n';
    }
  }
  write_output(file, f.str());
}

LossCurves read_loss_csv(const std::filesystem::path& file, int up_to_step) {
  LossCurves curves;
  std::ifstream in(file);
  if (!in) return curves;
  std::string line;
  std::vector<std::string> header;
  if (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) header.push_back(cell);
  }
  if (header.empty() || header[0] != "step") fail(file, "is not a loss CSV (its first column must be 'step')");
  for (int row = 2; std::getline(in, line); ++row) {
    std::stringstream ss(line);
    std::string cell;
    std::vector<std::pair<std::string, double>> values;
    std::int64_t step = 0;
    for (std::size_t c = 0; std::getline(ss, cell, ',') && c < header.size(); ++c) {
      const std::string where = fmt::format("{}: line {}, column '{}'", file.string(), row, header[c]);
      if (c == 0)
        step = parse_integer(cell, where, 0, std::numeric_limits<int>::max());
      else
        values.emplace_back(header[c], cell.empty() ? std::nan("") : parse_real(cell, where));  // empty: not finite
    }
    if (step <= up_to_step) curves.add(static_cast<int>(step), values);
  }
  return curves;
}

void LossCurves::write_plot(const std::filesystem::path& file, const std::vector<std::string>& names, int width,
                            int height) const {
  RgbaImage canvas(width, height, 0xffffffff);
  const int left = 60, right = 150, top = 20, bottom = 40;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  std::vector<std::pair<std::string, std::vector<double>>> shown;
  for (const auto& name : names) {
    std::vector<double> s = series(name);
    if (s.empty()) continue;
    for (double& v : s) {
      v = v > 0 && std::isfinite(v) ? std::log10(v) : std::nan("");
      if (std::isfinite(v)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
    shown.emplace_back(name, std::move(s));
  }
  if (!std::isfinite(lo)) {
    lo = 0;
    hi = 1;
  }
  lo = std::floor(lo);
  hi = std::max(lo + 1, std::ceil(hi));
  const double first = steps_.empty() ? 0 : steps_.front(),
               last = steps_.empty() ? 1 : std::max<double>(steps_.back(), first + 1);
  auto px = [&](double step) { return left + plot_w * (step - first) / (last - first); };
  auto py = [&](double v) { return top + plot_h * (hi - v) / (hi - lo); };
  const Vec4f grey(0.78f, 0.78f, 0.78f, 1), black(0, 0, 0, 1);
  for (double d = lo; d <= hi; d += 1) {
    canvas.draw_line(left, py(d), left + plot_w, py(d), grey);
    canvas.draw_text(fmt::format("1e{}", static_cast<int>(d)), 4, static_cast<int>(py(d)) - 3);
  }
  canvas.draw_line(left, top, left, top + plot_h, black);
  canvas.draw_line(left, top + plot_h, left + plot_w, top + plot_h, black);
  canvas.draw_text(fmt::format("step {}", static_cast<int>(first)), left, height - bottom + 8);
  canvas.draw_text(fmt::format("step {}", static_cast<int>(last)), static_cast<int>(left + plot_w) - 60,
                   height - bottom + 8);
  for (std::size_t k = 0; k < shown.size(); ++k) {
    const Vec4f colour = kPalette[k % std::size(kPalette)];
    const auto& s = shown[k].second;
    double px0 = std::nan(""), py0 = std::nan("");
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (!std::isfinite(s[i])) continue;
      const double x = px(steps_[i]), y = py(s[i]);
      if (std::isfinite(px0))
        canvas.draw_line(px0, py0, x, y, colour);
      else
        canvas.fill_rect(static_cast<int>(x), static_cast<int>(y), 1, 1, colour);
      px0 = x;
      py0 = y;
    }
    const int ly = top + 10 + 16 * static_cast<int>(k);
    canvas.draw_line(width - right + 10, ly + 3, width - right + 30, ly + 3, colour);
    canvas.draw_text(shown[k].first, width - right + 36, ly);
  }
  write_png(file, canvas);
}

}  // namespace wobble::neural
