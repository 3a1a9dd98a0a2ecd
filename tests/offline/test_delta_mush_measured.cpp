// Delta Mush measured (wobble::offline's quality measures, include/wobble/offline/quality_measures.hpp):
// the rest pose is perfect and a rigid motion changes nothing, and on bent and twisted cylinders
// Delta Mush keeps the volume better than LBS. Procedural meshes only, so on ARM64 too; the
// deformer on real characters: tests/test_delta_mush.cpp.
#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

#include <wobble/delta_mush.hpp>
#include <wobble/lbs.hpp>
#include <wobble/offline/quality_measures.hpp>
#include <wobble/pose.hpp>

#include "runtime/mush_cases.hpp"

using namespace wobble;
using namespace wobble::test;

namespace {

constexpr float kPi = std::numbers::pi_v<float>;

}  // namespace

TEST(DeltaMush, KeepsTheVolumeOfBentAndTwistedCylindersBetterThanLbs) {
  // A coarse cylinder (16 sides) smoothed strongly: Delta Mush keeps volume through the deltas,
  // which then carry a large part of the radius.
  const Cylinder c = make_cylinder(61, 16, 3, 0.0f);
  const double rest = volume(c.positions, c.triangles);
  const QualityReference reference(c.positions, c.triangles);
  struct Pose {
    const char* name;
    Mat4f joint1;
  };
  const std::vector<Pose> poses = {{"bent 90 degrees", rotation_about(Vec3f::UnitZ(), kPi / 2, Vec3f(1.5f, 0, 0))},
                                   {"twisted 150 degrees", rotation_about(Vec3f::UnitX(), 150 * kPi / 180)}};
  for (const Pose& pose : poses) {
    const std::vector<Vec3f> lbs = run_lbs({Mat4f::Identity(), pose.joint1}, c);
    for (MushSmoothing smoothing : {MushSmoothing::Uniform, MushSmoothing::Cotangent}) {
      DeltaMushSettings settings;
      settings.smoothing = smoothing;
      settings.iterations = 40;
      DeltaMush mush;
      mush.bind(c.positions, c.triangles, settings);
      std::vector<Vec3f> mushed = lbs;
      mush.evaluate(mushed);
      const double lbs_ratio = volume(lbs, c.triangles) / rest, mush_ratio = volume(mushed, c.triangles) / rest;
      const FrameQuality ql = reference.measure(lbs), qm = reference.measure(mushed);
      std::printf(
          "cylinder %s: volume ratio LBS %.4f, Delta Mush (%s, 40 iterations) %.4f; detail error LBS %.4f, "
          "Delta Mush %.4f\n",
          pose.name, lbs_ratio, to_string(smoothing), mush_ratio, ql.detail_error, qm.detail_error);
      // Uniform smoothing shrinks the cylinder, so the deltas carry much of the radius and restore
      // the collapsed parts; cotangent smoothing barely shrinks a cylinder (printed, not asserted).
      if (smoothing == MushSmoothing::Uniform) {
        EXPECT_LT(std::abs(mush_ratio - 1), 0.5 * std::abs(lbs_ratio - 1)) << pose.name;
      }
      for (const Vec3f& p : mushed) ASSERT_TRUE(p.allFinite());
    }
  }
}

TEST(QualityMeasures, RestIsPerfectAndRigidMotionChangesNothing) {
  const Cylinder c = make_cylinder(20, 12, 3);
  const QualityReference reference(c.positions, c.triangles);
  FrameQuality q = reference.measure(c.positions);
  EXPECT_NEAR(q.volume_change, 0, 1e-9);
  EXPECT_NEAR(q.detail_error, 0, 1e-9);
  EXPECT_EQ(q.flipped_triangles, 0u);
  std::vector<Vec3f> moved = c.positions;
  const Mat3f r = Eigen::AngleAxisf(2.0f, Vec3f(1, 2, 3).normalized()).toRotationMatrix();
  for (Vec3f& p : moved) p = r * p + Vec3f(10, -3, 7);
  q = reference.measure(moved);
  EXPECT_NEAR(q.volume_change, 0, 1e-5);
  EXPECT_NEAR(q.detail_error, 0, 1e-4);
  EXPECT_NEAR(q.max_edge_stretch, 0, 1e-5);
  EXPECT_EQ(q.flipped_triangles, 0u);
  std::vector<Vec3f> scaled = c.positions;
  for (Vec3f& p : scaled) p *= 1.1f;
  q = reference.measure(scaled);
  EXPECT_NEAR(q.volume_change, 1.1 * 1.1 * 1.1 - 1, 1e-4);
  EXPECT_NEAR(q.max_edge_stretch, 0.1, 1e-4);
}
