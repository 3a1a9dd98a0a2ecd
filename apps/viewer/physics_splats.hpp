#pragma once
// 3DGS PLY files in the viewer: opened as a point "character" (the Gaussian centres, no
// triangles) that the physics mode simulates, and drawn as ellipse splats coloured from the SH DC
// term, each deformed by its centre's local affine map: mu = x(mu0), Sigma = A Sigma0 A^T
// (PhysSkin++ III-F).
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include <Eigen/Core>

#include <wobble/character.hpp>
#include <wobble/physics/gaussians.hpp>
#include <wobble/render/camera.hpp>
#include <wobble/render/splats.hpp>

namespace wobble::viewer {

// A 3DGS PLY as a Character whose vertices are the Gaussian centres; anything else as load_character.
Character load_viewer_file(const std::filesystem::path& file);
bool is_splat_character(const Character& character);

class SplatView {
 public:
  // Reads the cloud of the character's source file (needs a current OpenGL context).
  explicit SplatView(const std::filesystem::path& file);
  // Deformed centres (file frame) and local linear maps A per Gaussian; empty maps: the rest shape.
  void update(const std::vector<Vec3f>& centres, const std::vector<Eigen::Matrix3d>& deformations);
  void draw(const render::OrbitCamera& camera, int width, int height) { renderer_.draw(camera, width, height); }
  std::size_t count() const { return rest_.size(); }

 private:
  std::vector<Eigen::Matrix3d> rest_;  // covariances, file frame
  std::vector<Vec4f> colors_;          // SH DC colour and sigmoid(opacity)
  render::SplatRenderer renderer_;
};

}  // namespace wobble::viewer
