// DESKTOP ONLY: a windowless OpenGL 3.3 core context through EGL (Mesa: surfaceless platform, or
// the default display with a 1x1 pbuffer). Not compiled for the web.
#include <wobble/render/headless_context.hpp>

#include <cstring>

#include <epoxy/egl.h>
#include <epoxy/gl.h>
#include <fmt/core.h>

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble::render {

namespace {

const char* egl_error_name(EGLint error) {
  switch (error) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    default: return "unknown EGL error";
  }
}

[[noreturn]] void fail_egl(const char* what) {
  fail_plain("OpenGL: no headless context: {} failed ({}); is Mesa's libgl1-mesa-dri installed?", what,
             egl_error_name(eglGetError()));
}

bool has_extension(const char* list, const char* name) {
  if (!list) return false;
  const std::size_t length = std::strlen(name);
  for (const char* p = std::strstr(list, name); p; p = std::strstr(p + length, name)) {
    if ((p == list || p[-1] == ' ') && (p[length] == ' ' || p[length] == '\0')) return true;
  }
  return false;
}

}  // namespace

struct HeadlessContext::State {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  EGLSurface surface = EGL_NO_SURFACE;
};

HeadlessContext::HeadlessContext() : state_(std::make_unique<State>()) {
  State& s = *state_;
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (has_extension(client, "EGL_MESA_platform_surfaceless") && has_extension(client, "EGL_EXT_platform_base")) {
    s.display = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  }
  EGLint major = 0, minor = 0;
  if (s.display == EGL_NO_DISPLAY || !eglInitialize(s.display, &major, &minor)) {
    s.display = eglGetDisplay(EGL_DEFAULT_DISPLAY);
    if (s.display == EGL_NO_DISPLAY) fail_egl("eglGetDisplay");
    if (!eglInitialize(s.display, &major, &minor)) fail_egl("eglInitialize");
  }
  if (!eglBindAPI(EGL_OPENGL_API)) {
    eglTerminate(s.display);
    fail_egl("eglBindAPI(OpenGL)");
  }
  const bool surfaceless = has_extension(eglQueryString(s.display, EGL_EXTENSIONS), "EGL_KHR_surfaceless_context");
  const EGLint config_attributes[] = {EGL_SURFACE_TYPE,
                                      surfaceless ? 0 : EGL_PBUFFER_BIT,
                                      EGL_RENDERABLE_TYPE,
                                      EGL_OPENGL_BIT,
                                      EGL_RED_SIZE,
                                      8,
                                      EGL_GREEN_SIZE,
                                      8,
                                      EGL_BLUE_SIZE,
                                      8,
                                      EGL_NONE};
  EGLConfig config = nullptr;
  EGLint count = 0;
  if (!eglChooseConfig(s.display, config_attributes, &config, 1, &count) || count == 0) {
    eglTerminate(s.display);
    fail_egl("eglChooseConfig (an OpenGL configuration)");
  }
  const EGLint context_attributes[] = {
      EGL_CONTEXT_MAJOR_VERSION,           3,       EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
      EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  s.context = eglCreateContext(s.display, config, EGL_NO_CONTEXT, context_attributes);
  if (s.context == EGL_NO_CONTEXT) {
    eglTerminate(s.display);
    fail_egl("eglCreateContext (OpenGL 3.3 core)");
  }
  if (!surfaceless) {
    const EGLint pbuffer_attributes[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
    s.surface = eglCreatePbufferSurface(s.display, config, pbuffer_attributes);
    if (s.surface == EGL_NO_SURFACE) {
      eglDestroyContext(s.display, s.context);
      eglTerminate(s.display);
      fail_egl("eglCreatePbufferSurface");
    }
  }
  if (!eglMakeCurrent(s.display, s.surface, s.surface, s.context)) {
    if (s.surface != EGL_NO_SURFACE) eglDestroySurface(s.display, s.surface);
    eglDestroyContext(s.display, s.context);
    eglTerminate(s.display);
    fail_egl("eglMakeCurrent");
  }
  if (const int version = epoxy_gl_version(); version < 33) {
    eglMakeCurrent(s.display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (s.surface != EGL_NO_SURFACE) eglDestroySurface(s.display, s.surface);
    eglDestroyContext(s.display, s.context);
    eglTerminate(s.display);
    fail_plain("OpenGL: the headless context offers OpenGL {}.{}, wobble needs 3.3", version / 10, version % 10);
  }
}

HeadlessContext::~HeadlessContext() {
  if (!state_) return;
  State& s = *state_;
  if (s.display == EGL_NO_DISPLAY) return;
  eglMakeCurrent(s.display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (s.surface != EGL_NO_SURFACE) eglDestroySurface(s.display, s.surface);
  if (s.context != EGL_NO_CONTEXT) eglDestroyContext(s.display, s.context);
  eglTerminate(s.display);
}

std::string HeadlessContext::description() const {
  const auto text = [](GLenum name) {
    const auto* value = reinterpret_cast<const char*>(glGetString(name));
    return std::string(value ? value : "?");
  };
  return fmt::format("OpenGL {} ({})", text(GL_VERSION), text(GL_RENDERER));
}

}  // namespace wobble::render
