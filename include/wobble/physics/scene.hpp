#pragma once
// A simulation scene: objects (meshes or Gaussian splats, deformable or kinematic), planes,
// drags, contact and solver settings, built from a SCENE.json file or from the quick flags of
// `wobble simulate SHAPE`. Each object is normalised (longest side 2) and placed in the scene by
// `scale` and `position`; physics runs in scene units (metres).
//
// SCENE.json (every key optional unless marked):
// {
//   "fps": 30, "frames": 120, "substeps": 2, "gravity": [0, -9.81, 0],
//   "solver": {"max_iterations": 20, "tolerance": 1e-6},
//   "contact": {"enabled": true, "radius": 0.1, "min_gap": 0.25, "stiffness": 1e4},
//   "objects": [ {                                   (required, at least one)
//       "file": "bunny.off",                         (required; relative to the scene file)
//       "kinematic": false,                          (true: a rigid obstacle moved by velocity/angular_velocity)
//       "handles": 16, "points": 1000, "sample_grid": 24, "field_grid": 20,
//       "source": "eigenmodes" | "skin",             (skin: the rigged file's own weights)
//       "material": {"youngs_modulus": 1e5, "poisson_ratio": 0.45, "density": 1000, "model": "neohookean"},
//       "pin": "y>0.8", "pin_blend": 0.2, "pin_velocity": [0, 0, 0],
//       "scale": 1, "position": [0, 0, 0], "velocity": [0, 0, 0], "angular_velocity": [0, 0, 0],
//       "acceleration": [0, 0, 0]                    (an extra constant body force per unit mass)
//   } ],
//   "planes": [ {"origin": [0, -1, 0], "normal": [0, 1, 0], "axis": [1, 0, 0], "half_size": [0, 0],
//                "stiffness": 1e5, "velocity": [0, 0, 0], "angular_velocity": [0, 0, 0]} ],
//   "drags": [ {"object": 0, "point": [0, 1, 0], "target": [0.5, 1.5, 0], "stiffness": 400, "radius": 0.25} ]
// }
// Output frames hold every object's vertices (or Gaussians) in object order, in the scene frame;
// quick scenes (one object, scale 1, position 0) write in the input file's own frame.
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <wobble/character.hpp>
#include <wobble/physics/dynamics.hpp>
#include <wobble/physics/gaussians.hpp>
#include <wobble/physics/scene_description.hpp>
#include <wobble/physics/shape_body.hpp>

namespace wobble::physics {

struct SceneObject {
  std::filesystem::path file;
  Character character;                     // mesh objects
  std::optional<GaussianCloud> gaussians;  // splat objects
  int body = -1;                           // deformable body index, or
  int kinematic = -1;                      // kinematic obstacle index
  fields::Normalization normalization;     // file -> normalised
  double scale = 1;                        // normalised -> scene
  Vec3d position = Vec3d::Zero();
  std::vector<Vec3d> rest;  // bound points (vertices or Gaussian centres), scene frame
  PointBasis basis;         // at `rest` (deformable objects)
};

struct Scene {
  World world;
  std::vector<SceneObject> objects;
  double fps = 30;
  int frames = 120;
  int substeps = 2;
  bool file_frame_output = false;  // quick scenes: outputs in the input file's frame

  // Current positions of an object's bound points (output frame).
  std::vector<Vec3d> positions(std::size_t object) const;
  // Every object's bound points, in object order.
  std::size_t point_count() const;
  // Every object's current points in object order, as float: a frame as `wobble simulate` writes it.
  std::vector<Vec3f> frame_points() const;
  // Current Gaussians of a splat object (centres and covariances moved, the rest kept).
  GaussianCloud gaussians(std::size_t object) const;
  // Advances one frame (substeps steps).
  void advance_frame();
};

// Parses and builds; throws Error naming the file (and the JSON path of the key) on bad input.
// Every value is checked (scene_description.hpp) before anything is built; unknown keys are errors.
// The keys that are settings (handles, material, pin, clock, solver, contact) take their defaults
// and ranges from physics_description() (settings.hpp, docs/physics-parameters.md).
Scene load_scene(const std::filesystem::path& scene_file);
Scene scene_from_json(const nlohmann::json& json, const std::filesystem::path& scene_file);
// Builds a checked description: samples the objects, makes their subspaces, checks the world's
// physical inputs (input_checks.hpp).
Scene build_scene(const SceneDescription& description, const std::filesystem::path& scene_file);

struct QuickSceneOptions {
  Settings settings;            // settings.hpp (contact and drags: a single shape has none)
  std::optional<double> floor;  // height in normalised coordinates
  // When set, gives the subspace (with the constant column) instead of eigenmodes (e.g. neural
  // fields; the mesh in file coordinates).
  fields::MeshFields field_source;
};
Scene quick_scene(const std::filesystem::path& shape, const QuickSceneOptions& options);

}  // namespace wobble::physics
