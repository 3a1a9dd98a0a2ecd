#pragma once
// The GPU path of a deformer stack: the renderer's vertex shader runs LBS, optionally followed
// by the Dynamic Skinning offsets ("lbs" or "lbs,dynamic"). This object owns the Dynamic
// Skinning state the shader reads (advanced on the CPU once per frame, a few numbers per joint)
// and does the uploads, so that `wobble render` and the viewer drive the GPU path the same way.
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include <wobble/character.hpp>
#include <wobble/dynamic_skinning.hpp>
#include <wobble/parameters.hpp>
#include <wobble/render/renderer.hpp>
#include <wobble/stack.hpp>

namespace wobble::render {

class GpuSkinning {
 public:
  // Whether the vertex shader can run this stack ("lbs" or "lbs,dynamic"); otherwise why not.
  static bool supports(const StackDescription& stack);
  static std::string unsupported_reason(const StackDescription& stack);
  // Uploads the character's skin to `renderer`; for "lbs,dynamic" initialises the state from
  // the settings' "dynamic" section. Throws Error for an unsupported stack, an unskinned
  // character or invalid settings.
  void bind(Renderer& renderer, const Character& character, const StackDescription& stack,
            const StackSettings& settings);
  // New live settings: the motion history is kept (a bind parameter change re-initialises).
  void update_settings(const StackSettings& settings);
  // Advances the effect to `time` (the pose of that time; `pose_at` samples in-between poses
  // when the clip is the source, may be empty; keyed parameters follow `clip_time`, NaN: `time`)
  // and uploads the pose.
  void update(Renderer& renderer, const Pose& pose, double time, const PoseSampler& pose_at,
              double clip_time = std::numeric_limits<double>::quiet_NaN());
  // Forgets the motion history (a timeline jump): the next update starts at rest.
  void reset() { state_.reset(); }
  // Seamless loops: the history in the cycle's periodic steady state, as DeformerStack::start_periodic.
  void start_periodic(const PoseSampler& pose_at, double cycle_start, double period,
                      double clip_time = std::numeric_limits<double>::quiet_NaN());

 private:
  const Character* character_ = nullptr;
  std::optional<DeformerSettings> dynamic_;  // set for "lbs,dynamic"
  DynamicSkinningState state_;
};

}  // namespace wobble::render
