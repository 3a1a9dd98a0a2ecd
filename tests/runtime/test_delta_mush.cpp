// Delta Mush on procedural meshes: degenerate meshes give finite output, seam copies smooth as
// one surface and do not crack, a zero mask or zero iterations leave the input alone, bind data
// refuses another mesh, threads and wavefront sweeps do not change a byte.
#include <cmath>
#include <cstring>
#include <numbers>

#include <gtest/gtest.h>

#include <wobble/delta_mush.hpp>
#include <wobble/error.hpp>
#include <wobble/lbs.hpp>
#include <wobble/parallel.hpp>

#include "mush_cases.hpp"
#include "two_joint_cylinder.hpp"

using namespace wobble;
using namespace wobble::test;

namespace {

constexpr float kPi = std::numbers::pi_v<float>;

}  // namespace

TEST(DeltaMush, DegenerateMeshesGiveFiniteSensibleOutput) {
  // A strip with: an isolated vertex, a non-manifold edge (three triangles on one edge), a
  // zero-area triangle (collinear corners), a triangle repeating a vertex, open boundaries.
  std::vector<Vec3f> rest = {{0, 0, 0},        {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0.5f, 0.5f, 1},
                             {0.5f, 0.5f, -1}, {2, 0, 0}, {3, 0, 0}, {5, 5, 5}, {2, 1, 0}};
  std::vector<Triangle> triangles = {{0, 1, 2}, {1, 3, 2}, {1, 2, 4}, {1, 2, 5},
                                     {1, 6, 7}, {3, 3, 9}, {1, 6, 3}, {6, 9, 3}};
  const float size = 10.0f;
  std::vector<Vec3f> deformed = rest;
  for (std::size_t v = 0; v < deformed.size(); ++v) deformed[v] += Vec3f(0.1f * v, 0.05f * (v % 3), -0.02f * v);
  for (const DeltaMushSettings& settings : all_settings(rest.size())) {
    DeltaMush mush;
    mush.bind(rest, triangles, settings);
    std::vector<Vec3f> positions = deformed;
    mush.evaluate(positions);
    for (std::size_t v = 0; v < positions.size(); ++v) {
      ASSERT_TRUE(positions[v].allFinite()) << describe(settings) << " vertex " << v;
      EXPECT_LE((positions[v] - deformed[v]).norm(), 0.5f * size) << describe(settings) << " vertex " << v;
    }
    EXPECT_EQ(positions[8], deformed[8]) << "the isolated vertex stays where the skinning put it";
    if (settings.mode == MushMode::Blender) continue;  // Blender: needle corners are not exact (see above)
    std::vector<Vec3f> at_rest = rest;
    mush.evaluate(at_rest);
    EXPECT_LE(max_distance(at_rest, rest), 1e-5 * size) << describe(settings);
  }
}

TEST(DeltaMush, SeamCopiesSmoothAsOneSurfaceAndDoNotCrack) {
  // Split the cylinder along one column (as a UV seam does): the welded result equals the
  // unsplit one, and the copies stay together.
  const Cylinder whole = make_cylinder(30, 16, 3);
  Cylinder split = whole;
  const int sides = 16, rings = 30;
  std::vector<std::uint32_t> copy_of(whole.positions.size(), 0);
  for (int r = 0; r < rings; ++r) {
    const std::uint32_t original = r * sides;
    copy_of[original] = static_cast<std::uint32_t>(split.positions.size());
    split.positions.push_back(whole.positions[original]);
    split.skin.joints.insert(split.skin.joints.end(),
                             {whole.skin.joints[2 * original], whole.skin.joints[2 * original + 1]});
    split.skin.weights.insert(split.skin.weights.end(),
                              {whole.skin.weights[2 * original], whole.skin.weights[2 * original + 1]});
  }
  // Triangles on the last column (s = sides - 1 -> s + 1 wraps to 0) use the copies.
  for (Triangle& t : split.triangles) {
    bool last_column = false;
    for (std::uint32_t v : t) last_column |= v < std::uint32_t(rings * sides) && v % sides == sides - 1;
    if (!last_column) continue;
    for (std::uint32_t& v : t) {
      if (v < std::uint32_t(rings * sides) && v % sides == 0) v = copy_of[v];
    }
  }
  const std::vector<Mat4f> pose = {Mat4f::Identity(), rotation_about(Vec3f::UnitZ(), kPi / 2, Vec3f(1.5f, 0, 0))};
  DeltaMushSettings settings;
  DeltaMush a, b;
  a.bind(whole.positions, whole.triangles, settings);
  b.bind(split.positions, split.triangles, settings);
  std::vector<Vec3f> pa = run_lbs(pose, whole), pb = run_lbs(pose, split);
  a.evaluate(pa);
  b.evaluate(pb);
  for (std::size_t v = 0; v < whole.positions.size(); ++v) EXPECT_LE((pa[v] - pb[v]).norm(), 1e-5f) << v;
  for (int r = 0; r < rings; ++r) EXPECT_EQ(pb[r * sides], pb[copy_of[r * sides]]) << "ring " << r;
  // Blender mode does not weld: there the seam is a boundary and the copies drift apart.
  settings.mode = MushMode::Blender;
  b.bind(split.positions, split.triangles, settings);
  pb = run_lbs(pose, split);
  b.evaluate(pb);
  double gap = 0;
  for (int r = 0; r < rings; ++r) gap = std::max<double>(gap, (pb[r * sides] - pb[copy_of[r * sides]]).norm());
  EXPECT_GT(gap, 1e-4);
}

TEST(DeltaMush, ZeroMaskAndZeroIterationsLeaveTheInputAlone) {
  const Cylinder c = make_cylinder(20, 12, 3);
  const std::vector<Vec3f> lbs =
      run_lbs({Mat4f::Identity(), rotation_about(Vec3f::UnitZ(), 1.0f, Vec3f(1.5f, 0, 0))}, c);
  for (MushMode mode : {MushMode::Wobble, MushMode::Blender}) {
    DeltaMushSettings settings;
    settings.mode = mode;
    settings.mask.assign(c.positions.size(), 0.0f);
    DeltaMush mush;
    mush.bind(c.positions, c.triangles, settings);
    std::vector<Vec3f> positions = lbs;
    mush.evaluate(positions);
    EXPECT_LE(max_distance(positions, lbs), 1e-5);
    settings.mask.clear();
    settings.iterations = 0;
    mush.bind(c.positions, c.triangles, settings);
    positions = lbs;
    mush.evaluate(positions);
    EXPECT_LE(max_distance(positions, lbs), 1e-5);
  }
}

TEST(DeltaMush, BindDataRefusesAnotherMesh) {
  const Cylinder c = make_cylinder(20, 12, 3);
  DeltaMush mush;
  mush.bind(c.positions, c.triangles, DeltaMushSettings{});
  EXPECT_NO_THROW(mush.check_same_mesh(c.positions, c.triangles));
  std::vector<Vec3f> moved = c.positions;
  moved[5].x() += 0.01f;
  try {
    mush.check_same_mesh(moved, c.triangles);
    FAIL() << "no error for a different rest mesh";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("another mesh"), std::string::npos) << error.what();
  }
  std::vector<Vec3f> fewer(c.positions.begin(), c.positions.end() - 1);
  EXPECT_THROW(mush.evaluate(fewer), Error);
  DeltaMush unbound;
  std::vector<Vec3f> any = c.positions;
  EXPECT_THROW(unbound.evaluate(any), Error);
  DeltaMushSettings bad;
  bad.step = 2.0f;
  EXPECT_THROW(mush.bind(c.positions, c.triangles, bad), Error);
  bad = {};
  bad.mask.assign(3, 1.0f);
  EXPECT_THROW(mush.bind(c.positions, c.triangles, bad), Error);
  bad = {};
  bad.mode = MushMode::Blender;
  bad.smoothing = MushSmoothing::Cotangent;
  EXPECT_THROW(mush.bind(c.positions, c.triangles, bad), Error);
}

TEST(DeltaMush, IdenticalBytesForAnyThreadCount) {
  const Cylinder c = make_cylinder(300, 100, 3);  // 30,002 vertices: several chunks
  const std::vector<Vec3f> lbs =
      run_lbs({Mat4f::Identity(), rotation_about(Vec3f::UnitZ(), 1.2f, Vec3f(1.5f, 0, 0))}, c);
  for (MushMode mode : {MushMode::Wobble, MushMode::Blender}) {
    DeltaMushSettings settings;
    settings.mode = mode;
    settings.smoothing = MushSmoothing::Length;
    DeltaMush mush;
    mush.bind(c.positions, c.triangles, settings);
    std::vector<Vec3f> one = lbs, four = lbs;
    mush.evaluate(one, nullptr);
    ThreadPool pool(4);
    mush.evaluate(four, &pool);
    EXPECT_EQ(std::memcmp(one.data(), four.data(), one.size() * sizeof(Vec3f)), 0) << to_string(mode);
  }
}

TEST(DeltaMush, WavefrontSweepsGiveTheSameBytesAsPlainSweeps) {
  // An open tube numbered ring by ring (index bandwidth 41, 208,000 vertices: the wavefront pays
  // from 50,000): one thread runs all sweeps as one wavefront over chunks, several threads run
  // them one after another. Uniform rows in pairs and twins, and weighted rows.
  const int sides = 40, rings = 5200;
  std::vector<Vec3f> rest;
  std::vector<Triangle> triangles;
  for (int r = 0; r < rings; ++r) {
    for (int k = 0; k < sides; ++k) {
      const float a = 2 * kPi * k / sides, x = 6.0f * r / (rings - 1);
      const float radius = 0.5f + 0.03f * std::sin(7.0f * a) * std::sin(23.0f * x);
      rest.emplace_back(x, radius * std::cos(a), radius * std::sin(a));
    }
  }
  auto at = [&](int r, int k) { return static_cast<std::uint32_t>(r * sides + (k % sides)); };
  for (int r = 0; r + 1 < rings; ++r) {
    for (int k = 0; k < sides; ++k) {
      triangles.push_back({at(r, k), at(r + 1, k + 1), at(r + 1, k)});
      triangles.push_back({at(r, k), at(r, k + 1), at(r + 1, k + 1)});
    }
  }
  std::vector<Vec3f> bent = rest;
  for (Vec3f& p : bent) p = Eigen::AngleAxisf(0.15f * p.x(), Vec3f::UnitZ()) * p;
  for (MushSmoothing smoothing : {MushSmoothing::Uniform, MushSmoothing::Length}) {
    DeltaMushSettings settings;
    settings.smoothing = smoothing;
    settings.iterations = 7;
    DeltaMush mush;
    mush.bind(rest, triangles, settings);
    std::vector<Vec3f> one = bent, two = bent;
    ThreadPool single(1), pair(2);
    mush.evaluate(one, &single);
    mush.evaluate(two, &pair);
    EXPECT_EQ(std::memcmp(one.data(), two.data(), one.size() * sizeof(Vec3f)), 0) << to_string(smoothing);
    // And the rest pose still comes back.
    std::vector<Vec3f> back = rest;
    mush.evaluate(back, &single);
    for (std::size_t v = 0; v < rest.size(); ++v) ASSERT_LE((back[v] - rest[v]).norm(), 1e-6f * 6.0f) << v;
  }
}
