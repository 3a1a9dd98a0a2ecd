#pragma once
// The GPU path of a deformer stack: the renderer's vertex shader runs LBS, optionally followed
// by the Dynamic Skinning offsets ("lbs" or "lbs,dynamic"). This object owns the Dynamic
// Skinning state the shader reads (advanced on the CPU once per frame, a few numbers per joint)
// and does the uploads, so that `wobble render` and the viewer drive the GPU path the same way.
#include <string_view>

#include <nlohmann/json.hpp>

#include <wobble/character.hpp>
#include <wobble/dynamic_skinning.hpp>
#include <wobble/render/renderer.hpp>

namespace wobble::render {

class GpuSkinning {
 public:
  // Whether the vertex shader can run this stack ("lbs" or "lbs,dynamic").
  static bool supports(std::string_view stack);
  // Uploads the character's skin to `renderer`; for "lbs,dynamic" initialises the state from
  // `dynamic_settings` (the settings file's "dynamic" section, or an empty object). Throws Error
  // for an unsupported stack, an unskinned character or invalid settings.
  void bind(Renderer& renderer, const Character& character, std::string_view stack,
            const nlohmann::json& dynamic_settings);
  // Advances the effect to `time` (the pose of that time; `pose_at` samples in-between poses
  // when the clip is the source, may be empty) and uploads the pose.
  void update(Renderer& renderer, const Pose& pose, double time, const PoseSampler& pose_at);
  // Forgets the motion history (a timeline jump): the next update starts at rest.
  void reset() { state_.reset(); }

 private:
  bool dynamic_ = false;
  DynamicSkinningParameters parameters_;
  DynamicSkinningState state_;
};

}  // namespace wobble::render
