// Dynamic Skinning on procedural input: the recursive filter equals the direct sum, and time
// going backwards (or jumping forwards) restarts the history.
#include <array>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <wobble/dynamic_skinning.hpp>
#include <wobble/pose.hpp>

#include "chain_rigs.hpp"

using namespace wobble;
using namespace wobble::test;

TEST(DynamicSkinning, RecursiveFilterEqualsTheDirectSum) {
  std::mt19937 random(7);
  std::normal_distribution<double> normal;
  for (const auto& [f, tau, a, d] :
       std::vector<std::array<double, 4>>{{2, 0.5, 0.3, 0.1}, {30, 10, 5, 0}, {0.1, 0.01, 1, 2}, {7.5, 3, -2, 0.5}}) {
    const OscillationCoefficients c = OscillationCoefficients::from(f, tau, a);
    std::vector<Vec3d> history;
    const Vec3d before(normal(random), normal(random), normal(random));
    OscillationFilter filter;
    filter.reset(before);
    double worst = 0, scale = 0;
    for (int n = 0; n < 600; ++n) {
      const Vec3d omega = n % 97 < 50 ? Vec3d(normal(random), normal(random), normal(random)) : history.back();
      history.push_back(omega);
      const Vec3d recursive = d * omega + filter.push(c, omega);
      const Vec3d direct = oscillation_direct_sum(history, before, f, tau, a, d);
      worst = std::max(worst, (recursive - direct).norm());
      scale = std::max(scale, direct.norm());
    }
    EXPECT_LT(worst, 1e-10 * std::max(1.0, scale)) << "f " << f << " tau " << tau;
  }
}

TEST(DynamicSkinning, TimeGoingBackwardsRestartsTheHistory) {
  const Character c = stopping_chain();
  DynamicSkinningParameters parameters;
  DynamicSkinningState state;
  state.initialize(c, parameters);
  const PoseSampler sampler = clip_sampler(c.rig, c.clips[0]);
  auto run = [&]() {
    std::vector<std::vector<Vec3f>> frames;
    Pose pose;
    for (int k = 0; k <= 30; ++k) {
      const double t = k / 30.0;
      evaluate_pose(c.rig, &c.clips[0], static_cast<float>(t), pose);
      std::vector<Vec3f> p = c.mesh.positions;
      state.apply(parameters, pose, p, t, sampler);
      frames.push_back(p);
    }
    return frames;
  };
  const auto first = run();
  const auto second = run();  // t jumps back to 0: a loop
  EXPECT_EQ(first, second);
  // A forward jump beyond max_time_step restarts too: same result as a fresh state at that time.
  DynamicSkinningState fresh;
  fresh.initialize(c, parameters);
  Pose pose;
  evaluate_pose(c.rig, &c.clips[0], 2.0f, pose);
  std::vector<Vec3f> a = c.mesh.positions, b = c.mesh.positions;
  state.apply(parameters, pose, a, 2.0, sampler);
  fresh.apply(parameters, pose, b, 2.0, sampler);
  EXPECT_EQ(a, b);
}
