// The shaders are written once: they must also compile and link as GLSL ES 3.00 (WebGL 2).
// Mesa's desktop contexts accept `#version 300 es` (ARB_ES3_compatibility), so this runs here.
#include <gtest/gtest.h>

#include <string>

#include "render/gl.hpp"
#include "render/gpu_kernel.hpp"
#include "render/kernel_shaders.hpp"
#include "render/shaders.hpp"
#include "render_test_context.hpp"

namespace wobble::test {
namespace {

// The driver's log of a shader that did not compile or a program that did not link, else "".
std::string failure_log(GLuint object, bool is_program) {
  GLint ok = 0;
  (is_program ? glGetProgramiv : glGetShaderiv)(object, is_program ? GL_LINK_STATUS : GL_COMPILE_STATUS, &ok);
  if (ok) return {};
  char buffer[2048] = {};
  (is_program ? glGetProgramInfoLog : glGetShaderInfoLog)(object, sizeof buffer, nullptr, buffer);
  return buffer;
}

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
    log += failure_log(shader, false);
    glAttachShader(program, shader);
    glDeleteShader(shader);
  }
  if (log.empty()) {
    glLinkProgram(program);
    log += failure_log(program, true);
  }
  glDeleteProgram(program);
  return log;
}

TEST(ShadersEs, EveryProgramCompilesAsGlslEs300) {
  require_gl();
  if (!epoxy_has_gl_extension("GL_ARB_ES3_compatibility")) GTEST_SKIP() << "no GLSL ES 3.00 on this OpenGL";
  EXPECT_EQ(compile_and_link("", render::shaders::kMeshVertex, render::shaders::kMeshFragment), "");
  EXPECT_EQ(compile_and_link("#define GPU_SKINNING 1\n", render::shaders::skinned_mesh_vertex().c_str(),
                             render::shaders::kMeshFragment),
            "");
  EXPECT_EQ(compile_and_link("", render::shaders::kLinesVertex, render::shaders::kLinesFragment), "");
}

// The post-deformer kernels as the browser runs them: transform-feedback vertex shaders.
TEST(ShadersEs, EveryKernelCompilesAsGlslEs300) {
  require_gl();
  if (!epoxy_has_gl_extension("GL_ARB_ES3_compatibility")) GTEST_SKIP() << "no GLSL ES 3.00 on this OpenGL";
  namespace s = render::shaders;
  const std::string skin = std::string(s::kSkinningMatrices) + s::kSkinningFunctions + s::kSkinKernel;
  const std::string ddm = std::string(s::kSkinningMatrices) + s::kRotationFunctions + s::kDirectDeltaMushKernel;
  for (const char* kernel : {skin.c_str(), s::kMushGatherKernel, s::kMushSweepKernel, s::kMushRestoreKernel,
                             s::kMushScatterKernel, s::kNormalsKernel}) {
    EXPECT_EQ(compile_and_link("", render::feedback_vertex_source(kernel).c_str(), render::kFeedbackFragment), "");
  }
  for (int variant = 0; variant < 4; ++variant) {
    const std::string defines = "#define DDM_VARIANT " + std::to_string(variant) + "\n";
    EXPECT_EQ(compile_and_link(defines, render::feedback_vertex_source(ddm.c_str()).c_str(), render::kFeedbackFragment),
              "")
        << "variant " << variant;
  }
}

}  // namespace
}  // namespace wobble::test
