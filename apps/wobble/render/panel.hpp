#pragma once
// One panel of `wobble render`: a deformer stack run on the CPU (any stack) or on the GPU
// (lbs, optionally followed by dynamic: the renderer's vertex shader), drawn off-screen.
#include <memory>
#include <string>
#include <vector>

#include <wobble/parameters.hpp>
#include <wobble/stack.hpp>

#include <wobble/offline/bake_motion.hpp>
#include <wobble/deformer.hpp>
#include <wobble/io/image.hpp>
#include <wobble/render/gpu_skinning.hpp>
#include <wobble/render/renderer.hpp>

namespace wobble::cli {

class RenderPanel {
 public:
  // Binds the stack (CPU) or uploads the skin (GPU). Throws Error naming the character's file.
  RenderPanel(const Character& character, const StackDescription& stack, const StackSettings& settings, bool gpu,
              std::string label);
  // Starts the history for `motion`'s first frame, as bake() does (a loop's periodic steady state,
  // the frames before the first run and not drawn).
  void start_history(const BakeMotion& motion, double fps, ThreadPool* pool);
  // Deforms for this frame (the pose of time t) and uploads the result.
  void update(const FrameInput& frame);
  render::Renderer& renderer() { return *renderer_; }
  const std::string& label() const { return label_; }

 private:
  const Character& character_;
  std::unique_ptr<render::Renderer> renderer_;
  std::string label_;
  bool gpu_ = false;
  // CPU path.
  std::unique_ptr<DeformerStack> stack_;
  std::vector<Vec3f> positions_, normals_;
  // GPU path.
  render::GpuSkinning gpu_skinning_;
};

}  // namespace wobble::cli
