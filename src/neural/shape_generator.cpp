// Procedural shapes: every part is a star-shaped surface over a (longitude u, latitude v) grid,
// closed at the poles, which keeps each part watertight and outward-oriented by construction.
#include <wobble/neural/shape_generator.hpp>

#include <cmath>
#include <functional>
#include <numbers>

#include <wobble/fields/sampling.hpp>

namespace wobble::neural {

namespace {

using fields::Random;
constexpr double kPi = std::numbers::pi;

double uniform(fields::Random& random, double lo, double hi) { return lo + (hi - lo) * random.uniform(); }

// Signed power keeps the superquadric's octant symmetry: sign(x) |x|^e.
double signed_power(double x, double e) { return std::copysign(std::pow(std::abs(x), e), x); }

// A closed surface from p(u, v), u in [0, 2 pi) around, v in [0, pi] from the north pole (v = 0)
// to the south pole; triangles wind counter-clockwise seen from outside for the usual
// orientation (x = sin v cos u, y = cos v, z = sin v sin u).
void append_closed_surface(Mesh& mesh, int nu, int nv, const std::function<Vec3d(double, double)>& p) {
  const auto base = static_cast<std::uint32_t>(mesh.positions.size());
  mesh.positions.push_back(p(0, 0).cast<float>());
  for (int j = 1; j < nv; ++j)
    for (int i = 0; i < nu; ++i) mesh.positions.push_back(p(2 * kPi * i / nu, kPi * j / nv).cast<float>());
  mesh.positions.push_back(p(0, kPi).cast<float>());
  const std::uint32_t south = base + 1 + static_cast<std::uint32_t>(nu * (nv - 1));
  auto ring = [&](int j, int i) { return base + 1 + static_cast<std::uint32_t>((j - 1) * nu + (i % nu)); };
  for (int i = 0; i < nu; ++i) mesh.triangles.push_back({base, ring(1, i + 1), ring(1, i)});
  for (int j = 1; j + 1 < nv; ++j)
    for (int i = 0; i < nu; ++i) {
      mesh.triangles.push_back({ring(j, i), ring(j, i + 1), ring(j + 1, i + 1)});
      mesh.triangles.push_back({ring(j, i), ring(j + 1, i + 1), ring(j + 1, i)});
    }
  for (int i = 0; i < nu; ++i) mesh.triangles.push_back({ring(nv - 1, i), ring(nv - 1, i + 1), south});
}

Vec3d sphere_direction(double u, double v) {
  return {std::sin(v) * std::cos(u), std::cos(v), std::sin(v) * std::sin(u)};
}

// Superellipsoid with exponents e1 (latitude) and e2 (longitude): boxy below 1, pinched above.
std::function<Vec3d(double, double)> superquadric(double e1, double e2, Vec3d radii) {
  return [=](double u, double v) {
    const double s = signed_power(std::sin(v), e1), c = signed_power(std::cos(v), e1);
    return Vec3d(radii.x() * s * signed_power(std::cos(u), e2), radii.y() * c,
                 radii.z() * s * signed_power(std::sin(u), e2));
  };
}

// A sphere whose radius varies with direction by a few random smooth bumps.
std::function<Vec3d(double, double)> blob(fields::Random& random) {
  struct Bump {
    Vec3d axis;
    double amplitude, sharpness;
  };
  std::vector<Bump> bumps;
  const int count = 2 + static_cast<int>(random.next() % 5);
  for (int k = 0; k < count; ++k) {
    Vec3d a(uniform(random, -1, 1), uniform(random, -1, 1), uniform(random, -1, 1));
    if (a.norm() < 1e-3) a = Vec3d::UnitY();
    bumps.push_back({a.normalized(), uniform(random, 0.2, 0.8), uniform(random, 2, 8)});
  }
  return [bumps](double u, double v) {
    const Vec3d d = sphere_direction(u, v);
    double r = 0.6;
    for (const Bump& b : bumps) r += b.amplitude * std::exp(b.sharpness * (d.dot(b.axis) - 1));
    return Vec3d(r * d);
  };
}

// A prism over a star-shaped profile, its caps rounded just enough to stay closed.
std::function<Vec3d(double, double)> extrusion(fields::Random& random) {
  const int lobes = 3 + static_cast<int>(random.next() % 4);
  const double depth = uniform(random, 0.1, 0.5), height = uniform(random, 0.3, 1.2),
               phase = uniform(random, 0, 2 * kPi);
  return [=](double u, double v) {
    const double profile = 1 - depth * (0.5 + 0.5 * std::cos(lobes * u + phase));
    const double s = signed_power(std::sin(v), 0.15), c = signed_power(std::cos(v), 0.15);
    return Vec3d(profile * s * std::cos(u), height * c, profile * s * std::sin(u));
  };
}

// A capsule-like tube of varying radius along a planar arc.
std::function<Vec3d(double, double)> tube(fields::Random& random) {
  const double length = uniform(random, 1.2, 2.0), radius = uniform(random, 0.12, 0.35);
  const double curvature = uniform(random, -1.2, 1.2), taper = uniform(random, -0.5, 0.5);
  return [=](double u, double v) {
    const double t = v / kPi;  // 0 .. 1 along the tube
    const double r = radius * (1 + taper * (t - 0.5)) * std::pow(std::sin(v), 0.35);
    // Centre line: arc in the x-y plane, y from +length/2 to -length/2.
    const double s = (0.5 - t) * length, angle = curvature * s;
    Vec3d centre, normal;
    if (std::abs(curvature) < 1e-6) {
      centre = Vec3d(0, s, 0);
      normal = Vec3d(1, 0, 0);
    } else {
      centre = Vec3d((1 - std::cos(angle)) / curvature, std::sin(angle) / curvature, 0);
      normal = Vec3d(std::cos(angle), -std::sin(angle), 0);
    }
    return Vec3d(centre + r * (std::cos(u) * normal + std::sin(u) * Vec3d::UnitZ()));
  };
}

Eigen::Matrix3d random_rotation(fields::Random& random) {
  Eigen::Vector4d q(uniform(random, -1, 1), uniform(random, -1, 1), uniform(random, -1, 1), uniform(random, -1, 1));
  if (q.norm() < 1e-6) q = Eigen::Vector4d(1, 0, 0, 0);
  q.normalize();
  return Eigen::Quaterniond(q[0], q[1], q[2], q[3]).toRotationMatrix();
}

// Applies x -> R (S x) + t to the vertices from `first` on.
void transform_part(Mesh& mesh, std::size_t first, const Eigen::Matrix3d& R, const Vec3d& scale, const Vec3d& t) {
  for (std::size_t i = first; i < mesh.positions.size(); ++i) {
    const Vec3d p = mesh.positions[i].cast<double>();
    mesh.positions[i] = (R * p.cwiseProduct(scale) + t).cast<float>();
  }
}

// Bends the whole shape about the z axis, the bend angle growing along y.
void bend(Mesh& mesh, double curvature) {
  if (std::abs(curvature) < 1e-6) return;
  for (Vec3f& q : mesh.positions) {
    const double x = q.x(), y = q.y(), angle = curvature * y, r = 1 / curvature;
    q.x() = static_cast<float>(r - (r - x) * std::cos(angle));
    q.y() = static_cast<float>((r - x) * std::sin(angle));
  }
}

std::function<Vec3d(double, double)> part(ShapeKind kind, fields::Random& random) {
  switch (kind) {
    case ShapeKind::Superquadric:
      return superquadric(uniform(random, 0.2, 1.8), uniform(random, 0.2, 1.8), Vec3d(1, 1, 1));
    case ShapeKind::Blob: return blob(random);
    case ShapeKind::Extrusion: return extrusion(random);
    case ShapeKind::Tube: return tube(random);
    case ShapeKind::Composition: break;
  }
  return superquadric(1, 1, Vec3d(1, 1, 1));
}

}  // namespace

const char* to_string(ShapeKind kind) {
  switch (kind) {
    case ShapeKind::Superquadric: return "superquadric";
    case ShapeKind::Blob: return "blob";
    case ShapeKind::Extrusion: return "extrusion";
    case ShapeKind::Tube: return "tube";
    case ShapeKind::Composition: return "composition";
  }
  return "?";
}

Mesh procedural_shape(ShapeKind kind, std::uint64_t seed) {
  fields::Random random(seed * 0x9E3779B97F4A7C15ull + 17);
  Mesh mesh;
  constexpr int kLongitudes = 32, kLatitudes = 20;
  if (kind == ShapeKind::Composition) {
    // A body with limbs: a central part and 2 to 5 tubes or superquadrics attached around it.
    append_closed_surface(mesh, kLongitudes, kLatitudes,
                          part(random.next() % 2 ? ShapeKind::Blob : ShapeKind::Superquadric, random));
    transform_part(mesh, 0, Eigen::Matrix3d::Identity(),
                   Vec3d(uniform(random, 0.5, 1), uniform(random, 0.4, 0.8), uniform(random, 0.4, 0.8)), Vec3d::Zero());
    const int limbs = 2 + static_cast<int>(random.next() % 4);
    for (int k = 0; k < limbs; ++k) {
      const std::size_t first = mesh.positions.size();
      const ShapeKind limb = random.next() % 3 ? ShapeKind::Tube : ShapeKind::Superquadric;
      append_closed_surface(mesh, kLongitudes / 2, kLatitudes, part(limb, random));
      const Eigen::Matrix3d R = random_rotation(random);
      const Vec3d scale = limb == ShapeKind::Tube ? Vec3d::Constant(uniform(random, 0.5, 0.9))
                                                  : Vec3d(uniform(random, 0.15, 0.3), uniform(random, 0.4, 0.7),
                                                          uniform(random, 0.15, 0.3));
      // Attach: the limb's end near the body surface, pointing outward along R's y axis.
      const Vec3d t = R * Vec3d(0, 0.5 * scale.y() + 0.3, 0);
      transform_part(mesh, first, R, scale, t);
    }
  } else {
    append_closed_surface(mesh, kLongitudes, kLatitudes, part(kind, random));
  }
  // Into [-1, 1]^3 first so that the bend radius (>= 1.25) stays outside the shape (no folds).
  const fields::Normalization unit = fields::Normalization::of_points(fields::to_double(mesh.positions));
  for (Vec3f& q : mesh.positions) q = unit.to_normalized(q.cast<double>()).cast<float>();
  // Random non-uniform scaling, a random bend and a random orientation.
  transform_part(mesh, 0, Eigen::Matrix3d::Identity(),
                 Vec3d(uniform(random, 0.4, 1.0), uniform(random, 0.4, 1.0), uniform(random, 0.4, 1.0)), Vec3d::Zero());
  if (random.uniform() < 0.5) bend(mesh, uniform(random, -0.8, 0.8));
  transform_part(mesh, 0, random_rotation(random), Vec3d::Ones(), Vec3d::Zero());
  mesh.compute_normals();
  return mesh;
}

Mesh procedural_shape(std::uint64_t seed) {
  fields::Random random(seed ^ 0xA5A5A5A5ull);
  return procedural_shape(static_cast<ShapeKind>(random.next() % kShapeKindCount), seed);
}

}  // namespace wobble::neural
