#include "render/gpu_kernel.hpp"

#include <cstring>

#include <wobble/error.hpp>

#include "render/data_texture.hpp"
#include "render/shader_program.hpp"
#include "core/fail.hpp"

namespace wobble::render {

const char* const kTableAccess = R"GLSL(
const int kTableWidth = 2048;
ivec2 texel_of(int i) { return ivec2(i % kTableWidth, i / kTableWidth); }
vec4 fetch(sampler2D table, int i) { return texelFetch(table, texel_of(i), 0); }
uvec4 fetch_u(highp usampler2D table, int i) { return texelFetch(table, texel_of(i), 0); }
)GLSL";

namespace {

// Frame tables and the entry point, by backend (the kernel's source goes in between).
const char* const kComputeHeader = R"GLSL(
#define FRAME_TABLE(name, block, index) layout(std430, binding = index) readonly buffer block { vec4 name[]; };
#define FRAME(name, i) name[i]
)GLSL";
const char* const kComputeMain = R"GLSL(
layout(local_size_x = 64) in;
layout(std430, binding = 0) writeonly buffer KernelOutput { vec4 o_result[]; };
uniform int u_count;
void main() {
  int i = int(gl_GlobalInvocationID.x);
  if (i < u_count) o_result[i] = kernel(i);
}
)GLSL";
const char* const kFeedbackHeader = R"GLSL(
#define FRAME_TABLE(name, block, index) uniform highp sampler2D name;
#define FRAME(name, i) texelFetch(name, texel_of(i), 0)
)GLSL";
const char* const kFeedbackMain = R"GLSL(
out vec4 o_result;
void main() {
  o_result = kernel(gl_VertexID);
  gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
}
)GLSL";
constexpr GLuint kGroupSize = 64;

}  // namespace

// Never runs (rasterisation is off); OpenGL ES needs a fragment shader to link.
const char* const kFeedbackFragment = "out vec4 o_color;\nvoid main() { o_color = vec4(0.0); }\n";

std::string feedback_vertex_source(const char* source) {
  return std::string(kTableAccess) + kFeedbackHeader + source + kFeedbackMain;
}

KernelBackend best_kernel_backend() {
#ifdef __EMSCRIPTEN__
  return KernelBackend::TransformFeedback;
#else
  return epoxy_gl_version() >= 43 ? KernelBackend::Compute : KernelBackend::TransformFeedback;
#endif
}

const char* to_string(KernelBackend backend) {
  return backend == KernelBackend::Compute ? "compute shaders" : "transform feedback";
}

FrameTable::~FrameTable() {
  if (buffer_) glDeleteBuffers(1, &buffer_);
  if (texture_) glDeleteTextures(1, &texture_);
}

void FrameTable::allocate(std::size_t count, KernelBackend backend, bool readable) {
  count_ = count;
  rows_ = data_texture_rows(count);
  // Whole texture rows, so that the copy into the texture is one upload.
  const auto bytes = static_cast<GLsizeiptr>(rows_ * kDataTextureWidth * 4 * sizeof(float));
  if (!buffer_) glGenBuffers(1, &buffer_);
  glBindBuffer(GL_ARRAY_BUFFER, buffer_);
  glBufferData(GL_ARRAY_BUFFER, bytes, nullptr, GL_DYNAMIC_COPY);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  if (backend == KernelBackend::TransformFeedback && readable) {
    upload_data_texture(texture_, static_cast<const float*>(nullptr), rows_ * kDataTextureWidth, 4);
  }
}

std::vector<float> FrameTable::read_xyz() const {
  std::vector<float> xyz(3 * count_, 0.0f);
#ifdef __EMSCRIPTEN__
  fail_plain("renderer: reading GPU results back is not available in the browser");
#else
  if (count_ == 0) return xyz;
  const auto bytes = static_cast<GLsizeiptr>(count_ * 4 * sizeof(float));
  glBindBuffer(GL_COPY_READ_BUFFER, buffer_);
  const void* mapped = glMapBufferRange(GL_COPY_READ_BUFFER, 0, bytes, GL_MAP_READ_BIT);
  if (!mapped) fail_plain("OpenGL: cannot read a GPU result back (GL error 0x{:x})", glGetError());
  const auto* rows = static_cast<const float*>(mapped);
  for (std::size_t i = 0; i < count_; ++i) std::memcpy(&xyz[3 * i], rows + 4 * i, 3 * sizeof(float));
  glUnmapBuffer(GL_COPY_READ_BUFFER);
  glBindBuffer(GL_COPY_READ_BUFFER, 0);
#endif
  return xyz;
}

KernelContext::~KernelContext() {
  if (vertex_array_) glDeleteVertexArrays(1, &vertex_array_);
  if (framebuffer_) glDeleteFramebuffers(1, &framebuffer_);
  if (color_) glDeleteRenderbuffers(1, &color_);
}

GLuint KernelContext::vertex_array() {
  if (!vertex_array_) glGenVertexArrays(1, &vertex_array_);
  return vertex_array_;
}

GLuint KernelContext::framebuffer() {
  if (!framebuffer_) {
    GLint previous = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &previous);
    glGenFramebuffers(1, &framebuffer_);
    glGenRenderbuffers(1, &color_);
    glBindRenderbuffer(GL_RENDERBUFFER, color_);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 1, 1);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_);
    glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(previous));
  }
  return framebuffer_;
}

Kernel::Kernel(const KernelContext& context, const std::string& name, const std::string& defines, const char* source,
               std::vector<std::string> tables, std::vector<std::string> frames)
    : backend_(context.backend()), table_count_(tables.size()), frame_count_(frames.size()) {
  if (backend_ == KernelBackend::Compute) {
#ifndef __EMSCRIPTEN__
    const std::string text = std::string(kTableAccess) + kComputeHeader + source + kComputeMain;
    program_ = build_compute_program(name, defines, text.c_str());
#endif
  } else {
    program_ = build_program(name, defines, feedback_vertex_source(source).c_str(), kFeedbackFragment, {"o_result"});
  }
  glUseProgram(program_);
  for (std::size_t k = 0; k < tables.size(); ++k) glUniform1i(uniform(tables[k].c_str()), static_cast<GLint>(k));
  if (backend_ == KernelBackend::TransformFeedback) {
    for (std::size_t k = 0; k < frames.size(); ++k) {
      glUniform1i(uniform(frames[k].c_str()), static_cast<GLint>(tables.size() + k));
    }
  }
  glUseProgram(0);
}

Kernel::~Kernel() {
  if (program_) glDeleteProgram(program_);
}

void Kernel::use() const { glUseProgram(program_); }
GLint Kernel::uniform(const char* name) const { return glGetUniformLocation(program_, name); }

void Kernel::run(KernelContext& context, std::span<const GLuint> tables, std::span<const FrameTable* const> frames,
                 FrameTable& output) const {
  if (tables.size() != table_count_ || frames.size() != frame_count_) {
    fail_plain("renderer: a GPU kernel got {} tables and {} frame tables, it reads {} and {}", tables.size(),
               frames.size(), table_count_, frame_count_);
  }
  if (output.count() == 0) return;
  glUseProgram(program_);
  for (std::size_t k = 0; k < tables.size(); ++k) {
    glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(k));
    glBindTexture(GL_TEXTURE_2D, tables[k]);
  }
  const auto count = static_cast<GLsizei>(output.count());
#ifndef __EMSCRIPTEN__
  if (backend_ == KernelBackend::Compute) {
    glUniform1i(uniform("u_count"), count);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, output.buffer());
    for (std::size_t k = 0; k < frames.size(); ++k) {
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, static_cast<GLuint>(k + 1), frames[k]->buffer());
    }
    glDispatchCompute((static_cast<GLuint>(count) + kGroupSize - 1) / kGroupSize, 1, 1);
    // Later kernels read it as a storage buffer, draws as a vertex array, tests map it.
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_VERTEX_ATTRIB_ARRAY_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    for (std::size_t k = 0; k <= frames.size(); ++k)
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, static_cast<GLuint>(k), 0);
    glUseProgram(0);
    glActiveTexture(GL_TEXTURE0);
    return;
  }
#endif
  for (std::size_t k = 0; k < frames.size(); ++k) {
    glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(tables.size() + k));
    glBindTexture(GL_TEXTURE_2D, frames[k]->texture());
  }
  GLint previous_framebuffer = 0;
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &previous_framebuffer);
  glBindFramebuffer(GL_FRAMEBUFFER, context.framebuffer());
  glBindVertexArray(context.vertex_array());
  glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, output.buffer());
  glEnable(GL_RASTERIZER_DISCARD);
  glBeginTransformFeedback(GL_POINTS);
  glDrawArrays(GL_POINTS, 0, count);
  glEndTransformFeedback();
  glDisable(GL_RASTERIZER_DISCARD);
  // A buffer bound for transform feedback may be bound nowhere else (WebGL 2).
  glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0);
  glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, 0);
  glBindVertexArray(0);
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(previous_framebuffer));
  if (output.texture()) {
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, output.buffer());
    glBindTexture(GL_TEXTURE_2D, output.texture());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, kDataTextureWidth, static_cast<GLsizei>(output.rows_), GL_RGBA, GL_FLOAT,
                    nullptr);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  }
  glUseProgram(0);
  glActiveTexture(GL_TEXTURE0);
}

}  // namespace wobble::render
