// Delayed LBS: delays equal distance along the skeleton over the wave speed, each joint's rotation
// reaches the vertex after its own delay (composed along the chain), the delays do not depend on
// the unit of length, and the interactive history matches the sampler.
#include <cmath>

#include <gtest/gtest.h>

#include <wobble/delayed_lbs.hpp>
#include <wobble/pose.hpp>

#include "chain_rigs.hpp"

using namespace wobble;
using namespace wobble::test;

namespace {

Vec3f lbs_position(const Character& c, const Pose& pose, std::size_t v) {
  Vec3f p = Vec3f::Zero();
  const auto joints = c.skin.joints_of(v);
  const auto weights = c.skin.weights_of(v);
  for (std::size_t k = 0; k < joints.size(); ++k)
    p += weights[k] * (pose.skinning[joints[k]] * c.mesh.positions[v].homogeneous()).head<3>();
  return p;
}

// Index of the first vertex of ring `ring` on bone `bone` in chain_character(.., rings = 4).
std::size_t ring_vertex(int bone, int ring) { return static_cast<std::size_t>(bone * 16 + ring * 4); }

}  // namespace

TEST(DelayedLbs, DelaysEqualDistanceAlongTheSkeletonOverSpeed) {
  const Character c = chain_character(3, 1.0f);
  const float size = c.mesh.size();
  DelayedLbsParameters parameters;
  parameters.wave_speed = 2.0;  // character sizes per second
  DelayedLbs dlbs;
  dlbs.bind(c, parameters);
  // Ring 2 of bone 1 is at height 1.625: its closest bone point is (0, 1.625, 0) on bone j1 -> j2.
  const std::size_t v = ring_vertex(1, 2);
  EXPECT_NEAR(dlbs.distances().closest_points[v].y(), 1.625f, 1e-6);
  EXPECT_NEAR(dlbs.delay(v, 0), 1.625 / (2.0 * size), 1e-6);
  EXPECT_NEAR(dlbs.delay(v, 1), 0.625 / (2.0 * size), 1e-6);
  EXPECT_EQ(dlbs.delay(v, 2), -1.0f);  // j2 does not act on a vertex of bone 1
  // The last joint has no child: its vertices' closest bone point is the joint itself.
  const std::size_t tip = ring_vertex(2, 3);
  EXPECT_NEAR(dlbs.distances().distance(tip, 0), 2.0f, 1e-6);
  EXPECT_NEAR(dlbs.distances().distance(tip, 2), 0.0f, 1e-6);
  // In scene units per second.
  parameters.wave_speed_units = 4.0;
  dlbs.bind(c, parameters);
  EXPECT_NEAR(dlbs.delay(v, 0), 1.625 / 4.0, 1e-6);
  EXPECT_NEAR(dlbs.delay(tip, 1), 1.0 / 4.0, 1e-6);
}

TEST(DelayedLbs, EachJointsRotationArrivesAfterItsOwnDelay) {
  Character c = chain_character(3, 1.0f);
  add_rotation(c, 0, Vec3f::UnitZ(), 3.0f, [](double t) { return 0.8 * std::sin(3 * t); });
  add_rotation(c, 1, Vec3f::UnitX(), 3.0f, [](double t) { return 0.6 * std::sin(5 * t + 1); });
  DelayedLbsParameters parameters;
  parameters.wave_speed = 1.0;
  DelayedLbs dlbs;
  dlbs.bind(c, parameters);
  const Clip& clip = c.clips[0];
  const PoseSampler sampler = clip_sampler(c.rig, clip);
  const float size = c.mesh.size();
  Pose pose, delayed, at;
  for (double t : {0.9, 1.3, 2.05}) {
    evaluate_pose(c.rig, &clip, static_cast<float>(t), pose);
    std::vector<Vec3f> positions(c.mesh.vertex_count());
    dlbs.evaluate(pose, t, sampler, positions);
    for (std::size_t v = 0; v < c.mesh.vertex_count(); v += 3) {
      // Expected: every joint's local rotation taken at t - delay(v, j), composed along the chain.
      delayed = pose;
      for (std::uint32_t j = 0; j < c.rig.joint_count(); ++j) {
        const float d = dlbs.delay(v, j);
        if (d < 0) continue;
        evaluate_pose(c.rig, &clip, static_cast<float>(t - d), at);
        delayed.local[j].rotation = at.local[j].rotation;
      }
      update_world(c.rig, delayed);
      ASSERT_LT((positions[v] - lbs_position(c, delayed, v)).norm(), 2e-5 * size) << "t " << t << " vertex " << v;
    }
  }
}

TEST(DelayedLbs, ScaledCharacterHasTheSameDelays) {
  Character c = chain_character(5, 0.3f);
  add_rotation(c, 0, Vec3f::UnitZ(), 1.0f, [](double t) { return std::sin(4 * t); });
  const Character big = scaled(c, 100);
  DelayedLbs small_dlbs, big_dlbs;
  small_dlbs.bind(c, {});
  big_dlbs.bind(big, {});
  EXPECT_NEAR(big_dlbs.character_size(), 100 * small_dlbs.character_size(), 1e-3);
  for (std::size_t v = 0; v < c.mesh.vertex_count(); ++v) {
    for (std::uint32_t j = 0; j < c.rig.joint_count(); ++j) {
      const float a = small_dlbs.delay(v, j), b = big_dlbs.delay(v, j);
      ASSERT_NEAR(a, b, 1e-6f + 1e-5f * std::abs(a)) << v << " " << j;
    }
  }
}

TEST(DelayedLbs, InteractiveHistoryMatchesTheSampler) {
  Character c = chain_character(4, 0.5f);
  add_rotation(c, 0, Vec3f::UnitZ(), 2.0f, [](double t) { return 0.7 * std::sin(4 * t); });
  add_rotation(c, 2, Vec3f::UnitX(), 2.0f, [](double t) { return 0.5 * std::sin(6 * t); });
  DelayedLbsParameters parameters;
  parameters.wave_speed = 2.0;
  DelayedLbs with_sampler, interactive;
  with_sampler.bind(c, parameters);
  interactive.bind(c, parameters);
  const Clip& clip = c.clips[0];
  const PoseSampler sampler = clip_sampler(c.rig, clip);
  Pose pose;
  const float size = c.mesh.size();
  for (int k = 0; k <= 240; ++k) {
    const double t = k / 120.0;
    evaluate_pose(c.rig, &clip, static_cast<float>(t), pose);
    std::vector<Vec3f> a(c.mesh.vertex_count()), b(c.mesh.vertex_count());
    with_sampler.evaluate(pose, t, sampler, a);
    interactive.evaluate(pose, t, {}, b);
    if (t < with_sampler.max_delay() + 0.01) continue;  // the history is still filling
    for (std::size_t v = 0; v < a.size(); ++v) ASSERT_LT((a[v] - b[v]).norm(), 1e-3 * size) << "t " << t;
  }
}
