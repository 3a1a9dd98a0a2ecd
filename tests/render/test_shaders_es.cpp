// The shaders are written once: they must also compile and link as GLSL ES 3.00 (WebGL 2).
// Mesa's desktop contexts accept `#version 300 es` (ARB_ES3_compatibility), so this runs here.
#include <gtest/gtest.h>

#include <string>

#include "render/gl.hpp"
#include "render/shaders.hpp"
#include "render_test_context.hpp"

namespace wobble::test {
namespace {

// Empty if the program compiles and links, else the driver's log.
std::string compile_and_link(const std::string& defines, const char* vertex, const char* fragment) {
  std::string log;
  GLuint program = glCreateProgram();
  for (auto [stage, source] : {std::pair{GL_VERTEX_SHADER, vertex}, std::pair{GL_FRAGMENT_SHADER, fragment}}) {
    const std::string text = std::string(render::kWebShaderPrelude) + defines + source;
    const char* pointer = text.c_str();
    const GLuint shader = glCreateShader(stage);
    glShaderSource(shader, 1, &pointer, nullptr);
    glCompileShader(shader);
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
    if (!ok) {
      char buffer[2048] = {};
      glGetShaderInfoLog(shader, sizeof buffer, nullptr, buffer);
      log += buffer;
    }
    glAttachShader(program, shader);
    glDeleteShader(shader);
  }
  if (log.empty()) {
    glLinkProgram(program);
    GLint ok = 0;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (!ok) {
      char buffer[2048] = {};
      glGetProgramInfoLog(program, sizeof buffer, nullptr, buffer);
      log += buffer;
    }
  }
  glDeleteProgram(program);
  return log;
}

TEST(ShadersEs, EveryProgramCompilesAsGlslEs300) {
  require_gl();
  if (!epoxy_has_gl_extension("GL_ARB_ES3_compatibility")) GTEST_SKIP() << "no GLSL ES 3.00 on this OpenGL";
  EXPECT_EQ(compile_and_link("", render::shaders::kMeshVertex, render::shaders::kMeshFragment), "");
  EXPECT_EQ(compile_and_link("#define GPU_SKINNING 1\n", render::shaders::kMeshVertex, render::shaders::kMeshFragment), "");
  EXPECT_EQ(compile_and_link("", render::shaders::kLinesVertex, render::shaders::kLinesFragment), "");
}

}  // namespace
}  // namespace wobble::test
