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
}  // namespace wobble

namespace wobble::render {

enum class SkinningPath { Cpu, Gpu };

struct DrawOptions {
  bool mesh = true;
  bool grid = true;
  bool skeleton = false;
  bool textures = true;      // base-colour textures when the mesh has them
  bool heat_map = false;     // colour by the scalar field given to set_scalars()
  float scalar_min = 0, scalar_max = 1;  // the heat map's colour range
  int selected_joint = -1;   // highlighted in the skeleton overlay
  Vec4f background = Vec4f(0.20f, 0.21f, 0.24f, 1.0f);
  // Height (y) of the ground grid; NaN: the lowest point of the rest mesh.
  float ground_height = std::numeric_limits<float>::quiet_NaN();
  float grid_spacing = 0;    // 0: a tenth of the character size, rounded to 1, 2 or 5 x 10^k
};

class Renderer {
 public:
  // Needs a current OpenGL 3.3 core / ES 3.0 context. Throws Error if a shader does not compile.
  Renderer();
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  // Uploads the mesh once: triangles, UVs, materials and their base-colour textures, rest
  // positions and normals. Resets the skin, the scalars and the skeleton.
  void set_mesh(const Mesh& mesh);
  // CPU path: deformed positions (world space) for this frame, and normals (empty: computed
  // here from the triangles). Switches to the CPU path.
  void set_positions(std::span<const Vec3f> positions, std::span<const Vec3f> normals = {});
  // GPU path: uploads the skin once (and the Dynamic Skinning pair table and bend weights when
  // `dynamic` is given and initialised; call again after re-initialising it).
  void set_skin(const Skin& skin, std::size_t joint_count, const DynamicSkinningState* dynamic = nullptr);
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

  // The GPU path's deformed positions, read back with transform feedback (tests, parity).
  std::vector<Vec3f> gpu_positions();

  std::size_t vertex_count() const;
  bool has_texture() const;
  // Bounding box of the rest mesh.
  Eigen::AlignedBox3f rest_bounds() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// World positions of the joints of a pose (translation of each world matrix).
std::vector<Vec3f> joint_positions(const Pose& pose);
// The joint whose projection is nearest to `pixel` (pixels from the top-left), within
// `radius_px`; -1 if none. Joints behind the camera are ignored.
int pick_joint(std::span<const Vec3f> joints, const Mat4f& view_projection, int width, int height, const Vec2f& pixel,
               float radius_px = 12.0f);

}  // namespace wobble::render
