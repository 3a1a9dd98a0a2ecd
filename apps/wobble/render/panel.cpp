#include "render/panel.hpp"

#include <wobble/offline/bake.hpp>
#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble::cli {

RenderPanel::RenderPanel(const Character& character, const StackDescription& stack, const StackSettings& settings,
                         bool gpu, std::string label)
    : character_(character), label_(std::move(label)), gpu_(gpu) {
  renderer_ = std::make_unique<render::Renderer>();
  renderer_->set_mesh(character.mesh);
  if (!gpu) {
    stack_ = std::make_unique<DeformerStack>(stack, settings);
    stack_->bind(character);
    return;
  }
  if (const std::string reason = render::GpuSkinning::unsupported_reason(stack, settings); !reason.empty()) {
    fail_plain("--skinning gpu: {} (use --skinning cpu)", reason);
  }
  gpu_skinning_.bind(*renderer_, character, stack, settings);
}

void RenderPanel::start_history(const BakeMotion& motion, double fps, ThreadPool* pool) {
  if (!gpu_) return wobble::start_history(*stack_, character_, motion, fps, pool);
  const PoseSampler pose_at = motion.pose_sampler();
  if (motion.periodic()) {
    const double origin = motion.history_origin();
    gpu_skinning_.start_periodic(pose_at, origin, motion.cycle()->period, motion.clip_time(origin));
  }
  Pose pose;
  for (double t : motion.pre_roll_times(fps)) {
    motion.pose(t, pose);
    gpu_skinning_.update(*renderer_, pose, t, pose_at, motion.clip_time(t));
  }
}

void RenderPanel::update(const FrameInput& frame) {
  if (!gpu_) {
    stack_->evaluate(frame, positions_, normals_);
    for (const Vec3f& p : positions_) {
      if (!p.allFinite())
        fail(character_.source, "deformer stack produced a non-finite position at t = {} s", frame.time);
    }
    renderer_->set_positions(positions_, normals_);
    return;
  }
  gpu_skinning_.update(*renderer_, frame.pose, frame.time, frame.pose_at, frame.clip_time);
}

}  // namespace wobble::cli
