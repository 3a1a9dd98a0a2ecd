#include "render/panel.hpp"

#include <wobble/error.hpp>

namespace wobble::cli {

RenderPanel::RenderPanel(const Character& character, const std::string& stack, const nlohmann::json& settings, bool gpu,
                         std::string label)
    : character_(character), label_(std::move(label)), gpu_(gpu) {
  renderer_ = std::make_unique<render::Renderer>();
  renderer_->set_mesh(character.mesh);
  if (!gpu) {
    stack_ = std::make_unique<DeformerStack>(DeformerStack::parse(stack, settings));
    stack_->bind(character);
    return;
  }
  if (stack != "lbs" && stack != "lbs,dynamic") {
    fail_plain("--skinning gpu runs 'lbs' or 'lbs,dynamic' in the vertex shader, not '{}' (use --skinning cpu)", stack);
  }
  if (!character.is_skinned()) fail(character.source, "has no skin: the GPU path needs one");
  for (const auto& [name, section] : settings.items()) {
    if (name != "lbs" && name != "dynamic") fail_plain("settings for deformer '{}', which is not in the stack '{}'", name, stack);
  }
  dynamic_ = stack == "lbs,dynamic";
  if (dynamic_) {
    dynamic_parameters_ = dynamic_parameters_from_json(settings.value("dynamic", nlohmann::json::object()));
    try {
      dynamic_state_.initialize(character, dynamic_parameters_);
    } catch (const Error& error) {
      fail(character.source, "{}", error.what());
    }
  }
  renderer_->set_skin(character.skin, character.rig.joint_count(), dynamic_ ? &dynamic_state_ : nullptr);
}

void RenderPanel::update(const FrameInput& frame) {
  if (!gpu_) {
    stack_->evaluate(frame, positions_, normals_);
    for (const Vec3f& p : positions_) {
      if (!p.allFinite()) fail(character_.source, "deformer stack produced a non-finite position at t = {} s", frame.time);
    }
    renderer_->set_positions(positions_, normals_);
    return;
  }
  if (dynamic_) dynamic_state_.advance(dynamic_parameters_, frame.pose, frame.time, frame.pose_at);
  renderer_->set_pose(frame.pose, dynamic_ ? &dynamic_state_ : nullptr);
}

}  // namespace wobble::cli
