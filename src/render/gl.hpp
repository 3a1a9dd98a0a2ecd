#pragma once
// The one place that chooses how GL entry points are reached: libepoxy on the desktop (works with
// EGL and GLX contexts alike), the GLES 3 headers under Emscripten (WebGL 2). Renderer code uses
// only OpenGL 3.3 core ∩ OpenGL ES 3.0.
#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#include <epoxy/gl.h>
#endif

namespace wobble::render {

// The first lines of every shader: GLSL 3.30 core on the desktop, GLSL ES 3.00 with high
// precision defaults on the web (the tests also compile the web variant on the desktop).
inline constexpr const char* kDesktopShaderPrelude = "#version 330 core\n";
inline constexpr const char* kWebShaderPrelude =
    "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp sampler2D;\n";

inline const char* shader_prelude() {
#ifdef __EMSCRIPTEN__
  return kWebShaderPrelude;
#else
  return kDesktopShaderPrelude;
#endif
}

}  // namespace wobble::render
