#pragma once
// Per-element GPU kernels for the post-deformers of the GPU path: GLSL that defines
// `vec4 kernel(int i)` runs for every i < count and writes one vec4 per element into a frame
// table. Two backends, one kernel source:
//   Compute            compute shaders writing storage buffers (desktop OpenGL 4.3+)
//   TransformFeedback  a vertex shader per element (gl_VertexID), captured by transform
//                      feedback, then copied into a data texture so that later kernels can read
//                      any element (OpenGL 3.3, OpenGL ES 3.0, WebGL 2)
// Kernel sources read
//   bind tables   data textures (render/data_texture.hpp) through fetch() / fetch_u()
//   frame tables  written by earlier kernels: declared FRAME_TABLE(name, Block, binding) and read
//                 FRAME(name, i) (a storage buffer or a data texture, by backend)
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "render/gl.hpp"

namespace wobble::render {

enum class KernelBackend { Compute, TransformFeedback };

// Compute when this context has OpenGL 4.3 (never under WebGL 2), else transform feedback.
KernelBackend best_kernel_backend();
const char* to_string(KernelBackend backend);

// A per-frame table of vec4, one per element: a buffer (also usable as a vertex attribute
// array, 16-byte stride) and, for the transform-feedback backend, its copy in a data texture.
class FrameTable {
 public:
  FrameTable() = default;
  ~FrameTable();
  FrameTable(const FrameTable&) = delete;
  FrameTable& operator=(const FrameTable&) = delete;
  // `readable`: later kernels read it (the transform-feedback backend keeps a texture copy).
  void allocate(std::size_t count, KernelBackend backend, bool readable);
  std::size_t count() const { return count_; }
  GLuint buffer() const { return buffer_; }
  GLuint texture() const { return texture_; }
  // The first `count` vec4 as xyz (desktop only: WebGL 2 cannot map buffers).
  std::vector<float> read_xyz() const;

 private:
  GLuint buffer_ = 0, texture_ = 0;
  std::size_t count_ = 0, rows_ = 0;
  friend class Kernel;
};

// The GL objects every kernel run shares: an empty vertex array, and the 1x1 framebuffer that
// transform-feedback draws need (a surfaceless context has no default framebuffer).
class KernelContext {
 public:
  explicit KernelContext(KernelBackend backend) : backend_(backend) {}
  ~KernelContext();
  KernelContext(const KernelContext&) = delete;
  KernelContext& operator=(const KernelContext&) = delete;
  KernelBackend backend() const { return backend_; }
  GLuint vertex_array();
  GLuint framebuffer();

 private:
  KernelBackend backend_;
  GLuint vertex_array_ = 0, framebuffer_ = 0, color_ = 0;
};

class Kernel {
 public:
  // `tables`: the sampler uniforms of the bind tables, bound to texture units in this order;
  // `frames`: the frame tables the source declares, in binding order (1, 2, ...). `defines` go
  // before the source. Throws Error if the kernel does not compile.
  Kernel(const KernelContext& context, const std::string& name, const std::string& defines, const char* source,
         std::vector<std::string> tables, std::vector<std::string> frames);
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  // Makes the program current (to set its uniforms before run()).
  void use() const;
  GLint uniform(const char* name) const;
  // kernel(i) for i < output.count(): textures in the order of `tables`, frame tables in the
  // order of `frames`. Leaves no program, framebuffer or buffer binding changed.
  void run(KernelContext& context, std::span<const GLuint> tables, std::span<const FrameTable* const> frames,
           FrameTable& output) const;

 private:
  KernelBackend backend_;
  GLuint program_ = 0;
  std::size_t table_count_ = 0, frame_count_ = 0;
};

// A kernel's transform-feedback vertex and fragment shaders, without the prelude (the tests
// also compile them as GLSL ES 3.00).
std::string feedback_vertex_source(const char* source);
extern const char* const kFeedbackFragment;

// GLSL shared by kernels and the skinned mesh shader: kTableWidth, fetch(sampler2D, i) and
// fetch_u(usampler2D, i).
extern const char* const kTableAccess;

}  // namespace wobble::render
