// GPU skinning (LBS + Dynamic Skinning in the vertex shader) against the CPU deformer stack,
// positions read back with transform feedback.
#include <gtest/gtest.h>

#include <cstdio>

#include <wobble/offline/bake.hpp>
#include <wobble/deformer.hpp>
#include <wobble/dynamic_skinning.hpp>
#include <wobble/io/files.hpp>
#include <wobble/render/renderer.hpp>

#include "render_test_context.hpp"
#include "synthetic_rigs.hpp"
#include "test_util.hpp"

namespace wobble::test {
namespace {

struct Deviation {
  double gpu_vs_cpu = 0;  // max |GPU - CPU(lbs,dynamic)|
  double effect = 0;      // max |CPU(lbs,dynamic) - CPU(lbs)|: the effect is really on
};

// Plays `times` of the clip through both paths and returns the largest deviations.
Deviation compare_paths(const Character& character, std::size_t clip_index, const std::vector<double>& times,
                        const nlohmann::json& dynamic_settings, const std::vector<std::size_t>& checked) {
  require_gl();
  const Clip& clip = character.clips[clip_index];
  const StackSettings settings = StackSettings::from_json(nlohmann::json{{"dynamic", dynamic_settings}}.dump(), "test");
  DeformerStack cpu = DeformerStack::parse("lbs,dynamic", settings);
  cpu.bind(character);
  DeformerStack lbs = DeformerStack::parse("lbs");
  lbs.bind(character);
  const DynamicSkinningParameters parameters = settings.get("dynamic").as<DynamicSkinningParameters>();
  DynamicSkinningState state;
  state.initialize(character, parameters);
  render::Renderer renderer;
  renderer.set_mesh(character.mesh);
  renderer.set_skin(character.skin, character.rig.joint_count(), &state);

  Deviation result;
  Pose pose;
  std::vector<Vec3f> positions, normals, base, base_normals;
  for (std::size_t k = 0; k < times.size(); ++k) {
    evaluate_pose(character.rig, &clip, static_cast<float>(times[k]), pose);
    const FrameInput frame{character, pose, times[k], clip_sampler(character.rig, clip)};
    cpu.evaluate(frame, positions, normals);
    lbs.evaluate(frame, base, base_normals);
    state.advance(parameters, pose, times[k], frame.pose_at);
    renderer.set_pose(pose, &state);
    if (std::find(checked.begin(), checked.end(), k) == checked.end()) continue;
    const std::vector<Vec3f> gpu = renderer.gpu_positions();
    EXPECT_EQ(gpu.size(), positions.size());
    for (std::size_t v = 0; v < gpu.size(); ++v) {
      result.gpu_vs_cpu = std::max(result.gpu_vs_cpu, double((gpu[v] - positions[v]).norm()));
      result.effect = std::max(result.effect, double((positions[v] - base[v]).norm()));
    }
  }
  return result;
}

TEST(GpuSkinning, MatchesCpuOnClonkWalkWithTheEffectOn) {
  const Character clonk = load_character(bundled_asset("clonk.glb"));
  const std::size_t walk = clonk.require_clip("Walk");
  const double start = clonk.clips[walk].start();
  const std::vector<double> times = frame_times(start, start + 1.5, 30);
  const Deviation d =
      compare_paths(clonk, walk, times, {{"frequency", 3}, {"damping", 0.4}, {"amplitude", 0.6}, {"drag", 0.2}},
                    {5, 15, 25, times.size() - 1});
  const double size = clonk.mesh.size();
  std::printf("clonk Walk: GPU - CPU max %.3g of the size, effect max %.3g of the size\n", d.gpu_vs_cpu / size,
              d.effect / size);
  EXPECT_GT(d.effect, 1e-2 * size) << "the effect must visibly move vertices for the parity to mean anything";
  EXPECT_LE(d.gpu_vs_cpu, 1e-4 * size) << "GPU deviates by " << d.gpu_vs_cpu / size << " of the character size";
}

// A chain with blended weights, a negative bend weight, a flexible origin with a radius, a
// disabled joint and linear drag: every term of the kernel.
TEST(GpuSkinning, MatchesCpuOnSyntheticChainWithEveryKernelTerm) {
  Character c = chain_character(5, 1.0f, 4);
  Skin blended;
  for (std::size_t v = 0; v < c.mesh.vertex_count(); ++v) {
    const std::uint32_t j = c.skin.joints_of(v)[0];
    if (j + 1 < c.rig.joint_count()) {
      const Influence pair[2] = {{j, 0.7f}, {j + 1, 0.3f}};
      blended.add_vertex(pair);
    } else {
      const Influence one{j, 1.0f};
      blended.add_vertex({&one, 1});
    }
  }
  c.skin = blended;
  std::vector<float> bend(c.mesh.vertex_count(), 1.0f);
  for (std::size_t v = 0; v < bend.size(); v += 7) bend[v] = -0.5f;
  for (std::size_t v = 3; v < bend.size(); v += 11) bend[v] = 0.0f;
  c.mesh.vertex_scalars["_BEND_WEIGHT"] = bend;
  add_rotation(c, 1, Vec3f(0, 0, 1), 2.0f, [](double t) { return 0.8 * std::sin(5 * t); });
  add_rotation(c, 3, Vec3f(1, 0, 0), 2.0f, [](double t) { return 0.5 * t * t; });
  c.clips[0].channels.push_back([] {
    Channel channel;
    channel.joint = 2;
    channel.path = ChannelPath::Translation;
    channel.interpolation = Interpolation::Linear;
    channel.times = {0.0f, 2.0f};
    channel.values = {0, 1, 0, 0.6f, 1, 0};
    return channel;
  }());
  const nlohmann::json dynamic = {
      {"frequency", 4},
      {"amplitude", 0.5},
      {"drag", 0.3},
      {"linear_drag", 0.1},
      {"max_angle", 40},
      {"joints", {{"j2", {{"origin", {0.1, 0.5, 0}}, {"radius", 1.5}}}, {"j4", {{"enabled", false}}}}}};
  const std::vector<double> times = frame_times(0, 2, 24);
  const Deviation d = compare_paths(c, 0, times, dynamic, {4, 12, 30, times.size() - 1});
  const double size = c.mesh.size();
  std::printf("synthetic chain: GPU - CPU max %.3g of the size, effect max %.3g of the size\n", d.gpu_vs_cpu / size,
              d.effect / size);
  EXPECT_GT(d.effect, 1e-2 * size);
  EXPECT_LE(d.gpu_vs_cpu, 1e-4 * size) << "GPU deviates by " << d.gpu_vs_cpu / size << " of the character size";
}

TEST(GpuSkinning, PlainLbsMatchesCpuLbs) {
  require_gl();
  const Character clonk = load_character(bundled_asset("clonk.glb"));
  const std::size_t walk = clonk.require_clip("Walk");
  Pose pose;
  const double t = clonk.clips[walk].start() + 0.4;
  evaluate_pose(clonk.rig, &clonk.clips[walk], static_cast<float>(t), pose);
  DeformerStack lbs = DeformerStack::parse("lbs");
  lbs.bind(clonk);
  std::vector<Vec3f> positions, normals;
  lbs.evaluate(FrameInput{clonk, pose, t, {}}, positions, normals);
  render::Renderer renderer;
  renderer.set_mesh(clonk.mesh);
  renderer.set_skin(clonk.skin, clonk.rig.joint_count());
  renderer.set_pose(pose);
  const std::vector<Vec3f> gpu = renderer.gpu_positions();
  double worst = 0, moved = 0;
  for (std::size_t v = 0; v < gpu.size(); ++v) {
    worst = std::max(worst, double((gpu[v] - positions[v]).norm()));
    moved = std::max(moved, double((positions[v] - clonk.mesh.positions[v]).norm()));
  }
  EXPECT_GT(moved, 1e-2 * clonk.mesh.size());  // the pose is not the bind pose
  EXPECT_LE(worst, 1e-5 * clonk.mesh.size())
      << "vertex 0: GPU " << gpu[0].transpose() << ", CPU " << positions[0].transpose() << ", rest "
      << clonk.mesh.positions[0].transpose();
}

}  // namespace
}  // namespace wobble::test
