#pragma once
// Procedural characters for the runtime tests (no files, so that the tests run anywhere, ARM64
// under qemu included): a closed tube around a chain of joints along +Y with smooth two-joint
// weights, and poses that bend every joint by a known angle curve.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <wobble/character.hpp>
#include <wobble/pose.hpp>

namespace wobble::test {

struct TubeShape {
  int joints = 4;  // a chain along +Y, bones of length 1
  int rings = 24;  // rings of vertices over the chain's length
  int sides = 16;  // vertices per ring
  float radius = 0.25f;
  float bumps = 0.03f;  // radial detail (what Delta Mush must keep)
};

inline Character tube_character(const TubeShape& shape = {}) {
  Character c;
  c.source = "procedural-tube";
  for (int j = 0; j < shape.joints; ++j) {
    Transform rest;
    if (j > 0) rest.translation = Vec3f(0, 1, 0);
    Mat4f inverse_bind = Mat4f::Identity();
    inverse_bind(1, 3) = -static_cast<float>(j);
    c.rig.add_joint("joint" + std::to_string(j), j - 1, rest, inverse_bind, true);
  }
  const float length = static_cast<float>(shape.joints);
  for (int r = 0; r < shape.rings; ++r) {
    const float y = length * (static_cast<float>(r) + 0.5f) / static_cast<float>(shape.rings);
    for (int s = 0; s < shape.sides; ++s) {
      const float a = 2.0f * 3.14159265f * static_cast<float>(s) / static_cast<float>(shape.sides);
      const float radius = shape.radius * (1.0f + shape.bumps * std::sin(5.0f * a + 3.0f * y));
      c.mesh.positions.emplace_back(radius * std::cos(a), y, radius * std::sin(a));
      // Weights blend linearly between the two nearest joints' bone midpoints.
      const float u = std::clamp(y - 0.5f, 0.0f, length - 1.0f);
      const int j0 = std::min(static_cast<int>(u), shape.joints - 1), j1 = std::min(j0 + 1, shape.joints - 1);
      const float t = u - static_cast<float>(j0);
      const Influence influences[2] = {{static_cast<std::uint32_t>(j0), 1.0f - t}, {static_cast<std::uint32_t>(j1), t}};
      c.skin.add_vertex(influences);
    }
  }
  for (int r = 0; r + 1 < shape.rings; ++r) {
    for (int s = 0; s < shape.sides; ++s) {
      const auto at = [&](int ring, int side) {
        return static_cast<std::uint32_t>(ring * shape.sides + (side % shape.sides));
      };
      c.mesh.triangles.push_back({at(r, s), at(r + 1, s), at(r + 1, s + 1)});
      c.mesh.triangles.push_back({at(r, s), at(r + 1, s + 1), at(r, s + 1)});
    }
  }
  c.mesh.compute_normals();
  return c;
}

// Every joint turns about Z by amplitude * sin(2 pi f t + joint), then the root moves along X.
inline void bend_pose(const Character& c, double t, Pose& pose, float amplitude = 0.6f, float frequency = 1.5f) {
  pose.resize(c.rig.joint_count());
  for (std::size_t j = 0; j < c.rig.joint_count(); ++j) {
    pose.local[j] = c.rig.rest_local[j];
    const float angle =
        amplitude * static_cast<float>(std::sin(2.0 * 3.14159265358979 * frequency * t + static_cast<double>(j)));
    pose.local[j].rotation = Quatf(Eigen::AngleAxisf(angle, Vec3f::UnitZ())) * pose.local[j].rotation;
  }
  pose.local[0].translation.x() += static_cast<float>(0.3 * std::sin(2.0 * t));
  update_world(c.rig, pose);
}

}  // namespace wobble::test
