// wobble simulate: reduced-order physics (PhysSkin++ runtime) on skinning eigenmodes or neural fields.
//   wobble simulate SHAPE.off --handles 16 --pin "y>0.8" --floor -1.1 --frames 120 --fps 30 -o out.pc2
//   wobble simulate SCENE.json -o out.pc2
//   wobble simulate POINTS.ply|SPLATS.ply --subspace neural --pin "y>0.8" -o out.pc2|frames/   (no mesh)
//   wobble simulate --rig CHARACTER.glb --clip Walk --handles 16 -o out.glb
//   wobble simulate --rig CHARACTER.glb --clip Walk --subspace neural [--neural-model FILE] -o out.glb
//   wobble simulate --describe [--json | --markdown]   the settings' flags (docs/physics-parameters.md)
// Outputs: .pc2, .glb/.gltf (baked morph targets), or a folder ending in / (OBJ sequence for
// meshes, PLY sequence for Gaussian splats). The settings' flags come from physics_description()
// (settings.hpp): a setting added there appears here.
#include <cctype>
#include <cmath>
#include <functional>
#include <optional>

#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <wobble/io/atomic_file.hpp>
#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/pose.hpp>
#include <wobble/physics/input_checks.hpp>
#include <wobble/fields/field_network.hpp>
#include <wobble/physics/rig_complementary.hpp>
#include <wobble/physics/rig_loop.hpp>
#include <wobble/physics/scene.hpp>
#include <wobble/physics/settings.hpp>

#include "deform/description_json.hpp"

#include "commands.hpp"
#include "core/fail.hpp"
#include "described_options.hpp"
#include "value_options.hpp"
#include "loop_options.hpp"
#include "progress.hpp"
#ifdef WOBBLE_HAVE_NEURAL
#include <wobble/neural/neural_field.hpp>
#endif

namespace wobble::cli {

namespace {

namespace fs = std::filesystem;
using namespace wobble::physics;
using namespace wobble::fields;

constexpr double kDefaultLoopTolerance = 1e-4;  // --loop-tolerance, a share of the character size
constexpr const char* kLoopTolerance = "--loop-tolerance";

enum class OutputKind { Pc2, Gltf, Folder };

std::string lower_extension(const fs::path& p) {
  std::string e = p.extension().string();
  for (char& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

OutputKind output_kind(const std::string& out) {
  if (!out.empty() && out.back() == '/') return OutputKind::Folder;
  const std::string e = lower_extension(out);
  if (e == ".pc2") return OutputKind::Pc2;
  if (e == ".glb" || e == ".gltf") return OutputKind::Gltf;
  fail(out, "unknown output type '{}' (use .pc2, .glb, .gltf, or a folder ending in /)", e);
}

// simulate --rig --loop: cycles until one repeats the one before; writes the last cycle.
int simulate_rig_loop_to(const std::string& output, OutputKind kind, const Character& character, std::size_t clip,
                         const Cycle& cycle, RigComplementary& sim, double fps, int substeps, double tolerance,
                         bool quiet) {
  if (!quiet) spdlog::info("loop: {}", cycle.describe());
  RigLoopOptions options;
  options.fps = fps;
  options.substeps = substeps;
  options.tolerance = tolerance;
  Progress progress("looping", quiet);
  options.progress = [&](int cycles, double residual) {
    progress.update(static_cast<std::size_t>(cycles), static_cast<std::size_t>(options.max_cycles));
    if (!quiet)
      spdlog::info("cycle {}: the motion differs from the cycle before by {:.3g} of the size", cycles, residual);
  };
  const RigLoop loop = simulate_rig_loop(sim, character, character.clips[clip], cycle, options);
  progress.finish();
  const float rate = static_cast<float>(1.0 / loop.frame_period);
  switch (kind) {
    case OutputKind::Pc2: write_pc2(output, loop.frames, rate); break;
    case OutputKind::Gltf: write_gltf(output, character, &loop.frames, clip); break;
    case OutputKind::Folder: write_obj_sequence(output, character.mesh, loop.frames); break;
  }
  const std::string verdict = loop.converged ? "converged" : "did NOT converge";
  fmt::print(
      "loop: {} after {} cycles: residual {:.3g} of the size (tolerance {:.3g}); {} frames at {:.6g} fps -> {}\n",
      verdict, loop.cycles, loop.residual, tolerance, loop.frames.times.size(), rate, output);
  return 0;
}

// A static character holding every mesh object of the scene (for glTF and OBJ output).
Character merged_meshes(const Scene& scene) {
  Character merged;
  for (const SceneObject& o : scene.objects) {
    if (o.gaussians) continue;
    const Mesh& m = o.character.mesh;
    const auto first = static_cast<std::uint32_t>(merged.mesh.positions.size());
    const auto first_triangle = static_cast<std::uint32_t>(merged.mesh.triangles.size());
    for (std::size_t v = 0; v < m.positions.size(); ++v) merged.mesh.positions.push_back(m.positions[v]);
    for (const Triangle& t : m.triangles) merged.mesh.triangles.push_back({t[0] + first, t[1] + first, t[2] + first});
    Primitive p;
    p.name = o.file.stem().string();
    p.first_vertex = first;
    p.vertex_count = static_cast<std::uint32_t>(m.positions.size());
    p.first_triangle = first_triangle;
    p.triangle_count = static_cast<std::uint32_t>(m.triangles.size());
    merged.mesh.primitives.push_back(p);
  }
  merged.source = "scene";
  return merged;
}

void write_ply_sequence(const fs::path& folder, const std::vector<std::vector<GaussianCloud>>& frames) {
  AtomicOutput output(folder, true);
  for (std::size_t f = 0; f < frames.size(); ++f) {
    GaussianCloud all = frames[f].front();
    for (std::size_t k = 1; k < frames[f].size(); ++k) {
      if (frames[f][k].properties != all.properties)
        fail(folder, "splat objects have different PLY properties and cannot share one file");
      all.values.insert(all.values.end(), frames[f][k].values.begin(), frames[f][k].values.end());
    }
    write_gaussian_ply(output.temporary() / fmt::format("frame_{:04d}.ply", f), all);
  }
  output.commit();
}

int run_scene(Scene& scene, const std::string& output, bool quiet) {
  const OutputKind kind = output_kind(output);
  bool any_splats = false, any_meshes = false;
  for (const auto& o : scene.objects) (o.gaussians ? any_splats : any_meshes) = true;
  if (any_splats && kind != OutputKind::Folder)
    fail(output, "Gaussian splats are written as a PLY sequence: give a folder ending in /");
  if (any_splats && any_meshes) fail(output, "a scene mixing meshes and splats cannot be written to one output");
  BakedFrames baked;
  std::vector<std::vector<GaussianCloud>> splat_frames;
  Progress progress("simulating", quiet);
  auto record = [&](int frame) {
    baked.times.push_back(static_cast<float>(frame / scene.fps));
    if (any_splats) {
      std::vector<GaussianCloud> clouds;
      for (std::size_t o = 0; o < scene.objects.size(); ++o) clouds.push_back(scene.gaussians(o));
      splat_frames.push_back(std::move(clouds));
      return;
    }
    baked.positions.push_back(scene.frame_points());
  };
  record(0);
  std::size_t newton = 0;
  for (int f = 1; f < scene.frames; ++f) {
    scene.advance_frame();
    newton += static_cast<std::size_t>(scene.world.last_stats().iterations);
    record(f);
    progress.update(static_cast<std::size_t>(f + 1), static_cast<std::size_t>(scene.frames));
  }
  progress.finish();
  if (any_splats) {
    write_ply_sequence(output, splat_frames);
  } else {
    switch (kind) {
      case OutputKind::Pc2: write_pc2(output, baked, static_cast<float>(scene.fps)); break;
      case OutputKind::Gltf: write_gltf(output, merged_meshes(scene), &baked); break;
      case OutputKind::Folder: write_obj_sequence(output, merged_meshes(scene).mesh, baked); break;
    }
  }
  if (!quiet)
    spdlog::info("simulated {} frames of {} object(s) ({} Newton iterations per step on average) -> {}", scene.frames,
                 scene.objects.size(), static_cast<double>(newton) / std::max(1, (scene.frames - 1) * scene.substeps),
                 output);
  return 0;
}

// The learned fields of `--subspace neural` for a mesh (in its file coordinates), with or without
// the constant column; none for eigenmodes. With a rig the default model is the rig-complementary one.
MeshFields neural_fields(const std::string& subspace, const std::string& model_file, bool rig) {
  if (subspace == "eigenmodes") {
    if (!model_file.empty()) fail(model_file, "--neural-model needs --subspace neural");
    return {};
  }
  if (subspace != "neural") fail_plain("unknown --subspace '{}' (use eigenmodes or neural)", subspace);
#ifdef WOBBLE_HAVE_NEURAL
  return neural::mesh_fields(model_file, rig);  // the torch-free evaluator; .pt files are exported in memory
#else
  return fields::field_network_mesh_fields(model_file, rig);  // .wfield models, no LibTorch
#endif
}

struct SimulateOptions {
  std::string input, output, rig, clip = "0", subspace = "eigenmodes", neural_model;
  std::optional<double> floor;
  bool no_gravity = false, quiet = false, describe = false, json = false, markdown = false;
  LoopOptions loop;
  std::optional<double> loop_tolerance;  // share of the character size; unset: kDefaultLoopTolerance
  DescribedOptions settings{physics_description(), ""};
};

// What every simulation reads: the described settings and the learned fields (if any).
struct SimulateCommon {
  physics::Settings settings;
  MeshFields learned;
};

// A setting `simulate` takes as a flag: one that acts on a shape or on a rig (settings.hpp).
bool simulate_flag(const ParameterDescription& p) { return acts_on_shape(p.key) || acts_on_rig(p.key); }

void add_simulate_options(CLI::App& app, SimulateOptions& o) {
  app.add_option(
      "INPUT", o.input,
      "SCENE.json, a shape (OFF, OBJ, glTF, ...), a 3DGS PLY, or a PLY of points alone (no mesh; write it to .pc2)");
  app.add_option("-o,--output", o.output, "output: .pc2, .glb/.gltf, or folder/ (OBJ or PLY sequence); required");
  o.settings.add_to(app, "Settings (docs/physics-parameters.md; a SCENE.json sets them in the file)", simulate_flag);
  using namespace physics::input_limits;
  add_real_option(app, "--floor", o.floor, "floor height (normalised units)", -kDistance, kDistance);
  app.add_flag("--no-gravity", o.no_gravity, "no gravity (the same as --gravity [0,0,0])");
  app.add_option("--rig", o.rig, "rigged character: rig-complementary dynamics on its clip");
  app.add_option("--clip", o.clip, "clip name or index (with --rig)")->capture_default_str();
  app.add_flag("--describe", o.describe, "print the settings with their flags, units, defaults and ranges, and stop");
  app.add_flag("--json", o.json, "with --describe: as JSON (the form of one element of `wobble deformers --json`)");
  app.add_flag("--markdown", o.markdown, "with --describe: as docs/physics-parameters.md");
  o.loop.add_to(app);
  add_real_option(app, kLoopTolerance, o.loop_tolerance,
                  "with --rig --loop: cycles are played until one differs from the one before by less than this share "
                  "of the character size (default 1e-4)",
                  0, 1);
  app.add_flag("-q,--quiet", o.quiet, "no progress or summary");
  app.add_option(
         "--subspace", o.subspace,
         "subspace: eigenmodes, or neural (learned fields, `wobble fields`; with --rig, rig-complementary ones)")
      ->capture_default_str();
  app.add_option(
      "--neural-model", o.neural_model,
      "with --subspace neural: the model file (default: the shipped one; with --rig, the one trained on clonk)");
}

// The rig-complementary simulator of --rig, built from the flags.
RigComplementary rig_simulator(const SimulateOptions& o, const SimulateCommon& common, const Character& character) {
  RigComplementaryOptions options = rig_options(common.settings);
  if (common.learned) {
    // The learned fields without the constant column span the complementary subspace; the
    // neural sampling frame and the simulator's are both the mesh's normalisation.
    if (!o.quiet) spdlog::info("building the rig-complementary subspace (learned fields)...");
    options.fields = common.learned(character.mesh, false);
  } else if (!o.quiet) {
    spdlog::info("building the rig-complementary subspace ({} handles)...", common.settings.handles);
  }
  return RigComplementary(character, options);
}

// Every frame of the clip once (no loop), written as the output's kind asks.
int simulate_clip_once(const SimulateOptions& o, const physics::Settings& s, OutputKind kind,
                       const Character& character, std::size_t clip, RigComplementary& sim) {
  const Clip& c = character.clips[clip];
  const int frames = clip_frame_count(c, s.fps);
  BakedFrames baked;
  Pose pose;
  Progress progress("simulating", o.quiet);
  for (int f = 0; f < frames; ++f) {
    sim.step_clip_frame(c, f, s.fps, s.substeps, pose);
    baked.times.push_back(static_cast<float>(clip_frame_time(c, f, s.fps)));
    baked.positions.push_back(sim.vertex_positions(pose));
    baked.skinning.push_back(pose.skinning);
    progress.update(static_cast<std::size_t>(f + 1), static_cast<std::size_t>(frames));
  }
  progress.finish();
  switch (kind) {
    case OutputKind::Pc2: write_pc2(o.output, baked, static_cast<float>(s.fps)); break;
    case OutputKind::Gltf: write_gltf(o.output, character, &baked, clip); break;
    case OutputKind::Folder: write_obj_sequence(o.output, character.mesh, baked); break;
  }
  if (!o.quiet) spdlog::info("simulated {} frames of '{}' -> {}", frames, c.name, o.output);
  return 0;
}

// --rig CHARACTER: rig-complementary dynamics on its clip, looped or once.
int simulate_rig(const SimulateOptions& o, const SimulateCommon& common) {
  if (!o.input.empty()) fail(o.input, "give either INPUT or --rig, not both");
  // The rig carries the body and the clip sets the frames: other settings would be ignored.
  for (const ParameterDescription& p : physics_description().parameters)
    if (o.settings.given(p.key) && !acts_on_rig(p.key))
      fail_plain("{}: not with --rig (the rig carries the body; the clip sets the frames)", o.settings.flag(p.key));
  if (o.floor || o.no_gravity) fail_plain("{}: not with --rig", o.floor ? "--floor" : "--no-gravity");
  if (o.loop_tolerance && !o.loop.enabled()) fail_plain("{}: needs --loop", kLoopTolerance);
  const OutputKind kind = output_kind(o.output);
  const Character character = load_character(o.rig);
  const std::size_t clip = character.require_clip(o.clip);
  // The loop's options are checked before the subspace is built (the expensive part).
  const std::optional<Cycle> cycle = o.loop.cycle(character, clip);
  RigComplementary sim = rig_simulator(o, common, character);
  if (!o.quiet)
    spdlog::info("{} fields, complementarity ||J_rig^T B|| / (||J_rig|| ||B||) = {:.3g} (0: exact)",
                 sim.body().handle_count(), sim.complementarity().relative);
  if (cycle) {
    return simulate_rig_loop_to(o.output, kind, character, clip, *cycle, sim, common.settings.fps,
                                common.settings.substeps, o.loop_tolerance.value_or(kDefaultLoopTolerance), o.quiet);
  }
  return simulate_clip_once(o, common.settings, kind, character, clip, sim);
}

// INPUT: a SCENE.json, or a shape made into a scene by the flags.
int simulate_shape_or_scene(const SimulateOptions& o, const SimulateCommon& common) {
  if (o.input.empty()) fail_plain("simulate needs INPUT (a shape or SCENE.json) or --rig CHARACTER");
  // A shape or a scene has no clip to loop: the loop flags would be ignored.
  const char* loop_flag = o.loop.given_flag() ? o.loop.given_flag() : o.loop_tolerance ? kLoopTolerance : nullptr;
  if (loop_flag) fail_plain("{}: only with --rig CHARACTER (a shape or a scene has no clip to loop)", loop_flag);
  if (lower_extension(o.input) == ".json") {
    // A scene file holds its settings: a flag beside it would be ignored.
    for (const ParameterDescription& p : physics_description().parameters)
      if (o.settings.given(p.key)) fail(o.input, "{}: set '{}' in the scene file", o.settings.flag(p.key), p.key);
    if (o.floor || o.no_gravity)
      fail(o.input, "{}: give planes and gravity in the scene file", o.floor ? "--floor" : "--no-gravity");
    Scene scene = load_scene(o.input);
    return run_scene(scene, o.output, o.quiet);
  }
  for (const ParameterDescription& p : physics_description().parameters)
    if (o.settings.given(p.key) && !acts_on_shape(p.key)) fail_plain("{}: only with --rig", o.settings.flag(p.key));
  QuickSceneOptions q;
  q.settings = common.settings;
  q.floor = o.floor;
  q.field_source = common.learned;
  Scene scene = quick_scene(o.input, q);
  return run_scene(scene, o.output, o.quiet);
}

// --describe: the settings, as text, JSON or docs/physics-parameters.md.
int describe_settings(const SimulateOptions& o) {
  if (o.json) {
    fmt::print("{}\n", deformer_description_json(physics_description()));
  } else if (o.markdown) {
    fmt::print("{}", physics_parameters_markdown());
  } else {
    fmt::print("physics: {}\n", physics_description().summary);
    for (const ParameterDescription& p : physics_description().parameters)
      fmt::print("  {:<18} {:<20} {}\n", p.key, simulate_flag(p) ? "--" + p.flag : "(SCENE.json)", p.describe());
  }
  return 0;
}

// The described settings with the flags applied (--no-gravity among them).
physics::Settings settings_from_flags(const SimulateOptions& o) {
  physics::Settings s = o.settings.settings().as<physics::Settings>();
  if (o.no_gravity && o.settings.given("gravity")) fail_plain("--no-gravity: give it or --gravity, not both");
  if (o.no_gravity) s.gravity = Vec3d::Zero();
  return s;
}

}  // namespace

Runner add_simulate_command(CLI::App& app) {
  auto o = std::make_shared<SimulateOptions>();
  add_simulate_options(app, *o);
  return [o] {
    if ((o->json || o->markdown) && !o->describe)
      fail_plain("{}: only with --describe", o->json ? "--json" : "--markdown");
    if (o->describe) return describe_settings(*o);
    if (o->output.empty()) fail_plain("--output is required");
    SimulateCommon common{settings_from_flags(*o), {}};
    common.learned = neural_fields(o->subspace, o->neural_model, !o->rig.empty());
    return o->rig.empty() ? simulate_shape_or_scene(*o, common) : simulate_rig(*o, common);
  };
}

}  // namespace wobble::cli
