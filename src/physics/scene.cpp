// Scenes from SCENE.json or quick flags (see scene.hpp).
#include <wobble/physics/scene.hpp>

#include <cmath>

#include <nlohmann/json.hpp>

#include <wobble/error.hpp>
#include <wobble/parse.hpp>
#include <wobble/io/files.hpp>
#include <wobble/physics/input_checks.hpp>
#include <wobble/physics/eigenmodes.hpp>
#include <wobble/physics/rig_weights_field.hpp>

#include "core/fail.hpp"
#include "core/json_values.hpp"

namespace wobble::physics {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// What an object's file gives: the simulator's sample points and the points that are shown and
// bound to the body (mesh vertices, point-cloud points or Gaussian centres), in the file's frame.
struct ObjectGeometry {
  fields::SamplePoints samples;
  std::vector<Vec3d> bound;
};

ObjectGeometry read_object_geometry(const ObjectDescription& spec, SceneObject& object) {
  fields::SampleOptions sampling;
  sampling.grid_resolution = spec.sample_grid;
  ObjectGeometry g;
  std::string extension = spec.file.extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension == ".ply" && is_gaussian_ply(spec.file)) {
    object.gaussians = read_gaussian_ply(spec.file);
    for (std::size_t i = 0; i < object.gaussians->count(); ++i) g.bound.push_back(object.gaussians->center(i));
    if (g.bound.empty()) fail(spec.file, "holds no Gaussians");
    g.samples = fields::sample_point_cloud(g.bound, sampling);
  } else if (extension == ".ply" && is_point_cloud_ply(spec.file)) {
    // Points without a surface: a mesh of positions only (written out as such, e.g. to .pc2).
    g.bound = read_ply_points(spec.file);
    for (const Vec3d& p : g.bound) object.character.mesh.positions.push_back(p.cast<float>());
    object.character.source = spec.file;
    g.samples = fields::sample_point_cloud(g.bound, sampling);
  } else {
    object.character = load_character(spec.file);
    if (object.character.mesh.triangles.empty()) fail(spec.file, "has no triangles to simulate");
    for (const Vec3f& p : object.character.mesh.positions) g.bound.push_back(p.cast<double>());
    g.samples = fields::sample_mesh(object.character.mesh, sampling);
  }
  g.samples = fields::subsample(g.samples, spec.points);
  return g;
}

KinematicBody kinematic_body(const ObjectDescription& spec, const fields::SamplePoints& samples) {
  KinematicBody k;
  k.name = spec.file.filename().string();
  for (const Vec3d& p : samples.points) k.points.push_back(spec.scale * p + spec.position);
  k.center = spec.position;
  k.velocity = spec.velocity;
  k.angular_velocity = spec.angular_velocity;
  return k;
}

// The object's skinning fields: from the field source (learned fields), its eigenmodes over
// `cover` (normalised frame), or its own skin weights.
std::shared_ptr<const fields::SkinningField> object_field(const ObjectDescription& spec, const SceneObject& object,
                                                          const std::vector<Vec3d>& bound,
                                                          const std::vector<Vec3d>& cover) {
  if (spec.field_source) {
    // Splats and point clouds have no surface mesh: their points go to the field source as a mesh
    // of positions only (the neural fields then encode the points, shape_sample.hpp).
    Mesh points_only;
    if (object.gaussians)
      for (const Vec3d& p : bound) points_only.positions.push_back(p.cast<float>());
    return spec.field_source(object.gaussians ? points_only : object.character.mesh, true);
  }
  if (spec.source == "eigenmodes") return shape_eigenmodes(cover, spec.handles, spec.field_grid);
  if (spec.source == "skin") {
    if (!object.character.is_skinned()) fail(spec.file, "source 'skin' needs a rigged file with skin weights");
    RigWeightsOptions rig;
    rig.grid_resolution = spec.field_grid;
    return rig_weights_field(object.character, object.normalization, rig);
  }
  fail(spec.file, "unknown subspace source '{}' (use eigenmodes or skin)", spec.source);
}

// The pinned region: the points of `cover` the predicate selects (none: an error, not a free body).
DirichletRegion pin_region(const ObjectDescription& spec, const std::vector<Vec3d>& cover) {
  Predicate predicate = parse_predicate(spec.pin);
  std::vector<Vec3d> anchors;
  for (const Vec3d& p : cover)
    if (predicate(p)) anchors.push_back(p);
  if (anchors.empty())
    fail(spec.file, "pin '{}' selects no point of the shape (coordinates are normalised to [-1, 1])", spec.pin);
  return DirichletRegion(predicate, std::move(anchors), spec.pin_blend);
}

// The body's description: the shape's body (shape_body.hpp), placed and set moving.
BodyDescription body_description(const ObjectDescription& spec, const SceneObject& object, ObjectGeometry geometry,
                                 const std::vector<Vec3d>& bound_normalised) {
  const std::vector<Vec3d> cover = shape_cover(geometry.samples, bound_normalised);
  auto field = object_field(spec, object, geometry.bound, cover);
  DirichletRegion pins = spec.pin.empty() ? DirichletRegion() : pin_region(spec, cover);
  BodyDescription d = shape_body(spec.file.filename().string(), std::move(geometry.samples), std::move(field),
                                 bound_normalised, std::move(pins), spec.material, spec.model);
  d.pin_velocity = spec.pin_velocity;
  d.scale = spec.scale;
  d.translation = spec.position;
  d.initial_velocity = spec.velocity;
  return d;
}

// A constant acceleration on every sample point, as forces (mass times acceleration).
void set_acceleration(Scene& scene, int body_index, const Vec3d& acceleration) {
  const Body& body = scene.world.body(body_index);
  Eigen::MatrixXd forces(static_cast<Eigen::Index>(body.point_count()), 3);
  for (Eigen::Index p = 0; p < forces.rows(); ++p) forces.row(p) = body.point_masses()[p] * acceleration.transpose();
  scene.world.set_point_forces(body_index, std::move(forces));
}

void add_object(Scene& scene, const ObjectDescription& spec) {
  SceneObject object;
  object.file = spec.file;
  object.scale = spec.scale;
  object.position = spec.position;
  if (!(spec.scale > 0)) fail(spec.file, "object scale must be positive");
  if (spec.handles < 1 || spec.handles > 256) fail(spec.file, "handles must be in [1, 256] (got {})", spec.handles);
  if (spec.points < 10) fail(spec.file, "need at least 10 sample points (got {})", spec.points);
  ObjectGeometry geometry = read_object_geometry(spec, object);
  object.normalization = geometry.samples.normalization;
  std::vector<Vec3d> bound_normalised;
  for (const Vec3d& p : geometry.bound) {
    bound_normalised.push_back(object.normalization.to_normalized(p));
    object.rest.push_back(spec.scale * bound_normalised.back() + spec.position);
  }
  if (spec.kinematic) {
    object.kinematic = scene.world.add_kinematic(kinematic_body(spec, geometry.samples));
  } else {
    object.body = scene.world.add_body(body_description(spec, object, std::move(geometry), bound_normalised));
    object.basis = scene.world.body(object.body).basis_at(object.rest, false);
    if (spec.acceleration.squaredNorm() > 0) set_acceleration(scene, object.body, spec.acceleration);
  }
  scene.objects.push_back(std::move(object));
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

std::size_t Scene::point_count() const {
  std::size_t n = 0;
  for (const SceneObject& object : objects) n += object.rest.size();
  return n;
}

std::vector<Vec3f> Scene::frame_points() const {
  std::vector<Vec3f> points;
  points.reserve(point_count());
  for (std::size_t o = 0; o < objects.size(); ++o)
    for (const Vec3d& p : positions(o)) points.push_back(p.cast<float>());
  return points;
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
  const Eigen::Matrix3d R =
      object.kinematic >= 0 ? world.kinematic(object.kinematic).rotation(world.time()) : Eigen::Matrix3d::Identity();
  for (std::size_t g = 0; g < cloud.count(); ++g) {
    Eigen::Matrix3d A = R;
    if (object.body >= 0)
      for (std::size_t i = 0; i < Z.size(); ++i)
        A += object.basis.modulated_W(static_cast<Eigen::Index>(g), static_cast<Eigen::Index>(i)) * Z[i].leftCols<3>();
    cloud.set(g, centres[g], covariance_scale * (A * object.gaussians->covariance(g) * A.transpose()));
  }
  return cloud;
}

void Scene::advance_frame() {
  for (int s = 0; s < substeps; ++s) world.step();
}

Scene build_scene(const SceneDescription& description, const fs::path& scene_file) {
  Scene scene;
  scene.fps = description.fps;
  scene.frames = description.frames;
  scene.substeps = description.substeps;
  scene.world.solver = description.solver;
  scene.world.contact = description.contact;
  for (const ObjectDescription& object : description.objects) {
    try {
      add_object(scene, object);
    } catch (const Error& e) {
      fail_plain("{}: {}", object.where.empty() ? scene_file.string() : object.where, e.what());
    }
  }
  if (scene.world.body_count() == 0) fail(scene_file, "has no deformable object");
  scene.world.planes = description.planes;
  for (const DragDescription& d : description.drags) {
    Drag drag = d.drag;
    drag.body = scene.objects.at(d.object).body;
    scene.world.drags.push_back(drag);
  }
  check_world_inputs(scene.world, scene_file.string());
  return scene;
}

Scene scene_from_json(const json& j, const fs::path& file) { return build_scene(describe_scene(j, file), file); }

Scene load_scene(const fs::path& scene_file) {
  return scene_from_json(read_json_file(scene_file, "a scene file"), scene_file);
}

namespace {

// An object of the settings' subspace, material and pins.
ObjectDescription object_of(const fs::path& shape, const Settings& s) {
  ObjectDescription spec;
  spec.file = shape;
  copy_subspace_and_material(s, spec);
  spec.pin = s.pin;
  spec.pin_blend = s.pin_blend;
  return spec;
}

}  // namespace

Scene quick_scene(const fs::path& shape, const QuickSceneOptions& options) {
  const Settings& s = options.settings;
  if (const std::string problem = s.validate(); !problem.empty()) fail(shape, "{}", problem);
  Scene scene;
  scene.fps = s.fps;
  scene.frames = s.frames;
  scene.substeps = s.substeps;
  scene.world.solver.time_step = s.time_step();
  scene.world.solver.gravity = s.gravity;
  scene.world.solver.max_iterations = s.max_iterations;
  scene.world.solver.tolerance = s.tolerance;
  scene.file_frame_output = true;
  ObjectDescription spec = object_of(shape, s);
  spec.field_source = options.field_source;
  if (options.floor) {
    if (!std::isfinite(*options.floor) || std::abs(*options.floor) > input_limits::kDistance)
      fail(shape, "floor height {} is not a finite height within {} (normalised units)", *options.floor,
           input_limits::kDistance);
    Plane floor;
    floor.origin = Vec3d(0, *options.floor, 0);
    scene.world.planes.push_back(floor);
  }
  check_world_inputs(scene.world, shape.string());
  add_object(scene, spec);
  return scene;
}

}  // namespace wobble::physics
