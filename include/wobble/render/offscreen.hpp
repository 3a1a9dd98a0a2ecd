#pragma once
// An off-screen framebuffer (multisampled colour and depth) that resolves into an RGBA image.
#include <memory>

#include <wobble/io/image.hpp>

namespace wobble::render {

class OffscreenTarget {
 public:
  // Needs a current GL context; samples are clamped to what the implementation offers.
  OffscreenTarget(int width, int height, int samples = 4);
  ~OffscreenTarget();
  OffscreenTarget(const OffscreenTarget&) = delete;
  OffscreenTarget& operator=(const OffscreenTarget&) = delete;

  int width() const;
  int height() const;
  // Binds it as the draw framebuffer (draw with Renderer::draw(camera, width(), height())).
  void bind();
  // Resolves and reads the picture (top row first); leaves framebuffer 0 bound.
  RgbaImage read();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace wobble::render
