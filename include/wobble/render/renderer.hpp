#pragma once
// The renderer: draws a character (lit, base-colour textured, or as a heat map of a per-vertex
// scalar), a ground grid and a skeleton overlay into whatever OpenGL context is current (EGL for
// `wobble render`, GLFW for the viewer, WebGL 2 in the browser). GL calls stay within OpenGL 3.3
// core ∩ OpenGL ES 3.0; shaders are written once and compiled as GLSL 3.30 or GLSL ES 3.00.
//
// Two ways to deform the mesh:
//   CPU path  set_positions() each frame with positions (and normals) from a DeformerStack.
//   GPU path  set_skin() once, then set_pose() each frame: the vertex shader computes linear
//             blend skinning plus the Dynamic Skinning offsets (DynamicSkinningState::advance()
//             gives the per-joint table; the pair table comes from kernel_weights()).
//             With a post-deformer (set_delta_mush(), set_direct_delta_mush()), set_pose() runs
//             it as GPU kernels (compute shaders on OpenGL 4.3, else transform feedback: OpenGL
//             3.3, WebGL 2) into positions and normals that the draw reads.
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include <wobble/math.hpp>
#include <wobble/render/camera.hpp>

namespace wobble {
struct Mesh;
struct Rig;
struct Skin;
struct Pose;
class DynamicSkinningState;
class DeltaMush;
class DirectDeltaMush;
}  // namespace wobble

namespace wobble::render {

class GpuPostDeformer;
class KernelContext;

enum class SkinningPath { Cpu, Gpu };
// How the post-deformers' kernels run: the best the context has, or transform feedback always
// (the WebGL 2 path, also on the desktop: tests).
enum class GpuKernels { Automatic, TransformFeedback };

struct DrawOptions {
  bool mesh = true;
  bool grid = true;
  bool skeleton = false;
  bool textures = true;                  // base-colour textures when the mesh has them
  bool heat_map = false;                 // colour by the scalar field given to set_scalars()
  float scalar_min = 0, scalar_max = 1;  // the heat map's colour range
  int selected_joint = -1;               // highlighted in the skeleton overlay
  Vec4f background = Vec4f(0.20f, 0.21f, 0.24f, 1.0f);
  // Height (y) of the ground grid; NaN: the lowest point of the rest mesh.
  float ground_height = std::numeric_limits<float>::quiet_NaN();
  float grid_spacing = 0;  // 0: a tenth of the character size, rounded to 1, 2 or 5 x 10^k
};

class Renderer {
 public:
  // Needs a current OpenGL 3.3 core / ES 3.0 context. Throws Error if a shader does not compile.
  Renderer();
  ~Renderer();

  // Uploads the mesh once: triangles, UVs, materials and their base-colour textures, rest
  // positions and normals. Resets the skin, the scalars and the skeleton.
  void set_mesh(const Mesh& mesh);
  // CPU path: deformed positions (world space) for this frame, and normals (empty: computed
  // here from the triangles). Switches to the CPU path.
  void set_positions(std::span<const Vec3f> positions, std::span<const Vec3f> normals = {});
  // GPU path: uploads the skin once (and the Dynamic Skinning pair table and bend weights when
  // `dynamic` is given and initialised; call again after re-initialising it).
  // Removes any post-deformer.
  void set_skin(const Skin& skin, std::size_t joint_count, const DynamicSkinningState* dynamic = nullptr);
  // GPU path post-deformers, after set_skin() (one at a time; the tables are copied, the object
  // may go). Delta Mush (bound in wobble mode to this mesh) runs on the skinned positions (with
  // the Dynamic Skinning offsets when set_pose() gets them); Direct Delta Mush (bound to this
  // mesh and skin) replaces the skinning. Throws Error for a mesh or mode that does not fit.
  void set_delta_mush(const DeltaMush& mush);
  void set_delta_mush_output(float scale, bool smooth_only);  // live: Delta Mush's scale, smooth_only
  void set_direct_delta_mush(const DirectDeltaMush& ddm);
  void clear_post_deformer();
  bool has_post_deformer() const;
  // Before set_delta_mush() / set_direct_delta_mush(): which kernels they get.
  void set_gpu_kernels(GpuKernels kernels);
  // What runs the GPU path now: "vertex shader", "compute shaders" or "transform feedback".
  const char* gpu_kernels_in_use() const;
  // GPU path, each frame: skinning matrices of the pose and, when `dynamic` is not null, its joint
  // table (after dynamic->advance() for this pose). Switches to the GPU path.
  void set_pose(const Pose& pose, const DynamicSkinningState* dynamic = nullptr);
  void set_path(SkinningPath path);
  SkinningPath path() const;
  bool has_skin() const;

  // Skeleton overlay: bones from each joint to its parent (world positions of the pose).
  void set_skeleton(const Rig& rig, const Pose& pose);
  // Heat map values, one per vertex (empty: none).
  void set_scalars(std::span<const float> values);

  // Draws into the bound framebuffer, viewport (0, 0, width, height).
  void draw(const OrbitCamera& camera, int width, int height, const DrawOptions& options = {});

  // The GPU path's deformed positions, read back (transform feedback of the vertex shader, or
  // the post-deformer's result): tests, parity. Desktop only.
  std::vector<Vec3f> gpu_positions();

  std::size_t vertex_count() const;
  bool has_texture() const;
  // Bounding box of the rest mesh.
  Eigen::AlignedBox3f rest_bounds() const;

  struct State;  // the GL objects and uploaded mesh (renderer.cpp), opaque

 private:
  KernelContext& kernel_context();
  void install_post_deformer(std::unique_ptr<GpuPostDeformer> post);
  void run_post_deformer();  // on the last pose's skinning matrices
  std::unique_ptr<State> state_;
};

// World positions of the joints of a pose (translation of each world matrix).
std::vector<Vec3f> joint_positions(const Pose& pose);
// The joint whose projection is nearest to `pixel` (pixels from the top-left), within
// `radius_px`; -1 if none. Joints behind the camera are ignored.
int pick_joint(std::span<const Vec3f> joints, const Mat4f& view_projection, int width, int height, const Vec2f& pixel,
               float radius_px = 12.0f);

}  // namespace wobble::render
