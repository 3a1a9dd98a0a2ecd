#pragma once
// Small helpers for the physics tests: a body from a shape file, with few handles and points.
#include <memory>
#include <string>

#include <wobble/io/files.hpp>
#include <wobble/physics/dynamics.hpp>
#include <wobble/physics/eigenmodes.hpp>
#include <wobble/fields/sampling.hpp>

#include "test_util.hpp"

namespace wobble::test {

struct PhysicsShape {
  Character character;
  fields::SamplePoints samples;
  std::vector<Vec3d> vertices;  // normalised frame
  std::shared_ptr<fields::GridField> field;
};

inline PhysicsShape physics_shape(const std::string& name, int handles, std::size_t points, int grid = 14) {
  PhysicsShape s;
  s.character = read_off(shared_asset("shapes/" + name));
  fields::SampleOptions options;
  options.grid_resolution = grid;
  options.surface_samples = 300;
  options.edge_samples = 60;
  s.samples = fields::subsample(fields::sample_mesh(s.character.mesh, options), points);
  for (const auto& p : s.character.mesh.positions)
    s.vertices.push_back(s.samples.normalization.to_normalized(p.cast<double>()));
  std::vector<Vec3d> cover = s.samples.points;
  cover.insert(cover.end(), s.vertices.begin(), s.vertices.end());
  physics::EigenmodeOptions eigen;
  eigen.handles = handles;
  eigen.grid_resolution = 10;
  s.field = physics::skinning_eigenmodes(cover, eigen);
  return s;
}

inline physics::BodyDescription body_of(const PhysicsShape& s, const std::string& name = "body") {
  physics::BodyDescription d;
  d.name = name;
  d.samples = s.samples;
  d.field = s.field;
  d.material = {2e5, 0.4, 1000};
  d.collision_points = s.samples.points;
  d.collision_points.insert(d.collision_points.end(), s.vertices.begin(), s.vertices.end());
  return d;
}

}  // namespace wobble::test
