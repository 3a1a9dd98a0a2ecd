#include <wobble/character.hpp>

#include <charconv>

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble {

std::optional<std::size_t> Character::find_clip(const std::string& name_or_index) const {
  for (std::size_t i = 0; i < clips.size(); ++i) {
    if (clips[i].name == name_or_index) return i;
  }
  std::size_t index = 0;
  const char* first = name_or_index.data();
  const char* last = first + name_or_index.size();
  auto [end, error] = std::from_chars(first, last, index);
  if (error == std::errc() && end == last && !name_or_index.empty() && index < clips.size()) return index;
  return std::nullopt;
}

std::size_t Character::require_clip(const std::string& name_or_index) const {
  if (auto found = find_clip(name_or_index)) return *found;
  std::string names;
  for (const Clip& clip : clips) names += (names.empty() ? "" : ", ") + clip.name;
  fail(source, "no clip '{}' (clips: {})", name_or_index, names.empty() ? "none" : names);
}

void Character::check() const {
  const std::size_t n = mesh.vertex_count();
  if (!mesh.normals.empty() && mesh.normals.size() != n)
    fail(source, "{} normals for {} vertices", mesh.normals.size(), n);
  if (!mesh.uvs.empty() && mesh.uvs.size() != n)
    fail(source, "{} texture coordinates for {} vertices", mesh.uvs.size(), n);
  for (std::size_t v = 0; v < n; ++v) {
    if (!mesh.positions[v].allFinite()) fail(source, "vertex {} has a non-finite position", v);
  }
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    for (std::uint32_t v : mesh.triangles[t]) {
      if (v >= n) fail(source, "triangle {} uses vertex {}, but there are {} vertices", t, v, n);
    }
  }
  for (const auto& [name, values] : mesh.vertex_scalars) {
    if (values.size() != n) fail(source, "vertex attribute {} has {} values for {} vertices", name, values.size(), n);
  }
  rig.check(source);
  if (!skin.empty()) {
    if (skin.vertex_count() != n) fail(source, "skin has {} vertices, mesh has {}", skin.vertex_count(), n);
    for (std::uint32_t j : skin.joints) {
      if (j >= rig.joint_count()) fail(source, "skin uses joint {}, but the skeleton has {}", j, rig.joint_count());
    }
  }
  for (const Clip& clip : clips) {
    for (const Channel& c : clip.channels) {
      if (c.joint >= rig.joint_count())
        fail(source, "clip '{}' animates joint {}, which does not exist", clip.name, c.joint);
      const std::size_t per_key = c.components() * (c.interpolation == Interpolation::CubicSpline ? 3 : 1);
      if (c.values.size() != c.times.size() * per_key) {
        fail(source, "clip '{}': channel on joint '{}' has {} values for {} keys", clip.name, rig.names[c.joint],
             c.values.size(), c.times.size());
      }
      for (std::size_t k = 1; k < c.times.size(); ++k) {
        if (!(c.times[k] > c.times[k - 1])) {
          fail(source, "clip '{}': key times of joint '{}' do not increase at key {}", clip.name, rig.names[c.joint],
               k);
        }
      }
    }
  }
}

}  // namespace wobble
