#include "render/shader_program.hpp"

#include <initializer_list>

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

const char* stage_name(GLenum stage) {
  if (stage == GL_VERTEX_SHADER) return "vertex";
  if (stage == GL_FRAGMENT_SHADER) return "fragment";
  return "compute";
}

// Links the attached shaders (deleting them); throws with the log if linking fails.
GLuint link(const std::string& name, GLuint program, std::initializer_list<GLuint> shaders) {
  glLinkProgram(program);
  for (GLuint shader : shaders) glDeleteShader(shader);
  GLint ok = 0;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (!ok) {
    const std::string log = info_log(program, true);
    glDeleteProgram(program);
    fail_plain("OpenGL: the {} program does not link: {}", name, log);
  }
  return program;
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
    fail_plain("OpenGL: the {} {} shader does not compile: {}", name, stage_name(stage), log);
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
    glTransformFeedbackVaryings(program, static_cast<GLsizei>(feedback.size()), feedback.data(),
                                GL_INTERLEAVED_ATTRIBS);
  }
  return link(name, program, {vertex, fragment});
}

#ifndef __EMSCRIPTEN__
GLuint build_compute_program(const std::string& name, const std::string& defines, const char* source) {
  const GLuint shader = compile(name, GL_COMPUTE_SHADER, "#version 430 core\n" + defines + source);
  const GLuint program = glCreateProgram();
  glAttachShader(program, shader);
  return link(name, program, {shader});
}
#endif

}  // namespace wobble::render
