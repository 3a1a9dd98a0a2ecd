// wobble decompose REST --cache ANIM [--bones N] [--influences K] [...] [--fps F] -o OUT.glb [-o OUT.pc2]
#include <chrono>
#include <optional>

#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/io/mesh_animation.hpp>
#include <wobble/offline/decomposed_character.hpp>
#include <wobble/offline/skinning_decomposition.hpp>
#include <wobble/parallel.hpp>

#include "clip_options.hpp"
#include "commands.hpp"
#include "core/fail.hpp"
#include "described_options.hpp"
#include "progress.hpp"
#include "value_options.hpp"

namespace wobble::cli {
namespace {

enum class DecomposeOutput { Gltf, Pc2 };

DecomposeOutput decompose_output(const std::string& out) {
  const std::string extension = lowercase_extension(out);
  if (extension == ".glb" || extension == ".gltf") return DecomposeOutput::Gltf;
  if (extension == ".pc2") return DecomposeOutput::Pc2;
  fail(out, "unknown output type '{}' (use .glb or .gltf for the bones, .pc2 for the reconstruction)", extension);
}

void write_reconstruction(const std::string& out, const DecompositionInput& input, const Decomposition& result,
                          const BakedFrames& animation, double fps) {
  BakedFrames reconstruction;
  reconstruction.times = animation.times;
  reconstruction.positions.resize(animation.positions.size());
  for (std::size_t f = 0; f < animation.positions.size(); ++f)
    reconstruct_frame(input, result, f, reconstruction.positions[f]);
  write_pc2(out, reconstruction, static_cast<float>(fps));
}

}  // namespace

Runner add_decompose_command(CLI::App& app) {
  struct Options {
    std::string rest, cache;
    std::vector<std::string> outputs;
    double fps = 60;
    std::size_t threads = 0;
    bool quiet = false;
    DescribedOptions parameters{decomposition_description(), ""};
  };
  auto options = std::make_shared<Options>();
  app.add_option("REST", options->rest, "the rest pose: a mesh or character file (OBJ, OFF, glTF, ...)")->required();
  app.add_option(
         "--cache", options->cache,
         "the animation: a .pc2 point cache, a folder of .obj frames, or a morph-target .glb/.gltf bake "
         "(`wobble bake REST --clip C -o bake.glb`: its frames skinned to world space, at its own key times), "
         "vertices numbered as wobble reads REST (`wobble bake REST -o x.pc2` does; an OBJ: in face-corner order)")
      ->required();
  app.add_option("-o,--output", options->outputs,
                 "output: .glb/.gltf (bones, skin, clip), .pc2 (the reconstruction); may repeat")
      ->required();
  add_real_option(app, "--fps", options->fps,
                  "frames per second of the animation (PC2 counts in frames; OBJ frames are 1/fps apart; a glTF keeps "
                  "its own times)",
                  ClipOptions::kMinFps, ClipOptions::kMaxFps);
  add_integer_option(app, "--threads", options->threads, "worker threads (default: one per core)", 1,
                     ClipOptions::kMaxThreads);
  app.add_flag("-q,--quiet", options->quiet, "no progress or summary; errors only");
  options->parameters.add_to(app, "Decomposition");

  return [options] {
    if (options->quiet) spdlog::set_level(spdlog::level::err);
    for (const std::string& out : options->outputs) decompose_output(out);
    const DecompositionParameters parameters = options->parameters.settings().as<DecompositionParameters>();
    const Character rest = load_character(options->rest);
    const BakedFrames animation = read_mesh_animation(options->cache, options->fps);
    const std::size_t vertices = rest.mesh.vertex_count();
    if (animation.positions.front().size() != vertices)
      fail(options->cache, "{} vertices a frame, the rest pose {} has {}", animation.positions.front().size(),
           options->rest, vertices);
    if (static_cast<std::size_t>(parameters.bones) > vertices)
      fail_plain("{}: {} bones for {} vertices (at most one bone a vertex)", options->parameters.flag("bones"),
                 parameters.bones, vertices);

    DecompositionInput input;
    input.rest = rest.mesh.positions;
    input.triangles = rest.mesh.triangles;
    input.frames = animation.positions;
    ThreadPool pool(options->threads);
    Progress progress("decomposing", options->quiet);
    const auto start = std::chrono::steady_clock::now();
    const Decomposition result = decompose(input, parameters, &pool, [&](const DecompositionProgress& p) {
      progress.update(p.iteration, p.iterations, p.iteration == 0 ? p.stage : fmt::format("RMSE {:.4g}", p.rmse));
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    progress.finish();

    for (const std::string& out : options->outputs) {
      if (decompose_output(out) == DecomposeOutput::Pc2) {
        write_reconstruction(out, input, result, animation, options->fps);
      } else {
        write_gltf(out, decomposed_character(rest.mesh, result, animation.times, "decomposition"));
      }
    }
    if (!options->quiet) {
      const double size = rest.mesh.size();
      fmt::print(
          "RMSE {:.6g} ({:.4f} % of the rest's bounding-box diagonal {:.4g}); {} bones, at most {} influences, "
          "{} frames of {} vertices, {} iterations, {:.3f} s on {} threads\n",
          result.rmse, size > 0 ? 100 * result.rmse / size : 0.0, size, result.free_bones, parameters.influences,
          animation.positions.size(), vertices, result.iterations, seconds, pool.thread_count());
      for (const std::string& out : options->outputs) fmt::print("wrote {}\n", out);
    }
    return 0;
  };
}

}  // namespace wobble::cli
