// Overlay geometry on the renderer's lines shader (per-vertex colours).
#include <wobble/render/overlay.hpp>

#include <algorithm>
#include <cstddef>

#include "render/gl.hpp"
#include "render/shader_program.hpp"
#include "render/shaders.hpp"

namespace wobble::render {

namespace {

struct Vertex {
  float position[3];
  float color[4];
};

Vertex vertex(const Vec3f& p, const Vec4f& c) { return {{p.x(), p.y(), p.z()}, {c.x(), c.y(), c.z(), c.w()}}; }

}  // namespace

struct Overlay::State {
  GLuint program = 0, vao = 0, buffer = 0;
  std::vector<Vertex> triangles, lines, points;
};

Overlay::Overlay() : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.program = build_program("overlay", "", shaders::kLinesVertex, shaders::kLinesFragment);
  glGenVertexArrays(1, &s.vao);
  glGenBuffers(1, &s.buffer);
  glBindVertexArray(s.vao);
  glBindBuffer(GL_ARRAY_BUFFER, s.buffer);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(Vertex), nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(Vertex), reinterpret_cast<void*>(offsetof(Vertex, color)));
  glBindVertexArray(0);
}

Overlay::~Overlay() {
  glDeleteBuffers(1, &state_->buffer);
  glDeleteVertexArrays(1, &state_->vao);
  glDeleteProgram(state_->program);
}

void Overlay::add_line(const Vec3f& a, const Vec3f& b, const Vec4f& color) {
  state_->lines.push_back(vertex(a, color));
  state_->lines.push_back(vertex(b, color));
}

void Overlay::add_point(const Vec3f& p, const Vec4f& color) { state_->points.push_back(vertex(p, color)); }

void Overlay::add_triangle(const Vec3f& a, const Vec3f& b, const Vec3f& c, const Vec4f& color) {
  for (const Vec3f* p : {&a, &b, &c}) state_->triangles.push_back(vertex(*p, color));
}

void Overlay::clear() {
  state_->triangles.clear();
  state_->lines.clear();
  state_->points.clear();
}

void Overlay::draw(const OrbitCamera& camera, int width, int height, float point_size, bool on_top) {
  State& s = *state_;
  const Mat4f view_projection =
      camera.view_projection(static_cast<float>(width) / static_cast<float>(std::max(height, 1)));
  glUseProgram(s.program);
  glUniformMatrix4fv(glGetUniformLocation(s.program, "u_view_projection"), 1, GL_FALSE, view_projection.data());
  glUniform1f(glGetUniformLocation(s.program, "u_point_size"), point_size);
  glUniform1f(glGetUniformLocation(s.program, "u_fade_radius"), 0.0f);
#ifndef __EMSCRIPTEN__
  glEnable(GL_PROGRAM_POINT_SIZE);  // always on in WebGL 2
#endif
  glBindVertexArray(s.vao);
  glBindBuffer(GL_ARRAY_BUFFER, s.buffer);
  const GLint round = glGetUniformLocation(s.program, "u_round_points");
  auto pass = [&](const std::vector<Vertex>& vertices, GLenum mode) {
    if (vertices.empty()) return;
    glUniform1i(round, mode == GL_POINTS);  // gl_PointCoord means nothing for lines and triangles
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(vertices.size() * sizeof(Vertex)), vertices.data(),
                 GL_STREAM_DRAW);
    glDrawArrays(mode, 0, static_cast<GLsizei>(vertices.size()));
  };
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glEnable(GL_DEPTH_TEST);
  glDepthMask(GL_FALSE);  // translucent: what lies behind stays visible
  pass(s.triangles, GL_TRIANGLES);
  glDepthMask(GL_TRUE);
  if (on_top) glDisable(GL_DEPTH_TEST);
  pass(s.lines, GL_LINES);
  pass(s.points, GL_POINTS);
  glEnable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  glBindVertexArray(0);
}

}  // namespace wobble::render
