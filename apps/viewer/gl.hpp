#pragma once
// GL entry points for the viewer's own few calls (viewport, clear, read-back): libepoxy on the
// desktop, the GLES 3 headers under Emscripten (WebGL 2), as the renderer does. GLFW is included
// after, without its own GL header.
#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#include <epoxy/gl.h>
#endif
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
