#pragma once
// Compiling and linking GLSL programs from sources written once for GLSL 3.30 and GLSL ES 3.00:
// the prelude (version, precision) and any #defines are prepended here.
#include <string>
#include <vector>

#include "render/gl.hpp"

namespace wobble::render {

// Throws Error naming `name` and quoting the driver's log if compiling or linking fails.
// `feedback`: varyings captured by transform feedback (interleaved), set before linking.
GLuint build_program(const std::string& name, const std::string& defines, const char* vertex_source,
                     const char* fragment_source, const std::vector<const char*>& feedback = {});

#ifndef __EMSCRIPTEN__
// A compute program: `#version 430 core`, then `defines`, then the source (desktop OpenGL 4.3).
GLuint build_compute_program(const std::string& name, const std::string& defines, const char* source);
#endif

}  // namespace wobble::render
