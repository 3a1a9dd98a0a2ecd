#pragma once
// The viewer's physics mode (PhysSkin++, docs/viewer.md "Physics"): owns the simulation of the
// shown shape (PhysicsSession, or RigPhysicsSession for rigged characters with --rig), turns the
// mouse into a Gaussian-kernel drag or a pin brush, plays --script actions, draws the floor, the
// drag handle and 3DGS splats over the renderer's picture, and builds its panel and HUD line.
// The viewer calls it at a few places of its frame (viewer.cpp): frame() instead of its own
// deformers when it returns true, handle_mouse() before its own mouse handling, draw() after the
// renderer, draw_panel() in its window.
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include <wobble/character.hpp>
#include <wobble/pose.hpp>
#include <wobble/render/camera.hpp>
#include <wobble/render/overlay.hpp>
#include <wobble/render/renderer.hpp>

#include "frame_statistics.hpp"
#include "joint_drag.hpp"
#include "physics_options.hpp"
#include "physics_rig.hpp"
#include "physics_script.hpp"
#include "physics_session.hpp"
#include "physics_splats.hpp"

namespace wobble::viewer {

// What one viewer frame hands the physics mode.
struct PhysicsFrame {
  double seconds = 0;  // this display frame's time step
  const Character& character;
  const Pose& pose;
  JointDrag& joints;
  render::Renderer& renderer;
  render::DrawOptions& draw;
  const render::OrbitCamera& camera;
  int width = 1, height = 1;  // framebuffer pixels
};

class PhysicsMode {
 public:
  explicit PhysicsMode(const PhysicsOptions& options);
  ~PhysicsMode();

  bool enabled() const { return enabled_; }
  // A new character (a mesh, or a 3DGS PLY's centres): the simulation starts again on it.
  void set_character(const Character& character, render::Renderer& renderer);
  // One frame: steps the simulation (fixed rate), plays due script actions, uploads the shape.
  // False when the mode is off (the viewer deforms as usual).
  bool frame(const PhysicsFrame& f);
  // Before the viewer's own mouse handling; true when the physics mode used the mouse.
  bool handle_mouse(const PhysicsFrame& f);
  // After the renderer drew: splats, the floor, the drag handle.
  void draw(const PhysicsFrame& f);
  // The panel's physics section; a bundled shape's path when the user picked one to open.
  std::optional<std::filesystem::path> draw_panel(const Character& character, render::Renderer& renderer);
  // One HUD line (empty when off): step time, Newton iterations, steps per second.
  std::string hud() const;
  // For --benchmark-frames: the median step time and the steps per second it allows.
  std::string summary() const;
  // The simulated shape's vertices (empty without a shape simulation, e.g. in rig mode).
  std::span<const Vec3f> shown_vertices() const;
  const std::string& error() const { return error_; }

 private:
  void rebuild(const Character& character, render::Renderer& renderer);
  void upload_mesh(const Character& character, render::Renderer& renderer);
  void upload_pins(render::Renderer& renderer);
  void play_script(const PhysicsFrame& f);
  void report(const PhysicsFrame& f) const;
  bool press_at_pixel(const PhysicsFrame& f, const Vec2f& pixel);
  void press_at_vertex(std::size_t vertex, const PhysicsFrame& f);
  Vec3d drag_target_at_pixel(const PhysicsFrame& f, const Vec2f& pixel) const;
  void live_changed();
  void record_step(const PhysicsStats& stats);
  bool setting_rows(const std::function<bool(const ParameterDescription&)>& shown);
  bool panel_rebuild_settings();
  bool panel_pins();
  void panel_live_settings();
  fields::MeshFields neural_fields();

  PhysicsOptions options_;
  PhysicsSettings settings_;
  bool enabled_ = false, rig_mode_ = false;
  const Character* character_ = nullptr;
  std::unique_ptr<PhysicsSession> session_;
  std::unique_ptr<RigPhysicsSession> rig_session_;
  std::unique_ptr<SplatView> splats_;
  std::unique_ptr<render::Overlay> overlay_;
  fields::MeshFields neural_;
  bool rebuild_pending_ = false, pins_dirty_ = true, mesh_has_ball_ = false;
  std::vector<float> pin_values_;  // per shown vertex: 1 pinned, 0 free

  // Mouse and script state.
  bool dragging_ = false, mouse_drag_ = false, painting_ = false, paint_mode_ = false, erase_mode_ = false;
  Vec3d drag_plane_point_ = Vec3d::Zero(), drag_plane_normal_ = Vec3d::UnitZ();
  std::optional<Vec3d> last_grabbed_rest_;  // file frame: reports follow it after release
  ScriptPlayer script_;
  double time_ = 0;                                                  // viewer seconds since the mode started
  FrameStatistics step_times_{1u << 16}, step_cpu_times_{1u << 16};  // ms per physics step: wall, CPU
  std::string error_;
};

}  // namespace wobble::viewer
