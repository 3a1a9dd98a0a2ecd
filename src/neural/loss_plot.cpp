// Loss CSV and a minimal PNG line plot (stb_image_write for the file, stb_easy_font for labels).
#include <wobble/neural/loss_plot.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include <fmt/format.h>
#include <stb_easy_font.h>
#include <stb_image_write.h>

#include <wobble/atomic_file.hpp>
#include <wobble/error.hpp>

namespace wobble::neural {

namespace {

using Rgb = std::array<unsigned char, 3>;
constexpr Rgb kPalette[] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40}, {148, 103, 189}, {140, 86, 75}};

struct Canvas {
  int width, height;
  std::vector<unsigned char> pixels;
  Canvas(int w, int h) : width(w), height(h), pixels(static_cast<std::size_t>(w * h * 3), 255) {}
  void set(int x, int y, Rgb c) {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    std::copy(c.begin(), c.end(), pixels.begin() + (static_cast<std::ptrdiff_t>(y) * width + x) * 3);
  }
  void line(double x0, double y0, double x1, double y1, Rgb c) {
    const int n = static_cast<int>(std::ceil(std::max(std::abs(x1 - x0), std::abs(y1 - y0)))) + 1;
    for (int k = 0; k <= n; ++k) {
      const double t = static_cast<double>(k) / n;
      set(static_cast<int>(std::lround(x0 + t * (x1 - x0))), static_cast<int>(std::lround(y0 + t * (y1 - y0))), c);
    }
  }
  // stb_easy_font emits quads (4 vertices of 16 bytes: x, y, z, colour); filled axis-aligned.
  void text(int x, int y, const std::string& s, Rgb c) {
    std::vector<char> buffer(s.size() * 300 + 300);
    const int quads = stb_easy_font_print(0, 0, const_cast<char*>(s.c_str()), nullptr, buffer.data(), static_cast<int>(buffer.size()));
    for (int q = 0; q < quads; ++q) {
      const float* v = reinterpret_cast<const float*>(buffer.data() + q * 64);
      const int xa = static_cast<int>(v[0]), ya = static_cast<int>(v[1]), xb = static_cast<int>(v[8]), yb = static_cast<int>(v[9]);
      for (int yy = ya; yy < yb; ++yy)
        for (int xx = xa; xx < xb; ++xx) set(x + xx, y + yy, c);
    }
  }
};

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
  AtomicOutput out(file);
  {
    std::ofstream f(out.temporary());
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
    if (!f) fail(file, "write failed");
  }
  out.commit();
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
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string cell;
    std::vector<std::pair<std::string, double>> values;
    int step = 0;
    for (std::size_t c = 0; std::getline(ss, cell, ',') && c < header.size(); ++c) {
      if (c == 0) step = std::atoi(cell.c_str());
      else values.emplace_back(header[c], cell.empty() ? std::nan("") : std::atof(cell.c_str()));
    }
    if (step <= up_to_step) curves.add(step, values);
  }
  return curves;
}

void LossCurves::write_plot(const std::filesystem::path& file, const std::vector<std::string>& names, int width, int height) const {
  Canvas canvas(width, height);
  const int left = 60, right = 150, top = 20, bottom = 40;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  std::vector<std::pair<std::string, std::vector<double>>> shown;
  for (const auto& name : names) {
    std::vector<double> s = series(name);
    if (s.empty()) continue;
    for (double& v : s) {
      v = v > 0 && std::isfinite(v) ? std::log10(v) : std::nan("");
      if (std::isfinite(v)) { lo = std::min(lo, v); hi = std::max(hi, v); }
    }
    shown.emplace_back(name, std::move(s));
  }
  if (!std::isfinite(lo)) { lo = 0; hi = 1; }
  lo = std::floor(lo);
  hi = std::max(lo + 1, std::ceil(hi));
  const double first = steps_.empty() ? 0 : steps_.front(), last = steps_.empty() ? 1 : std::max<double>(steps_.back(), first + 1);
  auto px = [&](double step) { return left + plot_w * (step - first) / (last - first); };
  auto py = [&](double v) { return top + plot_h * (hi - v) / (hi - lo); };
  const Rgb grey{200, 200, 200}, black{0, 0, 0};
  for (double d = lo; d <= hi; d += 1) {
    canvas.line(left, py(d), left + plot_w, py(d), grey);
    canvas.text(4, static_cast<int>(py(d)) - 3, fmt::format("1e{}", static_cast<int>(d)), black);
  }
  canvas.line(left, top, left, top + plot_h, black);
  canvas.line(left, top + plot_h, left + plot_w, top + plot_h, black);
  canvas.text(left, height - bottom + 8, fmt::format("step {}", static_cast<int>(first)), black);
  canvas.text(static_cast<int>(left + plot_w) - 60, height - bottom + 8, fmt::format("step {}", static_cast<int>(last)), black);
  for (std::size_t k = 0; k < shown.size(); ++k) {
    const Rgb colour = kPalette[k % std::size(kPalette)];
    const auto& s = shown[k].second;
    double px0 = std::nan(""), py0 = std::nan("");
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (!std::isfinite(s[i])) continue;
      const double x = px(steps_[i]), y = py(s[i]);
      if (std::isfinite(px0)) canvas.line(px0, py0, x, y, colour);
      else canvas.set(static_cast<int>(x), static_cast<int>(y), colour);
      px0 = x;
      py0 = y;
    }
    const int ly = top + 10 + 16 * static_cast<int>(k);
    canvas.line(width - right + 10, ly + 3, width - right + 30, ly + 3, colour);
    canvas.text(width - right + 36, ly, shown[k].first, black);
  }
  AtomicOutput out(file);
  if (!stbi_write_png(out.temporary().c_str(), width, height, 3, canvas.pixels.data(), width * 3)) fail(file, "cannot write the PNG");
  out.commit();
}

}  // namespace wobble::neural
