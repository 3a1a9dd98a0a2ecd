// wobble measure IN --clip NAME --deformer STACK [--against STACK] [--json] [--fps N]
// Quality figures per frame and in total (see include/wobble/quality_measures.hpp for the
// definitions): volume change, detail error, edge error, maximum edge stretch, flipped triangles.
#include <cmath>
#include <limits>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <wobble/bake.hpp>
#include <wobble/deformer.hpp>
#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/parallel.hpp>
#include <wobble/quality_measures.hpp>

#include "clip_options.hpp"
#include "commands.hpp"
#include "deformer_options.hpp"

namespace wobble::cli {

namespace {

nlohmann::json to_json(const FrameQuality& q) {
  return {{"volume_change", q.volume_change},   {"detail_error", q.detail_error},
          {"edge_error", q.edge_error},         {"max_edge_stretch", q.max_edge_stretch},
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

}  // namespace

Runner add_measure_command(CLI::App& app) {
  struct Options {
    std::string input, against;
    ClipOptions clip;
    bool json = false;
    DeformerOptions deformers;
  };
  auto options = std::make_shared<Options>();
  app.add_option("IN", options->input, "skinned character (glTF, FBX, Collada, ...)")->required();
  options->clip.add_to(app, 30, "frames per second sampled");
  app.add_option("--against", options->against, "a second stack to compare with (e.g. lbs); same settings");
  app.add_flag("--json", options->json, "print JSON instead of a table");
  options->deformers.add_to(app);

  return [options] {
    std::vector<std::string> stacks = {options->deformers.stack_text()};
    if (!options->against.empty()) stacks.push_back(options->against);
    const StackSettings settings = options->deformers.settings({stacks.begin() + 1, stacks.end()});
    const Character character = load_character(options->input);
    const BakeOptions range = options->clip.bake_options(character);
    const std::size_t clip = range.clip;
    ThreadPool pool(options->clip.threads);

    const QualityReference reference(character.mesh.positions, character.mesh.triangles);
    const double size = character.mesh.size();
    std::vector<BakedFrames> baked;
    std::vector<std::vector<FrameQuality>> qualities;
    for (const std::string& stack : stacks) {
      BakeOptions bake_options = range;
      bake_options.stack = StackDescription::parse(stack);
      bake_options.settings = settings;  // each stack reads its own deformers' sections
      bake_options.pool = &pool;
      baked.push_back(bake(character, bake_options));
      std::vector<FrameQuality> frames;
      for (const auto& positions : baked.back().positions) frames.push_back(reference.measure(positions));
      qualities.push_back(std::move(frames));
    }
    std::vector<Difference> differences;
    if (stacks.size() == 2) {
      for (std::size_t k = 0; k < baked[0].positions.size(); ++k) {
        differences.push_back(difference(baked[0].positions[k], baked[1].positions[k], size));
      }
    }

    if (options->json) {
      nlohmann::json out = {{"input", options->input},
                            {"clip", character.clips[clip].name},
                            {"fps", options->clip.fps},
                            {"vertices", character.mesh.vertex_count()},
                            {"triangles", character.mesh.triangle_count()},
                            {"size", size},
                            {"rest_volume", reference.rest_volume()}};
      nlohmann::json list = nlohmann::json::array();
      for (std::size_t s = 0; s < stacks.size(); ++s) {
        nlohmann::json frames = nlohmann::json::array();
        for (std::size_t k = 0; k < qualities[s].size(); ++k) {
          nlohmann::json f = to_json(qualities[s][k]);
          f["time"] = baked[s].times[k];
          frames.push_back(f);
        }
        list.push_back({{"stack", stacks[s]}, {"frames", frames}, {"total", to_json(summarize(qualities[s]))}});
      }
      out["stacks"] = list;
      if (!differences.empty()) {
        double max = 0, rms2 = 0;
        nlohmann::json frames = nlohmann::json::array();
        for (const Difference& d : differences) {
          max = std::max(max, d.max);
          rms2 += d.rms * d.rms;
          frames.push_back({{"max", d.max}, {"rms", d.rms}});
        }
        out["difference"] = {{"relative_to", "character size"},
                             {"max", max},
                             {"rms", std::sqrt(rms2 / double(differences.size()))},
                             {"frames", frames}};
      }
      fmt::print("{}\n", out.dump(2));
      return 0;
    }

    fmt::print("{}: clip '{}', {} frames at {} fps, {} vertices, size {:.4g}\n", options->input,
               character.clips[clip].name, baked[0].times.size(), options->clip.fps, character.mesh.vertex_count(), size);
    for (std::size_t s = 0; s < stacks.size(); ++s) {
      fmt::print("\nstack {}\n{:>9} {:>12} {:>12} {:>12} {:>12} {:>8}", stacks[s], "time s", "volume %", "detail err",
                 "edge err", "max stretch", "flipped");
      if (s == 0 && !differences.empty()) fmt::print(" {:>12}", "vs against");
      fmt::print("\n");
      for (std::size_t k = 0; k < qualities[s].size(); ++k) {
        const FrameQuality& q = qualities[s][k];
        fmt::print("{:>9.3f} {:>12.3f} {:>12.4f} {:>12.4f} {:>12.4f} {:>8}", baked[s].times[k], 100 * q.volume_change,
                   q.detail_error, q.edge_error, q.max_edge_stretch, q.flipped_triangles);
        if (s == 0 && !differences.empty()) fmt::print(" {:>12.3e}", differences[k].max);
        fmt::print("\n");
      }
      const QualitySummary sum = summarize(qualities[s]);
      fmt::print("total: mean |volume change| {:.3f} % (max {:.3f} %), mean detail error {:.4f} (max {:.4f}), "
                 "mean edge error {:.4f}, max edge stretch {:.4f}, flipped triangles max {} per frame\n",
                 100 * sum.mean_abs_volume_change, 100 * sum.max_abs_volume_change, sum.mean_detail_error,
                 sum.max_detail_error, sum.mean_edge_error, sum.max_edge_stretch, sum.max_flipped_triangles);
    }
    if (!differences.empty()) {
      double max = 0;
      for (const Difference& d : differences) max = std::max(max, d.max);
      fmt::print("\nlargest vertex distance between '{}' and '{}': {:.3e} of the character size\n", stacks[0], stacks[1],
                 max);
    }
    return 0;
  };
}

}  // namespace wobble::cli
