// Dynamic Skinning baked on the synthetic chains (no files): the closed forms of drag and free
// oscillation, vertices under no moving joint, unit invariance, flexible origins, per-joint
// overrides, odd rigs and the settings' checks. Here with wobble::offline's tests, as they run
// through bake(), so that the ARM64 suite runs them too; the same effect on real characters and
// the command line: tests/test_dynamic_skinning.cpp.
#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <wobble/deformer.hpp>
#include <wobble/dynamic_skinning.hpp>
#include <wobble/error.hpp>
#include <wobble/offline/bake.hpp>
#include <wobble/pose.hpp>

#include "../synthetic_rigs.hpp"

using namespace wobble;
using namespace wobble::test;
using nlohmann::json;

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
