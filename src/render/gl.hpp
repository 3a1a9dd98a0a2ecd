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

// The first line of every shader: `#version 330 core` on the desktop, `#version 300 es` with
// high precision defaults on the web.
inline const char* shader_prelude() {
#ifdef __EMSCRIPTEN__
  return "#version 300 es\nprecision highp float;\nprecision highp int;\nprecision highp sampler2D;\n";
#else
  return "#version 330 core\n";
#endif
}

}  // namespace wobble::render
