#pragma once
// Small synthetic characters for the Dynamic Skinning and delayed LBS tests: chains and forks of
// joints along +Y with rings of vertices rigidly bound to each bone, and clips that turn one
// joint by a known angle curve. The runtime alone (tests/synthetic_rigs.hpp adds baking them).
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <wobble/character.hpp>
#include <wobble/parameters.hpp>

#include <nlohmann/json.hpp>

namespace wobble::test {

inline Mat4f translation_matrix(const Vec3f& t) {
  Mat4f m = Mat4f::Identity();
  m.topRightCorner<3, 1>() = t;
  return m;
}

// A chain of `joints` joints along +Y, bones of `bone` length. Each bone carries `rings` rings of
// four vertices (radius 0.2 bone), bound rigidly to the bone's joint. `weighted(j)` false leaves
// joint j without vertices (its bone's vertices go to the nearest weighted joint below).
inline Character chain_character(
    int joints, float bone, int rings = 4, const std::function<bool(int)>& weighted = [](int) { return true; }) {
  Character c;
  c.source = "synthetic-chain";
  for (int j = 0; j < joints; ++j) {
    Transform rest;
    if (j > 0) rest.translation = Vec3f(0, bone, 0);
    std::string name = "j";
    name += std::to_string(j);
    c.rig.add_joint(name, j - 1, rest, translation_matrix(Vec3f(0, -bone * j, 0)), true);
  }
  const float r = 0.2f * bone;
  for (int j = 0; j < joints; ++j) {
    int owner = j;
    while (owner > 0 && !weighted(owner)) --owner;
    for (int k = 0; k < rings; ++k) {
      const float y = bone * (static_cast<float>(j) + (static_cast<float>(k) + 0.5f) / static_cast<float>(rings));
      for (const Vec3f& p : {Vec3f(r, y, 0), Vec3f(-r, y, 0), Vec3f(0, y, r), Vec3f(0, y, -r)}) {
        c.mesh.positions.push_back(p);
        const Influence influence{static_cast<std::uint32_t>(owner), 1.0f};
        c.skin.add_vertex({&influence, 1});
      }
    }
  }
  return c;
}

// Adds (or creates) a clip that turns `joint` about `axis` by angle(t) radians, keyed at 240 Hz
// over [0, duration].
inline void add_rotation(Character& c, int joint, const Vec3f& axis, float duration,
                         const std::function<double(double)>& angle, const std::string& clip_name = "turn") {
  if (c.clips.empty()) c.clips.push_back(Clip{clip_name, {}});
  Channel channel;
  channel.joint = static_cast<std::uint32_t>(joint);
  channel.path = ChannelPath::Rotation;
  channel.interpolation = Interpolation::Linear;
  const int keys = static_cast<int>(std::lround(duration * 240)) + 1;
  const Quatf rest = c.rig.rest_local[joint].rotation;
  for (int k = 0; k < keys; ++k) {
    const double t = k / 240.0;
    channel.times.push_back(static_cast<float>(t));
    const Quatf q = Quatf(Eigen::AngleAxisf(static_cast<float>(angle(t)), axis.normalized())) * rest;
    channel.values.insert(channel.values.end(), {q.x(), q.y(), q.z(), q.w()});
  }
  c.clips[0].channels.push_back(std::move(channel));
}

// A 3-joint chain (bone 1) whose root turns about Z at 2 rad/s and stops dead at t = 0.5 s.
inline Character stopping_chain() {
  Character c = chain_character(3, 1.0f);
  add_rotation(c, 0, Vec3f::UnitZ(), 3.0f, [](double t) { return 2.0 * std::min(t, 0.5); });
  return c;
}

// The same character with every length multiplied by s.
inline Character scaled(const Character& c, float s) {
  Character out = c;
  for (Vec3f& p : out.mesh.positions) p *= s;
  for (Transform& t : out.rig.rest_local) t.translation *= s;
  for (Mat4f& m : out.rig.inverse_bind) m.topRightCorner<3, 1>() *= s;
  for (Clip& clip : out.clips) {
    for (Channel& channel : clip.channels) {
      if (channel.path != ChannelPath::Translation) continue;
      for (float& v : channel.values) v *= s;
    }
  }
  return out;
}

// Settings from JSON written in a test ({{"dynamic", {{"frequency", 2}}}}), checked as a file's.
inline StackSettings settings_of(const nlohmann::json& settings) {
  return StackSettings::from_json(settings.dump(), "test settings");
}

}  // namespace wobble::test
