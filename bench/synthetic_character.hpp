#pragma once
// The benchmarks' synthetic 1,000,000-vertex character (bench_dynamic, bench_dlbs, bench_runtime).
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <wobble/character.hpp>

namespace wobble::bench {

// A biped-like tree of 64 joints (spine, neck and head, two arms, two legs, a tail) with
// 1,000,000 vertices spread along the bones, 4 influences each, and a clip that swings every joint.
inline Character synthetic_character(std::size_t vertex_count) {
  Character c;
  c.source = "synthetic-1M";
  std::vector<Vec3f> world_position;
  auto add = [&](int parent, const Vec3f& offset) {
    Transform rest;
    rest.translation = offset;
    const Vec3f position = (parent >= 0 ? world_position[parent] : Vec3f::Zero()) + offset;
    Mat4f inverse_bind = Mat4f::Identity();
    inverse_bind.topRightCorner<3, 1>() = -position;
    world_position.push_back(position);
    return c.rig.add_joint("joint" + std::to_string(c.rig.joint_count()), parent, rest, inverse_bind, true);
  };
  auto limb = [&](int parent, const Vec3f& direction, int count) {
    int j = parent;
    for (int k = 0; k < count; ++k) j = add(j, direction);
  };
  const int root = add(-1, Vec3f(0, 1, 0));
  int spine = root;
  std::vector<int> spine_joints;
  for (int k = 0; k < 8; ++k) spine_joints.push_back(spine = add(spine, Vec3f(0, 0.08f, 0)));
  limb(spine, Vec3f(0, 0.06f, 0), 8);                  // neck and head
  limb(spine_joints[6], Vec3f(0.07f, -0.01f, 0), 10);  // arms
  limb(spine_joints[6], Vec3f(-0.07f, -0.01f, 0), 10);
  limb(root, Vec3f(0.03f, -0.11f, 0), 9);  // legs
  limb(root, Vec3f(-0.03f, -0.11f, 0), 9);
  limb(root, Vec3f(0, -0.02f, -0.08f), 64 - static_cast<int>(c.rig.joint_count()));  // tail
  const int joints = static_cast<int>(c.rig.joint_count());

  std::mt19937 random(3);
  std::uniform_real_distribution<float> unit(-1, 1);
  c.mesh.positions.reserve(vertex_count);
  for (std::size_t v = 0; v < vertex_count; ++v) {
    // Neighbouring vertices on the same bone, as a real mesh would have them.
    const int j = 1 + static_cast<int>((v * static_cast<std::size_t>(joints - 1)) / vertex_count);
    const int parent = c.rig.parents[j];
    const float s = (static_cast<float>(v % 997) + 0.5f) / 997.0f;
    const Vec3f p = world_position[parent] + s * (world_position[j] - world_position[parent]) +
                    0.02f * Vec3f(unit(random), unit(random), unit(random));
    c.mesh.positions.push_back(p);
    const int grand = c.rig.parents[parent] >= 0 ? c.rig.parents[parent] : parent;
    std::vector<Influence> influences = {{static_cast<std::uint32_t>(parent), 0.5f * (1 - s) + 0.1f},
                                         {static_cast<std::uint32_t>(j), 0.5f * s + 0.1f},
                                         {static_cast<std::uint32_t>(grand), 0.1f}};
    float sum = 0;
    for (const Influence& i : influences) sum += i.weight;
    for (Influence& i : influences) i.weight /= sum;
    c.skin.add_vertex(influences);
  }
  Clip clip;
  clip.name = "swing";
  for (int j = 0; j < joints; ++j) {
    Channel channel;
    channel.joint = static_cast<std::uint32_t>(j);
    channel.path = ChannelPath::Rotation;
    const Vec3f axis = Vec3f(unit(random), unit(random), unit(random)).normalized();
    for (int k = 0; k <= 30; ++k) {
      const float t = static_cast<float>(k) / 30.0f;
      channel.times.push_back(t);
      const Quatf q(Eigen::AngleAxisf(0.4f * std::sin(6.2832f * t + static_cast<float>(j)), axis));
      channel.values.insert(channel.values.end(), {q.x(), q.y(), q.z(), q.w()});
    }
    clip.channels.push_back(std::move(channel));
  }
  c.clips.push_back(std::move(clip));
  return c;
}

}  // namespace wobble::bench
