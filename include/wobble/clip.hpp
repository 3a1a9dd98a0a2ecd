#pragma once
// Animation clips: translation, rotation and scale channels sampled exactly as glTF 2.0
// defines it (STEP, LINEAR with spherical interpolation of rotations, CUBICSPLINE Hermite).
#include <cstdint>
#include <string>
#include <vector>

#include <wobble/math.hpp>

namespace wobble {

enum class Interpolation { Step, Linear, CubicSpline };
enum class ChannelPath { Translation, Rotation, Scale };

const char* to_string(Interpolation interpolation);
const char* to_string(ChannelPath path);

struct Channel {
  std::uint32_t joint = 0;
  ChannelPath path = ChannelPath::Translation;
  Interpolation interpolation = Interpolation::Linear;
  std::vector<float> times;  // seconds, strictly increasing
  // Per key: 3 floats (translation, scale) or 4 (rotation x, y, z, w); CUBICSPLINE stores
  // in-tangent, value, out-tangent for each key, as glTF does.
  std::vector<float> values;

  int components() const { return path == ChannelPath::Rotation ? 4 : 3; }
  std::size_t key_count() const { return times.size(); }
  // Samples at time t (clamped to the first and last keys). Writes components() floats.
  void sample(float t, float* out) const;
};

struct Clip {
  std::string name;
  std::vector<Channel> channels;

  float start() const;  // earliest key time (0 for an empty clip)
  float end() const;    // latest key time
  float duration() const { return end() - start(); }
  std::size_t key_count() const;  // keys over all channels
};

}  // namespace wobble
