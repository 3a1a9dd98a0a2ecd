#pragma once
// Simple coloured geometry drawn over a Renderer's picture (after Renderer::draw, into the same
// framebuffer, depth-tested against it): lines, points and translucent triangles, e.g. the
// viewer's physics planes, drag handles and gizmos. Collect with add_*, then draw() and clear().
#include <memory>
#include <vector>

#include <wobble/math.hpp>
#include <wobble/render/camera.hpp>

namespace wobble::render {

class Overlay {
 public:
  // Needs a current OpenGL 3.3 core / ES 3.0 context.
  Overlay();
  ~Overlay();

  void add_line(const Vec3f& a, const Vec3f& b, const Vec4f& color);
  void add_point(const Vec3f& p, const Vec4f& color);
  void add_triangle(const Vec3f& a, const Vec3f& b, const Vec3f& c, const Vec4f& color);
  // Draws what was added (triangles blended, then lines, then points of `point_size` pixels);
  // `on_top`: lines and points ignore the depth buffer (handles stay visible).
  void draw(const OrbitCamera& camera, int width, int height, float point_size = 10.0f, bool on_top = false);
  void clear();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace wobble::render
