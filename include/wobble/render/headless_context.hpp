#pragma once
// DESKTOP ONLY (src/render/headless_context.cpp, EGL): an OpenGL 3.3 core context without any
// window or X server (EGL surfaceless, or a 1x1 pbuffer), made current on the calling thread.
#include <memory>
#include <string>

namespace wobble::render {

class HeadlessContext {
 public:
  // Throws Error with one line saying what failed (no EGL display, no OpenGL 3.3, ...).
  HeadlessContext();
  ~HeadlessContext();
  // "OpenGL <version> (<renderer>)" of the context.
  std::string description() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace wobble::render
