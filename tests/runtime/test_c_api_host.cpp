// The C API for hosts with their own rig (wobble.h: joint names, pose sampler, periodic start,
// update): against the C++ stack given the same poses, on a procedural tube. The C++ side turns
// the host's world matrices into poses as a frame's are (FramePose), so the frames are the same
// bytes.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <wobble/deformer.hpp>
#include <wobble/wobble.h>

#include "c_api_arrays.hpp"
#include "capi/frame_pose.hpp"
#include "procedural.hpp"

namespace wobble {

namespace {

using test::Arrays;
using test::Handles;
using test::world_matrices;

constexpr double kFps = 30.0;

// The host's animation: the tube's bend at any time, as world matrices; records the times asked.
struct Host {
  const Character* tube = nullptr;
  std::vector<double> asked;
  double fail_at = -1.0;  // a time the host cannot give (the sampler returns 7)

  static int sample(double time, float* world, uint32_t joint_count, void* user) {
    Host& host = *static_cast<Host*>(user);
    host.asked.push_back(time);
    if (time == host.fail_at) return 7;
    Pose pose;
    test::bend_pose(*host.tube, time, pose);
    const std::vector<float> matrices = world_matrices(pose);
    if (matrices.size() != 16 * std::size_t(joint_count)) return 1;
    std::memcpy(world, matrices.data(), matrices.size() * sizeof(float));
    return 0;
  }
};

// The C++ reference: the pose at t as the C API makes it from the world matrices alone.
Pose host_pose(const Character& tube, double t) {
  Pose exact;
  test::bend_pose(tube, t, exact);
  const std::vector<float> world = world_matrices(exact);
  capi::FramePose frame_pose;
  frame_pose.prepare(tube.rig);
  frame_pose.set(tube.rig, wobble_frame{t, world.data(), static_cast<std::uint32_t>(tube.rig.joint_count()), nullptr});
  return frame_pose.pose;
}

PoseSampler host_sampler(const Character& tube) {
  return [&tube](double t, Pose& out) { out = host_pose(tube, t); };
}

// One frame at t through the C API (world matrices only).
std::vector<float> c_frame(wobble_stack* stack, const Character& tube, double t) {
  Pose pose;
  test::bend_pose(tube, t, pose);
  const std::vector<float> world = world_matrices(pose);
  const wobble_frame frame{t, world.data(), static_cast<std::uint32_t>(tube.rig.joint_count()), nullptr};
  std::vector<float> positions(3 * tube.mesh.vertex_count());
  EXPECT_EQ(wobble_stack_evaluate(stack, &frame, positions.data(), 0, nullptr, 0), WOBBLE_OK) << wobble_last_error();
  return positions;
}

std::vector<float> cpp_frame(DeformerStack& stack, const Character& character, double t, const PoseSampler& pose_at) {
  const Pose pose = host_pose(character, t);
  std::vector<Vec3f> positions, normals;
  stack.evaluate(FrameInput{character, pose, t, pose_at, nullptr}, positions, normals);
  return std::vector<float>(positions.front().data(), positions.front().data() + 3 * positions.size());
}

double largest_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max<double>(worst, std::abs(a[i] - b[i]));
  return worst;
}

struct Fixture {
  Character tube = test::tube_character({.joints = 4, .rings = 30, .sides = 12});
  Arrays arrays{tube};
  Handles c;
  Host host{.tube = &tube, .asked = {}};

  Fixture() {
    tube.mesh.compute_normals();
    EXPECT_EQ(wobble_character_create(&arrays.mesh, &c.character), WOBBLE_OK) << wobble_last_error();
  }
};

TEST(CApiHost, APoseSamplerGivesTheEffectsTheHostsMotionBetweenFrames) {
  Fixture f;
  Handles unsampled;
  ASSERT_EQ(wobble_stack_create(f.c.character, "lbs,dynamic", nullptr, 1, &f.c.stack), WOBBLE_OK)
      << wobble_last_error();
  ASSERT_EQ(wobble_stack_create(f.c.character, "lbs,dynamic", nullptr, 1, &unsampled.stack), WOBBLE_OK);
  ASSERT_EQ(wobble_stack_set_pose_sampler(f.c.stack, &Host::sample, &f.host), WOBBLE_OK) << wobble_last_error();
  DeformerStack stack = DeformerStack::parse("lbs,dynamic", {});
  stack.bind(f.tube);
  const PoseSampler pose_at = host_sampler(f.tube);
  double sampled_effect = 0;
  for (int frame = 0; frame < 30; ++frame) {
    const double t = frame / kFps;
    const std::vector<float> got = c_frame(f.c.stack, f.tube, t);
    ASSERT_EQ(got, cpp_frame(stack, f.tube, t, pose_at)) << "frame " << frame;
    sampled_effect = std::max(sampled_effect, largest_difference(got, c_frame(unsampled.stack, f.tube, t)));
  }
  // Dynamic Skinning reads the motion every 1/60 s: between the 30 fps frames too.
  bool between_frames = false;
  for (double t : f.host.asked) between_frames |= std::abs(t * kFps - std::round(t * kFps)) > 0.25;
  EXPECT_TRUE(between_frames) << f.host.asked.size() << " samples, none between frames";
  EXPECT_GT(sampled_effect, 1e-4 * f.tube.mesh.size()) << "sampled or not, the frames are the same";
}

TEST(CApiHost, APeriodicStartIsTheCppStacksSteadyStateOfTheSampledCycle) {
  Fixture f;
  Handles cold;
  ASSERT_EQ(wobble_stack_create(f.c.character, "lbs,dynamic", nullptr, 1, &f.c.stack), WOBBLE_OK)
      << wobble_last_error();
  EXPECT_EQ(wobble_stack_start_periodic(f.c.stack, 0.0, 1.0), WOBBLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wobble_last_error()).find("no pose sampler"), std::string::npos) << wobble_last_error();
  ASSERT_EQ(wobble_stack_set_pose_sampler(f.c.stack, &Host::sample, &f.host), WOBBLE_OK);
  EXPECT_EQ(wobble_stack_start_periodic(f.c.stack, 0.0, 0.0), WOBBLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wobble_last_error()).find("period"), std::string::npos) << wobble_last_error();
  // The bend repeats every 1/1.5 s; the root's sway does not, the cycle wraps it.
  const double period = 2.0 / 3.0;
  ASSERT_EQ(wobble_stack_start_periodic(f.c.stack, 0.0, period), WOBBLE_OK) << wobble_last_error();
  ASSERT_EQ(wobble_stack_create(f.c.character, "lbs,dynamic", nullptr, 1, &cold.stack), WOBBLE_OK);
  ASSERT_EQ(wobble_stack_set_pose_sampler(cold.stack, &Host::sample, &f.host), WOBBLE_OK);
  DeformerStack stack = DeformerStack::parse("lbs,dynamic", {});
  stack.bind(f.tube);
  const PoseSampler pose_at = host_sampler(f.tube);
  stack.start_periodic(pose_at, 0.0, period);
  const std::vector<float> first = c_frame(f.c.stack, f.tube, 0.0);
  ASSERT_EQ(first, cpp_frame(stack, f.tube, 0.0, pose_at));
  for (int frame = 1; frame < 20; ++frame) {
    ASSERT_EQ(c_frame(f.c.stack, f.tube, frame / kFps), cpp_frame(stack, f.tube, frame / kFps, pose_at)) << frame;
  }
  // The steady state already moves at the first frame; a cold start does not.
  EXPECT_GT(largest_difference(first, c_frame(cold.stack, f.tube, 0.0)), 1e-4 * f.tube.mesh.size());
}

TEST(CApiHost, ASamplerThatFailsFailsTheFrameWithTheTime) {
  Fixture f;
  ASSERT_EQ(wobble_stack_create(f.c.character, "lbs,dynamic", nullptr, 1, &f.c.stack), WOBBLE_OK);
  ASSERT_EQ(wobble_stack_set_pose_sampler(f.c.stack, &Host::sample, &f.host), WOBBLE_OK);
  c_frame(f.c.stack, f.tube, 0.0);
  f.host.fail_at = 1.0 / 60.0;  // the sample between frames 0 and 1
  Pose pose;
  test::bend_pose(f.tube, 1.0 / kFps, pose);
  const std::vector<float> world = world_matrices(pose);
  const wobble_frame frame{1.0 / kFps, world.data(), static_cast<std::uint32_t>(f.tube.rig.joint_count()), nullptr};
  std::vector<float> positions(3 * f.tube.mesh.vertex_count());
  EXPECT_EQ(wobble_stack_evaluate(f.c.stack, &frame, positions.data(), 0, nullptr, 0), WOBBLE_FAILED);
  EXPECT_NE(std::string(wobble_last_error()).find("pose sampler failed at 0.01666"), std::string::npos)
      << wobble_last_error();
  EXPECT_NE(std::string(wobble_last_error()).find("returned 7"), std::string::npos) << wobble_last_error();
  // Without the sampler the stack runs on the frames alone again.
  ASSERT_EQ(wobble_stack_set_pose_sampler(f.c.stack, nullptr, nullptr), WOBBLE_OK);
  EXPECT_EQ(wobble_stack_evaluate(f.c.stack, &frame, positions.data(), 0, nullptr, 0), WOBBLE_OK)
      << wobble_last_error();
}

TEST(CApiHost, UpdateKeepsTheHistoryForLiveValuesAndNamesTheReboundDeformers) {
  Fixture f;
  Handles fresh;
  const char* initial = R"({"dynamic": {"amplitude": 1.5}})";
  ASSERT_EQ(wobble_stack_create(f.c.character, "lbs,dynamic,deltamush", initial, 1, &f.c.stack), WOBBLE_OK)
      << wobble_last_error();
  DeformerStack stack = DeformerStack::parse("lbs,dynamic,deltamush", StackSettings::from_json(initial, "test"));
  stack.bind(f.tube);
  const char* live = R"({"dynamic": {"amplitude": 0.5}, "deltamush": {"scale": 0.8}})";
  const char* bind = R"({"dynamic": {"amplitude": 0.5}, "deltamush": {"scale": 0.8, "iterations": 4}})";
  for (int frame = 0; frame < 24; ++frame) {
    const double t = frame / kFps;
    const char* rebound = "unset";
    if (frame == 8) {
      ASSERT_EQ(wobble_stack_update(f.c.stack, live, &rebound), WOBBLE_OK) << wobble_last_error();
      EXPECT_STREQ(rebound, "") << "live values rebind nothing";
      stack.update(StackSettings::from_json(live, "test"));
    }
    if (frame == 16) {
      ASSERT_EQ(wobble_stack_update(f.c.stack, bind, &rebound), WOBBLE_OK) << wobble_last_error();
      EXPECT_STREQ(rebound, "deltamush");
      stack.update(StackSettings::from_json(bind, "test"));
    }
    ASSERT_EQ(c_frame(f.c.stack, f.tube, t), cpp_frame(stack, f.tube, t, {})) << "frame " << frame;
  }
  // The settings after the update are the update's (what differs from the defaults).
  const char* settings = nullptr;
  ASSERT_EQ(wobble_stack_settings(f.c.stack, &settings), WOBBLE_OK);
  EXPECT_EQ(StackSettings::from_json(settings, "got"), StackSettings::from_json(bind, "want"));
  // Refused settings name the key and leave the stack as it was.
  EXPECT_EQ(wobble_stack_update(f.c.stack, R"({"dynamic": {"amplitude": "loud"}})", nullptr), WOBBLE_INVALID_SETTINGS);
  EXPECT_NE(std::string(wobble_last_error()).find("amplitude"), std::string::npos) << wobble_last_error();
  ASSERT_EQ(wobble_stack_settings(f.c.stack, &settings), WOBBLE_OK);
  EXPECT_EQ(StackSettings::from_json(settings, "got"), StackSettings::from_json(bind, "want"));
  // NULL: back to the defaults, Delta Mush rebound.
  const char* rebound = nullptr;
  ASSERT_EQ(wobble_stack_update(f.c.stack, nullptr, &rebound), WOBBLE_OK) << wobble_last_error();
  EXPECT_STREQ(rebound, "deltamush");
}

TEST(CApiHost, JointNamesLetTheSettingsNameJoints) {
  Fixture f;
  const char* per_joint = R"({"dynamic": {"joints": {"spine": {"frequency": 5.0}}}})";
  Handles unnamed;
  // Without names the joints are joint0..joint3: "spine" is no joint.
  EXPECT_NE(wobble_stack_create(f.c.character, "lbs,dynamic", per_joint, 1, &unnamed.stack), WOBBLE_OK);
  EXPECT_NE(std::string(wobble_last_error()).find("spine"), std::string::npos) << wobble_last_error();
  const char* names[] = {"root", "spine", "chest", "neck"};
  const char* twice[] = {"root", "spine", "spine", "neck"};
  const char* empty[] = {"root", "", "chest", "neck"};
  EXPECT_EQ(wobble_character_set_joint_names(f.c.character, names, 3), WOBBLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wobble_last_error()).find("3 names for 4 joints"), std::string::npos) << wobble_last_error();
  EXPECT_EQ(wobble_character_set_joint_names(f.c.character, twice, 4), WOBBLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wobble_last_error()).find("'spine' names two joints"), std::string::npos)
      << wobble_last_error();
  EXPECT_EQ(wobble_character_set_joint_names(f.c.character, empty, 4), WOBBLE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wobble_last_error()).find("joint 1 is empty"), std::string::npos) << wobble_last_error();
  ASSERT_EQ(wobble_character_set_joint_names(f.c.character, names, 4), WOBBLE_OK) << wobble_last_error();
  ASSERT_EQ(wobble_stack_create(f.c.character, "lbs,dynamic", per_joint, 1, &f.c.stack), WOBBLE_OK)
      << wobble_last_error();
  Character named = f.tube;
  for (int j = 0; j < 4; ++j) named.rig.names[j] = names[j];
  DeformerStack stack = DeformerStack::parse("lbs,dynamic", StackSettings::from_json(per_joint, "test"));
  stack.bind(named);
  for (int frame = 0; frame < 12; ++frame) {
    ASSERT_EQ(c_frame(f.c.stack, f.tube, frame / kFps), cpp_frame(stack, named, frame / kFps, {})) << frame;
  }
}

}  // namespace

}  // namespace wobble
