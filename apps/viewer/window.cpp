#include "window.hpp"

#include <cstdlib>
#include <utility>

#include <wobble/error.hpp>

#include "core/fail.hpp"
#include "gl.hpp"

namespace wobble::viewer {
namespace {

std::string last_glfw_error;

void record_glfw_error(int, const char* description) { last_glfw_error = description ? description : "unknown"; }

}  // namespace

Window::Window(int width, int height, const std::string& title) {
  glfwSetErrorCallback(record_glfw_error);
#if !defined(__EMSCRIPTEN__) && defined(__linux__)
  // Say plainly what is missing rather than what GLFW's platform layer thinks of it.
  const char* display = std::getenv("DISPLAY");
  const char* wayland = std::getenv("WAYLAND_DISPLAY");
  if ((!display || !*display) && (!wayland || !*wayland))
    fail_plain(
        "no display (DISPLAY is not set): run it in a desktop session or under "
        "xvfb-run -a -s '-screen 0 1280x720x24' (for images without a display: wobble render)");
#endif
  if (!glfwInit()) fail_plain("cannot open a window: {}", last_glfw_error);
#ifdef __EMSCRIPTEN__
  glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
#else
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
#endif
  glfwWindowHint(GLFW_SAMPLES, 4);
  window_ = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
  if (!window_) {
    const std::string why = last_glfw_error;
    glfwTerminate();
    fail_plain("cannot create an OpenGL 3.3 window: {}", why);
  }
  glfwMakeContextCurrent(window_);
  glfwSwapInterval(0);  // frame times measure the work, not the display's refresh
  glfwSetWindowUserPointer(window_, this);
  glfwSetDropCallback(window_, [](GLFWwindow* w, int count, const char** paths) {
    auto* self = static_cast<Window*>(glfwGetWindowUserPointer(w));
    for (int i = 0; i < count; ++i) self->dropped_.emplace_back(paths[i]);
  });
}

Window::~Window() {
  if (window_) glfwDestroyWindow(window_);
  glfwTerminate();
}

bool Window::should_close() const { return glfwWindowShouldClose(window_); }

void Window::framebuffer_size(int& width, int& height) const { glfwGetFramebufferSize(window_, &width, &height); }

void Window::swap_buffers() { glfwSwapBuffers(window_); }

std::vector<std::string> Window::take_dropped_files() { return std::exchange(dropped_, {}); }

}  // namespace wobble::viewer
