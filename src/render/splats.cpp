// Gaussian splats as projected ellipses on point sprites (see splats.hpp).
#include <wobble/render/splats.hpp>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "render/gl.hpp"
#include "render/shader_program.hpp"

namespace wobble::render {

namespace {

const char* const kSplatVertex = R"GLSL(
layout(location = 0) in vec3 a_center;
layout(location = 1) in vec3 a_cov_a;  // xx, xy, xz
layout(location = 2) in vec3 a_cov_b;  // yy, yz, zz
layout(location = 3) in vec4 a_color;
uniform mat4 u_view;
uniform mat4 u_projection;
uniform vec2 u_viewport;  // pixels
out vec4 v_color;
out vec3 v_conic;         // inverse screen covariance [a b; b c], 1/pixels^2
out float v_size;         // point sprite side, pixels
void main() {
  vec4 t = u_view * vec4(a_center, 1.0);
  gl_Position = u_projection * t;
  float z = -t.z;
  v_color = a_color;
  if (z < 1e-4) { gl_PointSize = 0.0; v_size = 0.0; v_conic = vec3(0.0); return; }
  mat3 S = mat3(a_cov_a.x, a_cov_a.y, a_cov_a.z, a_cov_a.y, a_cov_b.x, a_cov_b.y, a_cov_a.z, a_cov_b.y, a_cov_b.z);
  mat3 W = mat3(u_view);
  mat3 V = W * S * transpose(W);
  // Screen pixels (y up) p = (f_x t_x, f_y t_y) / z: its Jacobian in view space (2 rows, 3 columns).
  float fx = u_projection[0][0] * 0.5 * u_viewport.x, fy = u_projection[1][1] * 0.5 * u_viewport.y;
  mat3x2 J = mat3x2(fx / z, 0.0, 0.0, fy / z, fx * t.x / (z * z), fy * t.y / (z * z));
  mat2 C = J * V * transpose(J) + mat2(0.3);  // + a pixel's low-pass filter
  float det = C[0][0] * C[1][1] - C[0][1] * C[0][1];
  if (det <= 0.0) { gl_PointSize = 0.0; v_size = 0.0; v_conic = vec3(0.0); return; }
  v_conic = vec3(C[1][1], -C[0][1], C[0][0]) / det;
  float mid = 0.5 * (C[0][0] + C[1][1]);
  float largest = mid + sqrt(max(mid * mid - det, 0.0));
  v_size = min(2.0 * ceil(3.0 * sqrt(largest)) + 1.0, 128.0);
  gl_PointSize = v_size;
}
)GLSL";

const char* const kSplatFragment = R"GLSL(
in vec4 v_color;
in vec3 v_conic;
in float v_size;
out vec4 o_color;
void main() {
  vec2 d = (gl_PointCoord - vec2(0.5)) * v_size;
  d.y = -d.y;  // gl_PointCoord grows downwards, the conic is in y-up pixels
  float falloff = exp(-0.5 * (v_conic.x * d.x * d.x + 2.0 * v_conic.y * d.x * d.y + v_conic.z * d.y * d.y));
  if (v_color.a * falloff < 0.35) discard;
  o_color = vec4(v_color.rgb * (0.7 + 0.3 * falloff), 1.0);
}
)GLSL";

struct SplatVertex {
  float center[3], cov_a[3], cov_b[3], color[4];
};

}  // namespace

struct SplatRenderer::State {
  GLuint program = 0, vao = 0, buffer = 0;
  std::size_t count = 0;
};

SplatRenderer::SplatRenderer() : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.program = build_program("splats", "", kSplatVertex, kSplatFragment);
  glGenVertexArrays(1, &s.vao);
  glGenBuffers(1, &s.buffer);
  glBindVertexArray(s.vao);
  glBindBuffer(GL_ARRAY_BUFFER, s.buffer);
  const std::size_t offsets[] = {offsetof(SplatVertex, center), offsetof(SplatVertex, cov_a),
                                 offsetof(SplatVertex, cov_b), offsetof(SplatVertex, color)};
  for (GLuint a = 0; a < 4; ++a) {
    glEnableVertexAttribArray(a);
    glVertexAttribPointer(a, a == 3 ? 4 : 3, GL_FLOAT, GL_FALSE, sizeof(SplatVertex),
                          reinterpret_cast<void*>(offsets[a]));
  }
  glBindVertexArray(0);
}

SplatRenderer::~SplatRenderer() {
  glDeleteBuffers(1, &state_->buffer);
  glDeleteVertexArrays(1, &state_->vao);
  glDeleteProgram(state_->program);
}

void SplatRenderer::set_splats(std::span<const Splat> splats) {
  std::vector<SplatVertex> vertices(splats.size());
  for (std::size_t i = 0; i < splats.size(); ++i) {
    const Splat& g = splats[i];
    SplatVertex& v = vertices[i];
    for (int c = 0; c < 3; ++c) {
      v.center[c] = g.center[c];
      v.cov_a[c] = g.covariance[c];
      v.cov_b[c] = g.covariance[3 + c];
    }
    for (int c = 0; c < 4; ++c) v.color[c] = g.color[c];
  }
  glBindBuffer(GL_ARRAY_BUFFER, state_->buffer);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(vertices.size() * sizeof(SplatVertex)), vertices.data(),
               GL_DYNAMIC_DRAW);
  state_->count = splats.size();
}

std::size_t SplatRenderer::count() const { return state_->count; }

void SplatRenderer::draw(const OrbitCamera& camera, int width, int height) {
  State& s = *state_;
  if (s.count == 0) return;
  const float aspect = static_cast<float>(width) / static_cast<float>(std::max(height, 1));
  glUseProgram(s.program);
  glUniformMatrix4fv(glGetUniformLocation(s.program, "u_view"), 1, GL_FALSE, camera.view().data());
  glUniformMatrix4fv(glGetUniformLocation(s.program, "u_projection"), 1, GL_FALSE, camera.projection(aspect).data());
  glUniform2f(glGetUniformLocation(s.program, "u_viewport"), static_cast<float>(width), static_cast<float>(height));
#ifndef __EMSCRIPTEN__
  glEnable(GL_PROGRAM_POINT_SIZE);  // always on in WebGL 2
#endif
  glEnable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  glBindVertexArray(s.vao);
  glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(s.count));
  glBindVertexArray(0);
}

}  // namespace wobble::render
