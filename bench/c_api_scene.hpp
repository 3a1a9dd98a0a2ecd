#pragma once
// A character with a clip as the C API takes it (bench_runtime, bench_web_native): its arrays
// (wobble_skinned_mesh) and 60 poses of the clip as joint world matrices and local transforms.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <wobble/character.hpp>
#include <wobble/lbs.hpp>
#include <wobble/pose.hpp>
#include <wobble/wobble.h>

namespace wobble::bench {

// The poses a Scene keeps: 60 frames of its clip, 1/60 s apart (looping when shorter).
constexpr int kScenePoses = 60;

struct Scene {
  Character character;
  std::vector<Pose> poses;                 // 60 frames of the clip, 1/60 s apart
  std::vector<std::vector<float>> worlds;  // their joint world matrices, 16 floats each
  std::vector<std::vector<float>> locals;  // and local transforms, 10 floats each (t, q xyzw, s)
  // The C API's arrays.
  std::vector<float> positions, normals, inverse_bind;
  std::vector<std::uint32_t> triangles;
  std::vector<std::int32_t> parents;
  PackedSkin skin;

  Scene(Character c, const std::string& clip_name) : character(std::move(c)) {
    if (character.mesh.normals.size() != character.mesh.vertex_count()) character.mesh.compute_normals();
    const Clip& clip = character.clips[character.find_clip(clip_name).value_or(0)];
    poses.resize(kScenePoses);
    for (int k = 0; k < kScenePoses; ++k) {
      evaluate_pose(character.rig, &clip, clip.start() + std::fmod(k / 60.0f, std::max(1e-3f, clip.duration())),
                    poses[k]);
      std::vector<float> world, local;
      for (const Mat4f& m : poses[k].world) world.insert(world.end(), m.data(), m.data() + 16);
      for (const Transform& t : poses[k].local) {
        local.insert(local.end(),
                     {t.translation.x(), t.translation.y(), t.translation.z(), t.rotation.x(), t.rotation.y(),
                      t.rotation.z(), t.rotation.w(), t.scale.x(), t.scale.y(), t.scale.z()});
      }
      worlds.push_back(std::move(world));
      locals.push_back(std::move(local));
    }
    for (std::size_t v = 0; v < character.mesh.vertex_count(); ++v) {
      positions.insert(positions.end(), character.mesh.positions[v].data(), character.mesh.positions[v].data() + 3);
      normals.insert(normals.end(), character.mesh.normals[v].data(), character.mesh.normals[v].data() + 3);
    }
    for (const Triangle& t : character.mesh.triangles) triangles.insert(triangles.end(), t.begin(), t.end());
    for (std::size_t j = 0; j < character.rig.joint_count(); ++j) {
      parents.push_back(character.rig.parents[j]);
      inverse_bind.insert(inverse_bind.end(), character.rig.inverse_bind[j].data(),
                          character.rig.inverse_bind[j].data() + 16);
    }
    skin = PackedSkin::from(character.skin);
  }

  wobble_skinned_mesh arrays() const {
    return {static_cast<std::uint32_t>(character.mesh.vertex_count()),
            positions.data(),
            0,
            normals.data(),
            0,
            static_cast<std::uint32_t>(triangles.size() / 3),
            triangles.data(),
            static_cast<std::uint32_t>(parents.size()),
            parents.data(),
            inverse_bind.data(),
            skin.width,
            skin.joints.data(),
            skin.weights.data()};
  }
};

}  // namespace wobble::bench
