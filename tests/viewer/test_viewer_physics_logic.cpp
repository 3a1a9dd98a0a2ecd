// The physics mode's logic without a window: the fixed-rate clock, the script parser, the
// options, and the simulation session (pins hold, the drag pulls, the ball lands, the rig mode's
// vertices follow the skin at rest).
#include <gtest/gtest.h>

#include <cmath>

#include <wobble/error.hpp>

#include "../box_mesh.hpp"
#include "../error_text.hpp"
#include "physics_clock.hpp"
#include "physics_options.hpp"
#include "physics_script.hpp"
#include "physics_session.hpp"

using namespace wobble;
using namespace wobble::viewer;
using wobble::test::error_text;

namespace {

PhysicsOptions parse(std::vector<std::string> arguments) {
  PhysicsOptions o;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string flag = arguments[i];
    auto value = [&]() -> const std::string& { return arguments.at(++i); };
    auto is_on = [] { return true; };
    if (!parse_physics_option(flag, value, is_on, o)) throw Error("not a physics option: " + flag);
  }
  return o;
}

// A box of half sizes (hx, hy, hz) with each face an n x n grid of quads (contacts between point
// samples need a surface denser than the barrier's radius).
Mesh fine_box(float hx, float hy, float hz, int n = 16) {
  Mesh m;
  const Vec3f half(hx, hy, hz);
  for (int axis = 0; axis < 3; ++axis)
    for (int side = -1; side <= 1; side += 2) {
      const int u = (axis + 1) % 3, v = (axis + 2) % 3;
      const auto first = static_cast<std::uint32_t>(m.positions.size());
      for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) {
          Vec3f p;
          p[axis] = side * half[axis];
          p[u] = half[u] * (2.0f * i / n - 1);
          p[v] = half[v] * (2.0f * j / n - 1);
          m.positions.push_back(p);
        }
      auto at = [&](int i, int j) { return first + static_cast<std::uint32_t>(i * (n + 1) + j); };
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          if (side > 0) {
            m.triangles.push_back({at(i, j), at(i + 1, j), at(i + 1, j + 1)});
            m.triangles.push_back({at(i, j), at(i + 1, j + 1), at(i, j + 1)});
          } else {
            m.triangles.push_back({at(i, j), at(i + 1, j + 1), at(i + 1, j)});
            m.triangles.push_back({at(i, j), at(i, j + 1), at(i + 1, j + 1)});
          }
        }
    }
  return m;
}

// Small samples, so that each session builds fast.
PhysicsSettings small(PhysicsSettings s = {}) {
  s.physics.points = 200;
  s.physics.handles = 8;
  return s;
}

}  // namespace

TEST(PhysicsClock, RunsTheStepsRealTimeIsDueAndCapsSlowFrames) {
  FixedStepClock clock;
  const double h = 1.0 / 60;
  EXPECT_EQ(clock.due(h, h), 1);
  EXPECT_EQ(clock.due(2 * h, h), 2);
  EXPECT_EQ(clock.due(1.0, h), FixedStepClock::kMaxSteps);  // a stalled frame does not pile up work
  clock.reset();
  int steps = 0;
  for (int frame = 0; frame < 240; ++frame) steps += clock.due(1.0 / 240, h);  // a 240 Hz display
  EXPECT_EQ(steps, 60);
}

TEST(PhysicsScript, ParsesTimedActionsAndNamesTheBadOne) {
  ScriptPlayer player = ScriptPlayer::parse(
      R"([{"at": 0.5, "do": "press", "pixel": [10, 20]}, {"at": 1, "do": "drag", "point": [0, 1, 0]}, {"at": 2, "do": "release"}])");
  EXPECT_TRUE(player.take_due(0.4).empty());
  const auto first = player.take_due(1.0);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].kind, "press");
  EXPECT_EQ(first[1].kind, "drag");
  EXPECT_EQ(player.take_due(5).size(), 1u);
  EXPECT_NE(error_text([] {
              ScriptPlayer::parse(R"([{"at": 1, "do": "release"}, {"at": 0.5, "do": "release"}])");
            }).find("action 1"),
            std::string::npos);
  EXPECT_NE(error_text([] { ScriptPlayer::parse(R"([{"at": 1, "do": "jump"}])"); }).find("unknown action 'jump'"),
            std::string::npos);
  EXPECT_NE(error_text([] { ScriptPlayer::parse(R"([{"at": 1, "do": "press"}])"); }).find("\"pixel\" or \"point\""),
            std::string::npos);
  EXPECT_NE(error_text([] { ScriptPlayer::parse(R"([{"at": 1, "do": "press", "pixel": [1]}])"); }).find("wrong type"),
            std::string::npos);
  EXPECT_NE(error_text([] { ScriptPlayer::parse("/no/such/script.json"); }).find("/no/such/script.json"),
            std::string::npos);
}

TEST(PhysicsOptions, PinsSubspaceAndStrictValues) {
  const PhysicsOptions plane = parse({"--physics", "--pin", "y>0.6", "--subspace", "neural", "--handles", "12"});
  EXPECT_TRUE(plane.enabled);
  EXPECT_EQ(plane.settings.pin_mode, PinMode::Plane);
  EXPECT_EQ(plane.settings.pin_axis, 1);
  EXPECT_DOUBLE_EQ(plane.settings.pin_level, 0.6);
  EXPECT_TRUE(plane.settings.pin_above);
  EXPECT_EQ(plane.settings.subspace, Subspace::Neural);
  EXPECT_EQ(plane.settings.physics.handles, 12);
  const PhysicsOptions both = parse({"--pin", "x<-0.9 || x>0.9"});
  EXPECT_EQ(both.settings.pin_mode, PinMode::Predicate);
  EXPECT_NE(error_text([] { parse({"--pin", "y>>1"}); }).find("--pin"), std::string::npos);
  EXPECT_NE(error_text([] { parse({"--handles", "2abc"}); }).find("--handles"), std::string::npos);
  EXPECT_NE(error_text([] { parse({"--poisson", "0.5"}); }).find("out of range [0, 0.4999]"), std::string::npos);
  // The viewer's settings are the library's: the same defaults, flags and ranges (settings.hpp).
  const PhysicsOptions defaults = parse({"--physics"});
  for (const ParameterDescription& p : physics::physics_description().parameters)
    EXPECT_EQ(p.get(&defaults.settings.physics), p.default_value) << p.key;
  const PhysicsOptions edge =
      parse({"--poisson", "0.4999", "--handles", "256", "--fps", "120", "--drag-stiffness", "50"});
  EXPECT_EQ(edge.settings.physics.poisson_ratio, 0.4999);
  EXPECT_EQ(edge.settings.physics.handles, 256);
  EXPECT_EQ(edge.settings.physics.fps, 120);
  EXPECT_EQ(edge.settings.physics.drag_stiffness, 50);
  EXPECT_NE(error_text([] {
              parse({"--handles", "257"});
            }).find("--handles: 257 is out of range [1, 256]"),
            std::string::npos);
  EXPECT_NE(error_text([] { parse({"--subspace", "magic"}); }).find("magic"), std::string::npos);
}

TEST(PhysicsSessionLogic, PinnedEndHoldsAndTheDragPullsTheFreeEnd) {
  PhysicsSettings s = small();
  s.floor = false;
  s.gravity = false;
  s.pin_mode = PinMode::Plane;
  s.pin_axis = 0;
  s.pin_level = -0.8;
  s.pin_above = false;
  s.physics.youngs_modulus = 1e7;
  const Mesh box = test::box_mesh(1.0f, 0.25f, 0.25f);
  PhysicsSession session(box, s, {});
  const std::vector<float> pinned = session.pinned_vertices();
  for (std::size_t v = 0; v < box.vertex_count(); ++v) EXPECT_EQ(pinned[v], box.positions[v].x() < 0 ? 1.0f : 0.0f);
  const Vec3d tip(1, 0.25, 0.25), target(1, 1.0, 0.25);
  session.press(tip);
  session.drag_to(target);
  for (int k = 0; k < 60; ++k) session.step();
  EXPECT_GT(session.grabbed_position().y() - tip.y(), 0.25 * (target.y() - tip.y()));  // pulled up
  for (std::size_t v = 0; v < box.vertex_count(); ++v) {
    if (pinned[v] > 0) {
      EXPECT_LT((session.vertices()[v] - box.positions[v]).norm(), 1e-6f);
    }
  }
  session.release();
  for (int k = 0; k < 240; ++k) session.step();
  EXPECT_LT(std::abs(session.position_of(tip).y() - tip.y()), 0.1);  // back near rest
}

TEST(PhysicsSessionLogic, TheDroppedBallLandsOnTheShapeAndTheShapeOnTheFloor) {
  PhysicsSettings s = small();
  const Mesh box = fine_box(1.0f, 0.25f, 0.6f);
  PhysicsSession session(box, s, {});
  session.drop_ball();
  ASSERT_TRUE(session.has_ball());
  const float start = session.ball_vertices().front().y();
  for (int k = 0; k < 120; ++k) session.step();
  float ball_lowest = 1e30f;
  for (const Vec3f& v : session.ball_vertices()) ball_lowest = std::min(ball_lowest, v.y());
  EXPECT_LT(session.ball_vertices().front().y(), start - 0.1f);  // it fell...
  EXPECT_GT(ball_lowest, 0.25f - 0.05f);                         // ...onto the box's top (y = 0.25), not through it
  EXPECT_GT(session.lowest_height(), session.floor_origin().y() - 0.01);
  session.remove_ball();
  EXPECT_FALSE(session.has_ball());
}
