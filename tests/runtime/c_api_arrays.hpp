#pragma once
// The C API tests' fixtures: a C++ character as wobble_character_create's arrays, handles that
// destroy themselves, a pose's world matrices as the C API takes them.
#include <cstdint>
#include <vector>

#include <wobble/character.hpp>
#include <wobble/pose.hpp>
#include <wobble/skin.hpp>
#include <wobble/wobble.h>

namespace wobble::test {

// The tube as the C API's arrays (owned here).
struct Arrays {
  std::vector<float> positions, inverse_bind, weights;
  std::vector<std::uint32_t> triangles;
  std::vector<std::int32_t> parents;
  std::vector<std::uint16_t> joints;
  wobble_skinned_mesh mesh{};

  explicit Arrays(const Character& c) {
    for (const Vec3f& p : c.mesh.positions) positions.insert(positions.end(), {p.x(), p.y(), p.z()});
    for (const Triangle& t : c.mesh.triangles) triangles.insert(triangles.end(), t.begin(), t.end());
    for (std::size_t j = 0; j < c.rig.joint_count(); ++j) {
      parents.push_back(c.rig.parents[j]);
      inverse_bind.insert(inverse_bind.end(), c.rig.inverse_bind[j].data(), c.rig.inverse_bind[j].data() + 16);
    }
    const PackedSkin skin = PackedSkin::from(c.skin, 2);
    joints = skin.joints;
    weights = skin.weights;
    mesh = {static_cast<std::uint32_t>(c.mesh.vertex_count()),
            positions.data(),
            0,
            nullptr,
            0,
            static_cast<std::uint32_t>(c.mesh.triangle_count()),
            triangles.data(),
            static_cast<std::uint32_t>(c.rig.joint_count()),
            parents.data(),
            inverse_bind.data(),
            2,
            joints.data(),
            weights.data()};
  }
};

struct Handles {
  wobble_character* character = nullptr;
  wobble_stack* stack = nullptr;
  ~Handles() {
    wobble_stack_destroy(stack);
    wobble_character_destroy(character);
  }
};

inline std::vector<float> world_matrices(const Pose& pose) {
  std::vector<float> m;
  for (const Mat4f& w : pose.world) m.insert(m.end(), w.data(), w.data() + 16);
  return m;
}

}  // namespace wobble::test
