#include "bundled_characters.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <wobble/io/files.hpp>

namespace wobble::viewer {
namespace fs = std::filesystem;

fs::path bundled_assets_folder() {
#ifdef __EMSCRIPTEN__
  return "/assets";
#else
  return WOBBLE_VIEWER_ASSETS;
#endif
}

std::vector<BundledCharacter> bundled_characters(const fs::path& folder) {
  std::vector<BundledCharacter> list;
  std::error_code ec;
  if (fs::is_directory(folder, ec))
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
      const std::string extension = entry.path().extension().string();
      if (extension == ".glb" || extension == ".gltf") list.push_back({entry.path().filename().string(), entry.path()});
    }
  std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.label < b.label; });
  list.push_back({"procedural cylinder", {}});
  return list;
}

Character make_cylinder_character(long vertices) {
  constexpr float kHeight = 2.0f, kRadius = 0.2f;
  constexpr int kJoints = 4;
  // rings x segments ~ vertices, with rings about 4 times as dense along the height as around.
  const long target = std::max(vertices, 64L);
  const int segments = std::max(8, static_cast<int>(std::lround(std::sqrt(target / 4.0))));
  const int rings = std::max(2, static_cast<int>(target / segments));

  Character c;
  c.source = "procedural cylinder";
  Mesh& mesh = c.mesh;
  for (int r = 0; r < rings; ++r) {
    const float y = kHeight * static_cast<float>(r) / static_cast<float>(rings - 1);
    for (int s = 0; s < segments; ++s) {
      const float a = 2.0f * std::numbers::pi_v<float> * static_cast<float>(s) / static_cast<float>(segments);
      mesh.positions.emplace_back(kRadius * std::cos(a), y, kRadius * std::sin(a));
    }
  }
  for (int r = 0; r + 1 < rings; ++r)
    for (int s = 0; s < segments; ++s) {
      const auto v = [&](int rr, int ss) { return static_cast<std::uint32_t>(rr * segments + (ss % segments)); };
      // Counter-clockwise seen from outside.
      mesh.triangles.push_back({v(r, s), v(r + 1, s), v(r, s + 1)});
      mesh.triangles.push_back({v(r, s + 1), v(r + 1, s), v(r + 1, s + 1)});
    }
  mesh.primitives.push_back({"cylinder", 0, 0, 0, static_cast<std::uint32_t>(mesh.positions.size()), 0,
                             static_cast<std::uint32_t>(mesh.triangles.size()), -1});
  mesh.compute_normals();

  // Joints at y = 0, H/4, H/2, 3H/4: each a child of the previous.
  const float spacing = kHeight / kJoints;
  for (int j = 0; j < kJoints; ++j) {
    Transform rest;
    rest.translation = Vec3f(0, j == 0 ? 0.0f : spacing, 0);
    Mat4f inverse_bind = Mat4f::Identity();
    inverse_bind(1, 3) = -spacing * static_cast<float>(j);
    c.rig.add_joint("Bone" + std::to_string(j), j - 1, rest, inverse_bind, true);
  }
  // Skin: blend between the two nearest joints, smoothly over half a segment.
  for (const Vec3f& p : mesh.positions) {
    const float u = std::clamp(p.y() / spacing - 0.5f, 0.0f, static_cast<float>(kJoints - 1));
    const int j0 = std::min(static_cast<int>(u), kJoints - 1);
    const float t = u - static_cast<float>(j0);
    const float w1 = t * t * (3 - 2 * t);
    std::vector<Influence> influences{{static_cast<std::uint32_t>(j0), 1 - w1}};
    if (j0 + 1 < kJoints) influences.push_back({static_cast<std::uint32_t>(j0 + 1), w1});
    c.skin.add_vertex(influences);
  }

  // "Sway": the chain bends to one side, to the other, then holds still (the effect keeps moving).
  Clip clip;
  clip.name = "Sway";
  const std::vector<float> times{0.0f, 0.4f, 0.8f, 1.0f, 2.0f};
  const std::vector<float> angles{0.0f, 0.45f, -0.45f, 0.0f, 0.0f};
  for (int j = 1; j < kJoints; ++j) {
    Channel channel;
    channel.joint = static_cast<std::uint32_t>(j);
    channel.path = ChannelPath::Rotation;
    channel.times = times;
    for (float angle : angles) {
      const Quatf q(Eigen::AngleAxisf(angle, Vec3f::UnitZ()));
      channel.values.insert(channel.values.end(), {q.x(), q.y(), q.z(), q.w()});
    }
    clip.channels.push_back(std::move(channel));
  }
  c.clips.push_back(std::move(clip));
  c.check();
  return c;
}

Character load_bundled(const BundledCharacter& character) {
  if (character.path.empty()) return make_cylinder_character();
  return load_character(character.path);
}

}  // namespace wobble::viewer
