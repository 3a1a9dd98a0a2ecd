// Delayed LBS on a real character: infinite speed is LBS in a baked stack, threads give identical
// bytes and normals stay unit. Delays, their arrival, their unit invariance and the interactive
// history on synthetic chains: tests/runtime/test_delayed_lbs.cpp.
#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <wobble/delayed_lbs.hpp>
#include <wobble/io/files.hpp>
#include <wobble/parallel.hpp>
#include <wobble/pose.hpp>

#include "synthetic_rigs.hpp"
#include "test_util.hpp"

using namespace wobble;
using namespace wobble::test;
using nlohmann::json;

TEST(DelayedLbs, InfiniteWaveSpeedIsLbs) {
  const Character c = load_character(bundled_asset("clonk.glb"));
  const auto walk = *c.find_clip("Walk");
  const double end = c.clips[walk].start() + 1.0;
  const auto lbs = bake_stack(c, "lbs", json::object(), 30, end, nullptr, walk);
  const auto dlbs = bake_stack(c, "dlbs", {{"dlbs", {{"wave_speed", 1e9}}}}, 30, end, nullptr, walk);
  EXPECT_LT(max_difference(lbs, dlbs), 1e-6 * c.mesh.size());
  // A finite speed does delay the motion.
  const auto wave = bake_stack(c, "dlbs", {{"dlbs", {{"wave_speed", 1.0}}}}, 30, end, nullptr, walk);
  EXPECT_GT(max_difference(lbs, wave), 1e-3 * c.mesh.size());
}

TEST(DelayedLbs, ThreadsGiveIdenticalBytesAndNormalsStayUnit) {
  const Character c = load_character(shared_asset("characters/velocity_skinning/vs_marine.glb"));
  const Clip& run = c.clips[*c.find_clip("run")];
  const PoseSampler sampler = clip_sampler(c.rig, run);
  DelayedLbs single, threaded;
  single.bind(c, {});
  threaded.bind(c, {});
  ThreadPool pool(3);
  Pose pose;
  evaluate_pose(c.rig, &run, 0.4f, pose);
  std::vector<Vec3f> a(c.mesh.vertex_count()), b(c.mesh.vertex_count()), na(c.mesh.vertex_count()),
      nb(c.mesh.vertex_count());
  single.evaluate(pose, 0.4, sampler, a, na);
  threaded.evaluate(pose, 0.4, sampler, b, nb, &pool);
  EXPECT_EQ(a, b);
  EXPECT_EQ(na, nb);
  for (const Vec3f& n : na) ASSERT_NEAR(n.norm(), 1.0f, 1e-5);
}
