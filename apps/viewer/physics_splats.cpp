#include "physics_splats.hpp"

#include <algorithm>
#include <cmath>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>

#include "core/fail.hpp"

namespace wobble::viewer {

namespace {

constexpr double kShC0 = 0.28209479177387814;  // the zeroth spherical harmonic, 1 / (2 sqrt(pi))

float property(const physics::GaussianCloud& cloud, std::size_t g, int index, float fallback) {
  return index < 0 ? fallback : cloud.values[g * cloud.properties.size() + static_cast<std::size_t>(index)];
}

}  // namespace

Character load_viewer_file(const std::filesystem::path& file) {
  if (file.extension() != ".ply" || !physics::is_gaussian_ply(file)) return load_character(file);
  const physics::GaussianCloud cloud = physics::read_gaussian_ply(file);
  cloud.require_geometry(file);
  Character c;
  c.source = file;
  for (std::size_t g = 0; g < cloud.count(); ++g) c.mesh.positions.push_back(cloud.center(g).cast<float>());
  if (c.mesh.positions.empty()) fail(file, "holds no Gaussians");
  return c;
}

bool is_splat_character(const Character& character) {
  return character.mesh.triangles.empty() && character.source.extension() == ".ply" &&
         physics::is_gaussian_ply(character.source);
}

SplatView::SplatView(const std::filesystem::path& file) {
  const physics::GaussianCloud cloud = physics::read_gaussian_ply(file);
  const int dc[3] = {cloud.find("f_dc_0"), cloud.find("f_dc_1"), cloud.find("f_dc_2")}, opacity = cloud.find("opacity");
  for (std::size_t g = 0; g < cloud.count(); ++g) {
    rest_.push_back(cloud.covariance(g));
    Vec4f color;
    for (int c = 0; c < 3; ++c)
      color[c] = std::clamp(static_cast<float>(0.5 + kShC0 * property(cloud, g, dc[c], 0.0f)), 0.0f, 1.0f);
    color[3] = 1.0f / (1.0f + std::exp(-property(cloud, g, opacity, 10.0f)));  // stored as a logit
    colors_.push_back(color);
  }
}

void SplatView::update(const std::vector<Vec3f>& centres, const std::vector<Eigen::Matrix3d>& deformations) {
  std::vector<render::Splat> splats(std::min(centres.size(), rest_.size()));
  for (std::size_t g = 0; g < splats.size(); ++g) {
    const Eigen::Matrix3d sigma =
        deformations.empty() ? rest_[g] : Eigen::Matrix3d(deformations[g] * rest_[g] * deformations[g].transpose());
    render::Splat& s = splats[g];
    s.center = centres[g];
    const float values[6] = {static_cast<float>(sigma(0, 0)), static_cast<float>(sigma(0, 1)),
                             static_cast<float>(sigma(0, 2)), static_cast<float>(sigma(1, 1)),
                             static_cast<float>(sigma(1, 2)), static_cast<float>(sigma(2, 2))};
    std::copy(values, values + 6, s.covariance);
    s.color = colors_[g];
  }
  renderer_.set_splats(splats);
}

}  // namespace wobble::viewer
