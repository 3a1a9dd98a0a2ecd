// SCENE.json read and checked whole (see scene_description.hpp and scene.hpp for the keys).
#include <wobble/physics/scene_description.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <wobble/error.hpp>
#include <wobble/physics/dirichlet.hpp>
#include <wobble/physics/input_checks.hpp>

#include "core/json_values.hpp"

namespace wobble::physics {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

Vec3d vec3(const JsonObject& o, std::string_view key, const Vec3d& fallback, double limit) {
  const auto v = o.reals<3>(key, {fallback.x(), fallback.y(), fallback.z()}, -limit, limit);
  return Vec3d(v[0], v[1], v[2]);
}

// A value of a described setting (settings.hpp) under `json_key`: its default and range are the
// description's.
const ParameterDescription& setting(std::string_view key) { return physics_description().at(key, "physics settings"); }

double real_setting(const JsonObject& o, std::string_view json_key, std::string_view key) {
  const ParameterDescription& d = setting(key);
  return o.real(json_key, std::get<double>(d.default_value), d.minimum, d.maximum);
}

int integer_setting(const JsonObject& o, std::string_view json_key, std::string_view key) {
  const ParameterDescription& d = setting(key);
  return static_cast<int>(o.integer(json_key, std::get<std::int64_t>(d.default_value),
                                    static_cast<std::int64_t>(d.minimum), static_cast<std::int64_t>(d.maximum)));
}

ObjectDescription object_description(const JsonObject& o, const fs::path& base) {
  using namespace input_limits;
  o.allow_only({"file", "kinematic", "handles", "points", "sample_grid", "field_grid", "source", "material", "pin",
                "pin_blend", "pin_velocity", "scale", "position", "velocity", "angular_velocity", "acceleration"});
  ObjectDescription spec;
  spec.where = o.name();
  if (!o.has("file")) o.fail_at("file", "required (the shape's file, relative to the scene file)");
  spec.file = base / o.text("file", "");
  spec.kinematic = o.boolean("kinematic", false);
  spec.handles = integer_setting(o, "handles", "handles");
  spec.points = static_cast<std::size_t>(integer_setting(o, "points", "points"));
  spec.sample_grid = integer_setting(o, "sample_grid", "sample_grid");
  spec.field_grid = integer_setting(o, "field_grid", "field_grid");
  spec.source = o.text("source", spec.source);
  if (spec.source != "eigenmodes" && spec.source != "skin")
    o.fail_at("source", "'" + spec.source + "' is not a subspace source (use eigenmodes or skin)");
  const JsonObject m = o.object("material");
  m.allow_only({"youngs_modulus", "poisson_ratio", "density", "model"});
  spec.material.youngs_modulus = real_setting(m, "youngs_modulus", "youngs_modulus");
  spec.material.poisson_ratio = real_setting(m, "poisson_ratio", "poisson_ratio");
  spec.material.density = real_setting(m, "density", "density");
  const std::string model = m.text("model", to_string(spec.model));
  try {
    spec.model = energy_model_from_string(model);
  } catch (const Error& e) {
    m.fail_at("model", e.what());
  }
  spec.pin = o.text("pin", std::string());
  if (!spec.pin.empty()) {
    try {
      parse_predicate(spec.pin);
    } catch (const Error& e) {
      o.fail_at("pin", e.what());
    }
  }
  spec.pin_blend = real_setting(o, "pin_blend", "pin_blend");
  spec.pin_velocity = vec3(o, "pin_velocity", spec.pin_velocity, kSpeed);
  spec.scale = o.real("scale", 1.0, 1e-6, kDistance);
  spec.position = vec3(o, "position", spec.position, kDistance);
  spec.velocity = vec3(o, "velocity", spec.velocity, kSpeed);
  spec.angular_velocity = vec3(o, "angular_velocity", spec.angular_velocity, kAngularSpeed);
  spec.acceleration = vec3(o, "acceleration", spec.acceleration, kAcceleration);
  return spec;
}

Plane plane_from(const JsonObject& p) {
  using namespace input_limits;
  p.allow_only({"origin", "normal", "axis", "half_size", "stiffness", "velocity", "angular_velocity"});
  Plane plane;
  plane.origin = vec3(p, "origin", plane.origin, kDistance);
  const Vec3d normal = vec3(p, "normal", plane.normal, kDistance);
  if (!(normal.norm() > 1e-9)) p.fail_at("normal", "must not be zero");
  plane.normal = normal.normalized();
  plane.axis_u = vec3(p, "axis", plane.axis_u, kDistance);
  plane.axis_u = (plane.axis_u - plane.axis_u.dot(plane.normal) * plane.normal);
  if (plane.axis_u.norm() < 1e-9) plane.axis_u = plane.normal.unitOrthogonal();
  plane.axis_u.normalize();
  const auto half = p.reals<2>("half_size", {0.0, 0.0}, 0.0, kDistance);
  plane.half_u = half[0];
  plane.half_v = half[1];
  plane.stiffness = p.real("stiffness", plane.stiffness, 0.0, kMaxStiffness);
  plane.velocity = vec3(p, "velocity", plane.velocity, kSpeed);
  plane.angular_velocity = vec3(p, "angular_velocity", plane.angular_velocity, kAngularSpeed);
  return plane;
}

DragDescription drag_from(const JsonObject& d, const std::vector<ObjectDescription>& objects) {
  using namespace input_limits;
  d.allow_only({"object", "point", "target", "stiffness", "radius"});
  DragDescription description;
  description.object =
      static_cast<std::size_t>(d.integer("object", 0, 0, static_cast<std::int64_t>(objects.size()) - 1));
  if (objects[description.object].kinematic)
    d.fail_at("object", fmt::format("object {} is kinematic, not deformable", description.object));
  Drag& drag = description.drag;
  drag.rest_point = vec3(d, "point", drag.rest_point, kDistance);
  drag.target = vec3(d, "target", drag.target, kDistance);
  drag.stiffness = real_setting(d, "stiffness", "drag_stiffness");
  drag.radius = real_setting(d, "radius", "drag_radius");
  return description;
}

}  // namespace

SceneDescription describe_scene(const json& j, const fs::path& file) {
  using namespace input_limits;
  const JsonObject top(j, file.string());
  top.allow_only({"fps", "frames", "substeps", "gravity", "solver", "contact", "objects", "planes", "drags"});
  SceneDescription scene;
  scene.fps = real_setting(top, "fps", "fps");
  scene.frames = integer_setting(top, "frames", "frames");
  scene.substeps = integer_setting(top, "substeps", "substeps");
  scene.solver.time_step = 1.0 / (scene.fps * scene.substeps);
  scene.solver.gravity = vec3(top, "gravity", scene.solver.gravity, setting("gravity").maximum);
  const JsonObject solver = top.object("solver");
  solver.allow_only({"max_iterations", "tolerance"});
  scene.solver.max_iterations = integer_setting(solver, "max_iterations", "max_iterations");
  scene.solver.tolerance = real_setting(solver, "tolerance", "tolerance");
  const JsonObject contact = top.object("contact");
  contact.allow_only({"enabled", "radius", "min_gap", "stiffness"});
  auto& o = scene.contact;
  o.enabled = contact.boolean("enabled", o.enabled);
  o.radius = real_setting(contact, "radius", "contact_radius");
  o.min_gap = real_setting(contact, "min_gap", "contact_min_gap");
  o.stiffness = real_setting(contact, "stiffness", "contact_stiffness");
  const fs::path base = file.parent_path();
  for (const JsonObject& object : top.objects("objects")) scene.objects.push_back(object_description(object, base));
  if (scene.objects.empty()) top.fail_at("objects", "required: a non-empty array of objects");
  bool deformable = false;
  for (const ObjectDescription& object : scene.objects) deformable = deformable || !object.kinematic;
  if (!deformable) top.fail_at("objects", "none is deformable (every object is kinematic)");
  for (const JsonObject& p : top.objects("planes")) scene.planes.push_back(plane_from(p));
  for (const JsonObject& d : top.objects("drags")) scene.drags.push_back(drag_from(d, scene.objects));
  return scene;
}

}  // namespace wobble::physics
