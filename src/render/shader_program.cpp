#include "render/shader_program.hpp"

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble::render {

namespace {

std::string first_line(std::string log) {
  while (!log.empty() && (log.back() == '\n' || log.back() == '\r' || log.back() == '\0')) log.pop_back();
  for (char& c : log) {
    if (c == '\n') c = ' ';
  }
  return log.substr(0, 400);
}

// The driver's log of a shader or a program, on one line.
std::string info_log(GLuint object, bool is_program) {
  GLint length = 0;
  (is_program ? glGetProgramiv : glGetShaderiv)(object, GL_INFO_LOG_LENGTH, &length);
  std::string log(static_cast<std::size_t>(length > 0 ? length : 1), '\0');
  (is_program ? glGetProgramInfoLog : glGetShaderInfoLog)(object, length, nullptr, log.data());
  return first_line(log);
}

GLuint compile(const std::string& name, GLenum stage, const std::string& source) {
  const GLuint shader = glCreateShader(stage);
  const char* text = source.c_str();
  glShaderSource(shader, 1, &text, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    const std::string log = info_log(shader, false);
    glDeleteShader(shader);
    fail_plain("OpenGL: the {} {} shader does not compile: {}", name, stage == GL_VERTEX_SHADER ? "vertex" : "fragment", log);
  }
  return shader;
}

}  // namespace

GLuint build_program(const std::string& name, const std::string& defines, const char* vertex_source,
                     const char* fragment_source, const std::vector<const char*>& feedback) {
  const std::string prelude = std::string(shader_prelude()) + defines;
  const GLuint vertex = compile(name, GL_VERTEX_SHADER, prelude + vertex_source);
  const GLuint fragment = compile(name, GL_FRAGMENT_SHADER, prelude + fragment_source);
  const GLuint program = glCreateProgram();
  glAttachShader(program, vertex);
  glAttachShader(program, fragment);
  if (!feedback.empty()) {
    glTransformFeedbackVaryings(program, static_cast<GLsizei>(feedback.size()), feedback.data(), GL_INTERLEAVED_ATTRIBS);
  }
  glLinkProgram(program);
  glDeleteShader(vertex);
  glDeleteShader(fragment);
  GLint ok = 0;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (!ok) {
    const std::string log = info_log(program, true);
    glDeleteProgram(program);
    fail_plain("OpenGL: the {} program does not link: {}", name, log);
  }
  return program;
}

}  // namespace wobble::render
