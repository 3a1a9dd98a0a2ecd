// wobble render IN --clip NAME --deformer STACK [parameters] [--compare STACK ...] [--start S]
//   [--end S] [--fps N] [--size WxH] [--sheet] [--skinning cpu|gpu] [camera options] -o OUT
#include <chrono>
#include <cmath>
#include <numbers>
#include <regex>

#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <wobble/offline/bake.hpp>
#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/parallel.hpp>
#include <wobble/parse.hpp>
#include <wobble/render/framing.hpp>
#include <wobble/render/headless_context.hpp>
#include <wobble/render/offscreen.hpp>
#include <wobble/render/scalar_fields.hpp>

#include "clip_options.hpp"
#include "commands.hpp"
#include "core/fail.hpp"
#include "deformer_options.hpp"
#include "loop_options.hpp"
#include "progress.hpp"
#include "value_options.hpp"
#include "render/frame_sink.hpp"
#include "render/panel.hpp"
#include "render/panel_spec.hpp"

namespace wobble::cli {

namespace {

struct RenderOptions {
  std::string input, output;
  ClipOptions clip;
  DeformerOptions deformers;
  LoopOptions loop;
  std::vector<std::string> compare, labels;
  std::string size = "960x540";
  std::string skinning = "cpu";
  std::string heat_map;
  bool sheet = false, quiet = false, skeleton = false, no_grid = false, no_follow = false, no_labels = false;
  double yaw = 35, pitch = 12, zoom = 1, fov = 40;
  int samples = 4;
};

std::pair<int, int> parse_size(const std::string& text) {
  std::smatch match;
  static const std::regex pattern(R"((\d{1,5})x(\d{1,5}))");
  if (!std::regex_match(text, match, pattern)) fail_plain("--size '{}' is not WIDTHxHEIGHT (e.g. 960x540)", text);
  const int w = static_cast<int>(parse_integer(match[1].str(), "--size width"));
  const int h = static_cast<int>(parse_integer(match[2].str(), "--size height"));
  if (w < 16 || h < 16 || w > 8192 || h > 8192) fail_plain("--size {}x{}: each side must be in [16, 8192]", w, h);
  return {w, h};
}

// Heat map field: bend, weight:JOINT or beta:JOINT.
std::vector<float> heat_field(const Character& character, const std::string& spec, const StackSettings& settings) {
  if (spec == "bend") {
    DynamicSkinningState state;
    state.initialize(character, settings.get("dynamic").as<DynamicSkinningParameters>());
    return render::bend_weight_field(state);
  }
  const std::size_t colon = spec.find(':');
  const std::string kind = spec.substr(0, colon);
  if (colon == std::string::npos || (kind != "weight" && kind != "beta")) {
    fail_plain("--heat-map '{}': use bend, weight:JOINT or beta:JOINT", spec);
  }
  const std::string joint_name = spec.substr(colon + 1);
  const int joint = character.rig.find(joint_name);
  if (joint < 0) fail(character.source, "--heat-map: no joint named '{}'", joint_name);
  return kind == "weight"
             ? render::skin_weight_field(character.skin, static_cast<std::uint32_t>(joint))
             : render::hierarchical_weight_field(character.rig, character.skin, static_cast<std::uint32_t>(joint));
}

// Where the character is, the same for CPU and GPU skinning and cheap: the box of the skinned
// joints, grown by the margins the mesh has around them in the rest pose.
class CharacterBounds {
 public:
  explicit CharacterBounds(const Character& character) : character_(character) {
    Pose rest;
    rest_pose(character.rig, rest);
    DeformerStack lbs = DeformerStack::parse("lbs");
    lbs.bind(character);
    std::vector<Vec3f> positions, normals;
    lbs.evaluate(FrameInput{character, rest, 0.0, {}}, positions, normals);
    const Eigen::AlignedBox3f mesh = render::bounds_of(positions), joints = joint_box(rest);
    below_ = joints.isEmpty() ? Vec3f::Zero() : Vec3f(joints.min() - mesh.min());
    above_ = joints.isEmpty() ? Vec3f::Zero() : Vec3f(mesh.max() - joints.max());
    fallback_ = mesh;
  }
  float ground() const { return fallback_.min().y(); }  // the lowest point of the rest pose
  Eigen::AlignedBox3f operator()(const Pose& pose) const {
    const Eigen::AlignedBox3f joints = joint_box(pose);
    if (joints.isEmpty()) return fallback_;
    return {joints.min() - below_, joints.max() + above_};
  }

 private:
  Eigen::AlignedBox3f joint_box(const Pose& pose) const {
    Eigen::AlignedBox3f box;
    for (std::size_t j = 0; j < pose.world.size(); ++j) {
      if (character_.rig.skinned[j]) box.extend(Vec3f(pose.world[j].block<3, 1>(0, 3)));
    }
    return box;
  }
  const Character& character_;
  Vec3f below_ = Vec3f::Zero(), above_ = Vec3f::Zero();
  Eigen::AlignedBox3f fallback_;
};

// The panels' stacks (--compare, or the one --deformer stack) and their settings, checked.
struct PanelPlan {
  std::vector<PanelSpec> specs;
  std::vector<StackSettings> settings;
};

PanelPlan panel_plan(const RenderOptions& options) {
  if (options.skinning != "cpu" && options.skinning != "gpu") {
    fail_plain("--skinning '{}': use cpu or gpu", options.skinning);
  }
  PanelPlan plan;
  if (options.compare.empty()) {
    plan.specs.push_back(parse_panel_spec(options.deformers.stack_text()));
  } else {
    for (const std::string& text : options.compare) plan.specs.push_back(parse_panel_spec(text));
  }
  if (!options.labels.empty() && options.labels.size() != plan.specs.size()) {
    fail_plain("--label given {} times for {} panels", options.labels.size(), plan.specs.size());
  }
  plan.settings = panel_settings(options.deformers, plan.specs);
  return plan;
}

// One RenderPanel per spec, labelled, with the heat map's field when one is asked for.
std::vector<std::unique_ptr<RenderPanel>> make_panels(const RenderOptions& options, const Character& character,
                                                      const PanelPlan& plan) {
  std::vector<std::unique_ptr<RenderPanel>> panels;
  for (std::size_t i = 0; i < plan.specs.size(); ++i) {
    const std::string label = options.labels.empty() ? plan.specs[i].text : options.labels[i];
    panels.push_back(std::make_unique<RenderPanel>(character, plan.specs[i].stack, plan.settings[i],
                                                   options.skinning == "gpu", label));
    if (!options.heat_map.empty())
      panels.back()->renderer().set_scalars(heat_field(character, options.heat_map, plan.settings[i]));
  }
  return panels;
}

// What every frame draws: grid, skeleton, the ground under the character, the heat map's range
// (at least [0, 1], widened to the first panel's field).
render::DrawOptions draw_options(const RenderOptions& options, const Character& character, const PanelPlan& plan,
                                 const CharacterBounds& bounds) {
  render::DrawOptions draw;
  draw.grid = !options.no_grid;
  draw.skeleton = options.skeleton;
  draw.ground_height = bounds.ground();
  draw.heat_map = !options.heat_map.empty();
  if (draw.heat_map) {
    for (float v : heat_field(character, options.heat_map, plan.settings[0]))
      draw.scalar_min = std::min(draw.scalar_min, v), draw.scalar_max = std::max(draw.scalar_max, v);
  }
  return draw;
}

render::OrbitCamera initial_camera(const RenderOptions& options) {
  render::OrbitCamera camera;
  camera.yaw = static_cast<float>(options.yaw * std::numbers::pi / 180);
  camera.pitch = static_cast<float>(options.pitch * std::numbers::pi / 180);
  camera.fov_y = static_cast<float>(options.fov * std::numbers::pi / 180);
  return camera;
}

void print_summary(const RenderOptions& options, const BakeMotion& motion, std::size_t frames, int panel_count,
                   int width, int height, const Clip& clip, double seconds) {
  fmt::print("{}\n", motion.describe());
  fmt::print("wrote {} ({} frames, {} panel{} of {}x{}, clip '{}', {} skinning, {:.1f} frames/s)\n", options.output,
             frames, panel_count, panel_count == 1 ? "" : "s", width, height, clip.name, options.skinning,
             static_cast<double>(frames) / std::max(seconds, 1e-9));
}

int run_render(const RenderOptions& options) {
  if (options.quiet) spdlog::set_level(spdlog::level::err);
  const auto [width, height] = parse_size(options.size);
  const PanelPlan plan = panel_plan(options);

  // The context first: without OpenGL nothing else is worth doing (one error line, exit 1).
  render::HeadlessContext context;
  const Character character = load_character(options.input);
  if (character.mesh.vertex_count() == 0) fail(character.source, "has no mesh to render");
  if (character.clips.empty()) fail(character.source, "has no animation clips to render");
  BakeOptions range = options.clip.bake_options(character);
  range.motion = options.loop.motion();
  // The frames as `wobble bake` has them (a loop: one cycle, both ends, by default).
  const BakeMotion motion = bake_motion(character, range);
  const std::vector<double> times = bake_frame_times(character, motion, range);
  const int panel_count = static_cast<int>(plan.specs.size());
  std::unique_ptr<FrameSink> sink =
      make_frame_sink(options.output, options.sheet, times.size(), width * panel_count, height, range.fps);
  spdlog::debug("render: {}", context.description());
  std::vector<std::unique_ptr<RenderPanel>> panels = make_panels(options, character, plan);
  render::OffscreenTarget target(width, height, options.samples);
  render::OrbitCamera camera = initial_camera(options);
  const CharacterBounds bounds(character);
  render::FollowFraming framing(options.no_follow ? 0.0f : 1.0f);
  const render::DrawOptions draw = draw_options(options, character, plan, bounds);
  const float aspect = static_cast<float>(width) / static_cast<float>(height);

  Pose pose;
  ThreadPool pool(options.clip.threads);
  // Each panel's history as the bake's (a keyed loop settles per panel: its own keys).
  for (std::size_t i = 0; i < panels.size(); ++i) {
    BakeMotion settled = motion;
    settle_keyed_loop(character, settled, plan.specs[i].stack, plan.settings[i], range.fps, &pool);
    panels[i]->start_history(settled, range.fps, &pool);
  }
  const PoseSampler pose_at = motion.pose_sampler();
  Progress progress("rendering", options.quiet);
  const int label_scale = std::max(1, height / 180);
  const auto started = std::chrono::steady_clock::now();
  for (std::size_t k = 0; k < times.size(); ++k) {
    const double t = times[k];
    motion.pose(t, pose);
    FrameInput frame{character, pose, t, pose_at, &pool};
    frame.clip_time = motion.clip_time(t);
    framing.update(bounds(pose), aspect, camera);
    camera.distance *= static_cast<float>(1.0 / options.zoom);
    std::vector<RgbaImage> images;
    for (auto& panel : panels) {
      panel->update(frame);
      if (options.skeleton) panel->renderer().set_skeleton(character.rig, pose);
      target.bind();
      panel->renderer().draw(camera, width, height, draw);
      images.push_back(target.read());
      if (!options.no_labels) images.back().draw_label(panel->label(), 6 * label_scale, 6 * label_scale, label_scale);
    }
    sink->add(panel_count == 1 ? images.front() : side_by_side(images), t);
    progress.update(k + 1, times.size());
  }
  sink->finish();
  progress.finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!options.quiet)
    print_summary(options, motion, times.size(), panel_count, width, height, character.clips[range.clip], seconds);
  return 0;
}

}  // namespace

Runner add_render_command(CLI::App& app) {
  auto options = std::make_shared<RenderOptions>();
  app.add_option("IN", options->input, "skinned character (glTF, FBX, Collada, ...)")->required();
  options->clip.add_to(app, 30, "frames per second of the output");
  app.add_option("-o,--output", options->output,
                 "output: .png (one frame, or a contact sheet with --sheet), folder/ (PNG files), .mp4 or .gif")
      ->required();
  options->deformers.add_to(app);
  options->loop.add_to(app);
  options->loop.add_pre_roll_to(app);
  app.add_option(
         "--compare", options->compare,
         "stacks rendered side by side, each STACK[:flag=value...] (e.g. lbs lbs,dynamic:amplitude=0 lbs,dynamic)")
      ->expected(1, -1);
  app.add_option("--label", options->labels, "panel labels, one per panel (default: the stack)")->expected(1, -1);
  app.add_option("--size", options->size, "size of each panel, WIDTHxHEIGHT")->capture_default_str();
  app.add_flag("--sheet", options->sheet, "write all frames as one contact sheet (.png)");
  app.add_option("--skinning", options->skinning, "cpu (any stack) or gpu (lbs or lbs,dynamic in the vertex shader)")
      ->capture_default_str();
  app.add_option("--heat-map", options->heat_map, "colour by a scalar: bend, weight:JOINT or beta:JOINT");
  app.add_flag("--skeleton", options->skeleton, "draw the skeleton over the mesh");
  app.add_flag("--no-grid", options->no_grid, "no ground grid");
  app.add_flag("--no-labels", options->no_labels, "no panel labels");
  add_real_option(app, "--yaw", options->yaw, "camera angle about the vertical, degrees", -360, 360)->group("Camera");
  add_real_option(app, "--pitch", options->pitch, "camera angle above the horizon, degrees", -89, 89)->group("Camera");
  add_real_option(app, "--zoom", options->zoom, "zoom factor on the automatic framing", 1e-3, 1e3)->group("Camera");
  add_real_option(app, "--fov", options->fov, "vertical field of view, degrees", 1, 179)->group("Camera");
  app.add_flag("--no-follow", options->no_follow, "keep the framing of the first frame (default: follow the character)")
      ->group("Camera");
  add_integer_option(app, "--samples", options->samples, "multisampling (antialiasing) samples, 0 for none", 0, 64);
  app.add_flag("-q,--quiet", options->quiet, "no progress or summary; errors only");
  return [options, &app] {
    // Both would name the panels: refuse rather than silently drop one of them.
    if (!options->compare.empty() && app.get_option("--deformer")->count() > 0) {
      fail_plain("--deformer and --compare both name stacks: give every panel's stack to --compare");
    }
    return run_render(*options);
  };
}

}  // namespace wobble::cli
