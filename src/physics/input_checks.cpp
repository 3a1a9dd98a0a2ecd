#include <wobble/physics/input_checks.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include <wobble/error.hpp>
#include <wobble/parse.hpp>
#include "core/fail.hpp"

namespace wobble::physics {

namespace {

std::string shown(const Vec3d& v) {
  return fmt::format("({}, {}, {})", format_real(v.x()), format_real(v.y()), format_real(v.z()));
}

void check_real(double value, const std::string& what, double low, double high) { check_range(value, what, low, high); }

}  // namespace

void check_vector(const Vec3d& value, std::string_view what, double limit, std::string_view unit) {
  if (!value.allFinite()) fail_plain("{}: {} is not finite", what, shown(value));
  const double length = std::hypot(value.x(), value.y(), value.z());  // no overflow for 1e308
  if (!(length <= limit))
    fail_plain("{}: {} has length {} {}, beyond the limit {} {}", what, shown(value), format_real(length), unit,
               format_real(limit), unit);
}

void check_material(const Material& material, std::string_view what) {
  using namespace input_limits;
  const std::string name(what);
  check_real(material.youngs_modulus, name + ": Young's modulus (Pa)", kMinYoungs, kMaxYoungs);
  check_real(material.poisson_ratio, name + ": Poisson ratio", 0.0, kMaxPoisson);
  check_real(material.density, name + ": density (kg/m^3)", kMinDensity, kMaxDensity);
}

void check_subspace_sizes(int handles, std::size_t points, int sample_grid, int field_grid, std::string_view what) {
  using namespace input_limits;
  const std::string name(what);
  check_integer_range(handles, name + ": handles", 1, kMaxHandles);
  // Through 64 bits, so that a 32-bit size_t (WebAssembly) needs no narrowing of INT64_MAX.
  check_integer_range(static_cast<std::int64_t>(std::min<std::uint64_t>(points, INT64_MAX)), name + ": points",
                      kMinPoints, kMaxPoints);
  check_integer_range(sample_grid, name + ": sample_grid", kMinGrid, kMaxSampleGrid);
  check_integer_range(field_grid, name + ": field_grid", kMinGrid, kMaxFieldGrid);
}

void check_world_inputs(const World& world, std::string_view what) {
  using namespace input_limits;
  const std::string name(what);
  check_vector(world.solver.gravity, name + ": gravity", kAcceleration, "m/s^2");
  if (!(world.solver.time_step > 0) || !std::isfinite(world.solver.time_step))
    fail_plain("{}: the time step {} s is not a positive number", name, world.solver.time_step);
  for (std::size_t i = 0; i < world.planes.size(); ++i) {
    const Plane& plane = world.planes[i];
    const std::string p = fmt::format("{}: plane {}", name, i);
    check_vector(plane.origin, p + " origin", kDistance, "m");
    check_vector(plane.normal, p + " normal", 1.0 + 1e-6, "");
    if (!(plane.normal.norm() > 0.5)) fail_plain("{} normal {} is not a unit vector", p, shown(plane.normal));
    check_vector(plane.velocity, p + " velocity", kSpeed, "m/s");
    check_vector(plane.angular_velocity, p + " angular velocity", kAngularSpeed, "rad/s");
    check_real(plane.half_u, p + " half size u (m)", 0.0, kDistance);
    check_real(plane.half_v, p + " half size v (m)", 0.0, kDistance);
    check_real(plane.stiffness, p + " stiffness (1/s^2)", 0.0, kMaxStiffness);
  }
  for (std::size_t i = 0; i < world.drags.size(); ++i) {
    const Drag& drag = world.drags[i];
    const std::string d = fmt::format("{}: drag {}", name, i);
    check_vector(drag.rest_point, d + " point", kDistance, "m");
    check_vector(drag.target, d + " target", kDistance, "m");
    check_real(drag.stiffness, d + " stiffness (1/s^2)", 0.0, kMaxStiffness);
    check_real(drag.radius, d + " radius (m)", 1e-9, kDistance);
  }
  const ContactOptions& contact = world.contact;
  check_real(contact.radius, name + ": contact radius (m)", 1e-9, kDistance);
  check_real(contact.min_gap, name + ": contact min_gap", 0.0, 0.999);
  check_real(contact.stiffness, name + ": contact stiffness (1/s^2)", 1e-9, kMaxStiffness);
}

}  // namespace wobble::physics
