// Scenes from SCENE.json or quick flags (see scene.hpp).
#include <wobble/physics/scene.hpp>

#include <fstream>

#include <nlohmann/json.hpp>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/physics/eigenmodes.hpp>
#include <wobble/physics/rig_weights_field.hpp>

#include "core/fail.hpp"

namespace wobble::physics {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct ObjectSpec {
  fs::path file;
  bool kinematic = false;
  int handles = 16;
  std::size_t points = 1000;
  int sample_grid = 24, field_grid = 20;
  std::string source = "eigenmodes";
  MeshFields field_source;  // overrides `source`
  Material material{1e5, 0.45, 1000};
  EnergyModel model = EnergyModel::NeoHookean;
  std::string pin;
  double pin_blend = 0.2;
  Vec3d pin_velocity = Vec3d::Zero();
  double scale = 1;
  Vec3d position = Vec3d::Zero(), velocity = Vec3d::Zero(), angular_velocity = Vec3d::Zero(), acceleration = Vec3d::Zero();
};

void add_object(Scene& scene, const ObjectSpec& spec) {
  SceneObject object;
  object.file = spec.file;
  object.scale = spec.scale;
  object.position = spec.position;
  if (!(spec.scale > 0)) fail(spec.file, "object scale must be positive");
  if (spec.handles < 1 || spec.handles > 256) fail(spec.file, "handles must be in [1, 256] (got {})", spec.handles);
  if (spec.points < 10) fail(spec.file, "need at least 10 sample points (got {})", spec.points);
  SampleOptions sampling;
  sampling.grid_resolution = spec.sample_grid;
  SamplePoints samples;
  std::vector<Vec3d> bound;  // file frame
  std::string extension = spec.file.extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension == ".ply" && is_gaussian_ply(spec.file)) {
    object.gaussians = read_gaussian_ply(spec.file);
    for (std::size_t i = 0; i < object.gaussians->count(); ++i) bound.push_back(object.gaussians->center(i));
    if (bound.empty()) fail(spec.file, "holds no Gaussians");
    samples = sample_point_cloud(bound, sampling);
  } else {
    object.character = load_character(spec.file);
    if (object.character.mesh.triangles.empty()) fail(spec.file, "has no triangles to simulate");
    for (const Vec3f& p : object.character.mesh.positions) bound.push_back(p.cast<double>());
    samples = sample_mesh(object.character.mesh, sampling);
  }
  samples = subsample(samples, spec.points);
  object.normalization = samples.normalization;
  std::vector<Vec3d> bound_normalised;
  for (const Vec3d& p : bound) {
    bound_normalised.push_back(object.normalization.to_normalized(p));
    object.rest.push_back(spec.scale * bound_normalised.back() + spec.position);
  }
  if (spec.kinematic) {
    KinematicBody k;
    k.name = spec.file.filename().string();
    for (const Vec3d& p : samples.points) k.points.push_back(spec.scale * p + spec.position);
    k.center = spec.position;
    k.velocity = spec.velocity;
    k.angular_velocity = spec.angular_velocity;
    object.kinematic = scene.world.add_kinematic(std::move(k));
    scene.objects.push_back(std::move(object));
    return;
  }
  BodyDescription d;
  d.name = spec.file.filename().string();
  std::vector<Vec3d> cover = samples.points;
  cover.insert(cover.end(), bound_normalised.begin(), bound_normalised.end());
  if (spec.field_source) {
    d.field = spec.field_source(object.character.mesh, true);
  } else if (spec.source == "eigenmodes") {
    EigenmodeOptions eigen;
    eigen.handles = spec.handles;
    eigen.grid_resolution = spec.field_grid;
    d.field = skinning_eigenmodes(cover, eigen);
  } else if (spec.source == "skin") {
    if (!object.character.is_skinned()) fail(spec.file, "source 'skin' needs a rigged file with skin weights");
    RigWeightsOptions rig;
    rig.grid_resolution = spec.field_grid;
    d.field = rig_weights_field(object.character, object.normalization, rig);
  } else {
    fail(spec.file, "unknown subspace source '{}' (use eigenmodes or skin)", spec.source);
  }
  if (!spec.pin.empty()) {
    Predicate predicate = parse_predicate(spec.pin);
    std::vector<Vec3d> anchors;
    for (const Vec3d& p : cover)
      if (predicate(p)) anchors.push_back(p);
    if (anchors.empty()) fail(spec.file, "pin '{}' selects no point of the shape (coordinates are normalised to [-1, 1])", spec.pin);
    d.pins = DirichletRegion(predicate, std::move(anchors), spec.pin_blend);
  }
  // Collision points: the samples and the bound points (vertices or Gaussian centres), so that
  // the visible surface meets floors and other objects, not only the cubature points.
  d.collision_points = samples.points;
  const std::size_t stride = std::max<std::size_t>(1, bound_normalised.size() / 4000);
  for (std::size_t i = 0; i < bound_normalised.size(); i += stride) d.collision_points.push_back(bound_normalised[i]);
  d.samples = std::move(samples);
  spec.material.validate();
  d.material = spec.material;
  d.model = spec.model;
  d.pin_velocity = spec.pin_velocity;
  d.scale = spec.scale;
  d.translation = spec.position;
  d.initial_velocity = spec.velocity;
  object.body = scene.world.add_body(std::move(d));
  const Body& body = scene.world.body(object.body);
  object.basis = body.basis_at(object.rest, false);
  if (spec.acceleration.squaredNorm() > 0) {
    Eigen::MatrixXd forces(static_cast<Eigen::Index>(body.point_count()), 3);
    for (Eigen::Index p = 0; p < forces.rows(); ++p) forces.row(p) = body.point_masses()[p] * spec.acceleration.transpose();
    scene.world.set_point_forces(object.body, std::move(forces));
  }
  scene.objects.push_back(std::move(object));
}

Vec3d vec3(const json& j, const fs::path& file, const char* key) {
  if (!j.is_array() || j.size() != 3) fail(file, "'{}' must be an array of 3 numbers", key);
  Vec3d v;
  for (int i = 0; i < 3; ++i) {
    if (!j[static_cast<std::size_t>(i)].is_number()) fail(file, "'{}' must be an array of 3 numbers", key);
    v[i] = j[static_cast<std::size_t>(i)].get<double>();
  }
  if (!v.allFinite()) fail(file, "'{}' is not finite", key);
  return v;
}

template <typename T>
T value(const json& j, const char* key, T fallback, const fs::path& file) {
  if (!j.contains(key)) return fallback;
  try {
    return j.at(key).get<T>();
  } catch (const json::exception&) {
    fail(file, "'{}' has the wrong type", key);
  }
}

}  // namespace

std::vector<Vec3d> Scene::positions(std::size_t index) const {
  const SceneObject& object = objects.at(index);
  std::vector<Vec3d> out;
  if (object.body >= 0) {
    out = world.body(object.body).bound_positions(object.basis, object.rest);
  } else {
    const KinematicBody& k = world.kinematic(object.kinematic);
    for (const Vec3d& p : object.rest) out.push_back(k.position(p, world.time()));
  }
  if (file_frame_output)
    for (Vec3d& p : out) p = object.normalization.from_normalized((p - object.position) / object.scale);
  return out;
}

GaussianCloud Scene::gaussians(std::size_t index) const {
  const SceneObject& object = objects.at(index);
  if (!object.gaussians) fail(object.file, "is not a Gaussian splat object");
  GaussianCloud cloud = *object.gaussians;
  const std::vector<Vec3d> centres = positions(index);
  // Scene from file frame: x_s = alpha x_f + beta; covariances scale by alpha^2 unless written in the file frame.
  const double alpha = object.scale * object.normalization.scale;
  const double covariance_scale = file_frame_output ? 1.0 : alpha * alpha;
  std::vector<Eigen::Matrix<double, 3, 4>> Z;
  if (object.body >= 0) Z = handle_matrices(world.body(object.body).z(), world.body(object.body).handle_count());
  const Eigen::Matrix3d R = object.kinematic >= 0 ? world.kinematic(object.kinematic).rotation(world.time()) : Eigen::Matrix3d::Identity();
  for (std::size_t g = 0; g < cloud.count(); ++g) {
    Eigen::Matrix3d A = R;
    if (object.body >= 0)
      for (std::size_t i = 0; i < Z.size(); ++i) A += object.basis.modulated_W(static_cast<Eigen::Index>(g), static_cast<Eigen::Index>(i)) * Z[i].leftCols<3>();
    cloud.set(g, centres[g], covariance_scale * (A * object.gaussians->covariance(g) * A.transpose()));
  }
  return cloud;
}

void Scene::advance_frame() {
  for (int s = 0; s < substeps; ++s) world.step();
}

Scene scene_from_json(const json& j, const fs::path& file) {
  if (!j.is_object()) fail(file, "a scene must be a JSON object");
  Scene scene;
  scene.fps = value(j, "fps", 30.0, file);
  scene.frames = value(j, "frames", 120, file);
  scene.substeps = value(j, "substeps", 2, file);
  if (!(scene.fps > 0) || scene.frames < 1 || scene.substeps < 1) fail(file, "fps, frames and substeps must be positive");
  scene.world.solver.time_step = 1.0 / (scene.fps * scene.substeps);
  if (j.contains("gravity")) scene.world.solver.gravity = vec3(j["gravity"], file, "gravity");
  if (j.contains("solver")) {
    const json& s = j["solver"];
    scene.world.solver.max_iterations = value(s, "max_iterations", scene.world.solver.max_iterations, file);
    scene.world.solver.tolerance = value(s, "tolerance", scene.world.solver.tolerance, file);
  }
  if (j.contains("contact")) {
    const json& c = j["contact"];
    auto& o = scene.world.contact;
    o.enabled = value(c, "enabled", o.enabled, file);
    o.radius = value(c, "radius", o.radius, file);
    o.min_gap = value(c, "min_gap", o.min_gap, file);
    o.stiffness = value(c, "stiffness", o.stiffness, file);
    if (!(o.radius > 0) || !(o.min_gap >= 0 && o.min_gap < 1) || !(o.stiffness > 0))
      fail(file, "contact needs radius > 0, 0 <= min_gap < 1, stiffness > 0");
  }
  if (!j.contains("objects") || !j["objects"].is_array() || j["objects"].empty()) fail(file, "needs a non-empty 'objects' array");
  const fs::path base = file.parent_path();
  for (const json& o : j["objects"]) {
    ObjectSpec spec;
    if (!o.contains("file") || !o["file"].is_string()) fail(file, "every object needs a 'file'");
    spec.file = base / o["file"].get<std::string>();
    spec.kinematic = value(o, "kinematic", false, file);
    spec.handles = value(o, "handles", spec.handles, file);
    spec.points = value(o, "points", spec.points, file);
    spec.sample_grid = value(o, "sample_grid", spec.sample_grid, file);
    spec.field_grid = value(o, "field_grid", spec.field_grid, file);
    spec.source = value(o, "source", spec.source, file);
    if (o.contains("material")) {
      const json& m = o["material"];
      spec.material.youngs_modulus = value(m, "youngs_modulus", spec.material.youngs_modulus, file);
      spec.material.poisson_ratio = value(m, "poisson_ratio", spec.material.poisson_ratio, file);
      spec.material.density = value(m, "density", spec.material.density, file);
      spec.model = energy_model_from_string(value(m, "model", std::string("neohookean"), file));
    }
    spec.pin = value(o, "pin", std::string(), file);
    spec.pin_blend = value(o, "pin_blend", spec.pin_blend, file);
    if (o.contains("pin_velocity")) spec.pin_velocity = vec3(o["pin_velocity"], file, "pin_velocity");
    spec.scale = value(o, "scale", 1.0, file);
    if (o.contains("position")) spec.position = vec3(o["position"], file, "position");
    if (o.contains("velocity")) spec.velocity = vec3(o["velocity"], file, "velocity");
    if (o.contains("angular_velocity")) spec.angular_velocity = vec3(o["angular_velocity"], file, "angular_velocity");
    if (o.contains("acceleration")) spec.acceleration = vec3(o["acceleration"], file, "acceleration");
    try {
      add_object(scene, spec);
    } catch (const Error& e) {
      fail(file, "object '{}': {}", spec.file.filename().string(), e.what());
    }
  }
  if (scene.world.body_count() == 0) fail(file, "has no deformable object");
  if (j.contains("planes"))
    for (const json& p : j["planes"]) {
      Plane plane;
      if (p.contains("origin")) plane.origin = vec3(p["origin"], file, "origin");
      if (p.contains("normal")) plane.normal = vec3(p["normal"], file, "normal").normalized();
      if (p.contains("axis")) plane.axis_u = vec3(p["axis"], file, "axis");
      plane.axis_u = (plane.axis_u - plane.axis_u.dot(plane.normal) * plane.normal);
      if (plane.axis_u.norm() < 1e-9) plane.axis_u = plane.normal.unitOrthogonal();
      plane.axis_u.normalize();
      if (p.contains("half_size")) {
        if (!p["half_size"].is_array() || p["half_size"].size() != 2) fail(file, "'half_size' must be [u, v]");
        plane.half_u = p["half_size"][0].get<double>();
        plane.half_v = p["half_size"][1].get<double>();
      }
      plane.stiffness = value(p, "stiffness", plane.stiffness, file);
      if (p.contains("velocity")) plane.velocity = vec3(p["velocity"], file, "velocity");
      if (p.contains("angular_velocity")) plane.angular_velocity = vec3(p["angular_velocity"], file, "angular_velocity");
      if (!plane.normal.allFinite()) fail(file, "plane normal must be non-zero");
      scene.world.planes.push_back(plane);
    }
  if (j.contains("drags"))
    for (const json& d : j["drags"]) {
      Drag drag;
      const int object = value(d, "object", 0, file);
      if (object < 0 || object >= static_cast<int>(scene.objects.size()) || scene.objects[static_cast<std::size_t>(object)].body < 0)
        fail(file, "drag refers to object {}, which is not a deformable object", object);
      drag.body = scene.objects[static_cast<std::size_t>(object)].body;
      if (d.contains("point")) drag.rest_point = vec3(d["point"], file, "point");
      if (d.contains("target")) drag.target = vec3(d["target"], file, "target");
      drag.stiffness = value(d, "stiffness", drag.stiffness, file);
      drag.radius = value(d, "radius", drag.radius, file);
      scene.world.drags.push_back(drag);
    }
  return scene;
}

Scene load_scene(const fs::path& scene_file) {
  std::ifstream in(scene_file);
  if (!in) fail(scene_file, "cannot open for reading");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    fail(scene_file, "invalid JSON ({})", e.what());
  }
  return scene_from_json(j, scene_file);
}

Scene quick_scene(const fs::path& shape, const QuickSceneOptions& options) {
  Scene scene;
  scene.fps = options.fps;
  scene.frames = options.frames;
  scene.substeps = options.substeps;
  if (!(scene.fps > 0) || scene.frames < 1 || scene.substeps < 1) fail_plain("fps, frames and substeps must be positive");
  scene.world.solver.time_step = 1.0 / (scene.fps * scene.substeps);
  scene.world.solver.gravity = options.gravity;
  scene.file_frame_output = true;
  ObjectSpec spec;
  spec.file = shape;
  spec.handles = options.handles;
  spec.points = options.points;
  spec.sample_grid = options.sample_grid;
  spec.field_grid = options.field_grid;
  spec.material = options.material;
  spec.model = options.model;
  spec.pin = options.pin;
  spec.pin_blend = options.pin_blend;
  spec.field_source = options.field_source;
  add_object(scene, spec);
  if (options.floor) {
    Plane floor;
    floor.origin = Vec3d(0, *options.floor, 0);
    scene.world.planes.push_back(floor);
  }
  return scene;
}

}  // namespace wobble::physics
