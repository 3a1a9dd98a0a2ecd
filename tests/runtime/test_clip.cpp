// Clip sampling against glTF 2.0's interpolation definitions, computed by hand.
#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

#include <wobble/clip.hpp>
#include <wobble/pose.hpp>
#include <wobble/rig.hpp>

using namespace wobble;

namespace {

Channel make_channel(ChannelPath path, Interpolation interpolation, std::vector<float> times,
                     std::vector<float> values) {
  Channel c;
  c.path = path;
  c.interpolation = interpolation;
  c.times = std::move(times);
  c.values = std::move(values);
  return c;
}

}  // namespace

TEST(Clip, StepHoldsTheKeyValueUntilTheNextKey) {
  const Channel c = make_channel(ChannelPath::Translation, Interpolation::Step, {0, 1, 2}, {0, 0, 0, 5, 5, 5, 9, 9, 9});
  float out[3];
  c.sample(0.99f, out);
  EXPECT_EQ(out[0], 0.0f);
  c.sample(1.0f, out);
  EXPECT_EQ(out[0], 5.0f);
  c.sample(1.5f, out);
  EXPECT_EQ(out[1], 5.0f);
  c.sample(7.0f, out);  // after the last key: the last value
  EXPECT_EQ(out[2], 9.0f);
  c.sample(-3.0f, out);  // before the first key: the first value
  EXPECT_EQ(out[0], 0.0f);
}

TEST(Clip, LinearInterpolatesTranslationAndScale) {
  const Channel c = make_channel(ChannelPath::Scale, Interpolation::Linear, {1, 3}, {1, 2, 3, 3, 2, 1});
  float out[3];
  c.sample(1.5f, out);  // a quarter of the way
  EXPECT_FLOAT_EQ(out[0], 1.5f);
  EXPECT_FLOAT_EQ(out[1], 2.0f);
  EXPECT_FLOAT_EQ(out[2], 2.5f);
}

TEST(Clip, LinearRotationIsSphericalAlongTheShortestArc) {
  const float h = std::sqrt(0.5f);
  // Identity to 90 degrees about Z; the second key is given as its antipode (-q), which glTF's
  // slerp must treat as the same rotation (shortest path).
  const Channel c = make_channel(ChannelPath::Rotation, Interpolation::Linear, {0, 1}, {0, 0, 0, 1, 0, 0, -h, -h});
  float out[4];
  c.sample(0.5f, out);
  const float angle = std::atan2(std::sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]), std::abs(out[3])) * 2;
  EXPECT_NEAR(angle, std::numbers::pi_v<float> / 4, 1e-6);  // 45 degrees, not the long way round
  EXPECT_NEAR(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3], 1.0f, 1e-6);
  // Slerp moves at constant angular speed: at u = 1/3 the angle is 30 degrees (nlerp would give 29.3).
  c.sample(1.0f / 3.0f, out);
  const float third = 2 * std::asin(std::abs(out[2]));
  EXPECT_NEAR(third, std::numbers::pi_v<float> / 6, 1e-5);
}

TEST(Clip, CubicSplineReproducesACubicFromItsTangents) {
  // f(t) = t^3 on [1, 2]: values 1, 8; derivatives 3, 12. Hermite interpolation is exact on cubics.
  // Layout per key: in-tangent, value, out-tangent.
  const Channel c = make_channel(ChannelPath::Translation, Interpolation::CubicSpline, {1, 2},
                                 {3, 0, 0, 1, 0, 0, 3, 0, 0,  //
                                  12, 0, 0, 8, 0, 0, 12, 0, 0});
  float out[3];
  for (float t : {1.0f, 1.25f, 1.5f, 1.9f, 2.0f}) {
    c.sample(t, out);
    EXPECT_NEAR(out[0], t * t * t, 1e-5) << "t = " << t;
  }
}

TEST(Clip, CubicSplineScalesTangentsByTheKeyInterval) {
  // f(t) = t^2 on [0, 2]: values 0, 4; derivatives 0, 4. td = 2 must multiply the tangents.
  const Channel c = make_channel(ChannelPath::Translation, Interpolation::CubicSpline, {0, 2},
                                 {0, 0, 0, 0, 0, 0, 0, 0, 0,  //
                                  4, 0, 0, 4, 0, 0, 4, 0, 0});
  float out[3];
  c.sample(1.0f, out);
  EXPECT_NEAR(out[0], 1.0f, 1e-6);
}

TEST(Clip, StartEndAndKeyCountSpanAllChannels) {
  Clip clip;
  clip.channels.push_back(
      make_channel(ChannelPath::Translation, Interpolation::Linear, {0.5f, 1}, std::vector<float>(6)));
  clip.channels.push_back(
      make_channel(ChannelPath::Scale, Interpolation::Linear, {0.25f, 2, 3}, std::vector<float>(9)));
  EXPECT_FLOAT_EQ(clip.start(), 0.25f);
  EXPECT_FLOAT_EQ(clip.end(), 3.0f);
  EXPECT_EQ(clip.key_count(), 5u);
}

TEST(Pose, WorldTransformsComposeDownTheChain) {
  Rig rig;
  Transform root;
  root.translation = {1, 0, 0};
  root.rotation = Quatf(Eigen::AngleAxisf(std::numbers::pi_v<float> / 2, Vec3f::UnitZ()));
  Transform child;
  child.translation = {2, 0, 0};
  child.scale = {3, 3, 3};
  rig.add_joint("root", -1, root, Mat4f::Identity(), true);
  rig.add_joint("child", 0, child, Mat4f::Identity(), true);
  Pose pose;
  rest_pose(rig, pose);
  // Child origin: root translation + root rotation applied to (2, 0, 0) = (1, 2, 0).
  EXPECT_TRUE(pose.world[1].col(3).head<3>().isApprox(Vec3f(1, 2, 0), 1e-6f));
  // The child's x axis is the root's y axis, scaled by 3.
  EXPECT_TRUE(pose.world[1].col(0).head<3>().isApprox(Vec3f(0, 3, 0), 1e-6f));

  Clip clip;
  clip.channels.push_back(make_channel(ChannelPath::Translation, Interpolation::Linear, {0, 1}, {0, 0, 0, 0, 0, 4}));
  clip.channels.back().joint = 1;
  evaluate_pose(rig, &clip, 0.5f, pose);
  // Child local translation (0, 0, 2) is unaffected by the z-rotation: world (1, 0, 2).
  EXPECT_TRUE(pose.world[1].col(3).head<3>().isApprox(Vec3f(1, 0, 2), 1e-6f));
}

TEST(Pose, SkinningMatricesAreIdentityInTheBindPose) {
  Rig rig;
  Transform root;
  root.translation = {0, 1, 0};
  Transform child;
  child.translation = {0, 1, 0};
  child.rotation = Quatf(Eigen::AngleAxisf(0.3f, Vec3f::UnitX()));
  rig.add_joint("root", -1, root, root.matrix().inverse(), true);
  rig.add_joint("child", 0, child, (root.matrix() * child.matrix()).inverse(), true);
  Pose pose;
  rest_pose(rig, pose);
  for (const Mat4f& m : pose.skinning) EXPECT_TRUE(m.isIdentity(1e-6f));
}

TEST(Transform, MatrixRoundTripsThroughDecomposition) {
  Transform t;
  t.translation = {1, -2, 3};
  t.rotation = Quatf(Eigen::AngleAxisf(1.1f, Vec3f(1, 2, 3).normalized()));
  t.scale = {2, 0.5f, 1.5f};
  const Transform back = Transform::from_matrix(t.matrix());
  EXPECT_TRUE(back.matrix().isApprox(t.matrix(), 1e-5f));
  EXPECT_TRUE(back.scale.isApprox(t.scale, 1e-5f));
}
