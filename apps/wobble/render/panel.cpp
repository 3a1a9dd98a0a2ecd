#include "core/fail.hpp"
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
  if (!render::GpuSkinning::supports(stack)) {
    fail_plain("--skinning gpu runs 'lbs' or 'lbs,dynamic' in the vertex shader, not '{}' (use --skinning cpu)", stack);
  }
  for (const auto& [name, section] : settings.items()) {
    if (name != "lbs" && name != "dynamic") fail_plain("settings for deformer '{}', which is not in the stack '{}'", name, stack);
  }
  gpu_skinning_.bind(*renderer_, character, stack, settings.value("dynamic", nlohmann::json::object()));
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
  gpu_skinning_.update(*renderer_, frame.pose, frame.time, frame.pose_at);
}

}  // namespace wobble::cli
