#pragma once
// wobble-viewer's application state and one frame of it: the character, playback, the deformer
// stack (CPU path) or the renderer's skinning shader (GPU path), pose overrides from dragged
// joints, the bend-weight brush, the camera, and the Dear ImGui panels. Platform-neutral: the
// desktop and the browser builds drive it from their own main loops.
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <wobble/character.hpp>
#include <wobble/deformer.hpp>
#include <wobble/dynamic_skinning.hpp>
#include <wobble/io/image.hpp>
#include <wobble/io/files.hpp>
#include <wobble/parallel.hpp>
#include <wobble/pose.hpp>
#include <wobble/render/camera.hpp>
#include <wobble/render/gpu_skinning.hpp>
#include <wobble/render/renderer.hpp>

#include "bend_weight_brush.hpp"
#include "bundled_characters.hpp"
#include "cycle_loop.hpp"
#include "frame_statistics.hpp"
#include "joint_drag.hpp"
#include "physics_mode.hpp"
#include "playback.hpp"
#include "stack_editor.hpp"
#include "viewer_options.hpp"

namespace wobble::viewer {

enum class HeatMap { None, BendWeight, SkinWeight, HierarchicalWeight };

class Viewer {
 public:
  // Needs a current OpenGL context. Opens options.file (or the first bundled character); throws
  // Error if that fails, or if the stack or settings given are wrong.
  explicit Viewer(const ViewerOptions& options);
  ~Viewer();

  // Loads a character and keeps the stack; on failure keeps the current one, shows the error
  // and returns false.
  bool open(const std::filesystem::path& file);
  void set_character(Character character);

  // One frame: advances by dt seconds, deforms, draws into the bound framebuffer (width x
  // height pixels) and builds the UI (between ImGui::NewFrame and ImGui::Render).
  void frame(double dt, int width, int height);

  // Whole-frame times, measured by the main loop (shown on screen).
  FrameStatistics& frame_times() { return frame_times_; }
  const FrameStatistics& deform_times() const { return deform_times_; }
  double last_deform_ms() const { return last_deform_ms_; }
  bool gpu_path() const { return use_gpu_ && gpu_available(); }
  void set_gpu(bool gpu);
  const Character& character() const { return *character_; }
  const std::string& error() const { return error_; }
  // Records the CPU path's deformed positions of every frame from now on (automation: --record),
  // and writes them as a PC2 point cache (`fps` samples per second; the times are played times:
  // clip times without a loop's wraps).
  // Records every frame's positions (the deformed character's, or the physics mode's shape).
  void start_recording() { recording_ = true; }
  void write_recording(const std::filesystem::path& path, double fps) const;
  // The vertices on screen: the physics mode's shape while it runs, else the CPU path's deformed
  // positions (empty on the GPU path).
  std::span<const Vec3f> shown_positions() const;
  // The physics mode's benchmark line (empty when it did not run).
  std::string physics_summary() const { return physics_.summary(); }

 private:
  bool gpu_available() const;
  void choose_clip(int clip);
  // A new stack (composition changed): every deformer is created and bound afresh.
  void rebuild_stack();
  // New settings for the same stack: live values keep the motion; bind ones rebind that deformer.
  void apply_settings();
  void compute_pose();
  // Moves the camera target with the character's root over the ground, keeping the user's orbit.
  void follow_character();
  Vec3f root_on_ground() const;
  // Starts the effects in the cycle's periodic steady state when a loop of a cycle (re)starts.
  void start_loop(const PoseSampler& pose_at, bool on_gpu);
  void deform();
  void record_physics_frame();
  void update_heat_map();
  void handle_mouse(int width, int height);
  void paint(const Vec2f& pixel, int width, int height);
  void commit_bend_weights();
  void draw_ui(int width, int height);
  void draw_hud(int width, float scale);
  void draw_character_section();
  void draw_playback_section();
  void draw_view_section();
  void draw_brush_section();
  void save_settings();
  void save_gltf();
  void show_error(const std::string& message);
  PhysicsFrame physics_frame(double dt, int width, int height);

  ViewerOptions options_;
  std::unique_ptr<render::Renderer> renderer_;
  std::unique_ptr<Character> character_;
  std::vector<BundledCharacter> bundled_;
  int clip_ = -1;
  Playback playback_;
  CycleLoop cycle_loop_;      // the clip's cycle: loop playback in the periodic steady state
  bool loop_on_gpu_ = false;  // the path the steady state was started on

  StackEditor stack_editor_;
  bool recording_ = false;
  BakedFrames recorded_;  // times are played times (increasing over a loop)
  DeformerStack stack_;
  bool stack_ready_ = false;
  std::unique_ptr<ThreadPool> pool_;

  bool use_gpu_ = false;
  render::GpuSkinning gpu_skinning_;

  Pose pose_;
  std::vector<Vec3f> positions_, normals_;
  bool positions_valid_ = false;

  render::OrbitCamera camera_;
  bool follow_character_ = true;  // a walking clip stays in view
  Vec3f followed_root_ = Vec3f::Zero();
  render::DrawOptions draw_options_;
  HeatMap heat_map_ = HeatMap::None;
  bool heat_map_dirty_ = true;
  JointDrag joints_;
  bool orbiting_ = false;

  BendWeightBrush brush_;
  BrushSettings brush_settings_;
  bool painting_mode_ = false, painting_ = false;
  std::vector<float> bend_weights_;

  PhysicsMode physics_;

  FrameStatistics frame_times_, deform_times_;
  double last_deform_ms_ = 0;
  std::string error_;
  std::string open_path_, save_path_;
};

}  // namespace wobble::viewer
