// wobble fields plot LOSSES.csv -o CURVES.png [--series smooth,validation_quality]: the training
// curves of a run (its losses.csv, from any rank-0 output folder) drawn as a PNG, log-scaled.
#include <filesystem>
#include <limits>

#include <fmt/format.h>

#include <wobble/error.hpp>
#include <wobble/neural/loss_plot.hpp>

#include "fields_commands.hpp"
#include "core/fail.hpp"

namespace wobble::cli {

Runner add_fields_plot(CLI::App& app) {
  struct Options {
    std::string csv, output;
    std::vector<std::string> series;
    int width = 800, height = 480;
  };
  auto o = std::make_shared<Options>();
  app.add_option("LOSSES", o->csv, "a training run's losses.csv")->required();
  app.add_option("-o,--output", o->output, "OUT.png")->required();
  app.add_option("--series", o->series, "columns to draw (default: every column but lr, blend, seconds and skipped)")
      ->delimiter(',');
  app.add_option("--width", o->width, "pixels")->check(CLI::Range(200, 8000));
  app.add_option("--height", o->height, "pixels")->check(CLI::Range(150, 8000));
  return [o] {
    if (!std::filesystem::exists(o->csv)) fail(o->csv, "does not exist");
    const neural::LossCurves curves = neural::read_loss_csv(o->csv, std::numeric_limits<int>::max());
    if (curves.steps().empty()) fail(o->csv, "has no rows");
    std::vector<std::string> series = o->series;
    if (series.empty())
      for (const std::string& c : curves.columns())
        if (c != "lr" && c != "blend" && c != "seconds" && c != "skipped") series.push_back(c);
    for (const std::string& s : series)
      if (curves.series(s).empty()) fail(o->csv, "has no column '{}'", s);
    curves.write_plot(o->output, series, o->width, o->height);
    fmt::print("wrote {} ({} steps, {} series)\n", o->output, curves.steps().size(), series.size());
    return 0;
  };
}

}  // namespace wobble::cli
