#pragma once
// A deformable body of one shape, built the same way by every front end: scenes and quick scenes
// (so `wobble simulate`, SCENE.json, Python's Simulation and the C API) and the viewer's physics
// mode, so that what the viewer shows is what the others compute. In the shape's normalised
// frame (longest side 2), in stages the viewer can keep apart (it keeps the fields while only
// the material or the pins change):
//   shape_cover      the points fields and pins are evaluated over: the cubature samples, then
//                    the shape's own points (vertices, cloud points or Gaussian centres);
//   shape_eigenmodes the skinning eigenmodes over the cover;
//   shape_body       the body: samples, fields, pins, collision points, material.
#include <memory>
#include <string>
#include <vector>

#include <wobble/fields/sampling.hpp>
#include <wobble/fields/skinning_field.hpp>
#include <wobble/physics/dynamics.hpp>
#include <wobble/physics/elasticity.hpp>

namespace wobble::physics {

std::vector<Vec3d> shape_cover(const fields::SamplePoints& samples, const std::vector<Vec3d>& points);

// `handles` eigenmodes on a grid of `field_grid` cells along the longest side (settings.hpp).
std::shared_ptr<const fields::SkinningField> shape_eigenmodes(const std::vector<Vec3d>& cover, int handles,
                                                              int field_grid);

// The points of a shape's body that meet planes and other bodies: its samples and its points
// (every k-th, at most 4,000), so that the visible surface, not only the cubature points, stays
// out of a floor.
std::vector<Vec3d> collision_points(const fields::SamplePoints& samples, const std::vector<Vec3d>& points);

// The body of a shape of `points` sampled by `samples`, moved by `field`, pinned by `pins` (empty:
// free), of `material` and `model`; placement and initial motion are the caller's.
BodyDescription shape_body(std::string name, fields::SamplePoints samples,
                           std::shared_ptr<const fields::SkinningField> field, const std::vector<Vec3d>& points,
                           DirichletRegion pins, const Material& material, EnergyModel model);

}  // namespace wobble::physics
