// Dynamic Skinning baked and on real characters: closed forms (no effect at A = D = 0, drag
// vanishes when the joint stops, free oscillation at f decaying with tau), the state's filter
// against the direct sum, hierarchical weights against their definition, painted weights, unit
// invariance, frame-rate independence, robustness on every bundled character and on odd rigs,
// and the command line. The recursive filter and restarts of the history on procedural input:
// tests/runtime/test_dynamic_skinning.cpp.
#include <cmath>
#include <fstream>
#include <map>
#include <numbers>

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

constexpr double kPi = std::numbers::pi;

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

// Largest |a - b| over all vertices of all frames.
double max_difference(const BakedFrames& a, const BakedFrames& b) {
  double m = 0;
  for (std::size_t f = 0; f < a.positions.size(); ++f) {
    for (std::size_t v = 0; v < a.positions[f].size(); ++v)
      m = std::max<double>(m, (a.positions[f][v] - b.positions[f][v]).norm());
  }
  return m;
}

bool all_finite_frames(const BakedFrames& baked) {
  for (const auto& frame : baked.positions) {
    for (const Vec3f& p : frame) {
      if (!p.allFinite()) return false;
    }
  }
  return true;
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

TEST(DynamicSkinning, DragOnlyOffsetsVanishFromTheFirstSampleAfterTheJointStops) {
  const Character c = stopping_chain();
  for (double fps : {60.0, 30.0, 120.0}) {
    const auto lbs = bake_stack(c, "lbs", json::object(), fps, 1.0);
    const auto drag = bake_stack(c, "lbs,dynamic", {{"dynamic", {{"amplitude", 0}, {"drag", 0.2}}}}, fps, 1.0);
    for (std::size_t f = 0; f < lbs.times.size(); ++f) {
      const double t = lbs.times[f];
      double offset = 0;
      for (std::size_t v = 0; v < lbs.positions[f].size(); ++v) {
        offset = std::max<double>(offset, (drag.positions[f][v] - lbs.positions[f][v]).norm());
      }
      if (t >= 0.5 + 1.0 / 60 - 1e-6) {
        EXPECT_EQ(offset, 0.0) << "t = " << t << " at " << fps << " fps";
      } else if (t > 0.05 && t < 0.5) {
        EXPECT_GT(offset, 1e-3) << "t = " << t;
      }
    }
  }
}

TEST(DynamicSkinning, AfterMotionStopsTheOffsetOscillatesAtFAndDecaysWithTau) {
  const Character c = stopping_chain();
  const double f = 2.0, tau = 0.6;
  // Small amplitude: the bend stays in its linear range. Baked at 120 fps (interpolated samples).
  const auto lbs = bake_stack(c, "lbs", json::object(), 120, 3.0);
  const auto dyn =
      bake_stack(c, "lbs,dynamic",
                 {{"dynamic", {{"frequency", f}, {"damping", tau}, {"amplitude", 0.02}, {"drag", 0}}}}, 120, 3.0);
  // The tip's offset along the tangent of the root's rotation (the root has stopped at 1 rad).
  const std::size_t tip = c.mesh.vertex_count() - 1;
  std::vector<double> times, signal;
  for (std::size_t k = 0; k < lbs.times.size(); ++k) {
    if (lbs.times[k] < 0.6) continue;
    const Vec3f p = lbs.positions[k][tip];
    const Vec3f tangent = Vec3f::UnitZ().cross(p).normalized();
    times.push_back(lbs.times[k]);
    signal.push_back((dyn.positions[k][tip] - p).dot(tangent));
  }
  std::vector<double> crossings, peaks, peak_times;
  for (std::size_t k = 1; k < signal.size(); ++k) {
    if ((signal[k - 1] < 0) != (signal[k] < 0)) {
      const double a = signal[k - 1] / (signal[k - 1] - signal[k]);
      crossings.push_back(times[k - 1] + a * (times[k] - times[k - 1]));
    }
    if (k + 1 < signal.size() && signal[k] > signal[k - 1] && signal[k] >= signal[k + 1] && signal[k] > 0) {
      // Parabola through the three samples.
      const double y0 = signal[k - 1], y1 = signal[k], y2 = signal[k + 1];
      const double shift = 0.5 * (y0 - y2) / (y0 - 2 * y1 + y2);
      peaks.push_back(y1 - 0.25 * (y0 - y2) * shift);
      peak_times.push_back(times[k] + shift * (times[k + 1] - times[k]));
    }
  }
  ASSERT_GE(crossings.size(), 6u);
  ASSERT_GE(peaks.size(), 3u);
  const double period = 2 * (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
  EXPECT_NEAR(1 / period, f, 0.01 * f);
  for (std::size_t k = 1; k < peaks.size(); ++k) {
    const double measured_tau = (peak_times[k] - peak_times[k - 1]) / std::log(peaks[k - 1] / peaks[k]);
    EXPECT_NEAR(measured_tau, tau, 0.03 * tau) << "peak " << k;
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

TEST(DynamicSkinning, VerticesNotUnderAMovingJointDoNotMove) {
  // A fork: root with two branches; only branch A (joint 1) turns.
  Character c;
  c.source = "fork";
  c.rig.add_joint("root", -1, Transform{}, Mat4f::Identity(), true);
  Transform a, b;
  a.translation = Vec3f(1, 0, 0);
  b.translation = Vec3f(-1, 0, 0);
  c.rig.add_joint("a", 0, a, translation_matrix(Vec3f(-1, 0, 0)), true);
  c.rig.add_joint("b", 0, b, translation_matrix(Vec3f(1, 0, 0)), true);
  for (int k = 0; k < 10; ++k) {
    const float x = 1.0f + 0.1f * static_cast<float>(k);
    for (std::uint32_t joint : {1u, 2u}) {
      c.mesh.positions.push_back(Vec3f(joint == 1 ? x : -x, 0.1f, 0));
      const Influence influence{joint, 1};
      c.skin.add_vertex({&influence, 1});
    }
  }
  add_rotation(c, 1, Vec3f::UnitY(), 1.0f, [](double t) { return std::sin(6 * t); });
  const auto lbs = bake_stack(c, "lbs", json::object(), 60);
  const auto dyn = bake_stack(c, "lbs,dynamic", {{"dynamic", {{"amplitude", 1}, {"drag", 1}}}}, 60);
  double moved = 0;
  for (std::size_t f = 0; f < lbs.times.size(); ++f) {
    for (std::size_t v = 0; v < c.mesh.vertex_count(); ++v) {
      if (v % 2 == 1) {
        EXPECT_EQ(lbs.positions[f][v], dyn.positions[f][v]) << "branch b vertex " << v << " frame " << f;
      } else {
        moved = std::max<double>(moved, (lbs.positions[f][v] - dyn.positions[f][v]).norm());
      }
    }
  }
  EXPECT_GT(moved, 0.01);
}

TEST(DynamicSkinning, ScaledCharacterGivesScaledOffsets) {
  Character c = chain_character(4, 0.5f);
  add_rotation(c, 1, Vec3f(0, 0, 1), 2.0f, [](double t) { return std::sin(5 * t) * (t < 1.2 ? 1 : 0.3); });
  add_rotation(c, 0, Vec3f(1, 0, 0), 2.0f, [](double t) { return 0.5 * std::sin(3 * t); });
  const Character big = scaled(c, 100);
  const json settings = {{"dynamic", {{"linear_drag", 0.05}}}};
  for (const char* base : {"lbs", "dlbs"}) {
    const auto small_base = bake_stack(c, base, json::object(), 30);
    const auto small_dyn = bake_stack(c, std::string(base) + ",dynamic", settings, 30);
    const auto big_base = bake_stack(big, base, json::object(), 30);
    const auto big_dyn = bake_stack(big, std::string(base) + ",dynamic", settings, 30);
    double worst = 0, largest = 0;
    for (std::size_t f = 0; f < small_base.times.size(); ++f) {
      for (std::size_t v = 0; v < c.mesh.vertex_count(); ++v) {
        const Vec3f small_offset = small_dyn.positions[f][v] - small_base.positions[f][v];
        const Vec3f big_offset = big_dyn.positions[f][v] - big_base.positions[f][v];
        worst = std::max<double>(worst, (big_offset - 100 * small_offset).norm());
        largest = std::max<double>(largest, small_offset.norm());
        // The base skinning itself scales too (dLBS delays are the same).
        ASSERT_LT((big_base.positions[f][v] - 100 * small_base.positions[f][v]).norm(), 1e-3) << base;
      }
    }
    EXPECT_GT(largest, 0.01) << base;
    EXPECT_LT(worst, 1e-4 * 100 * largest) << base;
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

TEST(DynamicSkinning, FlexibleOriginRestrictsTheEffectToItsRadius) {
  Character c = chain_character(3, 1.0f);
  add_rotation(c, 0, Vec3f::UnitZ(), 1.0f, [](double t) { return std::sin(4 * t); });
  // Around the middle of bone 1 (joint 1's frame: 0.5 up), radius 0.3.
  const json settings = {{"dynamic", {{"joints", {{"j0", {{"origin", {0, 1.5, 0}}, {"radius", 0.3}}}}}}}};
  const auto lbs = bake_stack(c, "lbs", json::object(), 30);
  const auto dyn = bake_stack(c, "lbs,dynamic", settings, 30);
  double inside = 0;
  for (std::size_t f = 0; f < lbs.times.size(); ++f) {
    for (std::size_t v = 0; v < c.mesh.vertex_count(); ++v) {
      const float distance = (c.mesh.positions[v] - Vec3f(0, 1.5f, 0)).norm();
      const double offset = (dyn.positions[f][v] - lbs.positions[f][v]).norm();
      if (distance >= 0.3f) {
        EXPECT_EQ(offset, 0.0) << "vertex " << v;
      } else {
        inside = std::max(inside, offset);
      }
    }
  }
  EXPECT_GT(inside, 1e-3);
}

TEST(DynamicSkinning, PerJointOverridesScaleReplaceAndDisable) {
  Character c = chain_character(3, 1.0f);
  add_rotation(c, 1, Vec3f::UnitZ(), 1.0f, [](double t) { return std::sin(4 * t); });
  const auto lbs = bake_stack(c, "lbs", json::object(), 30);
  const auto off = bake_stack(c, "lbs,dynamic", {{"dynamic", {{"joints", {{"j1", {{"enabled", false}}}}}}}}, 30);
  EXPECT_EQ(max_difference(lbs, off), 0.0);
  // Replacing A and D for joint 1 equals setting them globally (only joint 1 moves).
  const auto global = bake_stack(c, "lbs,dynamic", {{"dynamic", {{"amplitude", 0.5}, {"drag", 0.3}}}}, 30);
  const auto replaced =
      bake_stack(c, "lbs,dynamic", {{"dynamic", {{"joints", {{"j1", {{"amplitude", 0.5}, {"drag", 0.3}}}}}}}}, 30);
  const auto scaled_ = bake_stack(
      c, "lbs,dynamic",
      {{"dynamic",
        {{"amplitude", 0.25}, {"drag", 0.1}, {"joints", {{"j1", {{"amplitude_scale", 2}, {"drag_scale", 3}}}}}}}},
      30);
  EXPECT_EQ(max_difference(global, replaced), 0.0);
  EXPECT_LT(max_difference(global, scaled_), 1e-6);
  EXPECT_GT(max_difference(global, lbs), 1e-3);
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

TEST(DynamicSkinning, OddRigsWork) {
  std::vector<Character> rigs;
  {  // one joint, spinning
    Character c = chain_character(1, 1.0f);
    add_rotation(c, 0, Vec3f::UnitY(), 1.0f, [](double t) { return 5 * t * t; });
    rigs.push_back(c);
  }
  {  // a 200-joint chain, a wave along it
    Character c = chain_character(200, 0.05f, 1);
    for (int j = 0; j < 200; j += 7)
      add_rotation(c, j, Vec3f::UnitZ(), 1.0f, [j](double t) { return 0.2 * std::sin(6 * t + j); });
    rigs.push_back(c);
  }
  {  // zero-length bones and joints without weights
    Character c = chain_character(6, 1.0f, 2, [](int j) { return j != 2 && j != 4; });
    c.rig.rest_local[3].translation.setZero();
    c.rig.inverse_bind[3] = c.rig.inverse_bind[2];
    c.rig.inverse_bind[4] = c.rig.inverse_bind[2];
    c.rig.rest_local[4].translation.setZero();
    for (int j : {1, 3, 5}) add_rotation(c, j, Vec3f::UnitX(), 1.0f, [](double t) { return std::sin(8 * t); });
    rigs.push_back(c);
  }
  for (const Character& c : rigs) {
    for (const char* stack : {"lbs,dynamic", "dlbs,dynamic", "dlbs"}) {
      const auto baked = bake_stack(c, stack, json::object(), 30);
      EXPECT_TRUE(all_finite_frames(baked)) << stack << " " << c.rig.joint_count() << " joints";
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

TEST(DynamicSkinning, SettingsAreCheckedAndNameTheProblem) {
  auto error_of = [](const json& settings, const std::string& stack = "lbs,dynamic") -> std::string {
    try {
      DeformerStack::parse(stack, settings_of(settings));
    } catch (const Error& e) {
      return e.what();
    }
    return {};
  };
  EXPECT_NE(error_of({{"dynamic", {{"frequencyy", 2}}}}).find("frequencyy"), std::string::npos);
  EXPECT_NE(error_of({{"dynamic", {{"frequency", 40}}}}).find("frequency"), std::string::npos);
  EXPECT_NE(
      error_of({{"dynamic", {{"joints", {{"Head", {{"wobble", 1}}}}}}}}).find("joints.Head: unknown key 'wobble'"),
      std::string::npos);
  EXPECT_NE(error_of({{"dlbs", {{"wave_speed", -1}}}}, "dlbs").find("wave_speed"), std::string::npos);
  // A settings file holds the table itself, not a JSON text of it (that is the command line's form).
  EXPECT_NE(error_of({{"dynamic", {{"joints", "{\"Head\": {\"amplitude_scale\": 2}}"}}}}).find("expected an object"),
            std::string::npos);
  EXPECT_EQ(error_of({{"dynamic", {{"joints", {{"Head", {{"amplitude_scale", 2}}}}}}}}), "");
  // An unknown joint name is caught when binding to the character.
  Character c = chain_character(2, 1.0f);
  add_rotation(c, 0, Vec3f::UnitZ(), 1.0f, [](double t) { return t; });
  EXPECT_THROW(bake_stack(c, "lbs,dynamic", {{"dynamic", {{"joints", {{"Nose", {{"enabled", false}}}}}}}}, 30), Error);
}

// --- the command line ---

namespace {
std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }
}  // namespace

TEST(DynamicSkinningCli, BakesWithFlagsSettingsAndRejectsMistakes) {
  ScratchDir dir;
  const auto input = bundled_asset("clonk.glb");
  auto result =
      run_wobble("bake " + quoted(input) +
                 " --clip Walk --fps 60 --end 0.5 --deformer lbs,dynamic --frequency 2 --damping 0.5 --amplitude 0.5 "
                 "--drag 0.2 -q -o " +
                 quoted(dir / "out.pc2"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const auto frames = read_pc2(dir / "out.pc2");
  EXPECT_EQ(frames.size(), 31u);

  result = run_wobble("bake " + quoted(input) +
                      " --clip Walk --fps 30 --end 0.5 --deformer dlbs,dynamic --wave-speed 0.5 -q -o " +
                      quoted(dir / "wave.pc2"));
  EXPECT_EQ(result.exit_code, 0) << result.output;

  result = run_wobble("bake " + quoted(input) + " --clip Walk --fps 60 --deformer lbs --frequency 2 -q -o " +
                      quoted(dir / "bad.pc2"));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "bad.pc2"));

  {
    std::ofstream settings(dir / "settings.json");
    settings << R"({"dynamic": {"frequency": 3, "damping": 0.4, "amplitude": 0.3, "drag": 0.1, "max_angle": 45,
                    "joints": {"skeleton_body": {"amplitude_scale": 2}}}})";
  }
  result = run_wobble("bake " + quoted(input) + " --clip Walk --fps 30 --end 0.5 --deformer lbs,dynamic --settings " +
                      quoted(dir / "settings.json") + " -q -o " + quoted(dir / "settings.pc2"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "settings.pc2"));

  {
    std::ofstream settings(dir / "unknown.json");
    settings << R"({"dynamic": {"frequency": 3, "wobbliness": 2}})";
  }
  result = run_wobble("bake " + quoted(input) + " --clip Walk --fps 30 --deformer lbs,dynamic --settings " +
                      quoted(dir / "unknown.json") + " -q -o " + quoted(dir / "unknown.pc2"));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("wobbliness"), std::string::npos) << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "unknown.pc2"));
}
