// The C API's pose from joint world matrices: local transforms recovered as parent world^-1 *
// world, against the local transforms the world matrices were built from.
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <wobble/math.hpp>
#include <wobble/rig.hpp>

#include "capi/frame_pose.hpp"

namespace wobble {

namespace {

Quatf random_rotation(std::mt19937& random) {
  std::normal_distribution<float> normal;
  return Quatf(normal(random), normal(random), normal(random), normal(random)).normalized();
}

// How far apart two unit quaternions are, q and -q alike (about half the angle between them in
// radians; acos of a float dot product would round small angles to 0 or to 1e-3).
double quaternion_distance(const Quatf& a, const Quatf& b) {
  return std::min((a.coeffs() - b.coeffs()).norm(), (a.coeffs() + b.coeffs()).norm());
}

}  // namespace

TEST(FramePose, LocalTransformsAreRecoveredUnderUniformNonUniformAndMirroredParents) {
  std::mt19937 random(16);
  std::uniform_real_distribution<float> offset(-1, 1), size(0.5f, 2);
  // A tree: 0 root; 1, 2 children of 0; 3 child of 1; 4 child of 3; 5 child of 2; 6 child of 5.
  const std::vector<int> parents = {-1, 0, 0, 1, 3, 2, 5};
  Rig rig;
  std::vector<Transform> locals(parents.size());
  for (std::size_t j = 0; j < parents.size(); ++j) {
    Transform& t = locals[j];
    t.translation = Vec3f(offset(random), offset(random), offset(random));
    t.rotation = random_rotation(random);
    const float s = size(random);
    t.scale = Vec3f(s, s, s);  // uniform: the fast path for its children
    rig.add_joint("joint" + std::to_string(j), parents[j], t, Mat4f::Identity(), true);
  }
  locals[2].scale = Vec3f(1.5f, 0.5f, 1.0f);   // non-uniform: 5 (and 6, under a sheared parent) take the inverse
  locals[3].scale = Vec3f(-1.2f, 1.2f, 1.2f);  // mirrored: 4 takes the inverse
  std::vector<float> world(16 * parents.size());
  std::vector<Mat4f> world_matrices(parents.size());
  for (std::size_t j = 0; j < parents.size(); ++j) {
    world_matrices[j] = parents[j] < 0 ? locals[j].matrix() : Mat4f(world_matrices[parents[j]] * locals[j].matrix());
    std::copy(world_matrices[j].data(), world_matrices[j].data() + 16, world.data() + 16 * j);
  }
  capi::FramePose frame_pose;
  frame_pose.prepare(rig);
  const wobble_frame frame{0.5, world.data(), static_cast<std::uint32_t>(parents.size()), nullptr};
  frame_pose.set(rig, frame);
  for (std::size_t j = 0; j < parents.size(); ++j) {
    SCOPED_TRACE("joint " + std::to_string(j));
    const Transform& got = frame_pose.pose.local[j];
    // A mirrored scale is recovered with its sign in x (as Transform::from_matrix), the rotation
    // absorbing the rest: compare the matrices, and the rotation where the scale is not mirrored.
    EXPECT_LT((got.matrix() - locals[j].matrix()).cwiseAbs().maxCoeff(), 2e-5f);
    if (locals[j].scale.x() > 0) {
      EXPECT_LT((got.scale - locals[j].scale).norm(), 2e-5f);
      EXPECT_LT(quaternion_distance(got.rotation, locals[j].rotation), 2e-5);
      EXPECT_LT((got.translation - locals[j].translation).norm(), 2e-5f);
    }
    EXPECT_TRUE((frame_pose.pose.world[j].array() == world_matrices[j].array()).all()) << "world matrices as given";
  }
}

}  // namespace wobble
