#pragma once
// The viewer's window: GLFW with an OpenGL 3.3 core context on the desktop (WebGL 2 on a canvas
// in the browser), made current; collects files dropped onto it.
#include <string>
#include <vector>

struct GLFWwindow;

namespace wobble::viewer {

class Window {
 public:
  // Throws Error with one line when there is no display or no suitable OpenGL.
  Window(int width, int height, const std::string& title);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  GLFWwindow* handle() const { return window_; }
  bool should_close() const;
  void framebuffer_size(int& width, int& height) const;
  void swap_buffers();
  // Files dropped since the last call, oldest first.
  std::vector<std::string> take_dropped_files();

 private:
  GLFWwindow* window_ = nullptr;
  std::vector<std::string> dropped_;
};

}  // namespace wobble::viewer
