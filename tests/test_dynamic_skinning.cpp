// Dynamic Skinning baked and on real characters: closed forms (no effect at A = D = 0, drag
// vanishes when the joint stops, free oscillation at f decaying with tau), the state's filter
// against the direct sum, hierarchical weights against their definition, painted weights, unit
// invariance, frame-rate independence, robustness on every bundled character and on odd rigs,
// and the command line. The recursive filter and restarts of the history on procedural input:
// tests/runtime/test_dynamic_skinning.cpp.
#include <cmath>
#include <fstream>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <wobble/offline/bake.hpp>
#include <wobble/deformer.hpp>
#include <wobble/dynamic_skinning.hpp>
#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/parallel.hpp>
#include <wobble/pose.hpp>

#include "synthetic_rigs.hpp"
#include "test_util.hpp"

using namespace wobble;
using namespace wobble::test;
using nlohmann::json;

namespace {

const Character& cached(const std::filesystem::path& path) {
  static std::map<std::filesystem::path, Character> cache;
  auto found = cache.find(path);
  if (found == cache.end()) found = cache.emplace(path, load_character(path)).first;
  return found->second;
}

std::vector<std::filesystem::path> all_characters() {
  std::vector<std::filesystem::path> files = {shared_asset("characters/clonk.glb"), shared_asset("characters/wipf.glb"),
                                              shared_asset("characters/RiggedFigure/RiggedFigure.gltf"),
                                              shared_asset("characters/RiggedSimple/RiggedSimple.gltf")};
  for (const char* name : {"vs_bird", "vs_cow", "vs_dragon", "vs_giraffe", "vs_marine"}) {
    files.push_back(shared_asset(std::string("characters/velocity_skinning/") + name + ".glb"));
  }
  return files;
}

}  // namespace

TEST(DynamicSkinning, ZeroAmplitudeAndDragEqualsBaseSkinningExactly) {
  const Character& clonk = cached(bundled_asset("clonk.glb"));
  const auto walk = *clonk.find_clip("Walk");
  for (const char* base : {"lbs", "dlbs"}) {
    const auto reference = bake_stack(clonk, base, json::object(), 30, clonk.clips[walk].start() + 1.0, nullptr, walk);
    const auto dynamic =
        bake_stack(clonk, std::string(base) + ",dynamic", {{"dynamic", {{"amplitude", 0}, {"drag", 0}}}}, 30,
                   clonk.clips[walk].start() + 1.0, nullptr, walk);
    ASSERT_EQ(reference.positions.size(), dynamic.positions.size());
    for (std::size_t f = 0; f < reference.positions.size(); ++f)
      EXPECT_EQ(reference.positions[f], dynamic.positions[f]) << base;
  }
}

TEST(DynamicSkinning, StateFilterEqualsTheDirectSumOverItsSampledVelocities) {
  const Character& marine = cached(shared_asset("characters/velocity_skinning/vs_marine.glb"));
  const Clip& run = marine.clips[*marine.find_clip("run")];
  const DynamicSkinningParameters parameters{
      .frequency = 3, .damping = 0.4, .amplitude = 0.3, .drag = 0.1, .joints = {}, .bend_weights = {}};
  DynamicSkinningState state;
  dynamic_skinning_initialize(state, marine.rig, marine.mesh, marine.skin, parameters);
  Pose pose;
  std::vector<std::vector<Vec3d>> history(marine.rig.joint_count());
  std::vector<Vec3f> positions;
  const PoseSampler sampler = clip_sampler(marine.rig, run);
  for (int n = 0; n <= 44; ++n) {  // 60 Hz frames: one sample each
    const double t = n / 60.0;
    evaluate_pose(marine.rig, &run, static_cast<float>(t), pose);
    positions = marine.mesh.positions;
    dynamic_skinning_apply(state, parameters, pose, positions, t, sampler);
    for (std::size_t j = 0; j < history.size(); ++j) history[j].push_back(state.angular_velocities()[j]);
    for (std::size_t j = 0; j < history.size(); ++j) {
      const Vec3d direct = oscillation_direct_sum(history[j], history[j][0], 3, 0.4, 0.3, 0.1);
      ASSERT_LT((state.filtered()[j] - direct).norm(), 1e-9 * std::max(1.0, direct.norm()))
          << "joint " << j << " n " << n;
    }
  }
}

TEST(DynamicSkinning, HierarchicalWeightsMatchTheirDefinitionOnRealCharacters) {
  for (const auto& file : all_characters()) {
    const Character& c = cached(file);
    const HierarchicalWeights weights = HierarchicalWeights::from(c.rig, c.skin);
    ASSERT_EQ(weights.vertex_count(), c.mesh.vertex_count()) << file;
    std::size_t pairs = 0;
    for (std::size_t v = 0; v < c.mesh.vertex_count(); ++v) {
      std::vector<double> expected(c.rig.joint_count(), 0.0);
      const auto joints = c.skin.joints_of(v);
      const auto w = c.skin.weights_of(v);
      // Definition: beta_vj = sum of the weights of j and of all its descendants.
      for (std::size_t j = 0; j < c.rig.joint_count(); ++j) {
        for (std::size_t k = 0; k < joints.size(); ++k) {
          for (int a = static_cast<int>(joints[k]); a >= 0; a = c.rig.parents[a]) {
            if (a == static_cast<int>(j)) expected[j] += w[k];
          }
        }
      }
      for (std::size_t j = 0; j < c.rig.joint_count(); ++j) {
        ASSERT_NEAR(weights.beta(v, static_cast<std::uint32_t>(j)), expected[j], 1e-6)
            << file << " vertex " << v << " joint " << j;
        pairs += expected[j] > 0;
      }
    }
    EXPECT_EQ(weights.pair_count(), pairs) << file;
  }
}

TEST(DynamicSkinning, FrameRateDoesNotChangeTheMotion) {
  const Character& clonk = cached(bundled_asset("clonk.glb"));
  const auto walk = *clonk.find_clip("Walk");
  const double end = clonk.clips[walk].start() + 1.0;
  const auto at60 = bake_stack(clonk, "lbs,dynamic", json::object(), 60, end, nullptr, walk);
  const float size = clonk.mesh.size();
  for (double fps : {12.0, 20.0, 30.0, 120.0, 240.0}) {
    const auto other = bake_stack(clonk, "lbs,dynamic", json::object(), fps, end, nullptr, walk);
    std::size_t compared = 0;
    for (std::size_t k = 0; k < other.times.size(); ++k) {
      const double t = other.times[k] - other.times[0];
      const double n = t * 60;
      if (std::abs(n - std::round(n)) > 1e-6) continue;  // only times on the 60 Hz grid
      const auto& a = at60.positions[static_cast<std::size_t>(std::lround(n))];
      for (std::size_t v = 0; v < a.size(); ++v)
        ASSERT_LT((a[v] - other.positions[k][v]).norm(), 1e-5 * size) << fps << " fps";
      ++compared;
    }
    EXPECT_GE(compared, 6u);
  }
}

TEST(DynamicSkinning, InteractiveFiniteDifferencesMatchTheSampledClipAt60Hz) {
  const Character& marine = cached(shared_asset("characters/velocity_skinning/vs_marine.glb"));
  const Clip& run = marine.clips[*marine.find_clip("run")];
  DynamicSkinningParameters parameters;
  DynamicSkinningState with_sampler, interactive;
  with_sampler.initialize(marine, parameters);
  interactive.initialize(marine, parameters);
  const PoseSampler sampler = clip_sampler(marine.rig, run);
  Pose pose;
  const float size = marine.mesh.size();
  double largest = 0;
  for (int n = 0; n <= 40; ++n) {
    const double t = n / 60.0;
    evaluate_pose(marine.rig, &run, static_cast<float>(t), pose);
    std::vector<Vec3f> a = marine.mesh.positions, b = marine.mesh.positions;
    with_sampler.apply(parameters, pose, a, t, sampler);
    interactive.apply(parameters, pose, b, t);
    for (std::size_t v = 0; v < a.size(); ++v) {
      ASSERT_LT((a[v] - b[v]).norm(), 1e-5 * size) << "frame " << n;
      largest = std::max<double>(largest, (a[v] - marine.mesh.positions[v]).norm());
    }
  }
  EXPECT_GT(largest, 1e-3 * size);
}

TEST(DynamicSkinning, KernelMatchesTheScalarReferenceAndThreadsGiveIdenticalBytes) {
  const Character& marine = cached(shared_asset("characters/velocity_skinning/vs_marine.glb"));
  const Clip& run = marine.clips[*marine.find_clip("run")];
  DynamicSkinningParameters parameters{.amplitude = 1.5, .drag = 0.5, .joints = {}, .bend_weights = {}};
  const PoseSampler sampler = clip_sampler(marine.rig, run);
  ThreadPool pool(4);
  DynamicSkinningState single, threaded;
  single.initialize(marine, parameters);
  threaded.initialize(marine, parameters);
  Pose pose;
  const float size = marine.mesh.size();
  for (int n = 0; n <= 20; ++n) {
    const double t = n / 30.0;
    evaluate_pose(marine.rig, &run, static_cast<float>(t), pose);
    std::vector<Vec3f> base(marine.mesh.positions.size());
    for (std::size_t v = 0; v < base.size(); ++v)
      base[v] = (pose.skinning[marine.skin.joints_of(v)[0]] * marine.mesh.positions[v].homogeneous()).head<3>();
    std::vector<Vec3f> a = base, b = base, reference(base.size());
    single.apply(parameters, pose, a, t, sampler);
    threaded.apply(parameters, pose, b, t, sampler, &pool);
    ASSERT_EQ(a, b) << "frame " << n;
    single.reference_offsets(base, reference);
    for (std::size_t v = 0; v < a.size(); ++v)
      ASSERT_LT((a[v] - base[v] - reference[v]).norm(), 2e-6 * size) << "vertex " << v;
  }
  EXPECT_GT(single.active_pair_count(), 0u);
}

TEST(DynamicSkinning, PaintedBendWeightsOfTheBirdAreHonoured) {
  const Character& bird = cached(shared_asset("characters/velocity_skinning/vs_bird.glb"));
  const auto& painted = bird.mesh.vertex_scalars.at("_BEND_WEIGHT");
  const double end = bird.clips[0].start() + 3.0;
  const json settings = {{"dynamic", {{"amplitude", 0}, {"drag", 0.1}, {"linear_drag", 0.05}}}};
  const auto lbs = bake_stack(bird, "lbs", json::object(), 30, end);
  const auto dyn = bake_stack(bird, "lbs,dynamic", settings, 30, end);
  // The same with every weight made positive (|gamma|).
  json positive = settings;
  std::vector<float> magnitudes;
  for (float g : painted) magnitudes.push_back(std::abs(g));
  positive["dynamic"]["bend_weights"] = magnitudes;
  const auto pos = bake_stack(bird, "lbs,dynamic", positive, 30, end);
  std::size_t zero = 0, negative = 0, opposite = 0;
  for (std::size_t f = 0; f < lbs.times.size(); ++f) {
    for (std::size_t v = 0; v < painted.size(); ++v) {
      const Vec3f d = dyn.positions[f][v] - lbs.positions[f][v];
      const Vec3f dp = pos.positions[f][v] - lbs.positions[f][v];
      if (painted[v] == 0) {
        ASSERT_EQ(dyn.positions[f][v], lbs.positions[f][v]) << "vertex " << v << " has weight 0";
        ++zero;
      } else if (painted[v] > 0) {
        ASSERT_EQ(dyn.positions[f][v], pos.positions[f][v]);
      } else if (dp.norm() > 1e-4 * bird.mesh.size()) {
        ++negative;
        opposite += d.dot(dp) < 0;
      }
    }
  }
  EXPECT_GT(zero, 0u);
  EXPECT_GT(negative, 100u);
  EXPECT_EQ(opposite, negative);  // negative weights bend (and push) the other way
}

TEST(DynamicSkinning, ExtremeParametersAndFrameRatesStayFiniteAndBounded) {
  const Character& clonk = cached(bundled_asset("clonk.glb"));
  const auto walk = *clonk.find_clip("Walk");
  const double end = clonk.clips[walk].start() + 1.0;
  const float size = clonk.mesh.size();
  const std::vector<json> cases = {
      {{"frequency", 30}, {"damping", 10}, {"amplitude", 100}, {"drag", 100}},
      {{"frequency", 29.5}, {"damping", 10}, {"amplitude", -50}, {"drag", -20}},
      {{"frequency", 0}, {"damping", 0}, {"amplitude", 1e4}, {"drag", 1e4}, {"max_angle", 180}},
      {{"frequency", 0.01}, {"damping", 1e-4}, {"amplitude", 3}, {"drag", 0}, {"linear_drag", 10}},
  };
  const auto lbs = bake_stack(clonk, "lbs", json::object(), 60, end, nullptr, walk);
  for (const json& parameters : cases) {
    for (double fps : {12.0, 24.0, 60.0, 240.0}) {
      const auto baked = bake_stack(clonk, "lbs,dynamic", {{"dynamic", parameters}}, fps, end, nullptr, walk);
      ASSERT_TRUE(all_finite_frames(baked)) << parameters.dump();
      // Each joint turns a vertex by at most max_angle: offsets stay within a few sizes (plus linear drag).
      for (const auto& frame : baked.positions) {
        for (std::size_t v = 0; v < frame.size(); ++v) ASSERT_LT((frame[v] - lbs.positions[0][v]).norm(), 1000 * size);
      }
    }
  }
}

TEST(DynamicSkinning, EveryCharacterBakesEveryClipWithFiniteOutput) {
  ThreadPool pool(0);
  for (const auto& file : all_characters()) {
    const Character& c = cached(file);
    for (std::size_t clip = 0; clip < c.clips.size(); ++clip) {
      // The first second of each clip, at 30 fps (the bundled character has 83 clips).
      const double end =
          std::min<double>(c.clips[clip].end(), c.clips[clip].start() + (c.clips.size() > 10 ? 0.5 : 2.0));
      for (const char* stack : {"lbs,dynamic", "dlbs,dynamic"}) {
        BakedFrames baked;
        ASSERT_NO_THROW(baked = bake_stack(c, stack, json::object(), 30, end, &pool, clip))
            << file << " clip " << c.clips[clip].name << " " << stack;
        ASSERT_TRUE(all_finite_frames(baked)) << file << " clip " << c.clips[clip].name;
      }
    }
  }
}

// --- the command line ---

TEST(DynamicSkinningCli, BakesWithFlagsSettingsAndRejectsMistakes) {
  ScratchDir dir;
  const auto input = bundled_asset("clonk.glb");
  auto result =
      run_wobble("bake " + shell_quoted(input) +
                 " --clip Walk --fps 60 --end 0.5 --deformer lbs,dynamic --frequency 2 --damping 0.5 --amplitude 0.5 "
                 "--drag 0.2 -q -o " +
                 shell_quoted(dir / "out.pc2"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const auto frames = read_pc2(dir / "out.pc2");
  EXPECT_EQ(frames.size(), 31u);

  result = run_wobble("bake " + shell_quoted(input) +
                      " --clip Walk --fps 30 --end 0.5 --deformer dlbs,dynamic --wave-speed 0.5 -q -o " +
                      shell_quoted(dir / "wave.pc2"));
  EXPECT_EQ(result.exit_code, 0) << result.output;

  result = run_wobble("bake " + shell_quoted(input) + " --clip Walk --fps 60 --deformer lbs --frequency 2 -q -o " +
                      shell_quoted(dir / "bad.pc2"));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "bad.pc2"));

  {
    std::ofstream settings(dir / "settings.json");
    settings << R"({"dynamic": {"frequency": 3, "damping": 0.4, "amplitude": 0.3, "drag": 0.1, "max_angle": 45,
                    "joints": {"skeleton_body": {"amplitude_scale": 2}}}})";
  }
  result =
      run_wobble("bake " + shell_quoted(input) + " --clip Walk --fps 30 --end 0.5 --deformer lbs,dynamic --settings " +
                 shell_quoted(dir / "settings.json") + " -q -o " + shell_quoted(dir / "settings.pc2"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "settings.pc2"));

  {
    std::ofstream settings(dir / "unknown.json");
    settings << R"({"dynamic": {"frequency": 3, "wobbliness": 2}})";
  }
  result = run_wobble("bake " + shell_quoted(input) + " --clip Walk --fps 30 --deformer lbs,dynamic --settings " +
                      shell_quoted(dir / "unknown.json") + " -q -o " + shell_quoted(dir / "unknown.pc2"));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("wobbliness"), std::string::npos) << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "unknown.pc2"));
}
