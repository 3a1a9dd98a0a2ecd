#pragma once
// Deformers and the deformer stack. Every deformer reads positions and writes positions; a
// stack applies them in order: one base skinning first (lbs, dqs, ...), then additive effects,
// then post-deformers. Stateful deformers own their state and restart on reset(). Each deformer
// is described once (parameters.hpp); the stack is a typed description (stack.hpp).
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <wobble/character.hpp>
#include <wobble/parameters.hpp>
#include <wobble/pose.hpp>
#include <wobble/stack.hpp>

namespace wobble {

class ThreadPool;

// Everything a deformer may read for one frame.
struct FrameInput {
  const Character& character;
  const Pose& pose;            // the pose of this frame (local, world, skinning matrices)
  double time = 0.0;           // animation time, seconds (the effects' clock)
  PoseSampler pose_at;         // empty for interactive posing (effects use finite differences)
  ThreadPool* pool = nullptr;  // null: single-threaded
  // The clip time of this frame, which keyed parameters follow; NaN: `time` (a bake). A viewer
  // that loops a clip keeps `time` running while the clip time wraps.
  double clip_time = std::numeric_limits<double>::quiet_NaN();
};

class Deformer {
 public:
  virtual ~Deformer() = default;
  virtual const DeformerDescription& description() const = 0;
  std::string_view name() const { return description().name; }
  // Before bind(), the stack tells the deformer where it stands (entry `index` of `stack`).
  virtual void set_stack_position(const StackDescription& stack, std::size_t index) {}
  // Caches what depends only on the rest state; called once, before the first evaluate().
  virtual void bind(const Character& character) {}
  // New live values between two frames; the deformer keeps its state. The stack calls it only
  // with settings whose bind parameters equal those the deformer was created with.
  virtual void update(const DeformerSettings& settings) = 0;
  // Forgets history (a jump in time: scrubbing back, a looping clip). Next frame starts afresh.
  virtual void reset() {}
  // Seamless loops: starts the history in the periodic steady state of a cycle of `period` s that
  // begins at `cycle_start`; pose_at gives the pose at any time of the cycle repeated forever. It
  // holds the deformer's current (live) values over the whole cycle. Deformers without history,
  // or whose history is the poses themselves (dLBS samples pose_at), have nothing to do.
  virtual void start_periodic(const PoseSampler& pose_at, double cycle_start, double period) {}
  // Base deformers overwrite positions and normals from the rest mesh; the others modify them.
  // normals may be empty (then they are neither read nor written).
  virtual void evaluate(const FrameInput& frame, std::span<Vec3f> positions, std::span<Vec3f> normals) = 0;
};

class DeformerStack {
 public:
  DeformerStack() = default;
  // The deformers of `stack` with their sections of `settings` (defaults where there is none).
  explicit DeformerStack(StackDescription stack, const StackSettings& settings = {});
  // As above from the stack's text; throws Error as StackDescription::parse does.
  static DeformerStack parse(std::string_view stack, const StackSettings& settings = {});

  void bind(const Character& character);
  // New settings, between frames: live changes keep every deformer's state (the wobble goes on);
  // a deformer whose bind parameters changed is recreated and rebound (its history restarts).
  void update(const StackSettings& settings);
  void reset();
  // Every deformer's history in the periodic steady state of a cycle (Deformer::start_periodic),
  // keyed parameters first put at `clip_time` (NaN: cycle_start), the clip time of the cycle's start.
  void start_periodic(const PoseSampler& pose_at, double cycle_start, double period,
                      double clip_time = std::numeric_limits<double>::quiet_NaN());
  // True when a parameter of some deformer follows keyframes.
  bool keyed() const;
  // Runs the stack: positions and normals are resized to the mesh and filled. Without a base
  // deformer they start from the rest mesh. Keyed parameters are first put at the frame's clip time.
  void evaluate(const FrameInput& frame, std::vector<Vec3f>& positions, std::vector<Vec3f>& normals);
  // The same into the caller's buffers (an engine's, the C API's): positions has the mesh's
  // vertex count; normals too, or is empty (then normals are neither read nor written).
  void evaluate(const FrameInput& frame, std::span<Vec3f> positions, std::span<Vec3f> normals);

  const StackDescription& description() const { return description_; }
  std::string spec() const { return description_.text(); }
  const StackSettings& settings() const { return settings_; }
  const std::vector<std::unique_ptr<Deformer>>& deformers() const { return deformers_; }

 private:
  void create(std::size_t index);
  void advance_keys(double clip_time);  // keyed parameters at their values at clip_time
  StackDescription description_;
  StackSettings settings_;
  std::vector<DeformerSettings> current_;  // per deformer: the settings it runs with
  std::vector<std::unique_ptr<Deformer>> deformers_;
  const Character* bound_ = nullptr;
};

}  // namespace wobble
