// wobble bake IN --clip NAME|INDEX [--fps 60] [--start S] [--end S] --deformer STACK [...] -o OUT
#include <cmath>
#include <limits>

#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <wobble/offline/bake.hpp>
#include <wobble/error.hpp>
#include <wobble/io/atomic_file.hpp>
#include <wobble/io/files.hpp>
#include <wobble/parallel.hpp>
#include <wobble/offline/seam.hpp>
#include <wobble/io/usd_write.hpp>

#include "clip_options.hpp"
#include "commands.hpp"
#include "core/fail.hpp"
#include "deformer_options.hpp"
#include "helper_bone_options.hpp"
#include "loop_options.hpp"
#include "progress.hpp"

namespace wobble::cli {

namespace {

enum class OutputKind { Gltf, Pc2, Usda, ObjSequence };

OutputKind output_kind(const std::string& out) {
  if (!out.empty() && out.back() == '/') return OutputKind::ObjSequence;
  std::string extension = std::filesystem::path(out).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension == ".glb" || extension == ".gltf") return OutputKind::Gltf;
  if (extension == ".pc2") return OutputKind::Pc2;
  if (extension == ".usda") return OutputKind::Usda;
  fail(out, "unknown output type '{}' (use .glb, .gltf, .pc2, .usda, or a folder ending in / for OBJ files)",
       extension);
}

// --seam: the effect (the stack minus its base skinning) at the seam of one cycle of frames.
void print_seam(const Character& character, BakeOptions options, const BakedFrames& baked) {
  const Clip& clip = character.clips[options.clip];
  Cycle cycle;
  try {
    cycle = find_cycle(character.rig, clip, options.motion.cycle);
  } catch (const Error& error) {
    fail(character.source, "--seam: {}", error.what());
  }
  const double frames = cycle.period * options.fps;
  if (std::abs(frames - std::round(frames)) > 1e-3 || baked.positions.size() < std::round(frames) + 1) {
    fail_plain(
        "--seam: the bake must hold a whole cycle of whole frames, both ends (the period is {} s, {} frames at {} fps)",
        cycle.period, frames, options.fps);
  }
  const DeformerDescription* base = options.stack.base();
  options.stack = base ? StackDescription::parse(base->name) : StackDescription();
  options.progress = {};
  const SeamJump jump = seam_jump(baked, bake(character, options), static_cast<std::size_t>(std::lround(frames)));
  fmt::print("seam ({}{}): {}\n", options.motion.loop ? "--loop; " : "", cycle.describe(),
             jump.describe(character.mesh.size()));
}

}  // namespace

Runner add_bake_command(CLI::App& app) {
  struct Options {
    std::string input, output;
    ClipOptions clip;
    bool quiet = false, seam = false;
    DeformerOptions deformers;
    LoopOptions loop;
    HelperBoneOptions helpers;
  };
  auto options = std::make_shared<Options>();
  app.add_option("IN", options->input, "skinned character (glTF, FBX, Collada, ...)")->required();
  options->clip.add_to(app, 60, "frames per second of the output");
  app.add_option("-o,--output", options->output, "output: .glb/.gltf, .pc2, .usda, or folder/ for OBJ files")
      ->required();
  app.add_flag("-q,--quiet", options->quiet, "no progress, summary or repair warnings; errors only");
  options->deformers.add_to(app);
  options->loop.add_to(app);
  options->loop.add_pre_roll_to(app);
  options->helpers.add_to(app);
  app.add_flag("--seam", options->seam,
               "print how the baked cycle meets itself: the effect's largest jump from the cycle's last frame to its "
               "first, against the largest between frames inside (bakes the base skinning alone once more)");

  return [options] {
    if (options->quiet) spdlog::set_level(spdlog::level::err);  // quiet: errors only
    const OutputKind kind = output_kind(options->output);
    options->helpers.check(options->output);
    AtomicOutput::check(options->output, kind == OutputKind::ObjSequence);  // before the work, not after
    const StackSettings settings = options->deformers.settings();
    const Character character = load_character(options->input);
    BakeOptions bake_options = options->clip.bake_options(character);
    const std::size_t clip = bake_options.clip;
    ThreadPool pool(options->clip.threads);
    Progress progress("baking", options->quiet);
    bake_options.stack = options->deformers.stack();
    bake_options.settings = settings;
    bake_options.pool = &pool;
    bake_options.progress = [&](std::size_t done, std::size_t total) { progress.update(done, total); };
    bake_options.motion = options->loop.motion();
    std::string motion;
    const BakedFrames baked = bake(character, bake_options, &motion);
    progress.finish();
    if (options->seam) print_seam(character, bake_options, baked);

    switch (kind) {
      case OutputKind::Gltf:
        if (options->helpers.enabled()) {
          options->helpers.write(options->output, character, clip, baked, bake_options.motion.loop, pool,
                                 options->quiet);
        } else {
          write_gltf(options->output, character, &baked, clip);
        }
        break;
      case OutputKind::Pc2: write_pc2(options->output, baked, static_cast<float>(options->clip.fps)); break;
      case OutputKind::Usda:
        write_usda(
            options->output, character, baked, options->clip.fps,
            fmt::format("wobble bake: clip '{}', stack {}", character.clips[clip].name, bake_options.stack.text()));
        break;
      case OutputKind::ObjSequence: write_obj_sequence(options->output, character.mesh, baked); break;
    }
    if (!options->quiet) {
      fmt::print("{}\n", motion);
      fmt::print("wrote {} ({} frames of {} vertices, clip '{}', {} fps, stack {})\n", options->output,
                 baked.times.size(), character.mesh.vertex_count(), character.clips[clip].name, options->clip.fps,
                 bake_options.stack.text());
    }
    return 0;
  };
}

}  // namespace wobble::cli
