#include <wobble/render/gpu_skinning.hpp>

#include <wobble/error.hpp>
#include "core/fail.hpp"


namespace wobble::render {

bool GpuSkinning::supports(std::string_view stack) { return stack == "lbs" || stack == "lbs,dynamic"; }

void GpuSkinning::bind(Renderer& renderer, const Character& character, std::string_view stack,
                       const nlohmann::json& dynamic_settings) {
  if (!supports(stack)) {
    fail_plain("the GPU path runs 'lbs' or 'lbs,dynamic' in the vertex shader, not '{}' (use the CPU path)", stack);
  }
  if (!character.is_skinned()) fail(character.source, "has no skin: the GPU path needs one");
  dynamic_ = stack == "lbs,dynamic";
  if (dynamic_) {
    parameters_ = dynamic_parameters_from_json(dynamic_settings);
    try {
      state_.initialize(character, parameters_);
    } catch (const Error& error) {
      fail(character.source, "{}", error.what());
    }
  }
  renderer.set_skin(character.skin, character.rig.joint_count(), dynamic_ ? &state_ : nullptr);
}

void GpuSkinning::update(Renderer& renderer, const Pose& pose, double time, const PoseSampler& pose_at) {
  if (dynamic_) state_.advance(parameters_, pose, time, pose_at);
  renderer.set_pose(pose, dynamic_ ? &state_ : nullptr);
}

}  // namespace wobble::render
