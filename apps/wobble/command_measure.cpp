// wobble measure IN --clip NAME --deformer STACK [--against STACK] [--json] [--fps N]
// Quality figures per frame and in total (see include/wobble/offline/quality_measures.hpp for the
// definitions): volume change, detail error, edge error, maximum edge stretch, flipped triangles.
#include <cmath>
#include <limits>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <wobble/offline/bake.hpp>
#include <wobble/deformer.hpp>
#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/parallel.hpp>
#include <wobble/offline/quality_measures.hpp>

#include "clip_options.hpp"
#include "commands.hpp"
#include "deformer_options.hpp"

namespace wobble::cli {

namespace {

nlohmann::json to_json(const FrameQuality& q) {
  return {{"volume_change", q.volume_change},
          {"detail_error", q.detail_error},
          {"edge_error", q.edge_error},
          {"max_edge_stretch", q.max_edge_stretch},
          {"flipped_triangles", q.flipped_triangles}};
}

nlohmann::json to_json(const QualitySummary& s) {
  return {{"frames", s.frames},
          {"mean_abs_volume_change", s.mean_abs_volume_change},
          {"max_abs_volume_change", s.max_abs_volume_change},
          {"mean_detail_error", s.mean_detail_error},
          {"max_detail_error", s.max_detail_error},
          {"mean_edge_error", s.mean_edge_error},
          {"max_edge_stretch", s.max_edge_stretch},
          {"max_flipped_triangles", s.max_flipped_triangles},
          {"total_flipped_triangles", s.total_flipped_triangles}};
}

struct MeasureOptions {
  std::string input, against;
  ClipOptions clip;
  bool json = false;
  DeformerOptions deformers;
};

// Every stack's bake and its per-frame quality; the per-frame difference of two stacks.
struct Measurements {
  std::vector<std::string> stacks;
  std::size_t clip = 0;
  std::vector<BakedFrames> baked;
  std::vector<std::vector<FrameQuality>> qualities;
  std::vector<Difference> differences;  // empty without --against
};

// The stack and --against's; their settings are read (and checked) before the character loads.
std::vector<std::string> measured_stacks(const MeasureOptions& options) {
  std::vector<std::string> stacks = {options.deformers.stack_text()};
  if (!options.against.empty()) stacks.push_back(options.against);
  return stacks;
}

Measurements measure(const MeasureOptions& options, const std::vector<std::string>& stacks,
                     const StackSettings& settings, const Character& character, const QualityReference& reference) {
  Measurements m;
  m.stacks = stacks;
  const BakeOptions range = options.clip.bake_options(character);
  m.clip = range.clip;
  ThreadPool pool(options.clip.threads);
  for (const std::string& stack : m.stacks) {
    BakeOptions bake_options = range;
    bake_options.stack = StackDescription::parse(stack);
    bake_options.settings = settings;  // each stack reads its own deformers' sections
    bake_options.pool = &pool;
    m.baked.push_back(bake(character, bake_options));
    std::vector<FrameQuality> frames;
    for (const auto& positions : m.baked.back().positions) frames.push_back(reference.measure(positions));
    m.qualities.push_back(std::move(frames));
  }
  if (m.stacks.size() == 2)
    for (std::size_t k = 0; k < m.baked[0].positions.size(); ++k)
      m.differences.push_back(difference(m.baked[0].positions[k], m.baked[1].positions[k], character.mesh.size()));
  return m;
}

nlohmann::json difference_json(const std::vector<Difference>& differences) {
  double max = 0, rms2 = 0;
  nlohmann::json frames = nlohmann::json::array();
  for (const Difference& d : differences) {
    max = std::max(max, d.max);
    rms2 += d.rms * d.rms;
    frames.push_back({{"max", d.max}, {"rms", d.rms}});
  }
  return {{"relative_to", "character size"},
          {"max", max},
          {"rms", std::sqrt(rms2 / double(differences.size()))},
          {"frames", frames}};
}

void print_json(const MeasureOptions& options, const Character& character, const QualityReference& reference,
                const Measurements& m) {
  nlohmann::json out = {{"input", options.input},
                        {"clip", character.clips[m.clip].name},
                        {"fps", options.clip.fps},
                        {"vertices", character.mesh.vertex_count()},
                        {"triangles", character.mesh.triangle_count()},
                        {"size", character.mesh.size()},
                        {"rest_volume", reference.rest_volume()}};
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t s = 0; s < m.stacks.size(); ++s) {
    nlohmann::json frames = nlohmann::json::array();
    for (std::size_t k = 0; k < m.qualities[s].size(); ++k) {
      nlohmann::json f = to_json(m.qualities[s][k]);
      f["time"] = m.baked[s].times[k];
      frames.push_back(f);
    }
    list.push_back({{"stack", m.stacks[s]}, {"frames", frames}, {"total", to_json(summarize(m.qualities[s]))}});
  }
  out["stacks"] = list;
  if (!m.differences.empty()) out["difference"] = difference_json(m.differences);
  fmt::print("{}\n", out.dump(2));
}

// One stack's table: a row per frame (with the distance to --against's frame for the first
// stack), then its totals.
void print_stack_table(const Measurements& m, std::size_t s) {
  const bool with_difference = s == 0 && !m.differences.empty();
  fmt::print("\nstack {}\n{:>9} {:>12} {:>12} {:>12} {:>12} {:>8}", m.stacks[s], "time s", "volume %", "detail err",
             "edge err", "max stretch", "flipped");
  if (with_difference) fmt::print(" {:>12}", "vs against");
  fmt::print("\n");
  for (std::size_t k = 0; k < m.qualities[s].size(); ++k) {
    const FrameQuality& q = m.qualities[s][k];
    fmt::print("{:>9.3f} {:>12.3f} {:>12.4f} {:>12.4f} {:>12.4f} {:>8}", m.baked[s].times[k], 100 * q.volume_change,
               q.detail_error, q.edge_error, q.max_edge_stretch, q.flipped_triangles);
    if (with_difference) fmt::print(" {:>12.3e}", m.differences[k].max);
    fmt::print("\n");
  }
  const QualitySummary sum = summarize(m.qualities[s]);
  fmt::print(
      "total: mean |volume change| {:.3f} % (max {:.3f} %), mean detail error {:.4f} (max {:.4f}), "
      "mean edge error {:.4f}, max edge stretch {:.4f}, flipped triangles max {} per frame\n",
      100 * sum.mean_abs_volume_change, 100 * sum.max_abs_volume_change, sum.mean_detail_error, sum.max_detail_error,
      sum.mean_edge_error, sum.max_edge_stretch, sum.max_flipped_triangles);
}

void print_tables(const MeasureOptions& options, const Character& character, const Measurements& m) {
  fmt::print("{}: clip '{}', {} frames at {} fps, {} vertices, size {:.4g}\n", options.input,
             character.clips[m.clip].name, m.baked[0].times.size(), options.clip.fps, character.mesh.vertex_count(),
             character.mesh.size());
  for (std::size_t s = 0; s < m.stacks.size(); ++s) print_stack_table(m, s);
  if (!m.differences.empty()) {
    double max = 0;
    for (const Difference& d : m.differences) max = std::max(max, d.max);
    fmt::print("\nlargest vertex distance between '{}' and '{}': {:.3e} of the character size\n", m.stacks[0],
               m.stacks[1], max);
  }
}

}  // namespace

Runner add_measure_command(CLI::App& app) {
  auto options = std::make_shared<MeasureOptions>();
  app.add_option("IN", options->input, "skinned character (glTF, FBX, Collada, ...)")->required();
  options->clip.add_to(app, 30, "frames per second sampled");
  app.add_option("--against", options->against, "a second stack to compare with (e.g. lbs); same settings");
  app.add_flag("--json", options->json, "print JSON instead of a table");
  options->deformers.add_to(app);

  return [options] {
    const std::vector<std::string> stacks = measured_stacks(*options);
    const StackSettings settings = options->deformers.settings({stacks.begin() + 1, stacks.end()});
    const Character character = load_character(options->input);
    const QualityReference reference(character.mesh.positions, character.mesh.triangles);
    const Measurements m = measure(*options, stacks, settings, character, reference);
    if (options->json) {
      print_json(*options, character, reference, m);
    } else {
      print_tables(*options, character, m);
    }
    return 0;
  };
}

}  // namespace wobble::cli
