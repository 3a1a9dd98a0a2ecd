#include "physics_mode.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <imgui.h>
#include <nlohmann/json.hpp>

#include <wobble/error.hpp>
#include <wobble/fields/field_network.hpp>

#include "bend_weight_brush.hpp"
#include "deformer_panel.hpp"
#include "core/fail.hpp"

namespace wobble::viewer {

namespace {

struct Ray {
  Vec3f origin, direction;
};

// The ray through a framebuffer pixel (from the top-left corner).
Ray pixel_ray(const render::OrbitCamera& camera, int width, int height, const Vec2f& pixel) {
  const Mat4f inverse = camera.view_projection(static_cast<float>(width) / static_cast<float>(height)).inverse();
  const float x = 2 * pixel.x() / static_cast<float>(width) - 1, y = 1 - 2 * pixel.y() / static_cast<float>(height);
  const Vec4f near_point = inverse * Vec4f(x, y, -1, 1), far_point = inverse * Vec4f(x, y, 1, 1);
  const Vec3f origin = near_point.head<3>() / near_point.w();
  return {origin, (far_point.head<3>() / far_point.w() - origin).normalized()};
}

// The vertex under the ray: nearest to the first surface hit; when the ray meets no triangle (a
// point cloud, or a click on the silhouette) the vertex within 2% of the size of the ray that is
// closest to the eye.
std::optional<std::size_t> pick_vertex(const std::vector<Vec3f>& positions, const std::vector<Triangle>& triangles,
                                       const Ray& ray, float size) {
  std::optional<Vec3f> hit;
  if (!triangles.empty()) hit = cast_ray(positions, triangles, ray.origin, ray.direction);
  std::optional<std::size_t> best;
  float best_score = 1e30f;
  for (std::size_t v = 0; v < positions.size(); ++v) {
    const Vec3f d = positions[v] - ray.origin;
    float score;
    if (hit) {
      score = (positions[v] - *hit).squaredNorm();
    } else {
      const float along = d.dot(ray.direction);
      if (along <= 0 || (d - along * ray.direction).norm() > 0.02f * size) continue;
      score = along;
    }
    if (score < best_score) best_score = score, best = v;
  }
  return best;
}

ImVec2 pixel_of(const render::OrbitCamera& camera, int width, int height, const Vec3d& p) {
  const render::ScreenPoint s = render::project(
      camera.view_projection(static_cast<float>(width) / static_cast<float>(height)), p.cast<float>(), width, height);
  return {s.pixel.x(), s.pixel.y()};
}

Mesh with_ball(const Mesh& shape, const Mesh& ball) {
  Mesh m = shape;
  m.vertex_scalars.clear();
  if (m.primitives.empty()) {
    Primitive all;
    all.vertex_count = static_cast<std::uint32_t>(shape.vertex_count());
    all.triangle_count = static_cast<std::uint32_t>(shape.triangle_count());
    m.primitives.push_back(all);
  }
  Material orange;
  orange.name = "ball";
  orange.base_color = Vec4f(0.9f, 0.45f, 0.15f, 1.0f);
  m.materials.push_back(orange);
  Primitive p;
  p.name = "ball";
  p.first_vertex = static_cast<std::uint32_t>(shape.vertex_count());
  p.vertex_count = static_cast<std::uint32_t>(ball.vertex_count());
  p.first_triangle = static_cast<std::uint32_t>(shape.triangle_count());
  p.triangle_count = static_cast<std::uint32_t>(ball.triangle_count());
  p.material = static_cast<int>(m.materials.size()) - 1;
  m.primitives.push_back(p);
  for (const Triangle& t : ball.triangles)
    m.triangles.push_back({t[0] + p.first_vertex, t[1] + p.first_vertex, t[2] + p.first_vertex});
  m.positions.insert(m.positions.end(), ball.positions.begin(), ball.positions.end());
  if (!m.uvs.empty()) m.uvs.resize(m.positions.size(), Vec2f::Zero());
  m.normals.clear();
  return m;
}

// A slider whose value is applied when released (true then), so that dragging it does not rebuild at every step.
template <typename Edit>
bool on_release(Edit edit) {
  edit();
  return ImGui::IsItemDeactivatedAfterEdit();
}

}  // namespace

PhysicsMode::PhysicsMode(const PhysicsOptions& options)
    : options_(options), settings_(options.settings), enabled_(options.enabled) {
  rig_mode_ = options.rig;
  if (!options.script.empty()) script_ = ScriptPlayer::parse(options.script);
}

PhysicsMode::~PhysicsMode() = default;

fields::MeshFields PhysicsMode::neural_fields() {
  if (!neural_) neural_ = fields::field_network_mesh_fields(settings_.neural_model, rig_mode_);
  return neural_;
}

void PhysicsMode::set_character(const Character& character, render::Renderer& renderer) {
  character_ = &character;
  session_.reset();
  rig_session_.reset();
  splats_.reset();
  dragging_ = painting_ = false;
  last_grabbed_rest_.reset();
  mesh_has_ball_ = false;
  try {
    if (is_splat_character(character)) splats_ = std::make_unique<SplatView>(character.source);
  } catch (const std::exception& e) {
    error_ = e.what();
  }
  if (enabled_) rebuild(character, renderer);
}

void PhysicsMode::rebuild(const Character& character, render::Renderer& renderer) {
  error_.clear();
  rebuild_pending_ = false;
  pins_dirty_ = true;
  try {
    const bool rig = rig_mode_ && character.is_skinned();
    if (rig) {
      session_.reset();
      std::shared_ptr<const fields::SkinningField> fields;
      if (settings_.subspace == Subspace::Neural) fields = neural_fields()(character.mesh, false);
      rig_session_ = std::make_unique<RigPhysicsSession>(character, settings_, fields);
    } else {
      rig_session_.reset();
      const bool keep_ball = options_.ball || (session_ && session_->has_ball());
      options_.ball = false;
      fields::MeshFields neural;
      if (settings_.subspace == Subspace::Neural) neural = neural_fields();
      if (session_) {
        session_->set_neural_fields(neural);
        session_->apply(settings_);
      } else {
        session_ = std::make_unique<PhysicsSession>(character.mesh, settings_, neural);
      }
      if (keep_ball) session_->drop_ball();
    }
    step_times_.clear();
    step_cpu_times_.clear();
    upload_mesh(character, renderer);
  } catch (const std::exception& e) {
    error_ = e.what();
    std::fprintf(stderr, "wobble-viewer: physics: %s\n", e.what());
    session_.reset();
    rig_session_.reset();
    enabled_ = false;
  }
}

void PhysicsMode::upload_mesh(const Character& character, render::Renderer& renderer) {
  const bool ball = session_ && session_->has_ball();
  if (ball == mesh_has_ball_) return;
  renderer.set_mesh(ball ? with_ball(character.mesh, session_->ball_mesh()) : character.mesh);
  mesh_has_ball_ = ball;
  pins_dirty_ = true;
}

// Every frame: the viewer's own heat map may have replaced the scalars.
void PhysicsMode::upload_pins(render::Renderer& renderer) {
  if (!session_) return;
  if (pins_dirty_) {
    pin_values_ = session_->pinned_vertices();
    if (mesh_has_ball_) pin_values_.resize(pin_values_.size() + session_->ball_mesh().vertex_count(), -1.0f);  // blue
    pins_dirty_ = false;
  }
  renderer.set_scalars(pin_values_);
}

bool PhysicsMode::frame(const PhysicsFrame& f) {
  if (!enabled_) return false;
  if (rebuild_pending_ || (!session_ && !rig_session_)) rebuild(f.character, f.renderer);
  if (!session_ && !rig_session_) return false;
  time_ += f.seconds;
  play_script(f);
  if (rig_session_) {
    if (rig_session_->advance(f.seconds, f.pose) > 0) record_step(rig_session_->stats());
    const std::vector<Vec3f> positions = rig_session_->vertices(f.pose);
    f.renderer.set_positions(positions);
    f.renderer.set_skeleton(f.character.rig, f.pose);  // the joint drag's overlay follows the pose
    return true;
  }
  if (session_->advance(f.seconds) > 0) record_step(session_->stats());
  upload_mesh(f.character, f.renderer);
  upload_pins(f.renderer);
  const bool pinned = settings_.pin_mode != PinMode::None || paint_mode_;
  f.draw.heat_map = pinned;
  f.draw.scalar_min = -1.0f;  // free vertices 0 show cyan-green, pinned ones (1) red
  f.draw.scalar_max = 1.0f;
  if (session_->has_floor()) f.draw.ground_height = static_cast<float>(session_->floor_origin().y());
  if (splats_) {
    splats_->update(session_->vertices(), session_->vertex_deformations());
  } else if (mesh_has_ball_) {
    std::vector<Vec3f> positions = session_->vertices();
    positions.insert(positions.end(), session_->ball_vertices().begin(), session_->ball_vertices().end());
    f.renderer.set_positions(positions);
  } else {
    f.renderer.set_positions(session_->vertices());
  }
  return true;
}

void PhysicsMode::record_step(const PhysicsStats& stats) {
  step_times_.add(stats.step_ms);
  step_cpu_times_.add(stats.step_cpu_ms);
}

void PhysicsMode::press_at_vertex(std::size_t vertex, const PhysicsFrame& f) {
  const Vec3d rest = f.character.mesh.positions[vertex].cast<double>();
  session_->press(rest);
  last_grabbed_rest_ = rest;
  dragging_ = true;
  drag_plane_point_ = session_->grabbed_position();
  drag_plane_normal_ = (f.camera.target - f.camera.eye()).cast<double>().normalized();
}

bool PhysicsMode::press_at_pixel(const PhysicsFrame& f, const Vec2f& pixel) {
  const Ray ray = pixel_ray(f.camera, f.width, f.height, pixel);
  const std::optional<std::size_t> v =
      pick_vertex(session_->vertices(), f.character.mesh.triangles, ray, static_cast<float>(session_->size()));
  if (!v) return false;
  if (paint_mode_) {
    painting_ = true;
    session_->paint_pins(f.character.mesh.positions[*v].cast<double>(), erase_mode_);
    return true;
  }
  press_at_vertex(*v, f);
  return true;
}

Vec3d PhysicsMode::drag_target_at_pixel(const PhysicsFrame& f, const Vec2f& pixel) const {
  const Ray ray = pixel_ray(f.camera, f.width, f.height, pixel);
  const Vec3d origin = ray.origin.cast<double>(), direction = ray.direction.cast<double>();
  const double along = direction.dot(drag_plane_normal_);
  if (std::abs(along) < 1e-9) return drag_plane_point_;
  return origin + direction * ((drag_plane_point_ - origin).dot(drag_plane_normal_) / along);
}

bool PhysicsMode::handle_mouse(const PhysicsFrame& f) {
  if (!enabled_ || !session_) return false;
  ImGuiIO& io = ImGui::GetIO();
  const Vec2f pixel(io.MousePos.x * io.DisplayFramebufferScale.x, io.MousePos.y * io.DisplayFramebufferScale.y);
  if (!io.WantCaptureMouse && ImGui::IsMouseClicked(0) && press_at_pixel(f, pixel)) {
    mouse_drag_ = dragging_;
    return true;
  }
  if (painting_) {
    if (ImGui::IsMouseDown(0)) {
      const Ray ray = pixel_ray(f.camera, f.width, f.height, pixel);
      if (const auto v =
              pick_vertex(session_->vertices(), f.character.mesh.triangles, ray, static_cast<float>(session_->size())))
        session_->paint_pins(f.character.mesh.positions[*v].cast<double>(), erase_mode_);
    } else {
      painting_ = false;
      rebuild_pending_ = true;  // the pins change the body
    }
    return true;
  }
  if (dragging_ && mouse_drag_) {  // a script's drag is not the mouse's to end
    if (ImGui::IsMouseDown(0)) {
      session_->drag_to(drag_target_at_pixel(f, pixel));
    } else {
      session_->release();
      dragging_ = mouse_drag_ = false;
    }
    return true;
  }
  return false;
}

void PhysicsMode::play_script(const PhysicsFrame& f) {
  for (const ScriptAction& a : script_.take_due(time_)) {
    const nlohmann::json& j = a.arguments;
    auto pixel = [&] { return Vec2f(j["pixel"][0].get<float>(), j["pixel"][1].get<float>()); };
    auto point = [&] {
      return Vec3d(j["point"][0].get<double>(), j["point"][1].get<double>(), j["point"][2].get<double>());
    };
    if (a.kind == "report") {
      report(f);
    } else if (a.kind == "gravity") {
      settings_.gravity = j["on"].get<bool>();
      live_changed();
    } else if (a.kind == "plane") {
      settings_.floor = true;
      settings_.floor_offset = j.value("offset", settings_.floor_offset);
      settings_.floor_tilt_x = j.value("tilt_x", settings_.floor_tilt_x);
      settings_.floor_tilt_z = j.value("tilt_z", settings_.floor_tilt_z);
      live_changed();
    } else if (a.kind == "joint") {
      const int joint = f.character.rig.find(j["joint"].get<std::string>());
      if (joint < 0)
        fail_plain("--script: no joint '{}' in {}", j["joint"].get<std::string>(), f.character.source.string());
      const Eigen::Vector3f axis(j["axis"][0].get<float>(), j["axis"][1].get<float>(), j["axis"][2].get<float>());
      f.joints.turn(joint,
                    Quatf(Eigen::AngleAxisf(j["degrees"].get<float>() * 3.14159265f / 180.0f, axis.normalized())));
    } else if (!session_) {
      continue;  // the rest act on the shape's simulation
    } else if (a.kind == "ball") {
      session_->drop_ball();
    } else if (a.kind == "release") {
      session_->release();
      dragging_ = false;
    } else if (a.kind == "press" && j.contains("pixel")) {
      if (!press_at_pixel(f, pixel()))
        std::printf("wobble-viewer: script: no surface under pixel (%g, %g)\n", pixel().x(), pixel().y());
    } else if (a.kind == "press") {
      const Vec3d p = point();
      std::size_t nearest = 0;
      for (std::size_t v = 1; v < f.character.mesh.vertex_count(); ++v)
        if ((f.character.mesh.positions[v].cast<double>() - p).squaredNorm() <
            (f.character.mesh.positions[nearest].cast<double>() - p).squaredNorm())
          nearest = v;
      press_at_vertex(nearest, f);
    } else if (a.kind == "drag") {
      session_->drag_to(j.contains("pixel") ? drag_target_at_pixel(f, pixel()) : point());
    }
  }
}

void PhysicsMode::report(const PhysicsFrame& f) const {
  nlohmann::json r = {{"time", time_}};
  auto pixel_json = [&](const Vec3d& p) {
    const ImVec2 px = pixel_of(f.camera, f.width, f.height, p);
    return nlohmann::json::array({px.x, px.y});
  };
  const PhysicsStats& stats = session_ ? session_->stats() : rig_session_ ? rig_session_->stats() : PhysicsStats{};
  r["steps"] = stats.steps;
  r["step_ms"] = stats.step_ms;
  r["median_step_ms"] = step_times_.median();
  r["median_step_cpu_ms"] = step_cpu_times_.median();
  r["iterations"] = stats.iterations;
  if (session_) {
    r["dragging"] = session_->dragging();
    if (last_grabbed_rest_) {
      r["picked_rest_pixel"] = pixel_json(*last_grabbed_rest_);
      r["picked_pixel"] = pixel_json(session_->position_of(*last_grabbed_rest_));
    }
    if (session_->dragging()) r["target_pixel"] = pixel_json(session_->drag_target());
    r["lowest"] = session_->lowest_height();
    if (session_->has_floor()) {
      const Vec3d o = session_->floor_origin(), n = session_->floor_normal();
      r["floor"] = {{"origin", {o.x(), o.y(), o.z()}}, {"normal", {n.x(), n.y(), n.z()}}};
      double below = 0;  // the deepest vertex behind the floor plane (file units)
      for (const Vec3f& v : session_->vertices()) below = std::max(below, -(v.cast<double>() - o).dot(n));
      r["deepest_below_floor"] = below;
    }
    r["size"] = session_->size();
  }
  std::printf("wobble-viewer: report %s\n", r.dump().c_str());
  std::fflush(stdout);
}

void PhysicsMode::live_changed() {
  if (session_) session_->update_live(settings_);
}

void PhysicsMode::draw(const PhysicsFrame& f) {
  if (splats_) splats_->draw(f.camera, f.width, f.height);
  if (!enabled_ || !session_) return;
  if (!overlay_) overlay_ = std::make_unique<render::Overlay>();
  overlay_->clear();
  if (session_->has_floor()) {
    const Vec3d o = session_->floor_origin(), n = session_->floor_normal();
    const Vec3d u = n.unitOrthogonal(), v = n.cross(u);
    const double half = 1.5 * session_->size();
    Vec3f corners[4];
    for (int c = 0; c < 4; ++c)
      corners[c] = (o + half * ((c == 1 || c == 2 ? 1.0 : -1.0) * u + (c >= 2 ? 1.0 : -1.0) * v)).cast<float>();
    const Vec4f fill(0.35f, 0.55f, 0.8f, 0.25f), edge(0.45f, 0.7f, 1.0f, 0.9f);
    overlay_->add_triangle(corners[0], corners[1], corners[2], fill);
    overlay_->add_triangle(corners[0], corners[2], corners[3], fill);
    for (int c = 0; c < 4; ++c) overlay_->add_line(corners[c], corners[(c + 1) % 4], edge);
    overlay_->add_line(o.cast<float>(), (o + 0.2 * session_->size() * n).cast<float>(), edge);  // its normal
  }
  if (session_->dragging()) {
    const Vec3f grabbed = session_->grabbed_position().cast<float>(), target = session_->drag_target().cast<float>();
    overlay_->add_line(grabbed, target, Vec4f(1.0f, 0.85f, 0.2f, 1.0f));
    overlay_->add_point(grabbed, Vec4f(1.0f, 0.85f, 0.2f, 1.0f));
    overlay_->add_point(target, Vec4f(1.0f, 0.3f, 0.2f, 1.0f));
  }
  overlay_->draw(f.camera, f.width, f.height, 12.0f, /*on_top=*/true);
}

namespace {

// Settings the panel shows otherwise: the pin modes, gravity's switch and direction; the viewer
// runs until stopped (no frame count).
bool viewer_owned(const ParameterDescription& p) { return p.key == "pin" || p.key == "gravity" || p.key == "frames"; }
// Settings of the eigenmodes (neural fields bring their own).
bool eigenmodes_only(const ParameterDescription& p) { return p.key == "handles" || p.key == "field_grid"; }

}  // namespace

// A row for each described setting of settings_.physics that `shown` accepts, in description
// order (physics_description(): ranges, help): a setting added there appears here. True when one changed.
bool PhysicsMode::setting_rows(const std::function<bool(const ParameterDescription&)>& shown) {
  const DeformerDescription& description = physics::physics_description();
  DeformerSettings edited = physics::described_settings(settings_.physics);
  bool changed = false;
  for (const ParameterDescription& p : description.parameters)
    if (shown(p)) changed |= parameter_row(p, edited, error_);
  if (changed) settings_.physics = edited.as<physics::Settings>();
  return changed;
}

bool PhysicsMode::panel_rebuild_settings() {
  bool changed = false;
  int subspace = settings_.subspace == Subspace::Neural ? 1 : 0;
  changed |= ImGui::RadioButton("eigenmodes", &subspace, 0);
  ImGui::SameLine();
  changed |= ImGui::RadioButton("neural fields (.wfield)", &subspace, 1);
  settings_.subspace = subspace ? Subspace::Neural : Subspace::Eigenmodes;
  ImGui::BeginDisabled(settings_.subspace == Subspace::Neural);
  changed |= setting_rows(eigenmodes_only);
  ImGui::EndDisabled();
  changed |= setting_rows([](const ParameterDescription& p) {
    return p.lifetime == Lifetime::Bind && !viewer_owned(p) && !eigenmodes_only(p);
  });
  return changed;
}

bool PhysicsMode::panel_pins() {
  bool changed = false;
  const char* pin_modes[] = {"no pins", "pin by a plane", "paint pins", "pin by --pin's predicate"};
  int pin = static_cast<int>(settings_.pin_mode);
  if (ImGui::Combo("pins", &pin, pin_modes, settings_.pin_predicate.empty() ? 3 : 4))
    settings_.pin_mode = static_cast<PinMode>(pin), changed = true;
  paint_mode_ = settings_.pin_mode == PinMode::Painted;
  if (settings_.pin_mode == PinMode::Plane) {
    const char* axes[] = {"x", "y", "z"};
    changed |= ImGui::Combo("axis", &settings_.pin_axis, axes, 3);
    float level = static_cast<float>(settings_.pin_level);
    changed |= on_release([&] { ImGui::SliderFloat("level (normalised, -1 to 1)", &level, -1.0f, 1.0f); });
    settings_.pin_level = level;
    changed |= ImGui::Checkbox("keep what is above", &settings_.pin_above);
  } else if (settings_.pin_mode == PinMode::Predicate) {
    ImGui::TextDisabled("pinned: %s", settings_.pin_predicate.c_str());
  } else if (paint_mode_) {
    float radius = static_cast<float>(settings_.pin_brush_radius);
    ImGui::SliderFloat("brush radius (m)", &radius, 0.02f, 0.5f);
    settings_.pin_brush_radius = radius;
    ImGui::Checkbox("erase", &erase_mode_);
    ImGui::SameLine();
    if (ImGui::Button("clear pins") && session_) session_->clear_painted_pins(), changed = true;
    ImGui::TextDisabled("left drag on the shape paints (shown red)");
  }
  return changed;
}

void PhysicsMode::panel_live_settings() {
  bool live = ImGui::Checkbox("gravity", &settings_.gravity);
  Eigen::Vector3f g = settings_.gravity_direction.cast<float>();
  if (ImGui::DragFloat3("direction", g.data(), 0.01f, -1.0f, 1.0f) && g.norm() > 1e-3f)
    settings_.gravity_direction = g.cast<double>(), live = true;
  live |= ImGui::Checkbox("floor", &settings_.floor);
  float offset = static_cast<float>(settings_.floor_offset), tilt_x = static_cast<float>(settings_.floor_tilt_x),
        tilt_z = static_cast<float>(settings_.floor_tilt_z);
  live |= ImGui::SliderFloat("floor below the shape (m)", &offset, -0.8f, 1.0f);
  live |= ImGui::SliderFloat("ramp about x (deg)", &tilt_x, -45.0f, 45.0f);
  live |= ImGui::SliderFloat("ramp about z (deg)", &tilt_z, -45.0f, 45.0f);
  settings_.floor_offset = offset, settings_.floor_tilt_x = tilt_x, settings_.floor_tilt_z = tilt_z;
  live |= setting_rows([](const ParameterDescription& p) { return p.lifetime == Lifetime::Live && !viewer_owned(p); });
  if (live) live_changed();
}

std::optional<std::filesystem::path> PhysicsMode::draw_panel(const Character& character, render::Renderer& renderer) {
  std::optional<std::filesystem::path> open;
  if (ImGui::BeginCombo("bundled shapes", character.source.filename().string().c_str())) {
    std::vector<std::filesystem::path> shapes;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(bundled_shapes_folder(), ec))
      if (entry.path().extension() == ".off") shapes.push_back(entry.path());
    std::sort(shapes.begin(), shapes.end());
    for (const auto& s : shapes)
      if (ImGui::Selectable(s.stem().string().c_str())) open = s;
    ImGui::EndCombo();
  }
  if (ImGui::Checkbox("simulate (drag the shape with the left button)", &enabled_)) {
    if (enabled_)
      rebuild(character, renderer);
    else
      renderer.set_mesh(character.mesh), mesh_has_ball_ = false;
  }
  if (character.is_skinned() && ImGui::Checkbox("rig-complementary (the clip drives, physics adds)", &rig_mode_)) {
    neural_ = {};
    if (enabled_) rebuild(character, renderer);
  }
  if (!enabled_) return open;
  if (panel_rebuild_settings()) rebuild_pending_ = true;
  if (ImGui::Button("reset")) rebuild_pending_ = true;
  if (session_) {  // the shape's own simulation (the rig mode has no pins, floor, ball or drag)
    ImGui::SameLine();
    if (!session_->has_ball() && ImGui::Button("drop a ball")) session_->drop_ball();
    if (session_->has_ball() && ImGui::Button("remove the ball")) session_->remove_ball();
    if (panel_pins()) rebuild_pending_ = true;
    panel_live_settings();
  }
  if (!error_.empty()) ImGui::TextColored(ImVec4(1, 0.5f, 0.4f, 1), "%s", error_.c_str());
  return open;
}

std::string PhysicsMode::hud() const {
  if (!enabled_ || (!session_ && !rig_session_)) return "";
  const PhysicsStats& s = session_ ? session_->stats() : rig_session_->stats();
  const int handles = session_ ? session_->handles() : rig_session_->handles();
  char line[256];
  std::snprintf(line, sizeof line,
                "physics: step %.2f ms (median %.2f), %d Newton iterations, %.0f steps/s at %.0f Hz, %d handles%s",
                s.step_ms, step_times_.median(), s.iterations, s.steps_per_second, 1.0 / settings_.physics.time_step(),
                handles, rig_session_ ? ", rig-complementary" : "");
  return line;
}

std::span<const Vec3f> PhysicsMode::shown_vertices() const {
  if (!session_) return {};
  return session_->vertices();
}

std::string PhysicsMode::summary() const {
  if (step_times_.count() == 0) return "";
  const double cpu = step_cpu_times_.median();
  char line[320];
  std::snprintf(
      line, sizeof line,
      "physics: %zu steps, median step %.2f ms wall, %.2f ms CPU (%.0f steps/s on one core), %d handles, %d points",
      step_times_.count(), step_times_.median(), cpu, cpu > 0 ? 1000.0 / cpu : 0.0,
      session_       ? session_->handles()
      : rig_session_ ? rig_session_->handles()
                     : 0,
      settings_.physics.points);
  return line;
}

}  // namespace wobble::viewer
