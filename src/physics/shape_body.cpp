#include <wobble/physics/shape_body.hpp>

#include <algorithm>
#include <utility>

#include <wobble/physics/eigenmodes.hpp>

namespace wobble::physics {

std::vector<Vec3d> shape_cover(const fields::SamplePoints& samples, const std::vector<Vec3d>& points) {
  std::vector<Vec3d> cover = samples.points;
  cover.insert(cover.end(), points.begin(), points.end());
  return cover;
}

std::shared_ptr<const fields::SkinningField> shape_eigenmodes(const std::vector<Vec3d>& cover, int handles,
                                                              int field_grid) {
  EigenmodeOptions options;
  options.handles = handles;
  options.grid_resolution = field_grid;
  return skinning_eigenmodes(cover, options);
}

std::vector<Vec3d> collision_points(const fields::SamplePoints& samples, const std::vector<Vec3d>& points) {
  std::vector<Vec3d> out = samples.points;
  const std::size_t stride = std::max<std::size_t>(1, points.size() / 4000);
  for (std::size_t i = 0; i < points.size(); i += stride) out.push_back(points[i]);
  return out;
}

BodyDescription shape_body(std::string name, fields::SamplePoints samples,
                           std::shared_ptr<const fields::SkinningField> field, const std::vector<Vec3d>& points,
                           DirichletRegion pins, const Material& material, EnergyModel model) {
  BodyDescription d;
  d.name = std::move(name);
  d.collision_points = collision_points(samples, points);
  d.samples = std::move(samples);
  d.field = std::move(field);
  d.pins = std::move(pins);
  material.check();
  d.material = material;
  d.model = model;
  return d;
}

}  // namespace wobble::physics
