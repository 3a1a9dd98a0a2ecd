// Helper bones on a procedural character: the top of a three-joint chain swings about its joint
// on top of the clip (a secondary motion of rigid parts), so one helper reproduces it exactly;
// the written character, baked again with plain LBS, plays the motion back.
#include <cmath>

#include <gtest/gtest.h>

#include <wobble/error.hpp>
#include <wobble/offline/helper_bones.hpp>
#include <wobble/parallel.hpp>

#include "../synthetic_rigs.hpp"

using namespace wobble;

namespace {

constexpr double kPi = 3.14159265358979323846;

Character swinging_chain() {
  Character c = test::chain_character(3, 1.0f);
  test::add_rotation(c, 1, Vec3f::UnitZ(), 1.0f, [](double t) { return 0.4 * std::sin(2 * kPi * t); });
  return c;
}

// The LBS bake with the top bone's vertices (joint 2's) turned about x around that joint by a
// lagging angle: what a secondary-motion deformer would add.
BakedFrames with_secondary_motion(const Character& c, BakedFrames baked) {
  for (std::size_t f = 0; f < baked.times.size(); ++f) {
    const double t = baked.times[f];
    const Mat4f world = baked.skinning[f][2] * c.rig.inverse_bind[2].inverse();
    const Vec3f pivot = world.topRightCorner<3, 1>();
    const Eigen::AngleAxisf swing(static_cast<float>(0.3 * std::sin(2 * kPi * t - 1.0)), Vec3f::UnitX());
    for (std::size_t v = 0; v < baked.positions[f].size(); ++v)
      if (c.skin.joints_of(v)[0] == 2) baked.positions[f][v] = swing * (baked.positions[f][v] - pivot) + pivot;
  }
  return baked;
}

double largest_gap(const BakedFrames& a, const BakedFrames& b) {
  double gap = 0;
  for (std::size_t f = 0; f < a.positions.size(); ++f)
    for (std::size_t v = 0; v < a.positions[f].size(); ++v)
      gap = std::max(gap, double((a.positions[f][v] - b.positions[f][v]).norm()));
  return gap;
}

}  // namespace

TEST(HelperBones, OneHelperCarriesARigidSwingAndPlaysBack) {
  const Character c = swinging_chain();
  const BakedFrames target = with_secondary_motion(c, test::bake_stack(c, "lbs", nlohmann::json::object(), 30.0));
  DecompositionParameters parameters;
  parameters.bones = 1;
  parameters.influences = 1;
  ThreadPool pool(2);
  const HelperBones helpers = helper_bones(c, 0, target, parameters, false, &pool);

  EXPECT_EQ(helpers.helpers, 1u);
  EXPECT_GT(helpers.secondary_rms, 0.05);  // the swing, against the chain's own skinning
  EXPECT_LT(helpers.rmse, 1e-4);
  const Rig& rig = helpers.character.rig;
  ASSERT_EQ(rig.joint_count(), 4u);
  EXPECT_EQ(rig.parents[3], 2);  // the joint whose vertices swing
  EXPECT_EQ(rig.names[3], "wobble_helper_0");
  EXPECT_EQ(helpers.character.clips.size(), 1u);

  // An engine's view: the written character's clip and skin under plain LBS.
  const BakedFrames played = test::bake_stack(helpers.character, "lbs", nlohmann::json::object(), 30.0);
  ASSERT_EQ(played.positions.size(), target.positions.size());
  EXPECT_LT(largest_gap(played, target), 1e-4);
}

TEST(HelperBones, ABakeOfAnotherCharacterIsRefused) {
  const Character c = swinging_chain();
  BakedFrames target = test::bake_stack(c, "lbs", nlohmann::json::object(), 30.0);
  target.positions[2].pop_back();
  DecompositionParameters parameters;
  parameters.bones = 1;
  try {
    helper_bones(c, 0, target, parameters, false, nullptr);
    FAIL() << "accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("frame 2 is not a bake of this character"), std::string::npos)
        << error.what();
  }
}
