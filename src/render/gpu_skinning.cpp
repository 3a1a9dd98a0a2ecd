#include <wobble/render/gpu_skinning.hpp>

#include <wobble/delta_mush.hpp>
#include <wobble/direct_delta_mush.hpp>
#include <wobble/error.hpp>
#include "core/fail.hpp"

namespace wobble::render {

namespace {

// The stacks the GPU path runs: lbs, then dynamic, then deltamush; or lbs,ddm.
bool supported_shape(const StackDescription& stack) {
  const auto entries = stack.entries();
  if (entries.empty() || entries[0].deformer->name != "lbs") return false;
  if (entries.size() == 2 && entries[1].deformer->name == "ddm") return true;
  std::size_t next = 1;
  if (next < entries.size() && entries[next].deformer->name == "dynamic") ++next;
  if (next < entries.size() && entries[next].deformer->name == "deltamush") ++next;
  return next == entries.size();
}

}  // namespace

std::string GpuSkinning::unsupported_reason(const StackDescription& stack) {
  if (supported_shape(stack)) return {};
  return "the GPU path runs 'lbs', 'lbs,dynamic', 'lbs,deltamush', 'lbs,dynamic,deltamush' or 'lbs,ddm', not '" +
         stack.text() + "'";
}

std::string GpuSkinning::unsupported_reason(const StackDescription& stack, const StackSettings& settings) {
  if (std::string reason = unsupported_reason(stack); !reason.empty()) return reason;
  if (stack.contains("deltamush") &&
      settings.get("deltamush").as<DeltaMushParameters>().mush.mode != MushMode::Wobble) {
    return "the GPU path runs Delta Mush in mode 'wobble', not 'blender' (its weights follow the positions)";
  }
  return {};
}

bool GpuSkinning::supports(const StackDescription& stack) { return unsupported_reason(stack).empty(); }

void GpuSkinning::bind(Renderer& renderer, const Character& character, const StackDescription& stack,
                       const StackSettings& settings) {
  if (const std::string reason = unsupported_reason(stack, settings); !reason.empty()) {
    fail_plain("{} (use the CPU path)", reason);
  }
  if (!character.is_skinned()) fail(character.source, "has no skin: the GPU path needs one");
  renderer_ = &renderer;
  character_ = nullptr;  // until bound
  dynamic_.reset();
  mush_.reset();
  ddm_.reset();
  if (stack.contains("dynamic")) {
    dynamic_ = settings.get("dynamic");
    try {
      state_.initialize(character, dynamic_->as<DynamicSkinningParameters>());
    } catch (const Error& error) {
      fail(character.source, "{}", error.what());
    }
  }
  renderer.set_skin(character.skin, character.rig.joint_count(), dynamic_ ? &state_ : nullptr);
  character_ = &character;
  try {
    bind_post_deformer(stack, settings);
  } catch (...) {
    character_ = nullptr;
    throw;
  }
}

void GpuSkinning::bind_post_deformer(const StackDescription& stack, const StackSettings& settings) {
  if (stack.contains("deltamush")) {
    mush_ = settings.get("deltamush");
    bind_delta_mush();
  }
  if (stack.contains("ddm")) {
    ddm_ = settings.get("ddm");
    bind_direct_delta_mush();
  }
}

void GpuSkinning::bind_delta_mush() {
  const DeltaMushSettings settings = delta_mush_settings_for(*character_, mush_->as<DeltaMushParameters>());
  DeltaMush mush;
  try {
    mush.bind(character_->mesh.positions, character_->mesh.triangles, settings);
  } catch (const Error& error) {
    fail(character_->source, "deltamush: {}", error.what());
  }
  renderer_->set_delta_mush(mush);
  bound_mush_step_ = settings.step;
}

void GpuSkinning::bind_direct_delta_mush() {
  DirectDeltaMush ddm;
  try {
    ddm.bind(character_->mesh.positions, character_->mesh.triangles, character_->skin, character_->rig.joint_count(),
             ddm_->as<DirectDeltaMushSettings>());
  } catch (const Error& error) {
    fail(character_->source, "{}", error.what());
  }
  renderer_->set_direct_delta_mush(ddm);
}

// Delta Mush's live values: scale and smooth_only act on the output; a new step changes the
// operator (rebuilt, as the CPU deformer does).
void GpuSkinning::apply_mush_live_values() {
  const DeltaMushSettings& mush = mush_->as<DeltaMushParameters>().mush;
  if (mush.step != bound_mush_step_) {
    bind_delta_mush();
  } else {
    renderer_->set_delta_mush_output(mush.scale, mush.smooth_only);
  }
}

void GpuSkinning::update_settings(const StackSettings& settings) {
  if (!character_) return;
  if (dynamic_) {
    DeformerSettings next = settings.get("dynamic");
    const bool rebind = next.bind_differs(*dynamic_);
    dynamic_ = std::move(next);
    if (rebind) state_.initialize(*character_, dynamic_->as<DynamicSkinningParameters>());
  }
  if (mush_) {
    DeformerSettings next = settings.get("deltamush");
    const bool rebind = next.bind_differs(*mush_);
    mush_ = std::move(next);
    if (rebind) {
      bind_delta_mush();
    } else {
      apply_mush_live_values();
    }
  }
  if (ddm_) {
    DeformerSettings next = settings.get("ddm");
    const bool rebind = !(next == *ddm_);
    ddm_ = std::move(next);
    if (rebind) bind_direct_delta_mush();
  }
}

void GpuSkinning::start_periodic(const PoseSampler& pose_at, double cycle_start, double period, double clip_time) {
  if (!dynamic_) return;
  dynamic_->advance_to(std::isnan(clip_time) ? cycle_start : clip_time);
  state_.start_periodic(dynamic_->as<DynamicSkinningParameters>(), pose_at, cycle_start, period);
}

void GpuSkinning::update(Renderer& renderer, const Pose& pose, double time, const PoseSampler& pose_at,
                         double clip_time) {
  if (!character_) fail_plain("the GPU path was not bound (use the CPU path)");
  const double key_time = std::isnan(clip_time) ? time : clip_time;
  if (dynamic_) {
    dynamic_->advance_to(key_time);
    state_.advance(dynamic_->as<DynamicSkinningParameters>(), pose, time, pose_at);
  }
  if (mush_ && mush_->advance_to(key_time)) apply_mush_live_values();
  renderer.set_pose(pose, dynamic_ ? &state_ : nullptr);
}

}  // namespace wobble::render
