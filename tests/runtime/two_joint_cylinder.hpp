#pragma once
// Procedural fixtures shared by the skinning and Delta Mush tests: a rotation about a centre, a
// closed cylinder along x (radius 1, optional bumps: detail to keep), skinned to two joints with a
// linear ramp over the middle third, and the volume a closed mesh encloses.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include <Eigen/Geometry>

#include <wobble/lbs.hpp>
#include <wobble/math.hpp>
#include <wobble/mesh.hpp>

namespace wobble::test {

inline Mat4f rotation_about(const Vec3f& axis, float angle, const Vec3f& centre = Vec3f::Zero()) {
  Mat4f m = Mat4f::Identity();
  const Mat3f r = Eigen::AngleAxisf(angle, axis.normalized()).toRotationMatrix();
  m.topLeftCorner<3, 3>() = r;
  m.topRightCorner<3, 1>() = centre - r * centre;
  return m;
}

// The cylinder: `rings` rings of `sides` vertices from x = 0 to `length`, plus two cap centres;
// joint 0 at x = 0, joint 1 at length / 2.
struct Cylinder {
  std::vector<Vec3f> positions;
  std::vector<Triangle> triangles;
  PackedSkin skin;
  float size() const {
    Eigen::AlignedBox3f box;
    for (const Vec3f& p : positions) box.extend(p);
    return box.diagonal().norm();
  }
};

inline Cylinder make_cylinder(int rings, int sides, float length, float bumps = 0.05f) {
  Cylinder c;
  c.skin.width = 2;
  auto add_vertex = [&](const Vec3f& p) {
    c.positions.push_back(p);
    const float u = p.x() / length;
    const float w1 = std::clamp((u - 1.0f / 3.0f) * 3.0f, 0.0f, 1.0f);
    c.skin.joints.insert(c.skin.joints.end(), {0, 1});
    c.skin.weights.insert(c.skin.weights.end(), {1 - w1, w1});
  };
  for (int r = 0; r < rings; ++r) {
    for (int s = 0; s < sides; ++s) {
      const float a = 2 * std::numbers::pi_v<float> * s / sides;
      const float radius =
          1.0f + bumps * std::sin(5.0f * a) * std::sin(7.0f * std::numbers::pi_v<float> * r / (rings - 1));
      add_vertex({length * r / (rings - 1), radius * std::cos(a), radius * std::sin(a)});
    }
  }
  const auto cap0 = static_cast<std::uint32_t>(c.positions.size());
  add_vertex({0, 0, 0});
  add_vertex({length, 0, 0});
  auto at = [&](int r, int s) { return static_cast<std::uint32_t>(r * sides + (s % sides)); };
  for (int r = 0; r + 1 < rings; ++r) {
    for (int s = 0; s < sides; ++s) {
      c.triangles.push_back({at(r, s), at(r + 1, s + 1), at(r + 1, s)});
      c.triangles.push_back({at(r, s), at(r, s + 1), at(r + 1, s + 1)});
    }
  }
  for (int s = 0; s < sides; ++s) {
    c.triangles.push_back({cap0, at(0, s + 1), at(0, s)});
    c.triangles.push_back({cap0 + 1, at(rings - 1, s), at(rings - 1, s + 1)});
  }
  return c;
}

// Signed volume by the divergence theorem.
inline double volume(const std::vector<Vec3f>& p, const std::vector<Triangle>& triangles) {
  double v = 0;
  for (const auto& t : triangles)
    v += p[t[0]].cast<double>().dot(p[t[1]].cast<double>().cross(p[t[2]].cast<double>())) / 6;
  return v;
}

}  // namespace wobble::test
