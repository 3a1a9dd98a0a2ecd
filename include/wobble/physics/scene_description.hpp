#pragma once
// What a SCENE.json says, read and checked whole before anything is built: every key's type and
// range (errors name the file and the JSON path, `scene.json: planes[0].half_size[1]: expected a
// number, got true`), unknown keys, the pin predicates and the physical inputs (input_checks.hpp).
// Building the scene (sampling, eigenmodes) is scene.hpp's build_scene.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include <wobble/physics/dynamics.hpp>
#include <wobble/physics/elasticity.hpp>
#include <wobble/physics/settings.hpp>
#include <wobble/fields/skinning_field.hpp>

namespace wobble::physics {

struct ObjectDescription {
  std::filesystem::path file;  // resolved against the scene file's folder
  std::string where;           // "scene.json: objects[2]", for messages
  bool kinematic = false;
  int handles = default_settings().handles;  // the defaults: settings.hpp
  std::size_t points = static_cast<std::size_t>(default_settings().points);
  int sample_grid = default_settings().sample_grid, field_grid = default_settings().field_grid;
  std::string source = "eigenmodes";  // or "skin"
  fields::MeshFields field_source;    // overrides `source` (quick scenes: learned fields)
  Material material = default_settings().material();
  EnergyModel model = default_settings().model;
  std::string pin;
  double pin_blend = default_settings().pin_blend;
  Vec3d pin_velocity = Vec3d::Zero();
  double scale = 1;
  Vec3d position = Vec3d::Zero(), velocity = Vec3d::Zero(), angular_velocity = Vec3d::Zero(),
        acceleration = Vec3d::Zero();
};

struct DragDescription {
  std::size_t object = 0;  // index into SceneDescription::objects (deformable)
  Drag drag;               // drag.body is set when the scene is built
};

struct SceneDescription {
  double fps = default_settings().fps;
  int frames = default_settings().frames, substeps = default_settings().substeps;
  SolverOptions solver;
  ContactOptions contact;
  std::vector<ObjectDescription> objects;
  std::vector<Plane> planes;
  std::vector<DragDescription> drags;
};

// Reads and checks a scene; throws Error naming `scene_file` and the key.
SceneDescription describe_scene(const nlohmann::json& json, const std::filesystem::path& scene_file);

}  // namespace wobble::physics
