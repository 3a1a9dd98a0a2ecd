// LBS and DQS against hand-computed cases, the SIMD kernel against the scalar loop, thread
// determinism, and DQS's better volume on a twisted cylinder.
#include <cmath>
#include <cstring>
#include <numbers>

#include <gtest/gtest.h>

#include <wobble/dqs.hpp>
#include <wobble/lbs.hpp>
#include <wobble/parallel.hpp>

#include "two_joint_cylinder.hpp"

using namespace wobble;

namespace {

constexpr float kPi = std::numbers::pi_v<float>;
using test::volume;

PackedSkin packed(std::uint32_t width, std::vector<std::uint16_t> joints, std::vector<float> weights) {
  PackedSkin skin;
  skin.width = width;
  skin.joints = std::move(joints);
  skin.weights = std::move(weights);
  return skin;
}

// Runs a skinning job on `points` (its matrices or joints already set), checked first.
template <class Job>
std::vector<Vec3f> run_checked(Job job, const PackedSkin& skin, const std::vector<Vec3f>& points) {
  std::vector<Vec3f> out(points.size());
  job.skin = &skin;
  job.in_positions = points;
  job.out_positions = out;
  EXPECT_EQ(job.validate(), "");
  job.run();
  return out;
}

std::vector<Vec3f> run_lbs(const std::vector<Mat4f>& matrices, const PackedSkin& skin,
                           const std::vector<Vec3f>& points) {
  LbsJob job;
  job.skinning_matrices = matrices;
  return run_checked(job, skin, points);
}

std::vector<Vec3f> run_dqs(const std::vector<Mat4f>& matrices, const PackedSkin& skin,
                           const std::vector<Vec3f>& points) {
  DqsJoints joints;
  joints.set(matrices);
  DqsJob job;
  job.joints = &joints;
  return run_checked(job, skin, points);
}

}  // namespace

TEST(Lbs, SingleJointRotationMovesThePointRigidly) {
  const std::vector<Mat4f> matrices = {test::rotation_about(Vec3f::UnitZ(), kPi / 2)};
  const auto out = run_lbs(matrices, packed(1, {0, 0}, {1, 1}), {Vec3f(1, 0, 0), Vec3f(0, 0, 2)});
  EXPECT_TRUE(out[0].isApprox(Vec3f(0, 1, 0), 1e-6f));
  EXPECT_TRUE(out[1].isApprox(Vec3f(0, 0, 2), 1e-6f));
}

TEST(Lbs, TwoJointBlendAveragesThePositions) {
  // Half identity, half 90 degrees about z: (1,0,0) -> ((1,0,0) + (0,1,0)) / 2, inside the circle.
  const std::vector<Mat4f> matrices = {Mat4f::Identity(), test::rotation_about(Vec3f::UnitZ(), kPi / 2)};
  const auto out = run_lbs(matrices, packed(2, {0, 1}, {0.5f, 0.5f}), {Vec3f(1, 0, 0)});
  EXPECT_TRUE(out[0].isApprox(Vec3f(0.5f, 0.5f, 0), 1e-6f));
}

TEST(Lbs, TranslationAndWeightsCombineLinearly) {
  Mat4f a = Mat4f::Identity(), b = Mat4f::Identity();
  a.topRightCorner<3, 1>() = Vec3f(1, 0, 0);
  b.topRightCorner<3, 1>() = Vec3f(0, 4, 0);
  const auto out = run_lbs({a, b}, packed(2, {0, 1}, {0.25f, 0.75f}), {Vec3f(1, 1, 1)});
  EXPECT_TRUE(out[0].isApprox(Vec3f(1.25f, 4.0f, 1.0f), 1e-6f));
}

TEST(Lbs, NormalsFollowTheBlendedRotationAndStayUnit) {
  const std::vector<Mat4f> matrices = {test::rotation_about(Vec3f::UnitZ(), kPi / 2)};
  const PackedSkin skin = packed(1, {0}, {1});
  std::vector<Vec3f> points = {Vec3f(1, 0, 0)}, normals = {Vec3f(1, 0, 0)}, out_p(1), out_n(1);
  LbsJob job{matrices, &skin, points, normals, out_p, out_n, true};
  job.run();
  EXPECT_TRUE(out_n[0].isApprox(Vec3f(0, 1, 0), 1e-6f));
}

TEST(Lbs, ResultsAreIdenticalBytesForAnyThreadCount) {
  const test::Cylinder c = test::make_cylinder(400, 100, 4, 0);
  const std::vector<Mat4f> matrices = {Mat4f::Identity(), test::rotation_about(Vec3f::UnitY(), 0.7f, Vec3f(2, 0, 0))};
  std::vector<Vec3f> single(c.positions.size()), multi(c.positions.size());
  LbsJob job{matrices, &c.skin, c.positions, {}, single, {}, true};
  job.run();
  ThreadPool pool(4);
  job.out_positions = multi;
  job.run(&pool);
  EXPECT_EQ(0, std::memcmp(single.data(), multi.data(), single.size() * sizeof(Vec3f)));
}

TEST(Lbs, ValidateNamesTheProblem) {
  const std::vector<Mat4f> matrices = {Mat4f::Identity()};
  const PackedSkin skin = packed(1, {3}, {1});
  std::vector<Vec3f> points = {Vec3f::Zero()}, out(1);
  LbsJob job{matrices, &skin, points, {}, out, {}, true};
  EXPECT_NE(job.validate().find("joint 3"), std::string::npos);
}

TEST(Dqs, SingleJointIsTheRigidTransform) {
  Mat4f m = test::rotation_about(Vec3f(1, 1, 0), 1.2f);
  m.topRightCorner<3, 1>() += Vec3f(3, -1, 2);
  const std::vector<Vec3f> points = {Vec3f(1, 2, 3), Vec3f(-1, 0, 0.5f)};
  const auto out = run_dqs({m}, packed(1, {0, 0}, {1, 1}), points);
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_TRUE(out[i].isApprox((m * points[i].homogeneous()).head<3>(), 1e-5f));
  }
}

TEST(Dqs, TwoJointBlendStaysOnTheCircle) {
  // Half identity, half 90 degrees about z: DQS rotates (1,0,0) by 45 degrees, keeping its length.
  const std::vector<Mat4f> matrices = {Mat4f::Identity(), test::rotation_about(Vec3f::UnitZ(), kPi / 2)};
  const auto out = run_dqs(matrices, packed(2, {0, 1}, {0.5f, 0.5f}), {Vec3f(1, 0, 0)});
  const float h = std::sqrt(0.5f);
  EXPECT_TRUE(out[0].isApprox(Vec3f(h, h, 0), 1e-6f));
}

TEST(Dqs, AntipodalQuaternionsBlendTheShortWay) {
  // 350 degrees about z is -10 degrees: the blend of 0 and -10 degrees is -5 degrees.
  const std::vector<Mat4f> matrices = {Mat4f::Identity(), test::rotation_about(Vec3f::UnitZ(), 350 * kPi / 180)};
  const auto out = run_dqs(matrices, packed(2, {0, 1}, {0.5f, 0.5f}), {Vec3f(1, 0, 0)});
  const float a = -5 * kPi / 180;
  EXPECT_TRUE(out[0].isApprox(Vec3f(std::cos(a), std::sin(a), 0), 1e-5f));
}

TEST(Dqs, PureTranslationsMatchLbs) {
  Mat4f a = Mat4f::Identity(), b = Mat4f::Identity();
  a.topRightCorner<3, 1>() = Vec3f(1, 0, 0);
  b.topRightCorner<3, 1>() = Vec3f(0, 4, 0);
  const PackedSkin skin = packed(2, {0, 1}, {0.25f, 0.75f});
  const std::vector<Vec3f> points = {Vec3f(1, 1, 1)};
  EXPECT_TRUE(run_dqs({a, b}, skin, points)[0].isApprox(run_lbs({a, b}, skin, points)[0], 1e-5f));
}

TEST(Dqs, ScaledJointsApplyTheirScale) {
  Mat4f m = Mat4f::Identity();
  m.topLeftCorner<3, 3>() = Eigen::AngleAxisf(kPi / 2, Vec3f::UnitZ()).toRotationMatrix() * Vec3f(2, 1, 1).asDiagonal();
  const auto out = run_dqs({m}, packed(1, {0}, {1}), {Vec3f(1, 0, 0)});
  EXPECT_TRUE(out[0].isApprox(Vec3f(0, 2, 0), 1e-5f));
}

TEST(Dqs, KeepsTheVolumeOfATwistedCylinderBetterThanLbs) {
  const test::Cylinder c = test::make_cylinder(61, 48, 3, 0);
  const double rest = volume(c.positions, c.triangles);
  EXPECT_NEAR(rest, kPi * 3, 0.05 * kPi * 3);  // a 48-gon prism: close to pi r^2 h
  // Twist the second joint by 150 degrees about the cylinder's axis.
  const std::vector<Mat4f> matrices = {Mat4f::Identity(), test::rotation_about(Vec3f::UnitX(), 150 * kPi / 180)};
  const double lbs = volume(run_lbs(matrices, c.skin, c.positions), c.triangles) / rest;
  const double dqs = volume(run_dqs(matrices, c.skin, c.positions), c.triangles) / rest;
  std::printf("twisted cylinder (150 degrees): volume ratio LBS %.4f, DQS %.4f\n", lbs, dqs);
  EXPECT_LT(lbs, 0.9);  // the candy-wrapper collapse
  EXPECT_GT(dqs, 0.97);
  EXPECT_LT(std::abs(dqs - 1), std::abs(lbs - 1));
}
