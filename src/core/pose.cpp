#include <wobble/pose.hpp>

#include <wobble/clip.hpp>
#include <wobble/rig.hpp>

namespace wobble {

void Pose::resize(std::size_t joints) {
  local.resize(joints);
  world.resize(joints);
  skinning.resize(joints);
}

void rest_pose(const Rig& rig, Pose& pose) {
  pose.resize(rig.joint_count());
  std::copy(rig.rest_local.begin(), rig.rest_local.end(), pose.local.begin());
  update_world(rig, pose);
}

void evaluate_pose(const Rig& rig, const Clip* clip, float t, Pose& pose) {
  evaluate_local_pose(rig, clip, t, pose);
  update_world(rig, pose);
}

void evaluate_local_pose(const Rig& rig, const Clip* clip, float t, Pose& pose) {
  pose.resize(rig.joint_count());
  std::copy(rig.rest_local.begin(), rig.rest_local.end(), pose.local.begin());
  if (clip) {
    float value[4];
    for (const Channel& channel : clip->channels) {
      if (channel.joint >= rig.joint_count() || channel.times.empty()) continue;
      channel.sample(t, value);
      Transform& local = pose.local[channel.joint];
      switch (channel.path) {
        case ChannelPath::Translation: local.translation = Vec3f(value[0], value[1], value[2]); break;
        case ChannelPath::Rotation: local.rotation = Quatf(value[3], value[0], value[1], value[2]); break;
        case ChannelPath::Scale: local.scale = Vec3f(value[0], value[1], value[2]); break;
      }
    }
  }
}

void update_world(const Rig& rig, Pose& pose) {
  const std::size_t n = rig.joint_count();
  pose.world.resize(n);
  pose.skinning.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    const Mat4f local = pose.local[j].matrix();
    const int parent = rig.parents[j];
    // Parents come first (topological order), so their world matrices are ready.
    pose.world[j] = parent < 0 ? local : Mat4f(pose.world[parent] * local);
    pose.skinning[j] = pose.world[j] * rig.inverse_bind[j];
    pose.skinning[j].row(3) << 0, 0, 0, 1;  // exactly affine
  }
}

PoseSampler clip_sampler(const Rig& rig, const Clip& clip) {
  return [&rig, &clip](double time, Pose& pose) { evaluate_pose(rig, &clip, static_cast<float>(time), pose); };
}

}  // namespace wobble
