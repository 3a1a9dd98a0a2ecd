// The viewer's logic without a window: options, playback clocks, the stack editor's model and
// the parameter views it builds from the registry, the procedural cylinder, the brush and the
// joint drag.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include <wobble/dynamic_skinning.hpp>
#include <wobble/error.hpp>
#include <wobble/pose.hpp>

#include "../error_text.hpp"
#include "bend_weight_brush.hpp"
#include "bundled_characters.hpp"
#include "frame_statistics.hpp"
#include "joint_drag.hpp"
#include "playback.hpp"
#include "stack_editor.hpp"
#include "viewer_options.hpp"

using namespace wobble;
using namespace wobble::viewer;
using wobble::test::error_text;

TEST(ViewerOptions, ParsesAutomationFlagsAndRejectsUnknownOnes) {
  const ViewerOptions o = parse_viewer_options({"a.glb", "--screenshot", "out.png", "--frame", "12", "--size",
                                                "640x360", "--deformer", "lbs", "--gpu", "--no-ui"});
  EXPECT_EQ(o.file, "a.glb");
  EXPECT_EQ(o.screenshot, "out.png");
  EXPECT_EQ(o.frame, 12);
  EXPECT_EQ(o.width, 640);
  EXPECT_EQ(o.height, 360);
  EXPECT_EQ(o.deformer, "lbs");
  EXPECT_TRUE(o.gpu);
  EXPECT_FALSE(o.ui);
  EXPECT_TRUE(o.fixed_step());
  EXPECT_THROW(parse_viewer_options({"--frobnicate"}), Error);
  EXPECT_THROW(parse_viewer_options({"--frame", "x"}), Error);
  EXPECT_THROW(parse_viewer_options({"--size", "10"}), Error);
  EXPECT_THROW(parse_viewer_options({"a.glb", "b.glb"}), Error);
}

TEST(ViewerOptions, ValuesAreReadWholeAndInRange) {
  // Each of these was once read as a number or a switch it is not.
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{{"--frame", "12abc"},
                                                                                   {"--frame", "1.5"},
                                                                                   {"--frame", "0x10"},
                                                                                   {"--frame", "0"},
                                                                                   {"--frame", ""},
                                                                                   {"--benchmark-frames", "-1"},
                                                                                   {"--cylinder", "1e9"},
                                                                                   {"--size", "640x360x2"},
                                                                                   {"--size", "8193x100"},
                                                                                   {"--gpu=maybe"},
                                                                                   {"--timer=2"},
                                                                                   {"--size", " 640x360"}}) {
    EXPECT_THROW(parse_viewer_options(bad), Error) << bad[0] << " " << (bad.size() > 1 ? bad[1] : "");
  }
  EXPECT_EQ(parse_viewer_options({"--frame=7"}).frame, 7);
  EXPECT_FALSE(parse_viewer_options({"--gpu=no"}).gpu);
  EXPECT_TRUE(parse_viewer_options({"--gpu=TRUE"}).gpu);
  EXPECT_TRUE(parse_viewer_options(arguments_from_query("?no-ui=0")).ui);
  EXPECT_TRUE(parse_viewer_options(arguments_from_query("?gpu=1&timer")).gpu);
  EXPECT_EQ(error_text([] { parse_viewer_options({"--frame", "12abc"}); }), "--frame: '12abc' is not an integer");
}

// The physics mode's switches and numbers, and deformer switches, as strict as the rest.
TEST(ViewerOptions, PhysicsAndDeformerSwitchesTakeOnlyBooleans) {
  EXPECT_TRUE(parse_viewer_options(arguments_from_query("?physics")).physics.enabled);
  EXPECT_FALSE(parse_viewer_options(arguments_from_query("?physics=0")).physics.enabled);
  EXPECT_TRUE(parse_viewer_options({"--no-floor=no"}).physics.settings.floor);
  EXPECT_FALSE(parse_viewer_options({"--no-gravity"}).physics.settings.gravity);
  EXPECT_EQ(error_text([] { parse_viewer_options({"--no-floor=maybe"}); }),
            "--no-floor: 'maybe' is not a boolean (true or false)");
  EXPECT_EQ(error_text([] { parse_viewer_options({"--handles", "1.5"}); }), "--handles: '1.5' is not an integer");
  EXPECT_EQ(error_text([] { parse_viewer_options({"--youngs", "nan"}); }), "--youngs: 'nan' is not a number");
  // A deformer switch alone is on (as in wobble bake); with a value, the value decides.
  const ViewerOptions alone = parse_viewer_options({"--mush-pin-boundary", "--deformer", "lbs,deltamush"});
  ASSERT_EQ(alone.parameters.size(), 1u);
  EXPECT_EQ(alone.parameters[0].second, "true");
  EXPECT_EQ(alone.deformer, "lbs,deltamush");
  EXPECT_EQ(parse_viewer_options(arguments_from_query("?mush-pin-boundary=0")).parameters[0].second, "0");
}

TEST(ViewerOptions, UrlQueryBecomesArguments) {
  const auto args = arguments_from_query("?deformer=lbs%2Cdynamic&timer&size=320x200&clip=Walk+Cycle");
  const std::vector<std::string> expected{"--deformer=lbs,dynamic", "--timer", "--size=320x200", "--clip=Walk Cycle"};
  EXPECT_EQ(args, expected);
  const ViewerOptions o = parse_viewer_options(args);
  EXPECT_TRUE(o.timer_loop);
  EXPECT_EQ(o.width, 320);
}

TEST(Playback, LoopsTheClipWhileSimulationTimeKeepsGoing) {
  Playback p;
  p.set_range(1.0f, 3.0f);
  EXPECT_TRUE(p.take_jump());  // a new clip restarts the effects
  EXPECT_FALSE(p.take_jump());
  p.advance(1.0 / 60);  // the first frame shows the clip's start
  EXPECT_EQ(p.clip_time(), 1.0f);
  EXPECT_EQ(p.simulation_time(), 0.0);
  for (int i = 0; i < 150; ++i) p.advance(1.0 / 60);  // 2.5 s
  EXPECT_NEAR(p.clip_time(), 1.5f, 1e-4);             // 1 + 2.5 mod 2
  EXPECT_NEAR(p.simulation_time(), 2.5, 1e-9);
  EXPECT_FALSE(p.take_jump());  // a wrap is not a jump
  // The clip time of a past simulation time, across the wrap.
  EXPECT_NEAR(p.clip_time_at(p.simulation_time() - 0.75), 2.75f, 1e-4);
  // Before playback began the character stood in the first pose (no wrap into the clip's end).
  EXPECT_EQ(p.clip_time_at(-0.25), 1.0f);
  EXPECT_NEAR(p.clip_time_at(0.25), 1.25f, 1e-4);
  // The played time runs on over the wrap; its endless form also runs back before the start.
  EXPECT_NEAR(p.played_time(), 3.5, 1e-6);
  EXPECT_NEAR(p.played_time_at(p.simulation_time() - 0.75), 2.75, 1e-6);
  EXPECT_EQ(p.played_time_at(-0.25), 1.0);
  EXPECT_NEAR(p.endless_time_at(-0.25), 0.75, 1e-6);
  p.playing = false;
  p.advance(1.0);
  EXPECT_NEAR(p.clip_time(), 1.5f, 1e-4);       // paused: the pose holds
  EXPECT_NEAR(p.simulation_time(), 3.5, 1e-9);  // the effects' time goes on
  EXPECT_NEAR(p.clip_time_at(0.0), 1.5f, 1e-4);
  p.scrub(9.0f);
  EXPECT_EQ(p.clip_time(), 3.0f);
  EXPECT_TRUE(p.take_jump());
  p.playing = true;
  p.loop = false;
  p.advance(5.0);  // the scrubbed-to frame is shown first
  EXPECT_NEAR(p.simulation_time(), 3.5, 1e-9);
  p.advance(5.0);
  EXPECT_EQ(p.clip_time(), 3.0f);  // holds at the end without looping
}

TEST(StackEditor, KeepsStackOrderAndSettings) {
  StackEditor s = StackEditor::from("lbs");
  s.set_enabled("deltamush", true);
  s.set_enabled("dynamic", true);
  EXPECT_EQ(s.spec(), "lbs,dynamic,deltamush");  // effects before post-deformers
  s.set_base("dlbs");
  EXPECT_EQ(s.spec(), "dlbs,dynamic,deltamush");
  EXPECT_EQ(s.base(), "dlbs");
  s.settings().section("dynamic").set("frequency", 4.0, "test");
  s.settings().section("ddm").set("iterations", std::int64_t{3},
                                  "test");  // a deformer that is off keeps its values ...
  const StackSettings saved = s.stack_settings();
  EXPECT_EQ(std::get<double>(saved.get("dynamic").get("frequency")), 4.0);
  EXPECT_EQ(saved.find("ddm"), nullptr);  // ... but they are not in the stack's settings file
  s.set_enabled("dynamic", false);
  EXPECT_EQ(s.spec(), "dlbs,deltamush");
  s.set_enabled("ddm", true);
  EXPECT_EQ(s.stack().text(), "dlbs,deltamush,ddm");
  EXPECT_EQ(std::get<std::int64_t>(s.stack_settings().get("ddm").get("iterations")), 3);
  EXPECT_THROW(StackEditor::from("dynamic,lbs"), Error);  // base not first
  EXPECT_THROW(StackEditor::from("lbs,wobbly"), Error);   // unknown deformer
}

TEST(ViewerOptions, DeformerParametersAreReadStrictly) {
  const ViewerOptions o = parse_viewer_options(arguments_from_query("?frequency=3&delay-step=1%2F240"));
  ASSERT_EQ(o.parameters.size(), 2u);
  StackSettings settings;
  for (const auto& [flag, text] : o.parameters) settings.set_flag(flag, text);
  EXPECT_EQ(std::get<double>(settings.get("dynamic").get("frequency")), 3.0);
  EXPECT_EQ(std::get<double>(settings.get("dlbs").get("delay_step")), 1.0 / 240);
  for (const char* bad : {"2abc", "nan", "inf", "1e400", "", "31"}) {
    StackSettings s;
    EXPECT_THROW(s.set_flag("frequency", bad), Error) << bad;
  }
}

TEST(Cylinder, IsAValidCharacterOfTheRequestedSize) {
  const Character c = make_cylinder_character(10000);
  EXPECT_NEAR(static_cast<double>(c.mesh.vertex_count()), 10000.0, 500.0);
  EXPECT_TRUE(c.is_skinned());
  EXPECT_EQ(c.rig.joint_count(), 4u);
  ASSERT_EQ(c.clips.size(), 1u);
  EXPECT_NEAR(c.clips[0].duration(), 2.0f, 1e-6);
  for (std::size_t v = 0; v < c.skin.vertex_count(); ++v) {
    float sum = 0;
    for (float w : c.skin.weights_of(v)) sum += w;
    ASSERT_NEAR(sum, 1.0f, 1e-5f);
  }
  // Outward normals: radial at every vertex of the side.
  for (std::size_t v = 0; v < c.mesh.vertex_count(); v += 97) {
    const Vec3f radial(c.mesh.positions[v].x(), 0, c.mesh.positions[v].z());
    EXPECT_GT(c.mesh.normals[v].dot(radial.normalized()), 0.9f);
  }
  // The rest pose reproduces the mesh (inverse binds match the joints), the clip bends it.
  Pose pose;
  evaluate_pose(c.rig, nullptr, 0, pose);
  for (const Mat4f& m : pose.skinning) EXPECT_TRUE(m.isApprox(Mat4f::Identity(), 1e-6f));
  evaluate_pose(c.rig, &c.clips[0], 0.4f, pose);
  const Vec3f top = pose.world[3].block<3, 1>(0, 3);
  EXPECT_LT(top.x(), -0.3f);  // bent toward -x by +z rotations
}

TEST(Brush, RayHitsTheNearSideOfTheCylinder) {
  const Character c = make_cylinder_character(4000);
  const auto hit = cast_ray(c.mesh.positions, c.mesh.triangles, Vec3f(0, 1, 5), Vec3f(0, 0, -1));
  ASSERT_TRUE(hit.has_value());
  EXPECT_NEAR(hit->y(), 1.0f, 1e-5f);
  EXPECT_LE(hit->z(), 0.2f + 1e-5f);  // on the polygon, inside the circle of radius 0.2
  EXPECT_GT(hit->z(), 0.19f);         // the near side, not the far one
  EXPECT_FALSE(cast_ray(c.mesh.positions, c.mesh.triangles, Vec3f(1, 1, 5), Vec3f(0, 0, -1)).has_value());
}

TEST(Brush, PaintsWithinTheRadiusAndSmoothingKeepsTheRange) {
  const Character c = make_cylinder_character(4000);
  BendWeightBrush brush;
  brush.bind(c.mesh);
  std::vector<float> gamma(c.mesh.vertex_count(), 1.0f);
  const Vec3f centre(0, 1, 0.2f);
  BrushSettings paint{0.1f, 1.0f, 0.0f, false};
  const float size = c.mesh.size();
  const std::size_t changed = brush.dab(c.mesh.positions, centre, size, paint, gamma);
  EXPECT_GT(changed, 0u);
  for (std::size_t v = 0; v < gamma.size(); ++v) {
    const float r = (c.mesh.positions[v] - centre).norm() / (paint.radius * size);
    if (r >= 1)
      EXPECT_EQ(gamma[v], 1.0f);
    else
      EXPECT_NEAR(gamma[v], 1 - (1 - r * r) * (1 - r * r), 1e-5f);  // full strength: target by the falloff
  }
  const float lowest = *std::min_element(gamma.begin(), gamma.end());
  EXPECT_LT(lowest, 0.05f);
  std::vector<float> smoothed = gamma;
  brush.smooth_all(smoothed, 5);
  EXPECT_GT(*std::min_element(smoothed.begin(), smoothed.end()), lowest);        // the dip fills in
  EXPECT_LE(*std::max_element(smoothed.begin(), smoothed.end()), 1.0f + 1e-6f);  // no overshoot
  // Smoothing dabs move values toward the neighbours' mean only.
  std::vector<float> dabbed = gamma;
  brush.dab(c.mesh.positions, centre, size, BrushSettings{0.1f, 1.0f, 0.0f, true}, dabbed);
  EXPECT_GT(*std::min_element(dabbed.begin(), dabbed.end()), lowest);
}

TEST(Brush, InitialWeightsPreferSettingsThenAttribute) {
  Character c = make_cylinder_character(200);
  const std::size_t n = c.mesh.vertex_count();
  EXPECT_EQ(initial_bend_weights(c.mesh, {}, "_BEND_WEIGHT"), std::vector<float>(n, 1.0f));
  c.mesh.vertex_scalars["_BEND_WEIGHT"] = std::vector<float>(n, 0.25f);
  EXPECT_EQ(initial_bend_weights(c.mesh, {}, "_BEND_WEIGHT"), std::vector<float>(n, 0.25f));
  EXPECT_EQ(initial_bend_weights(c.mesh, {}, ""), std::vector<float>(n, 1.0f));
  EXPECT_EQ(initial_bend_weights(c.mesh, std::vector<float>(n, -1.0f), "_BEND_WEIGHT"), std::vector<float>(n, -1.0f));
}

TEST(JointDrag, OverrideTurnsTheJointOnTopOfTheClip) {
  const Character c = make_cylinder_character(500);
  Pose pose;
  evaluate_pose(c.rig, &c.clips[0], 0.0f, pose);  // rest: straight up
  JointDrag drag;
  const float angle = std::numbers::pi_v<float> / 2;
  drag.turn(1, Quatf(Eigen::AngleAxisf(angle, Vec3f::UnitZ())));
  drag.apply(pose);
  update_world(c.rig, pose);
  // Joint 2 sits 0.5 above joint 1 at rest; turned 90 degrees about +z it points to -x.
  const Vec3f j1 = pose.world[1].block<3, 1>(0, 3), j2 = pose.world[2].block<3, 1>(0, 3);
  EXPECT_TRUE((j2 - j1).isApprox(Vec3f(-0.5f, 0, 0), 1e-5f)) << (j2 - j1).transpose();
  EXPECT_TRUE(drag.has_overrides());
  drag.clear();
  EXPECT_FALSE(drag.has_overrides());
}

TEST(FrameStatistics, MedianOfRecentValues) {
  FrameStatistics s(4);
  EXPECT_EQ(s.median(), 0);
  for (double v : {5.0, 1.0, 3.0}) s.add(v);
  EXPECT_EQ(s.median(), 3.0);
  s.add(7.0);
  EXPECT_EQ(s.median(), 4.0);  // (3 + 5) / 2
  s.add(100.0);                // replaces the oldest (5)
  EXPECT_EQ(s.median(), 5.0);  // {100, 1, 3, 7}: (3 + 7) / 2
}
