#pragma once
// 3D Gaussian splats drawn as screen-space ellipses (point sprites): each Gaussian's covariance is
// projected to the screen (the Jacobian of the perspective map, as EWA splatting does), and a
// fragment is kept where opacity * exp(-d^T Sigma2^-1 d / 2) is above a threshold, so that the
// splats are opaque, depth-tested ellipses in their colour (no sorting, no blending). Drawn after
// Renderer::draw into the same framebuffer.
#include <memory>
#include <span>

#include <wobble/math.hpp>
#include <wobble/render/camera.hpp>

namespace wobble::render {

struct Splat {
  Vec3f center = Vec3f::Zero();
  float covariance[6] = {0, 0, 0, 0, 0, 0};  // xx, xy, xz, yy, yz, zz (world units^2)
  Vec4f color = Vec4f(1, 1, 1, 1);           // linear RGB and opacity in [0, 1]
};

class SplatRenderer {
 public:
  // Needs a current OpenGL 3.3 core / ES 3.0 context.
  SplatRenderer();
  ~SplatRenderer();

  void set_splats(std::span<const Splat> splats);
  std::size_t count() const;
  void draw(const OrbitCamera& camera, int width, int height);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace wobble::render
