#include "viewer.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>

#include <imgui.h>
#include <imgui_stdlib.h>

#include <wobble/io/output_file.hpp>
#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/render/framing.hpp>
#include <wobble/render/scalar_fields.hpp>

#include "core/fail.hpp"
#include "deformer_panel.hpp"
#include "gl.hpp"
#include "web_download.hpp"

namespace wobble::viewer {
namespace {

using Clock = std::chrono::steady_clock;

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The settings file (if any) with the parameter flags on top.
StackSettings initial_settings(const ViewerOptions& options) {
  StackSettings settings =
      options.settings.empty() ? StackSettings() : StackSettings::from_file(options.settings.string());
  for (const auto& [flag, text] : options.parameters) settings.set_flag(flag, text);
  return settings;
}

// Settings that name another character's vertices or joints do not carry over to a new one.
void drop_foreign_settings(StackSettings& stack, const Character& character) {
  DeformerSettings& dynamic = stack.section("dynamic");
  const VertexValues bend = std::get<VertexValues>(dynamic.get("bend_weights"));
  if (!bend.values.empty() && bend.values.size() != character.mesh.vertex_count()) {
    dynamic.set("bend_weights", VertexValues{}, "dynamic.bend_weights");
  }
  JointTable joints = std::get<JointTable>(dynamic.given("joints"));
  std::erase_if(joints, [&](const JointEntry& e) { return character.rig.find(e.joint) < 0; });
  dynamic.set("joints", joints, "dynamic.joints");
}

// A walk shows secondary motion best: the first clip named like one, else the first clip.
int default_clip(const Character& character) {
  for (std::size_t i = 0; i < character.clips.size(); ++i) {
    std::string name = character.clips[i].name;
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (name.find("walk") != std::string::npos) return static_cast<int>(i);
  }
  return character.clips.empty() ? -1 : 0;
}

}  // namespace

Viewer::Viewer(const ViewerOptions& options) : options_(options), physics_(options.physics) {
  renderer_ = std::make_unique<render::Renderer>();
#ifndef __EMSCRIPTEN__
  pool_ = std::make_unique<ThreadPool>();
#endif
  bundled_ = bundled_characters(bundled_assets_folder());
  stack_editor_ = StackEditor::from(options.deformer, initial_settings(options));
  use_gpu_ = options.gpu;
  draw_options_.skeleton = options.skeleton;
  playback_.loop = options.loop;
  if (options.cylinder_vertices > 0)
    set_character(make_cylinder_character(options.cylinder_vertices));
  else if (!options.physics.shape.empty())
    set_character(load_character(bundled_shape(options.physics.shape)));
  else if (!options.file.empty())
    set_character(load_viewer_file(options.file));
  else
    set_character(load_bundled(bundled_.front()));
  if (!options.clip.empty()) choose_clip(static_cast<int>(character_->require_clip(options.clip)));
  if (!options.settings.empty()) save_path_ = options.settings.string();
}

Viewer::~Viewer() = default;

bool Viewer::open(const std::filesystem::path& file) {
  try {
    set_character(load_viewer_file(file));
    return true;
  } catch (const std::exception& e) {
    show_error(e.what());
    return false;
  }
}

void Viewer::set_character(Character character) {
  character_ = std::make_unique<Character>(std::move(character));
  renderer_->set_mesh(character_->mesh);
  joints_ = JointDrag{};
  brush_.bind(character_->mesh);
  drop_foreign_settings(stack_editor_.settings(), *character_);
  const auto& dynamic = stack_editor_.settings().get("dynamic").as<DynamicSkinningParameters>();
  bend_weights_ = initial_bend_weights(character_->mesh, dynamic.bend_weights, dynamic.bend_weight_attribute);
  error_.clear();
  choose_clip(default_clip(*character_));
  rebuild_stack();
  heat_map_dirty_ = true;
  positions_valid_ = false;
  const std::string stem = character_->source.stem().string();
  save_path_ = (stem.empty() ? std::string("character") : stem) + ".wobble.json";

  // Frame the camera on the first frame's shape (world space, which may differ from bind space).
  compute_pose();
  std::vector<Vec3f> positions = character_->mesh.positions, normals;
  if (stack_ready_) {
    try {
      FrameInput frame{*character_, pose_, playback_.simulation_time(), {}, pool_.get()};
      stack_.evaluate(frame, positions, normals);
    } catch (const std::exception&) {
      positions = character_->mesh.positions;
    }
    stack_.reset();
  }
  camera_.frame(render::bounds_of(positions), 16.0f / 9.0f);
  followed_root_ = root_on_ground();
  physics_.set_character(*character_, *renderer_);
}

Vec3f Viewer::root_on_ground() const {
  if (pose_.world.empty()) return Vec3f::Zero();
  const Vec3f root = pose_.world.front().block<3, 1>(0, 3);
  return Vec3f(root.x(), 0.0f, root.z());  // +Y is up: the camera does not bob with the hips
}

void Viewer::follow_character() {
  const Vec3f root = root_on_ground();
  if (follow_character_) camera_.target += root - followed_root_;
  followed_root_ = root;
}

void Viewer::choose_clip(int clip) {
  clip_ = clip;
  cycle_loop_.set_clip(character_->rig, clip >= 0 ? &character_->clips[clip] : nullptr);
  playback_.set_range(cycle_loop_.start(), cycle_loop_.end());
}

bool Viewer::gpu_available() const {
  return character_ && character_->is_skinned() &&
         render::GpuSkinning::unsupported_reason(stack_editor_.stack(), stack_editor_.settings()).empty();
}

void Viewer::set_gpu(bool gpu) { use_gpu_ = gpu; }

void Viewer::show_error(const std::string& message) {
  error_ = message;
  std::fprintf(stderr, "%s\n", message.c_str());
}

void Viewer::rebuild_stack() {
  stack_ready_ = false;
  cycle_loop_.restart();
  positions_valid_ = false;
  if (!character_->is_skinned()) return;  // a static mesh is shown as it is
  try {
    stack_ = DeformerStack(stack_editor_.stack(), stack_editor_.settings());
    stack_.bind(*character_);
    stack_ready_ = true;
    error_.clear();
  } catch (const std::exception& e) {
    show_error(e.what());
  }
  if (gpu_available()) {
    try {
      gpu_skinning_.bind(*renderer_, *character_, stack_editor_.stack(), stack_editor_.settings());
      std::printf("wobble-viewer: GPU path ready for %s (%s)\n", stack_editor_.stack().text().c_str(),
                  renderer_->gpu_kernels_in_use());
    } catch (const std::exception& e) {
      show_error(e.what());
    }
  }
}

void Viewer::apply_settings() {
  if (!stack_ready_) return rebuild_stack();
  cycle_loop_.restart();  // a loop shows the new values' steady state at once
  try {
    stack_.update(stack_editor_.settings());
    if (gpu_available()) gpu_skinning_.update_settings(stack_editor_.settings());
    error_.clear();
  } catch (const std::exception& e) {
    show_error(e.what());
  }
}

void Viewer::compute_pose() {
  cycle_loop_.pose(playback_, pose_);
  if (joints_.has_overrides()) {
    joints_.apply(pose_);
    update_world(character_->rig, pose_);
  }
}

void Viewer::start_loop(const PoseSampler& pose_at, bool on_gpu) {
  if (!cycle_loop_.active(playback_, joints_.has_overrides())) return cycle_loop_.restart();
  if (on_gpu != loop_on_gpu_) cycle_loop_.restart();  // the other path's history has not run
  loop_on_gpu_ = on_gpu;
  const std::optional<CycleLoop::Start> start = cycle_loop_.take_start(playback_);
  if (!start) return;
  try {
    if (on_gpu)
      gpu_skinning_.start_periodic(pose_at, start->time, start->period, start->clip_time);
    else if (stack_ready_)
      stack_.start_periodic(pose_at, start->time, start->period, start->clip_time);
  } catch (const std::exception& e) {
    show_error(e.what());
  }
}

void Viewer::deform() {
  const auto start = Clock::now();
  const bool on_gpu = gpu_path() && !painting_mode_;
  if (playback_.take_jump()) {
    stack_.reset();
    gpu_skinning_.reset();
    cycle_loop_.restart();
  }
  // The clip is the motion's source while it plays untouched; otherwise the effects difference
  // the poses they are given (interactive posing).
  PoseSampler pose_at;
  if (clip_ >= 0 && playback_.playing && !joints_.has_overrides()) pose_at = cycle_loop_.sampler(playback_);
  const double t = playback_.simulation_time();
  start_loop(pose_at, on_gpu);

  if (!character_->is_skinned()) {
    if (!positions_valid_) {
      positions_ = character_->mesh.positions;
      renderer_->set_positions(positions_, character_->mesh.normals);
      positions_valid_ = true;
    }
  } else if (on_gpu) {
    try {
      gpu_skinning_.update(*renderer_, pose_, t, pose_at, playback_.clip_time());
    } catch (const std::exception& e) {
      show_error(std::string(e.what()) + "; the CPU path takes over");
      use_gpu_ = false;
    }
    positions_valid_ = false;
  } else if (stack_ready_) {
    try {
      FrameInput frame{*character_, pose_, t, pose_at, pool_.get(), playback_.clip_time()};
      stack_.evaluate(frame, positions_, normals_);
      renderer_->set_positions(positions_, normals_);
      positions_valid_ = true;
      if (recording_) {
        recorded_.times.push_back(static_cast<float>(playback_.played_time()));
        recorded_.positions.push_back(positions_);
      }
    } catch (const std::exception& e) {
      show_error(e.what());
      stack_ready_ = false;
    }
  }
  if (character_->is_skinned()) renderer_->set_skeleton(character_->rig, pose_);
  last_deform_ms_ = milliseconds_since(start);
  deform_times_.add(last_deform_ms_);
}

void Viewer::update_heat_map() {
  if (!heat_map_dirty_) return;
  heat_map_dirty_ = false;
  const int joint = joints_.selected;
  const bool has_joint =
      character_->is_skinned() && joint >= 0 && joint < static_cast<int>(character_->rig.joint_count());
  std::vector<float> values;
  draw_options_.scalar_min = 0;
  draw_options_.scalar_max = 1;
  switch (painting_mode_ ? HeatMap::BendWeight : heat_map_) {
    case HeatMap::None: break;
    case HeatMap::BendWeight:
      values = bend_weights_;
      if (!values.empty()) {
        draw_options_.scalar_min = std::min(0.0f, *std::min_element(values.begin(), values.end()));
        draw_options_.scalar_max = std::max(1.0f, *std::max_element(values.begin(), values.end()));
      }
      break;
    case HeatMap::SkinWeight:
      if (has_joint) values = render::skin_weight_field(character_->skin, static_cast<std::uint32_t>(joint));
      break;
    case HeatMap::HierarchicalWeight:
      if (has_joint)
        values =
            render::hierarchical_weight_field(character_->rig, character_->skin, static_cast<std::uint32_t>(joint));
      break;
  }
  draw_options_.heat_map = !values.empty();
  renderer_->set_scalars(values);
}

void Viewer::paint(const Vec2f& pixel, int width, int height) {
  if (!positions_valid_ || positions_.size() != bend_weights_.size()) return;
  const Mat4f inverse = camera_.view_projection(static_cast<float>(width) / static_cast<float>(height)).inverse();
  const float x = 2 * pixel.x() / static_cast<float>(width) - 1, y = 1 - 2 * pixel.y() / static_cast<float>(height);
  const Vec4f near_point = inverse * Vec4f(x, y, -1, 1), far_point = inverse * Vec4f(x, y, 1, 1);
  const Vec3f origin = near_point.head<3>() / near_point.w();
  const Vec3f direction = (far_point.head<3>() / far_point.w() - origin).normalized();
  if (const auto hit = cast_ray(positions_, character_->mesh.triangles, origin, direction)) {
    brush_.dab(positions_, *hit, render::bounds_of(positions_).diagonal().norm(), brush_settings_, bend_weights_);
    heat_map_dirty_ = true;
  }
}

void Viewer::commit_bend_weights() {
  try {
    stack_editor_.settings().section("dynamic").set("bend_weights", VertexValues{bend_weights_, {}}, "bend weights");
  } catch (const std::exception& e) {
    show_error(e.what());
  }
  apply_settings();  // a bind parameter: the stack rebinds Dynamic Skinning alone
  heat_map_dirty_ = true;
}

PhysicsFrame Viewer::physics_frame(double dt, int width, int height) {
  return {dt, *character_, pose_, joints_, *renderer_, draw_options_, camera_, width, height};
}

void Viewer::handle_mouse(int width, int height) {
  if (physics_.handle_mouse(physics_frame(0, width, height))) return;
  ImGuiIO& io = ImGui::GetIO();
  const Vec2f pixel(io.MousePos.x * io.DisplayFramebufferScale.x, io.MousePos.y * io.DisplayFramebufferScale.y);
  const Mat4f view_projection = camera_.view_projection(static_cast<float>(width) / static_cast<float>(height));
  if (!io.WantCaptureMouse) {
    if (ImGui::IsMouseClicked(0)) {
      if (painting_mode_) {
        painting_ = true;
      } else if (character_->is_skinned() && joints_.press(pose_, view_projection, width, height, pixel)) {
        draw_options_.skeleton = true;
        heat_map_dirty_ = true;
      } else {
        orbiting_ = true;
      }
    }
    if (ImGui::IsMouseClicked(1) || ImGui::IsMouseClicked(2)) orbiting_ = true;
    if (io.MouseWheel != 0) camera_.distance *= std::pow(0.9f, io.MouseWheel);
  }
  if (painting_ && ImGui::IsMouseDown(0)) paint(pixel, width, height);
  if (joints_.dragging() && ImGui::IsMouseDown(0))
    joints_.move(character_->rig, pose_, camera_, view_projection, width, height, pixel);
  if (orbiting_) {
    camera_.yaw -= io.MouseDelta.x * 0.008f;
    camera_.pitch = std::clamp(camera_.pitch + io.MouseDelta.y * 0.008f, -1.45f, 1.45f);
  }
  if (ImGui::IsMouseReleased(0)) {
    if (painting_) commit_bend_weights();
    painting_ = false;
    joints_.release();
  }
  if (!ImGui::IsMouseDown(0) && !ImGui::IsMouseDown(1) && !ImGui::IsMouseDown(2)) orbiting_ = false;
}

std::span<const Vec3f> Viewer::shown_positions() const {
  if (physics_.enabled() && !physics_.shown_vertices().empty()) return physics_.shown_vertices();
  if (positions_valid_) return positions_;
  return {};
}

void Viewer::frame(double dt, int width, int height) {
  width = std::max(width, 1);
  height = std::max(height, 1);
  playback_.advance(dt);
  compute_pose();
  follow_character();
  update_heat_map();
  if (physics_.frame(physics_frame(dt, width, height))) {
    positions_valid_ = false;  // the viewer's own shape and heat map are stale once physics stops
    heat_map_dirty_ = true;
    if (recording_) record_physics_frame();
  } else {
    deform();
  }
  handle_mouse(width, height);
  draw_options_.selected_joint = joints_.selected;
  glViewport(0, 0, width, height);
  renderer_->draw(camera_, width, height, draw_options_);
  physics_.draw(physics_frame(dt, width, height));
  draw_ui(width, height);
}

void Viewer::record_physics_frame() {
  const std::span<const Vec3f> shown = physics_.shown_vertices();
  if (shown.empty()) return;
  recorded_.times.push_back(static_cast<float>(recorded_.times.size() / 60.0));  // fixed 1/60 s frames
  recorded_.positions.emplace_back(shown.begin(), shown.end());
}

void Viewer::write_recording(const std::filesystem::path& path, double fps) const {
  if (recorded_.positions.empty()) fail(path, "nothing was recorded (the CPU path records; a static mesh does not)");
  write_pc2(path, recorded_, static_cast<float>(fps));
}

void Viewer::save_settings() {
  try {
    write_output(save_path_, stack_editor_.stack_settings().to_json() + "\n");
    offer_download(save_path_);
    error_ = "saved " + save_path_;
  } catch (const std::exception& e) {
    show_error(e.what());
  }
}

void Viewer::save_gltf() {
  const std::string stem = character_->source.stem().string();
  const std::string path = (stem.empty() ? std::string("character") : stem) + ".painted.glb";
  try {
    Character copy = *character_;
    const std::string attribute =
        stack_editor_.settings().get("dynamic").as<DynamicSkinningParameters>().bend_weight_attribute;
    copy.mesh.vertex_scalars[attribute.empty() ? std::string("_BEND_WEIGHT") : attribute] = bend_weights_;
    write_gltf(path, copy);
    offer_download(path);
    error_ = "saved " + path;
  } catch (const std::exception& e) {
    show_error(e.what());
  }
}

void Viewer::draw_ui(int width, int height) {
  if (!options_.ui) return;
  const float scale = 1.0f / ImGui::GetIO().DisplayFramebufferScale.x;
  draw_hud(width, scale);
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowSize(ImVec2(380, std::min(static_cast<float>(height) * scale - 20, 900.0f)),
                           ImGuiCond_FirstUseEver);
  ImGui::Begin("wobble");
  if (ImGui::CollapsingHeader("character", ImGuiTreeNodeFlags_DefaultOpen)) draw_character_section();
  if (ImGui::CollapsingHeader("physics (PhysSkin++)", options_.physics.enabled ? ImGuiTreeNodeFlags_DefaultOpen : 0))
    if (const auto shape = physics_.draw_panel(*character_, *renderer_)) open(*shape);
  if (ImGui::CollapsingHeader("playback", ImGuiTreeNodeFlags_DefaultOpen)) draw_playback_section();
  if (ImGui::CollapsingHeader("view", ImGuiTreeNodeFlags_DefaultOpen)) draw_view_section();
  if (ImGui::CollapsingHeader("deformers", ImGuiTreeNodeFlags_DefaultOpen)) {
    std::string refused;
    const PanelChange change = deformer_panel(stack_editor_, character_->rig, joints_.selected, refused);
    if (change == PanelChange::Stack) rebuild_stack();
    if (change == PanelChange::Settings) apply_settings();  // live values keep the motion going
    if (change != PanelChange::None) heat_map_dirty_ = true;
    if (!refused.empty()) show_error(refused);
  }
  if (ImGui::CollapsingHeader("bend-weight brush")) draw_brush_section();
  if (!error_.empty()) ImGui::TextColored(ImVec4(1, 0.5f, 0.4f, 1), "%s", error_.c_str());
  ImGui::End();
}

// Frame time, sizes and the physics line, top right.
void Viewer::draw_hud(int width, float scale) {
  ImGui::SetNextWindowPos(ImVec2(static_cast<float>(width) * scale - 10, 10), ImGuiCond_Always, ImVec2(1, 0));
  ImGui::SetNextWindowBgAlpha(0.5f);
  ImGui::Begin("##frame time", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoInputs |
                   ImGuiWindowFlags_NoSavedSettings);
  const double frame_ms = frame_times_.median();
  ImGui::Text("frame %.2f ms (%.0f fps)   deform %.2f ms   %s path", frame_ms, frame_ms > 0 ? 1000.0 / frame_ms : 0.0,
              deform_times_.median(), gpu_path() && !painting_mode_ ? "GPU" : "CPU");
  ImGui::Text("%zu vertices, %zu triangles, %zu joints", character_->mesh.vertex_count(),
              character_->mesh.triangle_count(), character_->rig.joint_count());
  if (const std::string line = physics_.hud(); !line.empty()) ImGui::TextUnformatted(line.c_str());
  ImGui::End();
}

void Viewer::draw_character_section() {
  const std::string current = character_->source.filename().string();
  if (ImGui::BeginCombo("bundled", current.c_str())) {
    for (const BundledCharacter& b : bundled_)
      if (ImGui::Selectable(b.label.c_str())) {
        try {
          set_character(load_bundled(b));
        } catch (const std::exception& e) {
          show_error(e.what());
        }
      }
    ImGui::EndCombo();
  }
  ImGui::InputText("##open", &open_path_);
  ImGui::SameLine();
  if (ImGui::Button("open") && !open_path_.empty()) open(open_path_);
  ImGui::TextDisabled("or drop a file onto the window");
}

void Viewer::draw_playback_section() {
  const auto& clips = character_->clips;
  if (ImGui::BeginCombo("clip", clip_ >= 0 ? clips[clip_].name.c_str() : "(rest pose)")) {
    for (int i = 0; i < static_cast<int>(clips.size()); ++i)
      if (ImGui::Selectable(clips[i].name.empty() ? ("clip " + std::to_string(i)).c_str() : clips[i].name.c_str(),
                            i == clip_))
        choose_clip(i);
    ImGui::EndCombo();
  }
  if (ImGui::Button(playback_.playing ? "pause" : "play")) playback_.playing = !playback_.playing;
  ImGui::SameLine();
  ImGui::Checkbox("loop", &playback_.loop);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(80);
  ImGui::DragFloat("speed", &playback_.speed, 0.01f, 0.0f, 4.0f, "%.2f");
  if (!cycle_loop_.description().empty()) ImGui::TextWrapped("%s", cycle_loop_.description().c_str());
  float t = playback_.clip_time();
  if (ImGui::SliderFloat("time", &t, playback_.start(), std::max(playback_.end(), playback_.start() + 1e-3f), "%.2f s"))
    playback_.scrub(t);
}

void Viewer::draw_view_section() {
  int path = use_gpu_ ? 1 : 0;
  ImGui::RadioButton("CPU skinning", &path, 0);
  ImGui::SameLine();
  ImGui::BeginDisabled(!gpu_available());
  ImGui::RadioButton("GPU skinning", &path, 1);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip(
        "the GPU runs lbs and lbs,dynamic in the vertex shader, deltamush (wobble mode) after them and ddm "
        "in GPU kernels (%s); other stacks run on the CPU",
        renderer_->has_post_deformer() ? renderer_->gpu_kernels_in_use() : "compute shaders or transform feedback");
  use_gpu_ = path == 1;
  ImGui::Checkbox("skeleton", &draw_options_.skeleton);
  ImGui::SameLine();
  ImGui::Checkbox("grid", &draw_options_.grid);
  ImGui::SameLine();
  ImGui::Checkbox("texture", &draw_options_.textures);
  ImGui::SameLine();
  ImGui::Checkbox("follow", &follow_character_);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("the camera moves with the character over the ground");
  const char* heat_maps[] = {"none", "bend weight", "skin weight (joint)", "hierarchical weight (joint)"};
  int heat = static_cast<int>(heat_map_);
  if (ImGui::Combo("weights", &heat, heat_maps, 4)) heat_map_ = static_cast<HeatMap>(heat), heat_map_dirty_ = true;
  const int j = joints_.selected;
  ImGui::Text("joint: %s (click one, drag to turn it)", j >= 0 && j < static_cast<int>(character_->rig.joint_count())
                                                            ? character_->rig.names[j].c_str()
                                                            : "none");
  if (joints_.has_overrides() && ImGui::Button("release dragged joints")) joints_.clear();
}

void Viewer::draw_brush_section() {
  if (ImGui::Checkbox("paint (left drag)", &painting_mode_)) heat_map_dirty_ = true;
  ImGui::SliderFloat("radius", &brush_settings_.radius, 0.005f, 0.5f, "%.3f x size");
  ImGui::SliderFloat("strength", &brush_settings_.strength, 0.0f, 1.0f);
  ImGui::SliderFloat("value", &brush_settings_.value, -2.0f, 2.0f);
  ImGui::Checkbox("smooth instead of paint", &brush_settings_.smooth);
  if (ImGui::Button("smooth all")) {
    brush_.smooth_all(bend_weights_, 3);
    commit_bend_weights();
  }
  ImGui::SameLine();
  if (ImGui::Button("all 1")) {
    std::fill(bend_weights_.begin(), bend_weights_.end(), 1.0f);
    commit_bend_weights();
  }
  ImGui::InputText("##settings path", &save_path_);
  ImGui::SameLine();
  if (ImGui::Button("save settings")) save_settings();
  if (ImGui::Button("save glTF with the weights (_BEND_WEIGHT)")) save_gltf();
}

}  // namespace wobble::viewer
