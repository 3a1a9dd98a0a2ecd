// The renderer: GPU resources of one character and the draw calls (mesh, grid, skeleton).
#include <wobble/render/renderer.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

#include <wobble/delta_mush.hpp>
#include <wobble/direct_delta_mush.hpp>
#include <wobble/dynamic_skinning.hpp>
#include <wobble/error.hpp>
#include <wobble/io/image.hpp>
#include <wobble/mesh.hpp>
#include <wobble/pose.hpp>
#include <wobble/rig.hpp>
#include <wobble/skin.hpp>

#include "core/fail.hpp"
#include "render/data_texture.hpp"
#include "render/gl.hpp"
#include "render/gpu_kernel.hpp"
#include "render/gpu_post_deformer.hpp"
#include "render/shader_program.hpp"
#include "render/shaders.hpp"

namespace wobble::render {

namespace {

enum Attribute : GLuint { kPosition = 0, kNormal = 1, kUv = 2, kScalar = 3, kRanges = 4, kGamma = 5 };
enum TextureUnit : GLint { kMatricesUnit = 0, kSkinUnit = 1, kPairsUnit = 2, kJointsUnit = 3, kBaseColorUnit = 4 };

struct LineVertex {
  float position[3];
  float color[4];
};

void float_attribute(GLuint buffer, GLuint location, GLint components, GLsizei stride = 0) {
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  glEnableVertexAttribArray(location);
  glVertexAttribPointer(location, components, GL_FLOAT, GL_FALSE, stride, nullptr);
}

template <typename T>
void upload(GLuint buffer, std::span<const T> data, GLenum usage) {
  glBindBuffer(GL_ARRAY_BUFFER, buffer);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(data.size_bytes()), data.data(), usage);
}

// Area-weighted vertex normals (vertices in no triangle get +Y).
void vertex_normals(std::span<const Vec3f> positions, const std::vector<Triangle>& triangles,
                    std::vector<Vec3f>& normals) {
  normals.assign(positions.size(), Vec3f::Zero());
  for (const Triangle& t : triangles) {
    const Vec3f n = (positions[t[1]] - positions[t[0]]).cross(positions[t[2]] - positions[t[0]]);
    for (std::uint32_t v : t) normals[v] += n;
  }
  for (Vec3f& n : normals) {
    const float length = n.norm();
    n = length > 0 ? Vec3f(n / length) : Vec3f::UnitY();
  }
}

// 1, 2 or 5 times a power of ten, near `x`.
float nice_step(float x) {
  const float power = std::pow(10.0f, std::floor(std::log10(x)));
  const float m = x / power;
  return power * (m < 1.5f ? 1.0f : m < 3.5f ? 2.0f : m < 7.5f ? 5.0f : 10.0f);
}

}  // namespace

struct Renderer::State {
  GLuint mesh_program = 0, skinned_program = 0, lines_program = 0;
  GLuint cpu_vao = 0, gpu_vao = 0, lines_vao = 0, post_vao = 0;
  GLuint positions = 0, normals = 0, rest_positions = 0, rest_normals = 0, uvs = 0, scalars = 0, ranges = 0, gammas = 0;
  GLuint indices = 0, lines_buffer = 0, feedback_buffer = 0;
  GLuint feedback_framebuffer = 0, feedback_color = 0;  // 1x1: draws need a complete framebuffer
  GLuint matrices_texture = 0, skin_texture = 0, pairs_texture = 0, joints_texture = 0;
  GLuint ranges_texture = 0, rest_texture = 0;  // per vertex, for the post-deformers' skin kernel
  std::vector<GLuint> textures;                 // per image; 0 where decoding failed

  const Mesh* mesh = nullptr;
  std::vector<Triangle> triangles;
  std::vector<Primitive> primitives;
  std::vector<Material> materials;
  std::size_t vertex_count = 0;
  Eigen::AlignedBox3f rest_box;
  float size = 1;
  bool has_uvs = false, has_scalars = false, has_texture = false;
  bool skinned = false, dynamic_pairs = false, dynamic_frame = false;
  float inv_max_angle2 = 1;
  SkinningPath path = SkinningPath::Cpu;
  std::vector<Vec3f> scratch_normals;
  std::vector<Vec3f> rest;  // the mesh's rest positions
  // Post-deformers: their kernels' shared objects, the one in use (mush: when it is Delta Mush),
  // per joint (1/N) sum_v w_vj [u_v; 1] so that sum_j T_j m_j is the LBS centroid.
  GpuKernels kernel_choice = GpuKernels::Automatic;
  std::unique_ptr<KernelContext> kernels;
  std::unique_ptr<GpuPostDeformer> post;
  GpuDeltaMush* mush = nullptr;
  std::vector<Eigen::Vector4d> joint_moments;
  std::vector<Mat4f> skinning;  // the last pose's, for the post-deformers
  std::vector<Vec3f> joints;
  std::vector<int> parents;

  GLint location(GLuint program, const char* name) const { return glGetUniformLocation(program, name); }
};

Renderer::Renderer() : state_(std::make_unique<State>()) {
  State& s = *state_;
  while (glGetError() != GL_NO_ERROR) {
  }  // errors of earlier, unrelated calls
  s.mesh_program = build_program("mesh", "", shaders::kMeshVertex, shaders::kMeshFragment);
  s.skinned_program = build_program("GPU skinning", "#define GPU_SKINNING 1\n", shaders::skinned_mesh_vertex().c_str(),
                                    shaders::kMeshFragment, {"v_position"});
  s.lines_program = build_program("lines", "", shaders::kLinesVertex, shaders::kLinesFragment);
  glGenVertexArrays(1, &s.cpu_vao);
  glGenVertexArrays(1, &s.gpu_vao);
  glGenVertexArrays(1, &s.lines_vao);
  glGenVertexArrays(1, &s.post_vao);
  GLuint* buffers[] = {&s.positions, &s.normals, &s.rest_positions, &s.rest_normals,   &s.uvs, &s.scalars, &s.ranges,
                       &s.gammas,    &s.indices, &s.lines_buffer,   &s.feedback_buffer};
  for (GLuint* b : buffers) glGenBuffers(1, b);
  glBindVertexArray(s.lines_vao);
  glBindBuffer(GL_ARRAY_BUFFER, s.lines_buffer);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(LineVertex), nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(LineVertex), reinterpret_cast<void*>(3 * sizeof(float)));
  glBindVertexArray(0);
  glUseProgram(s.skinned_program);
  glUniform1i(s.location(s.skinned_program, "u_matrices"), kMatricesUnit);
  glUniform1i(s.location(s.skinned_program, "u_skin"), kSkinUnit);
  glUniform1i(s.location(s.skinned_program, "u_pairs"), kPairsUnit);
  glUniform1i(s.location(s.skinned_program, "u_joints"), kJointsUnit);
  glUniform1i(s.location(s.skinned_program, "u_texture"), kBaseColorUnit);
  glUseProgram(s.mesh_program);
  glUniform1i(s.location(s.mesh_program, "u_texture"), kBaseColorUnit);
  glUseProgram(0);
  const float zero[2] = {0, 0};
  upload_data_texture(s.pairs_texture, zero, 1, 2);
  upload_data_texture(s.skin_texture, zero, 1, 2);
  const float zeros[4] = {0, 0, 0, 0};
  upload_data_texture(s.matrices_texture, zeros, 1, 4);
  upload_data_texture(s.joints_texture, zeros, 1, 4);
  if (const GLenum error = glGetError(); error != GL_NO_ERROR) {
    fail_plain("OpenGL: setting up the renderer failed (GL error 0x{:x})", error);
  }
}

Renderer::~Renderer() {
  State& s = *state_;
  s.post.reset();
  s.kernels.reset();
  glDeleteProgram(s.mesh_program);
  glDeleteProgram(s.skinned_program);
  glDeleteProgram(s.lines_program);
  const GLuint vaos[] = {s.cpu_vao, s.gpu_vao, s.lines_vao, s.post_vao};
  glDeleteVertexArrays(4, vaos);
  const GLuint buffers[] = {s.positions, s.normals, s.rest_positions, s.rest_normals,   s.uvs, s.scalars, s.ranges,
                            s.gammas,    s.indices, s.lines_buffer,   s.feedback_buffer};
  glDeleteBuffers(static_cast<GLsizei>(std::size(buffers)), buffers);
  const GLuint data[] = {s.matrices_texture, s.skin_texture,   s.pairs_texture,
                         s.joints_texture,   s.ranges_texture, s.rest_texture};
  glDeleteTextures(6, data);
  if (s.feedback_framebuffer) glDeleteFramebuffers(1, &s.feedback_framebuffer);
  if (s.feedback_color) glDeleteRenderbuffers(1, &s.feedback_color);
  if (!s.textures.empty()) glDeleteTextures(static_cast<GLsizei>(s.textures.size()), s.textures.data());
}

void Renderer::set_mesh(const Mesh& mesh) {
  State& s = *state_;
  s.vertex_count = mesh.vertex_count();
  s.triangles = mesh.triangles;
  s.primitives = mesh.primitives;
  s.materials = mesh.materials;
  s.rest_box = mesh.bounds();
  s.size = mesh.size() > 0 ? mesh.size() : 1.0f;
  s.has_uvs = mesh.uvs.size() == s.vertex_count;
  s.has_scalars = false;
  s.skinned = s.dynamic_pairs = s.dynamic_frame = false;
  s.post.reset();
  s.mush = nullptr;
  s.joints.clear();
  s.parents.clear();

  std::vector<Vec3f> normals = mesh.normals;
  if (normals.size() != s.vertex_count) vertex_normals(mesh.positions, mesh.triangles, normals);
  s.rest = mesh.positions;
  upload<Vec3f>(s.rest_positions, mesh.positions, GL_STATIC_DRAW);
  upload<Vec3f>(s.rest_normals, normals, GL_STATIC_DRAW);
  upload<Vec3f>(s.positions, mesh.positions, GL_DYNAMIC_DRAW);
  upload<Vec3f>(s.normals, normals, GL_DYNAMIC_DRAW);
  if (s.has_uvs) upload<Vec2f>(s.uvs, mesh.uvs, GL_STATIC_DRAW);

  for (GLuint vao : {s.cpu_vao, s.gpu_vao}) {
    glBindVertexArray(vao);
    const bool gpu = vao == s.gpu_vao;
    float_attribute(gpu ? s.rest_positions : s.positions, kPosition, 3);
    float_attribute(gpu ? s.rest_normals : s.normals, kNormal, 3);
    if (s.has_uvs) {
      float_attribute(s.uvs, kUv, 2);
    } else {
      glDisableVertexAttribArray(kUv);
    }
    glDisableVertexAttribArray(kScalar);
    glDisableVertexAttribArray(kRanges);
    glDisableVertexAttribArray(kGamma);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, s.indices);
  }
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLsizeiptr>(mesh.triangles.size() * sizeof(Triangle)),
               mesh.triangles.data(), GL_STATIC_DRAW);
  glBindVertexArray(0);
  glVertexAttrib2f(kUv, 0, 0);
  glVertexAttrib1f(kScalar, 0);

  if (!s.textures.empty()) glDeleteTextures(static_cast<GLsizei>(s.textures.size()), s.textures.data());
  s.textures.assign(mesh.images.size(), 0);
  s.has_texture = false;
  for (std::size_t i = 0; i < mesh.images.size(); ++i) {
    bool used = false;
    for (const Material& m : mesh.materials) used = used || m.base_color_image == static_cast<int>(i);
    if (!used || !s.has_uvs) continue;
    RgbaImage image;
    try {
      image = decode_image(mesh.images[i].encoded, "image '" + mesh.images[i].name + "'");
    } catch (const Error&) {
      continue;  // drawn with the material's colour only
    }
    glGenTextures(1, &s.textures[i]);
    glBindTexture(GL_TEXTURE_2D, s.textures[i]);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, image.width, image.height, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                 image.pixels.data());
    glGenerateMipmap(GL_TEXTURE_2D);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
    s.has_texture = true;
  }
  s.path = SkinningPath::Cpu;
}

void Renderer::set_positions(std::span<const Vec3f> positions, std::span<const Vec3f> normals) {
  State& s = *state_;
  if (positions.size() != s.vertex_count) {
    fail_plain("renderer: {} positions given, the mesh has {} vertices", positions.size(), s.vertex_count);
  }
  upload<Vec3f>(s.positions, positions, GL_DYNAMIC_DRAW);
  if (normals.size() != s.vertex_count) {
    vertex_normals(positions, s.triangles, s.scratch_normals);
    normals = s.scratch_normals;
  }
  upload<Vec3f>(s.normals, normals, GL_DYNAMIC_DRAW);
  s.path = SkinningPath::Cpu;
}

void Renderer::set_skin(const Skin& skin, std::size_t joint_count, const DynamicSkinningState* dynamic) {
  State& s = *state_;
  if (skin.vertex_count() != s.vertex_count) {
    fail_plain("renderer: the skin has {} vertices, the mesh {}", skin.vertex_count(), s.vertex_count);
  }
  std::vector<float> influences;
  influences.reserve(2 * skin.joints.size());
  for (std::size_t k = 0; k < skin.joints.size(); ++k) {
    if (skin.joints[k] >= joint_count)
      fail_plain("renderer: the skin uses joint {}, the rig has {}", skin.joints[k], joint_count);
    influences.push_back(static_cast<float>(skin.joints[k]));
    influences.push_back(skin.weights[k]);
  }
  upload_data_texture(s.skin_texture, influences.data(), skin.joints.size(), 2);

  std::vector<std::uint32_t> ranges(4 * s.vertex_count, 0);
  std::vector<float> gammas(s.vertex_count, 0.0f);
  for (std::size_t v = 0; v < s.vertex_count; ++v) {
    ranges[4 * v] = skin.offsets[v];
    ranges[4 * v + 1] = skin.offsets[v + 1] - skin.offsets[v];
  }
  s.dynamic_pairs = dynamic && dynamic->initialized();
  if (s.dynamic_pairs) {
    const HierarchicalWeights pairs = dynamic->kernel_weights();
    const auto bend = dynamic->bend_weights();
    if (pairs.vertex_count() != s.vertex_count || bend.size() != s.vertex_count) {
      fail_plain("renderer: the Dynamic Skinning state has {} vertices, the mesh {}", pairs.vertex_count(),
                 s.vertex_count);
    }
    std::vector<float> table;
    table.reserve(2 * pairs.pair_count());
    for (std::size_t k = 0; k < pairs.pair_count(); ++k) {
      table.push_back(static_cast<float>(pairs.joints[k]));
      table.push_back(pairs.betas[k]);
    }
    upload_data_texture(s.pairs_texture, table.data(), pairs.pair_count(), 2);
    for (std::size_t v = 0; v < s.vertex_count; ++v) {
      ranges[4 * v + 2] = pairs.offsets[v];
      ranges[4 * v + 3] = pairs.offsets[v + 1] - pairs.offsets[v];
      gammas[v] = bend[v];
    }
  }
  upload<std::uint32_t>(s.ranges, ranges, GL_STATIC_DRAW);
  upload<float>(s.gammas, gammas, GL_STATIC_DRAW);
  // The post-deformers' skin kernel reads the same ranges, and rest positions with bend weights.
  upload_data_texture(s.ranges_texture, ranges.data(), s.vertex_count, 4);
  std::vector<float> rest(4 * s.vertex_count);
  for (std::size_t v = 0; v < s.vertex_count; ++v) {
    for (int c = 0; c < 3; ++c) rest[4 * v + c] = s.rest[v][c];
    rest[4 * v + 3] = gammas[v];
  }
  upload_data_texture(s.rest_texture, rest.data(), s.vertex_count, 4);
  s.joint_moments.assign(joint_count, Eigen::Vector4d::Zero());
  for (std::size_t v = 0; v < s.vertex_count; ++v) {
    const Eigen::Vector4d u(s.rest[v].x(), s.rest[v].y(), s.rest[v].z(), 1.0);
    for (std::uint32_t k = skin.offsets[v]; k < skin.offsets[v + 1]; ++k) {
      s.joint_moments[skin.joints[k]] += (double(skin.weights[k]) / double(s.vertex_count)) * u;
    }
  }
  glBindVertexArray(s.gpu_vao);
  glBindBuffer(GL_ARRAY_BUFFER, s.ranges);
  glEnableVertexAttribArray(kRanges);
  glVertexAttribIPointer(kRanges, 4, GL_UNSIGNED_INT, 0, nullptr);
  float_attribute(s.gammas, kGamma, 1);
  glBindVertexArray(0);
  s.skinned = true;
  s.post.reset();
  s.mush = nullptr;
  s.skinning.clear();
}

void Renderer::set_pose(const Pose& pose, const DynamicSkinningState* dynamic) {
  State& s = *state_;
  if (!s.skinned) fail_plain("renderer: set_pose() before set_skin()");
  // Mat4f is column-major: 16 floats per joint are its four columns, one texel each.
  upload_data_texture(s.matrices_texture, pose.skinning.empty() ? nullptr : pose.skinning.front().data(),
                      4 * pose.skinning.size(), 4);
  s.dynamic_frame = dynamic != nullptr && s.dynamic_pairs;
  if (s.dynamic_frame) {
    const auto table = dynamic->joint_table();
    upload_data_texture(s.joints_texture, table.data(), table.size() / 4, 4);
    s.inv_max_angle2 = dynamic->inverse_max_angle_squared();
  }
  s.path = SkinningPath::Gpu;
  s.skinning = pose.skinning;
  if (s.post) run_post_deformer();
}

void Renderer::run_post_deformer() {
  State& s = *state_;
  const std::span<const Mat4f> skinning = s.skinning;
  if (skinning.size() < s.joint_moments.size()) {
    fail_plain("renderer: {} skinning matrices, the skin uses {} joints", skinning.size(), s.joint_moments.size());
  }
  GpuFrame frame;
  frame.matrices = s.matrices_texture, frame.skin = s.skin_texture, frame.pairs = s.pairs_texture;
  frame.joints = s.joints_texture, frame.ranges = s.ranges_texture, frame.rest = s.rest_texture;
  frame.dynamic = s.dynamic_frame;
  frame.inv_max_angle2 = s.inv_max_angle2;
  frame.skinning = skinning;
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();
  for (std::size_t j = 0; j < s.joint_moments.size(); ++j) {
    const Eigen::Matrix4d t = skinning[j].cast<double>();
    centre += (t * s.joint_moments[j]).head<3>();
  }
  frame.lbs_centroid = centre.cast<float>();
  s.post->run(*s.kernels, frame);
}

void Renderer::set_gpu_kernels(GpuKernels kernels) {
  State& s = *state_;
  if (s.kernel_choice == kernels) return;
  if (s.post) fail_plain("renderer: set_gpu_kernels() after a post-deformer was set");
  s.kernel_choice = kernels;
  s.kernels.reset();
}

const char* Renderer::gpu_kernels_in_use() const {
  const State& s = *state_;
  return s.post ? to_string(s.kernels->backend()) : "vertex shader";
}

void Renderer::install_post_deformer(std::unique_ptr<GpuPostDeformer> post) {
  State& s = *state_;
  s.post = std::move(post);
  glBindVertexArray(s.post_vao);
  constexpr GLsizei kStride = 4 * sizeof(float);  // the kernels write vec4
  float_attribute(s.post->positions().buffer(), kPosition, 3, kStride);
  float_attribute(s.post->normals().buffer(), kNormal, 3, kStride);
  if (s.has_uvs) {
    float_attribute(s.uvs, kUv, 2);
  } else {
    glDisableVertexAttribArray(kUv);
  }
  if (s.has_scalars) {
    float_attribute(s.scalars, kScalar, 1);
  } else {
    glDisableVertexAttribArray(kScalar);
  }
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, s.indices);
  glBindVertexArray(0);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  // Until the next pose: this one's result.
  if (!s.skinning.empty()) run_post_deformer();
}

KernelContext& Renderer::kernel_context() {
  State& s = *state_;
  if (!s.skinned) fail_plain("renderer: a post-deformer needs set_skin() first");
  if (!s.kernels) {
    const KernelBackend backend =
        s.kernel_choice == GpuKernels::TransformFeedback ? KernelBackend::TransformFeedback : best_kernel_backend();
    s.kernels = std::make_unique<KernelContext>(backend);
  }
  return *s.kernels;
}

void Renderer::set_delta_mush(const DeltaMush& mush) {
  State& s = *state_;
  clear_post_deformer();
  if (mush.fingerprint().vertex_count != s.vertex_count) {
    fail_plain("renderer: Delta Mush is bound to {} vertices, the mesh has {}", mush.fingerprint().vertex_count,
               s.vertex_count);
  }
  auto post = std::make_unique<GpuDeltaMush>(kernel_context(), mush.plain_operator(), s.vertex_count, s.triangles);
  post->set_output(mush.settings().scale, mush.settings().smooth_only);
  s.mush = post.get();
  install_post_deformer(std::move(post));
}

void Renderer::set_delta_mush_output(float scale, bool smooth_only) {
  State& s = *state_;
  if (!s.mush) fail_plain("renderer: set_delta_mush_output() without Delta Mush");
  s.mush->set_output(scale, smooth_only);
}

void Renderer::set_direct_delta_mush(const DirectDeltaMush& ddm) {
  State& s = *state_;
  clear_post_deformer();
  const DirectDeltaMushTables tables = ddm.tables();
  if (tables.rest.size() != s.vertex_count) {
    fail_plain("renderer: Direct Delta Mush is bound to {} vertices, the mesh has {}", tables.rest.size(),
               s.vertex_count);
  }
  install_post_deformer(std::make_unique<GpuDirectDeltaMush>(kernel_context(), tables, s.triangles));
}

void Renderer::clear_post_deformer() {
  state_->post.reset();
  state_->mush = nullptr;
}

bool Renderer::has_post_deformer() const { return state_->post != nullptr; }

void Renderer::set_path(SkinningPath path) {
  if (path == SkinningPath::Gpu && !state_->skinned) fail_plain("renderer: the GPU path needs set_skin() first");
  state_->path = path;
}
SkinningPath Renderer::path() const { return state_->path; }
bool Renderer::has_skin() const { return state_->skinned; }
std::size_t Renderer::vertex_count() const { return state_->vertex_count; }
bool Renderer::has_texture() const { return state_->has_texture; }
Eigen::AlignedBox3f Renderer::rest_bounds() const { return state_->rest_box; }

void Renderer::set_skeleton(const Rig& rig, const Pose& pose) {
  state_->joints = joint_positions(pose);
  state_->parents = rig.parents;
}

void Renderer::set_scalars(std::span<const float> values) {
  State& s = *state_;
  s.has_scalars = !values.empty();
  if (s.has_scalars && values.size() != s.vertex_count) {
    fail_plain("renderer: {} scalars given, the mesh has {} vertices", values.size(), s.vertex_count);
  }
  for (GLuint vao : {s.cpu_vao, s.gpu_vao, s.post_vao}) {
    glBindVertexArray(vao);
    if (s.has_scalars) {
      upload<float>(s.scalars, values, GL_DYNAMIC_DRAW);
      float_attribute(s.scalars, kScalar, 1);
    } else {
      glDisableVertexAttribArray(kScalar);
    }
  }
  glBindVertexArray(0);
}

namespace {

void clear_frame(int width, int height, const Vec4f& background) {
  glViewport(0, 0, width, height);
  glClearColor(background.x(), background.y(), background.z(), background.w());
  glClearDepthf(1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);
  glDisable(GL_CULL_FACE);
  glDisable(GL_BLEND);
}

// The GPU skinning path's uniforms and tables (matrices, skin, Dynamic Skinning pairs, joints).
void bind_gpu_skinning(const Renderer::State& s, GLuint program) {
  glUniform1i(s.location(program, "u_dynamic"), s.dynamic_frame);
  glUniform1f(s.location(program, "u_inv_max_angle2"), s.inv_max_angle2);
  const std::pair<GLint, GLuint> tables[] = {{kMatricesUnit, s.matrices_texture},
                                             {kSkinUnit, s.skin_texture},
                                             {kPairsUnit, s.pairs_texture},
                                             {kJointsUnit, s.joints_texture}};
  for (const auto& [unit, texture] : tables) {
    glActiveTexture(GL_TEXTURE0 + unit);
    glBindTexture(GL_TEXTURE_2D, texture);
  }
}

// Triangles [first, first + count) in their material's base colour (and texture, when drawn).
// Where draw_triangle_range puts a range's colour (looked up once per draw, not per range).
struct MaterialUniforms {
  GLint base_color, textured;
};

void draw_triangle_range(const Renderer::State& s, const MaterialUniforms& uniforms, std::uint32_t first_triangle,
                         std::uint32_t count, int material, bool textures) {
  Vec4f color(0.8f, 0.8f, 0.8f, 1.0f);
  GLuint texture = 0;
  if (material >= 0 && material < static_cast<int>(s.materials.size())) {
    const Material& m = s.materials[material];
    color = m.base_color;
    if (textures && m.base_color_image >= 0 && m.base_color_image < static_cast<int>(s.textures.size()))
      texture = s.textures[m.base_color_image];
  }
  glUniform4fv(uniforms.base_color, 1, color.data());
  glUniform1i(uniforms.textured, texture != 0);
  glBindTexture(GL_TEXTURE_2D, texture);
  glDrawElements(GL_TRIANGLES, static_cast<GLsizei>(3 * count), GL_UNSIGNED_INT,
                 reinterpret_cast<void*>(static_cast<std::uintptr_t>(first_triangle) * sizeof(Triangle)));
}

void draw_mesh(const Renderer::State& s, const Mat4f& view_projection, const Vec3f& eye, const DrawOptions& options) {
  const bool post = s.path == SkinningPath::Gpu && s.skinned && s.post;
  const bool gpu = s.path == SkinningPath::Gpu && s.skinned && !post;
  const GLuint program = gpu ? s.skinned_program : s.mesh_program;
  glUseProgram(program);
  glUniformMatrix4fv(s.location(program, "u_view_projection"), 1, GL_FALSE, view_projection.data());
  glUniform3fv(s.location(program, "u_eye"), 1, eye.data());
  glUniform1i(s.location(program, "u_heat_map"), options.heat_map && s.has_scalars);
  glUniform2f(s.location(program, "u_scalar_range"), options.scalar_min, options.scalar_max);
  if (gpu) bind_gpu_skinning(s, program);
  glBindVertexArray(post ? s.post_vao : gpu ? s.gpu_vao : s.cpu_vao);
  glActiveTexture(GL_TEXTURE0 + kBaseColorUnit);
  const MaterialUniforms uniforms{s.location(program, "u_base_color"), s.location(program, "u_textured")};
  if (s.primitives.empty()) {
    draw_triangle_range(s, uniforms, 0, static_cast<std::uint32_t>(s.triangles.size()), -1, options.textures);
  } else {
    for (const Primitive& p : s.primitives)
      if (p.triangle_count > 0)
        draw_triangle_range(s, uniforms, p.first_triangle, p.triangle_count, p.material, options.textures);
  }
  glBindVertexArray(0);
}

// How draw_lines draws: points of `point_size` (round or square), faded out towards `radius`
// from `centre` when `fade`.
struct LineStyle {
  float point_size = 1.0f;
  bool fade = false, round = false;
  Vec3f centre = Vec3f::Zero();
  float radius = 0;
};

void draw_lines(const Renderer::State& s, const Mat4f& view_projection, const std::vector<LineVertex>& lines,
                GLenum mode, std::size_t first, const LineStyle& style) {
  if (lines.size() <= first) return;
  glUseProgram(s.lines_program);
  glUniformMatrix4fv(s.location(s.lines_program, "u_view_projection"), 1, GL_FALSE, view_projection.data());
  glUniform1f(s.location(s.lines_program, "u_point_size"), style.point_size);
  glUniform3fv(s.location(s.lines_program, "u_fade_centre"), 1, style.centre.data());
  glUniform1f(s.location(s.lines_program, "u_fade_radius"), style.fade ? style.radius : 0.0f);
  glUniform1i(s.location(s.lines_program, "u_round_points"), style.round);
  glBindVertexArray(s.lines_vao);
  glBindBuffer(GL_ARRAY_BUFFER, s.lines_buffer);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(lines.size() * sizeof(LineVertex)), lines.data(),
               GL_STREAM_DRAW);
  glDrawArrays(mode, static_cast<GLint>(first), static_cast<GLsizei>(lines.size() - first));
  glBindVertexArray(0);
}

// A ground grid of 61 lines each way around the camera's target, every fifth brighter, fading out.
void draw_grid(const Renderer::State& s, const OrbitCamera& camera, const Mat4f& view_projection,
               const DrawOptions& options) {
  const float ground = std::isnan(options.ground_height) ? s.rest_box.min().y() : options.ground_height;
  const float step = options.grid_spacing > 0 ? options.grid_spacing : nice_step(0.1f * s.size);
  const int half = 30;
  const float cx = std::round(camera.target.x() / step) * step, cz = std::round(camera.target.z() / step) * step;
  const float extent = half * step;
  std::vector<LineVertex> lines;
  for (int i = -half; i <= half; ++i) {
    const bool major = (static_cast<long>(std::lround(i + (cx + cz) / step)) % 5) == 0;
    const float a = major ? 0.55f : 0.3f;
    const float c = major ? 0.75f : 0.6f;
    const float x = cx + i * step, z = cz + i * step;
    lines.push_back({{x, ground, cz - extent}, {c, c, c, a}});
    lines.push_back({{x, ground, cz + extent}, {c, c, c, a}});
    lines.push_back({{cx - extent, ground, z}, {c, c, c, a}});
    lines.push_back({{cx + extent, ground, z}, {c, c, c, a}});
  }
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glDepthMask(GL_FALSE);
  draw_lines(s, view_projection, lines, GL_LINES, 0, {1.0f, true, false, Vec3f(cx, ground, cz), extent});
  glDepthMask(GL_TRUE);
}

// Bones as lines and joints as round points (the selected one red), drawn over the mesh: the
// skeleton is inside it.
void draw_skeleton(const Renderer::State& s, const Mat4f& view_projection, int selected_joint) {
  std::vector<LineVertex> lines;
  const Vec4f bone(1.0f, 0.85f, 0.2f, 1.0f), selected(1.0f, 0.2f, 0.2f, 1.0f), joint(0.2f, 0.9f, 1.0f, 1.0f);
  for (std::size_t j = 0; j < s.joints.size() && j < s.parents.size(); ++j) {
    if (s.parents[j] < 0) continue;
    const Vec3f& a = s.joints[j];
    const Vec3f& b = s.joints[s.parents[j]];
    lines.push_back({{a.x(), a.y(), a.z()}, {bone.x(), bone.y(), bone.z(), bone.w()}});
    lines.push_back({{b.x(), b.y(), b.z()}, {bone.x(), bone.y(), bone.z(), bone.w()}});
  }
  const std::size_t points = lines.size();
  std::vector<LineVertex> bones_only = lines;
  for (std::size_t j = 0; j < s.joints.size(); ++j) {
    const Vec4f& c = static_cast<int>(j) == selected_joint ? selected : joint;
    lines.push_back({{s.joints[j].x(), s.joints[j].y(), s.joints[j].z()}, {c.x(), c.y(), c.z(), c.w()}});
  }
  glDisable(GL_DEPTH_TEST);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
#ifndef __EMSCRIPTEN__
  glEnable(GL_PROGRAM_POINT_SIZE);
#endif
  draw_lines(s, view_projection, bones_only, GL_LINES, 0, {});
  draw_lines(s, view_projection, lines, GL_POINTS, points, {7.0f, false, true, Vec3f::Zero(), 0});
  glEnable(GL_DEPTH_TEST);
}

}  // namespace

void Renderer::draw(const OrbitCamera& camera, int width, int height, const DrawOptions& options) {
  const State& s = *state_;
  const float aspect = static_cast<float>(width) / static_cast<float>(std::max(height, 1));
  const Mat4f view_projection = camera.view_projection(aspect);
  clear_frame(width, height, options.background);
  if (options.mesh && s.vertex_count > 0 && !s.triangles.empty()) draw_mesh(s, view_projection, camera.eye(), options);
  if (options.grid) draw_grid(s, camera, view_projection, options);
  if (options.skeleton && !s.joints.empty()) draw_skeleton(s, view_projection, options.selected_joint);
  glDisable(GL_BLEND);
  glUseProgram(0);
}

std::vector<Vec3f> Renderer::gpu_positions() {
  State& s = *state_;
  if (!s.skinned) fail_plain("renderer: gpu_positions() needs set_skin() and set_pose()");
  std::vector<Vec3f> result(s.vertex_count, Vec3f::Zero());
  if (s.vertex_count == 0) return result;
  if (s.post) {
    const std::vector<float> xyz = s.post->positions().read_xyz();
    std::memcpy(static_cast<void*>(result.data()), xyz.data(), xyz.size() * sizeof(float));
    return result;
  }
#ifdef __EMSCRIPTEN__
  fail_plain("renderer: reading GPU positions back is not available in the browser");
#else
  const GLsizeiptr bytes = static_cast<GLsizeiptr>(s.vertex_count * sizeof(Vec3f));
  glBindBuffer(GL_TRANSFORM_FEEDBACK_BUFFER, s.feedback_buffer);
  glBufferData(GL_TRANSFORM_FEEDBACK_BUFFER, bytes, nullptr, GL_STREAM_READ);
  glUseProgram(s.skinned_program);
  bind_gpu_skinning(s, s.skinned_program);
  const Mat4f identity = Mat4f::Identity();
  glUniformMatrix4fv(s.location(s.skinned_program, "u_view_projection"), 1, GL_FALSE, identity.data());
  // A surfaceless context has no default framebuffer, and draws into an incomplete one are
  // dropped, even with rasterisation off.
  GLint previous_framebuffer = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &previous_framebuffer);
  if (!s.feedback_framebuffer) {
    glGenFramebuffers(1, &s.feedback_framebuffer);
    glGenRenderbuffers(1, &s.feedback_color);
    glBindRenderbuffer(GL_RENDERBUFFER, s.feedback_color);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 1, 1);
    glBindFramebuffer(GL_FRAMEBUFFER, s.feedback_framebuffer);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, s.feedback_color);
  }
  glBindFramebuffer(GL_FRAMEBUFFER, s.feedback_framebuffer);
  glBindVertexArray(s.gpu_vao);
  glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, s.feedback_buffer);
  glEnable(GL_RASTERIZER_DISCARD);
  glBeginTransformFeedback(GL_POINTS);
  glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(s.vertex_count));
  glEndTransformFeedback();
  glDisable(GL_RASTERIZER_DISCARD);
  glBindVertexArray(0);
  const void* mapped = glMapBufferRange(GL_TRANSFORM_FEEDBACK_BUFFER, 0, bytes, GL_MAP_READ_BIT);
  if (!mapped) fail_plain("OpenGL: cannot read the transform feedback buffer back (GL error 0x{:x})", glGetError());
  std::memcpy(static_cast<void*>(result.data()), mapped, static_cast<std::size_t>(bytes));
  glUnmapBuffer(GL_TRANSFORM_FEEDBACK_BUFFER);
  glBindBufferBase(GL_TRANSFORM_FEEDBACK_BUFFER, 0, 0);
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(previous_framebuffer));
  glUseProgram(0);
#endif
  return result;
}

std::vector<Vec3f> joint_positions(const Pose& pose) {
  std::vector<Vec3f> result;
  result.reserve(pose.world.size());
  for (const Mat4f& m : pose.world) result.push_back(m.block<3, 1>(0, 3));
  return result;
}

int pick_joint(std::span<const Vec3f> joints, const Mat4f& view_projection, int width, int height, const Vec2f& pixel,
               float radius_px) {
  int best = -1;
  float best_distance = radius_px;
  for (std::size_t j = 0; j < joints.size(); ++j) {
    const ScreenPoint p = project(view_projection, joints[j], width, height);
    if (!p.in_front) continue;
    const float d = (p.pixel - pixel).norm();
    if (d <= best_distance) best_distance = d, best = static_cast<int>(j);
  }
  return best;
}

}  // namespace wobble::render
