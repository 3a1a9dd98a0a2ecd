#include <wobble/render/gpu_skinning.hpp>

#include <wobble/error.hpp>

namespace wobble::render {

std::string GpuSkinning::unsupported_reason(const StackDescription& stack) {
  const auto entries = stack.entries();
  const bool lbs_first = !entries.empty() && entries[0].deformer->name == "lbs";
  const bool rest_supported = entries.size() == 1 || (entries.size() == 2 && entries[1].deformer->name == "dynamic");
  if (lbs_first && rest_supported) return {};
  return "the GPU path runs 'lbs' or 'lbs,dynamic' in the vertex shader, not '" + stack.text() + "'";
}

bool GpuSkinning::supports(const StackDescription& stack) { return unsupported_reason(stack).empty(); }

void GpuSkinning::bind(Renderer& renderer, const Character& character, const StackDescription& stack,
                       const StackSettings& settings) {
  if (const std::string reason = unsupported_reason(stack); !reason.empty()) fail_plain("{} (use the CPU path)", reason);
  if (!character.is_skinned()) fail(character.source, "has no skin: the GPU path needs one");
  character_ = &character;
  dynamic_.reset();
  if (stack.contains("dynamic")) {
    dynamic_ = settings.get("dynamic");
    try {
      state_.initialize(character, dynamic_->as<DynamicSkinningParameters>());
    } catch (const Error& error) {
      fail(character.source, "{}", error.what());
    }
  }
  renderer.set_skin(character.skin, character.rig.joint_count(), dynamic_ ? &state_ : nullptr);
}

void GpuSkinning::update_settings(const StackSettings& settings) {
  if (!dynamic_) return;
  DeformerSettings next = settings.get("dynamic");
  const bool rebind = next.bind_differs(*dynamic_);
  dynamic_ = std::move(next);
  if (rebind && character_) state_.initialize(*character_, dynamic_->as<DynamicSkinningParameters>());
}

void GpuSkinning::start_periodic(const PoseSampler& pose_at, double cycle_start, double period, double clip_time) {
  if (!dynamic_) return;
  dynamic_->advance_to(std::isnan(clip_time) ? cycle_start : clip_time);
  state_.start_periodic(dynamic_->as<DynamicSkinningParameters>(), pose_at, cycle_start, period);
}

void GpuSkinning::update(Renderer& renderer, const Pose& pose, double time, const PoseSampler& pose_at,
                         double clip_time) {
  if (dynamic_) {
    dynamic_->advance_to(std::isnan(clip_time) ? time : clip_time);
    state_.advance(dynamic_->as<DynamicSkinningParameters>(), pose, time, pose_at);
  }
  renderer.set_pose(pose, dynamic_ ? &state_ : nullptr);
}

}  // namespace wobble::render
