// A program that embeds wobble as an engine would: it links wobble::runtime only, builds its own
// skinned tube from arrays, animates it with its own joint transforms and runs linear blend
// skinning plus Dynamic Skinning every frame. Writes every frame's positions (raw floats) to the
// file named by its argument, for tests/consumer/run.sh to compare with the same program built
// in the main build; exits 1 unless the secondary motion appears and rings out.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <wobble/dynamic_skinning.hpp>
#include <wobble/lbs.hpp>
#include <wobble/mesh.hpp>
#include <wobble/pose.hpp>
#include <wobble/rig.hpp>
#include <wobble/skin.hpp>

namespace {

constexpr int kJoints = 4, kRings = 40, kSides = 16;

struct Tube {
  wobble::Rig rig;
  wobble::Mesh mesh;
  wobble::Skin skin;
};

// Joints one unit apart along +Y; each vertex blends the two joints nearest to it.
Tube make_tube() {
  Tube tube;
  for (int j = 0; j < kJoints; ++j) {
    wobble::Transform rest;
    rest.translation = wobble::Vec3f(0, j ? 1.0f : 0.0f, 0);
    wobble::Mat4f inverse_bind = wobble::Mat4f::Identity();
    inverse_bind(1, 3) = -static_cast<float>(j);
    tube.rig.add_joint("joint" + std::to_string(j), j - 1, rest, inverse_bind, true);
  }
  for (int r = 0; r < kRings; ++r) {
    const float y = kJoints * (r + 0.5f) / kRings;
    const float u = std::fmin(std::fmax(y - 0.5f, 0.0f), kJoints - 1.0f);
    const int j0 = std::min(static_cast<int>(u), kJoints - 1), j1 = std::min(j0 + 1, kJoints - 1);
    for (int s = 0; s < kSides; ++s) {
      const float a = 6.2831853f * s / kSides;
      tube.mesh.positions.emplace_back(0.2f * std::cos(a), y, 0.2f * std::sin(a));
      const wobble::Influence influences[2] = {{std::uint32_t(j0), 1 - (u - j0)}, {std::uint32_t(j1), u - j0}};
      tube.skin.add_vertex(influences);
    }
  }
  return tube;
}

// The engine's animation: the joints bend back and forth for one second, then hold still.
void animate(const wobble::Rig& rig, double t, wobble::Pose& pose) {
  pose.resize(rig.joint_count());
  const float angle = t < 1.0 ? 0.5f * std::sin(static_cast<float>(6.2831853 * t)) : 0.0f;
  for (std::size_t j = 0; j < rig.joint_count(); ++j) {
    pose.local[j] = rig.rest_local[j];
    pose.local[j].rotation = wobble::Quatf(Eigen::AngleAxisf(angle, wobble::Vec3f::UnitZ()));
  }
  wobble::update_world(rig, pose);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: wobble_consumer OUTPUT\n");
    return 2;
  }
  const Tube tube = make_tube();
  const wobble::PackedSkin skin = wobble::PackedSkin::from(tube.skin);
  wobble::DynamicSkinningParameters parameters;
  parameters.amplitude = 1.5;
  wobble::DynamicSkinningState dynamic;
  dynamic.initialize(tube.rig, tube.mesh, tube.skin, parameters);
  wobble::Pose pose;
  std::vector<wobble::Vec3f> skinned(tube.mesh.vertex_count()), moving(skinned.size());
  std::ofstream out(argv[1], std::ios::binary);
  double swing = 0, after = 0;
  for (int frame = 0; frame <= 4 * 60; ++frame) {
    const double t = frame / 60.0;
    animate(tube.rig, t, pose);
    const wobble::LbsJob lbs{pose.skinning, &skin, tube.mesh.positions, {}, skinned, {}, true};
    if (const std::string problem = lbs.validate(); !problem.empty()) {
      std::fprintf(stderr, "wobble_consumer: lbs: %s\n", problem.c_str());
      return 1;
    }
    lbs.run();
    moving = skinned;
    dynamic.apply(parameters, pose, moving, t);
    out.write(reinterpret_cast<const char*>(moving.data()),
              static_cast<std::streamsize>(moving.size() * sizeof(wobble::Vec3f)));
    double offset = 0;
    for (std::size_t v = 0; v < moving.size(); ++v) offset = std::max<double>(offset, (moving[v] - skinned[v]).norm());
    if (t <= 1.5) swing = std::max(swing, offset);
    if (t >= 3.5) after = std::max(after, offset);
  }
  const bool ok = swing > 1e-2 && after < 0.05 * swing && out.good();
  std::printf("wobble_consumer: dynamic swing %.3f, %.2g after the stop: %s\n", swing, after, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
