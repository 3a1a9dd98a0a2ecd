#include <wobble/render/offscreen.hpp>

#include <algorithm>
#include <cstring>

#include <wobble/error.hpp>

#include "core/fail.hpp"
#include "render/gl.hpp"

namespace wobble::render {

struct OffscreenTarget::State {
  int width = 0, height = 0, samples = 0;
  GLuint draw_framebuffer = 0, color = 0, depth = 0;  // multisampled (or plain when samples = 0)
  GLuint resolve_framebuffer = 0, resolve_color = 0;  // single-sampled copy for reading
};

OffscreenTarget::OffscreenTarget(int width, int height, int samples) : state_(std::make_unique<State>()) {
  State& s = *state_;
  if (width <= 0 || height <= 0) fail_plain("off-screen target: size {}x{} is not positive", width, height);
  GLint max_size = 0, max_samples = 0;
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_size);
  glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
  if (width > max_size || height > max_size) {
    fail_plain("off-screen target: {}x{} exceeds this OpenGL's limit of {} pixels", width, height, max_size);
  }
  s.width = width;
  s.height = height;
  s.samples = std::clamp(samples, 0, static_cast<int>(max_samples));
  glGenFramebuffers(1, &s.draw_framebuffer);
  glGenRenderbuffers(1, &s.color);
  glGenRenderbuffers(1, &s.depth);
  glBindFramebuffer(GL_FRAMEBUFFER, s.draw_framebuffer);
  glBindRenderbuffer(GL_RENDERBUFFER, s.color);
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, s.samples, GL_RGBA8, width, height);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, s.color);
  glBindRenderbuffer(GL_RENDERBUFFER, s.depth);
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, s.samples, GL_DEPTH_COMPONENT24, width, height);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, s.depth);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    fail_plain("off-screen target: the {}x{} framebuffer is incomplete", width, height);
  }
  glGenFramebuffers(1, &s.resolve_framebuffer);
  glGenRenderbuffers(1, &s.resolve_color);
  glBindFramebuffer(GL_FRAMEBUFFER, s.resolve_framebuffer);
  glBindRenderbuffer(GL_RENDERBUFFER, s.resolve_color);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, s.resolve_color);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glBindRenderbuffer(GL_RENDERBUFFER, 0);
}

OffscreenTarget::~OffscreenTarget() {
  State& s = *state_;
  const GLuint framebuffers[] = {s.draw_framebuffer, s.resolve_framebuffer};
  glDeleteFramebuffers(2, framebuffers);
  const GLuint renderbuffers[] = {s.color, s.depth, s.resolve_color};
  glDeleteRenderbuffers(3, renderbuffers);
}

int OffscreenTarget::width() const { return state_->width; }
int OffscreenTarget::height() const { return state_->height; }

void OffscreenTarget::bind() { glBindFramebuffer(GL_FRAMEBUFFER, state_->draw_framebuffer); }

RgbaImage OffscreenTarget::read() {
  State& s = *state_;
  glBindFramebuffer(GL_READ_FRAMEBUFFER, s.draw_framebuffer);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, s.resolve_framebuffer);
  glBlitFramebuffer(0, 0, s.width, s.height, 0, 0, s.width, s.height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, s.resolve_framebuffer);
  RgbaImage image(s.width, s.height);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  std::vector<std::uint8_t> bottom_up(image.pixels.size());
  glReadPixels(0, 0, s.width, s.height, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up.data());
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  // OpenGL's rows start at the bottom; images start at the top.
  const std::size_t row = 4 * static_cast<std::size_t>(s.width);
  for (int y = 0; y < s.height; ++y) {
    std::memcpy(image.pixels.data() + row * y, bottom_up.data() + row * (s.height - 1 - y), row);
  }
  return image;
}

}  // namespace wobble::render
