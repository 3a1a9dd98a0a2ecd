// Every SIMD kernel family on every instruction set this build and processor run, against its
// scalar reference (Isa::scalar), on procedural meshes; and identical bytes for any thread count.
#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <Eigen/SVD>

#include <wobble/delta_mush.hpp>
#include <wobble/direct_delta_mush.hpp>
#include <wobble/dynamic_skinning.hpp>
#include <wobble/lbs.hpp>
#include <wobble/parallel.hpp>
#include <wobble/pose.hpp>

#include "deform/delta_mush_kernels.hpp"
#include "deform/direct_delta_mush_kernels.hpp"
#include "deform/lbs_kernels.hpp"
#include "procedural.hpp"
#include "simd/isa.hpp"

namespace wobble {

namespace {

// Runs body with each kernel variant active in turn (the SIMD ones, then the scalar reference),
// restoring the process's choice afterwards.
class EachIsa {
 public:
  EachIsa() : saved_(simd::active_isa()) {}
  ~EachIsa() { simd::set_active_isa(saved_); }
  static std::vector<simd::Isa> all() {
    std::vector<simd::Isa> isas = simd::runnable_isas();
    isas.push_back(simd::Isa::scalar);
    return isas;
  }

 private:
  simd::Isa saved_;
};

double max_distance(const std::vector<Vec3f>& a, const std::vector<Vec3f>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max<double>(worst, (a[i] - b[i]).norm());
  return worst;
}

PackedSkin random_skin(std::size_t n, std::uint32_t width, std::size_t joints, std::mt19937& random) {
  std::uniform_real_distribution<float> unit(0.1f, 1.0f);
  PackedSkin skin;
  skin.width = width;
  for (std::size_t v = 0; v < n; ++v) {
    float sum = 0;
    for (std::uint32_t k = 0; k < width; ++k) {
      skin.joints.push_back(static_cast<std::uint16_t>(random() % joints));
      skin.weights.push_back(unit(random));
      sum += skin.weights.back();
    }
    for (std::uint32_t k = 0; k < width; ++k) skin.weights[v * width + k] /= sum;
  }
  return skin;
}

std::vector<Mat4f> random_matrices(std::size_t joints, std::mt19937& random) {
  std::uniform_real_distribution<float> unit(-1, 1);
  std::vector<Mat4f> matrices(joints, Mat4f::Identity());
  for (Mat4f& m : matrices) {
    m.topLeftCorner<3, 3>() =
        Eigen::AngleAxisf(3 * unit(random), Vec3f(unit(random), unit(random), unit(random)).normalized())
            .toRotationMatrix() *
        (1.0f + 0.2f * unit(random));
    m.topRightCorner<3, 1>() = Vec3f(unit(random), unit(random), unit(random));
  }
  return matrices;
}

TEST(RuntimeKernels, LbsMatchesTheReferenceForAnyWidthAndRangeEnd) {
  std::mt19937 random(7);
  std::uniform_real_distribution<float> unit(-1, 1);
  const std::vector<Mat4f> matrices = random_matrices(40, random);
  const std::size_t n = 1001;
  std::vector<Vec3f> points(n), normals(n);
  for (std::size_t v = 0; v < n; ++v) {
    points[v] = Vec3f(unit(random), unit(random), unit(random));
    normals[v] = Vec3f(unit(random), unit(random), unit(random)).normalized();
  }
  for (std::uint32_t width : {1u, 2u, 3u, 4u, 5u, 8u}) {
    const PackedSkin skin = random_skin(n, width, matrices.size(), random);
    std::vector<Vec3f> want_p(n), want_n(n);
    lbs_kernels::reference.run(LbsJob{matrices, &skin, points, normals, want_p, want_n, true}, 0, n);
    for (simd::Isa isa : simd::runnable_isas()) {
      // Two ranges that split the vertices at an odd place: a range's last vertex is written
      // without touching the next one (which belongs to the other range).
      std::vector<Vec3f> got_p(n, Vec3f::Constant(7)), got_n(n, Vec3f::Constant(7));
      const LbsJob job{matrices, &skin, points, normals, got_p, got_n, true};
      lbs_kernels::table_for(isa).run(job, 0, 333);
      EXPECT_EQ(got_p[333], Vec3f::Constant(7)) << simd::isa_name(isa);
      lbs_kernels::table_for(isa).run(job, 333, n);
      EXPECT_LE(max_distance(got_p, want_p), 2e-6) << simd::isa_name(isa) << " width " << width;
      EXPECT_LE(max_distance(got_n, want_n), 2e-6) << simd::isa_name(isa) << " width " << width;
    }
  }
}

// Dynamic Skinning's bend kernel: the offsets it adds against the exact-trigonometry reference
// of the same joint data, and identical bytes for one and three threads.
TEST(RuntimeKernels, DynamicSkinningMatchesItsReferenceOnEveryInstructionSet) {
  const Character tube = test::tube_character({.joints = 5, .rings = 60, .sides = 24});
  DynamicSkinningParameters parameters;
  parameters.amplitude = 1.5;
  parameters.drag = 0.5;
  parameters.linear_drag = 0.2;
  ThreadPool pool(3);
  EachIsa guard;
  for (simd::Isa isa : EachIsa::all()) {
    SCOPED_TRACE(simd::isa_name(isa));
    simd::set_active_isa(isa);
    DynamicSkinningState single, threaded;
    single.initialize(tube, parameters);
    threaded.initialize(tube, parameters);
    Pose pose;
    for (int frame = 0; frame <= 12; ++frame) {
      const double t = frame / 30.0;
      test::bend_pose(tube, t, pose);
      std::vector<Vec3f> base(tube.mesh.vertex_count());
      std::vector<Vec3f> normals;
      LbsJob lbs{pose.skinning, nullptr, tube.mesh.positions, {}, base, {}, true};
      const PackedSkin skin = PackedSkin::from(tube.skin);
      lbs.skin = &skin;
      lbs.run();
      std::vector<Vec3f> a = base, b = base, reference(base.size());
      single.apply(parameters, pose, a, t);
      threaded.apply(parameters, pose, b, t, {}, &pool);
      ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(Vec3f))) << "frame " << frame;
      single.reference_offsets(base, reference);
      for (std::size_t v = 0; v < a.size(); ++v) {
        ASSERT_LT((a[v] - base[v] - reference[v]).norm(), 2e-6 * tube.mesh.size())
            << "frame " << frame << " vertex " << v;
      }
    }
    EXPECT_GT(single.active_pair_count(), 0u);
  }
}

std::vector<Vec3f> skinned(const Character& c, const Pose& pose) {
  const PackedSkin skin = PackedSkin::from(c.skin);
  std::vector<Vec3f> out(c.mesh.vertex_count());
  LbsJob{pose.skinning, &skin, c.mesh.positions, {}, out, {}, true}.run();
  return out;
}

TEST(RuntimeKernels, DeltaMushSweepsRestorationAndFoldMatchTheReference) {
  const Character tube = test::tube_character({.joints = 4, .rings = 48, .sides = 20});
  Pose pose;
  test::bend_pose(tube, 0.3, pose, 1.2f);
  const std::vector<Vec3f> input = skinned(tube, pose);
  ThreadPool pool(3);
  EachIsa guard;
  for (MushSmoothing smoothing : {MushSmoothing::Uniform, MushSmoothing::Cotangent}) {
    DeltaMushSettings settings;
    settings.smoothing = smoothing;
    settings.iterations = 12;
    std::vector<Vec3f> want = input, want_folded = input;
    simd::set_active_isa(simd::Isa::scalar);
    DeltaMush reference;
    reference.bind(tube.mesh.positions, tube.mesh.triangles, settings);
    reference.fold_skin(tube.mesh.positions, PackedSkin::from(tube.skin), tube.rig.joint_count());
    reference.evaluate(want);
    reference.evaluate_skinned(pose.skinning, want_folded);
    for (simd::Isa isa : simd::runnable_isas()) {
      SCOPED_TRACE(simd::isa_name(isa));
      simd::set_active_isa(isa);
      DeltaMush mush;
      mush.bind(tube.mesh.positions, tube.mesh.triangles, settings);
      mush.fold_skin(tube.mesh.positions, PackedSkin::from(tube.skin), tube.rig.joint_count());
      std::vector<Vec3f> one = input, three = input, folded = input;
      mush.evaluate(one);
      mush.evaluate(three, &pool);
      EXPECT_EQ(0, std::memcmp(one.data(), three.data(), one.size() * sizeof(Vec3f)));
      EXPECT_LE(max_distance(one, want), 1e-5 * tube.mesh.size());
      mush.evaluate_skinned(pose.skinning, folded);
      EXPECT_LE(max_distance(folded, want_folded), 1e-5 * tube.mesh.size());
      EXPECT_GT(max_distance(one, input), 1e-3 * tube.mesh.size()) << "Delta Mush moved nothing";
    }
  }
}

// One corner's restored offset F_c d in double: X = unit edge to next, Z = unit normal, Y = Z x X.
Eigen::Vector3d corner_offset(const Eigen::Vector3d& s, const Eigen::Vector3d& next, const Eigen::Vector3d& prev,
                              const Eigen::Vector3d& d) {
  const Eigen::Vector3d a = next - s, n = a.cross(prev - s);
  const Eigen::Vector3d x = a.normalized(), z = n.normalized(), y = z.cross(x);
  return x * d.x() + y * d.y() + z * d.z();
}

// Corner chains (CornerBlocks) visit every corner once whatever the fan: closed (given in any
// order), open, two fans at one vertex, a repeated corner, none; and a closed fan costs one
// point per corner, no bridges.
TEST(RuntimeKernels, DeltaMushCornerChainsRestoreEveryCornerOnce) {
  const std::size_t n = 11;  // not a whole number of groups
  std::mt19937 random(5);
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::vector<float> s(4 * mush::padded_rows(n), 0.0f);
  for (std::size_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) s[4 * i + c] = uniform(random);
  }
  // Vertex 0: closed fan 1..6 shuffled; 1: open fan 2,3,4,5; 2: two fans (3,4,5) and (7,8);
  // 3: a corner twice; 4: none; 5..10: closed fans of 6 around the others (rotated starts).
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> fans(n);
  fans[0] = {{3, 4}, {1, 2}, {6, 1}, {4, 5}, {2, 3}, {5, 6}};
  fans[1] = {{3, 4}, {2, 3}, {4, 5}};
  fans[2] = {{7, 8}, {3, 4}, {4, 5}};
  fans[3] = {{9, 10}, {9, 10}};
  for (std::uint32_t v = 5; v < n; ++v) {
    for (std::uint32_t k = 0; k < 6; ++k) fans[v].push_back({(v + 1 + k) % n, (v + 2 + k) % n});
    std::rotate(fans[v].begin(), fans[v].begin() + v % 6, fans[v].end());
  }
  std::vector<std::uint32_t> offsets{0}, next, prev;
  std::vector<float> delta4;
  for (const auto& fan : fans) {
    for (const auto& [a, b] : fan) {
      next.push_back(a), prev.push_back(b);
      delta4.insert(delta4.end(), {uniform(random), uniform(random), uniform(random), 0.0f});
    }
    offsets.push_back(static_cast<std::uint32_t>(next.size()));
  }
  const mush::CornerBlocks blocks = mush::CornerBlocks::from_corners(n, offsets, next, prev, delta4);
  EXPECT_EQ(blocks.slot_offsets[2] - blocks.slot_offsets[1], 6u) << "closed fans of 6 need 6 slots, no bridges";
  EXPECT_EQ(std::count(blocks.is_corner.begin(), blocks.is_corner.end(), 1), std::ptrdiff_t(next.size()))
      << "every corner marked once, bridges and padding not";
  auto point = [&](std::uint32_t i) { return Eigen::Vector3d(s[4 * i], s[4 * i + 1], s[4 * i + 2]); };
  EachIsa guard;
  for (simd::Isa isa : EachIsa::all()) {
    SCOPED_TRACE(simd::isa_name(isa));
    simd::set_active_isa(isa);
    std::vector<float> out(s.size(), -1.0f);
    mush::restore_details(blocks, s.data(), out.data(), 0, n);
    for (std::uint32_t i = 0; i < n; ++i) {
      Eigen::Vector3d want = point(i);
      for (std::uint32_t c = offsets[i]; c < offsets[i + 1]; ++c) {
        const Eigen::Vector3d d(delta4[4 * c], delta4[4 * c + 1], delta4[4 * c + 2]);
        want += corner_offset(point(i), point(next[c]), point(prev[c]), d);
      }
      const Eigen::Vector3d got(out[4 * i], out[4 * i + 1], out[4 * i + 2]);
      EXPECT_LT((got - want).norm(), 1e-5) << "vertex " << i;
    }
    // Straight into xyz points plus a centre: the same values, kept vertices and what lies past
    // the last point untouched (none kept: the full group's overlapping 4-wide stores).
    const float centre4[4] = {10.0f, -20.0f, 0.5f, 0.0f};
    for (const std::vector<std::uint32_t>& kept : {std::vector<std::uint32_t>{}, {3, 9}}) {
      std::vector<std::uint8_t> keep(n, 0);
      for (std::uint32_t k : kept) keep[k] = 1;
      std::vector<float> points(3 * n + 1, -7.0f);
      mush::restore_points(blocks, s.data(), centre4, keep, std::span(points).first(3 * n), 0, n);
      for (std::uint32_t i = 0; i < n; ++i) {
        for (int c = 0; c < 3; ++c) {
          EXPECT_EQ(points[3 * i + c], keep[i] ? -7.0f : out[4 * i + c] + centre4[c])
              << "vertex " << i << " of " << kept.size();
        }
      }
      EXPECT_EQ(points[3 * n], -7.0f) << "nothing written past the points";
    }
  }
}

// Sweep rows for the layout tests: a strip of a triangulated grid (rows of 24 vertices: two
// pairs and two singles per vertex, and twins that share all six neighbours), a vertex with 14
// neighbours side by side (7 pairs: the run-time kernel), lanes with one pair among singles
// (split or kept) and a vertex without neighbours.
struct SweepCase {
  std::vector<std::vector<std::uint32_t>> neighbours;  // sorted
  std::vector<float> self, uniform;
  std::uint32_t grid = 0, zero_row = 0;
  mush::SweepRows plain;
};

SweepCase sweep_case() {
  SweepCase c;
  const std::uint32_t columns = 24, rows_of_grid = 5;
  c.grid = columns * rows_of_grid;
  auto& neighbours = c.neighbours;
  neighbours.resize(c.grid + 20);
  auto link = [&](std::uint32_t a, std::uint32_t b) {
    neighbours[a].push_back(b);
    neighbours[b].push_back(a);
  };
  for (std::uint32_t r = 0; r + 1 < rows_of_grid; ++r) {
    for (std::uint32_t k = 0; k + 1 < columns; ++k) {
      const std::uint32_t v = r * columns + k;
      link(v, v + 1), link(v, v + columns), link(v + 1, v + columns), link(v + 1, v + columns + 1);
    }
  }
  const std::uint32_t grid = c.grid, hub = grid;  // 14 neighbours side by side: grid + 2 ... grid + 15
  for (std::uint32_t k = 2; k < 16; ++k) link(hub, grid + k);
  link(grid + 16, grid + 3), link(grid + 16, grid + 9), link(grid + 17, grid + 18);  // grid + 19: none
  const std::size_t n = neighbours.size();
  std::vector<std::uint32_t> offsets{0}, flat;
  for (std::size_t i = 0; i < n; ++i) {
    auto& list = neighbours[i];
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    flat.insert(flat.end(), list.begin(), list.end());
    offsets.push_back(static_cast<std::uint32_t>(flat.size()));
    c.self.push_back(list.empty() ? 1.0f : 0.4f + 0.01f * float(i % 7));
    c.uniform.push_back(list.empty() ? 0.0f : (1.0f - c.self[i]) / float(list.size()));
  }
  c.zero_row = static_cast<std::uint32_t>(mush::padded_rows(n));
  c.plain = mush::SweepRows::from_csr(offsets, flat, {}, c.self, c.uniform, c.zero_row);
  return c;
}

// Every vertex visits the same neighbours in `rows` as in the lists, each once.
void expect_same_neighbours(const mush::SweepRows& rows, const SweepCase& c) {
  for (std::size_t i = 0; i < c.neighbours.size(); ++i) {
    std::vector<std::uint32_t> visited;
    rows.for_each_neighbour(i, [&](std::uint32_t j, float) { visited.push_back(j); });
    std::sort(visited.begin(), visited.end());
    EXPECT_EQ(visited, c.neighbours[i]) << "vertex " << i;
  }
}

// mush::sweep over [0, end) on `rows`, on every instruction set, against the sweep computed in
// double from the lists; rows past the range stay untouched.
void expect_sweeps_match(const mush::SweepRows& rows, const SweepCase& c, std::initializer_list<std::size_t> ends) {
  const std::size_t n = c.neighbours.size();
  std::mt19937 random(9);
  std::uniform_real_distribution<float> unit(-1, 1);
  std::vector<float> in(4 * (c.zero_row + mush::kLanes), 0.0f);
  for (std::size_t i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) in[4 * i + k] = unit(random);
  }
  for (std::size_t end : ends) {
    std::vector<double> want(4 * n, 0.0);
    for (std::size_t i = 0; i < end; ++i) {
      for (int k = 0; k < 4; ++k) {
        double sum = 0;
        for (std::uint32_t j : c.neighbours[i]) sum += in[4 * j + k];
        want[4 * i + k] = double(c.self[i]) * in[4 * i + k] + double(c.uniform[i]) * sum;
      }
    }
    EachIsa guard;
    for (simd::Isa isa : EachIsa::all()) {
      SCOPED_TRACE(simd::isa_name(isa));
      simd::set_active_isa(isa);
      std::vector<float> out(in.size(), 7.0f);
      mush::sweep(rows, in.data(), out.data(), 0, end);
      for (std::size_t i = 0; i < end; ++i) {
        for (int k = 0; k < 4; ++k)
          EXPECT_NEAR(out[4 * i + k], want[4 * i + k], 1e-6) << "vertex " << i << ", end " << end;
      }
      for (std::size_t i = end; i < n; ++i) EXPECT_EQ(out[4 * i], 7.0f) << "vertex " << i << " is past the range";
    }
  }
}

// Paired sweep rows (plan_pairs) compute the same sweep as the plain rows they came from, also
// for a range that ends inside a group.
TEST(RuntimeKernels, DeltaMushPairedSweepsEqualThePlainRows) {
  const SweepCase c = sweep_case();
  mush::SweepRows paired = c.plain;
  const std::size_t saved = mush::plan_pairs(paired);
  ASSERT_FALSE(paired.pairs.empty());
  EXPECT_GE(saved, std::size_t(c.grid)) << "a triangulated grid pairs most of its neighbours";
  EXPECT_GT(*std::max_element(paired.pairs.begin(), paired.pairs.end()), 3u) << "the hub's group keeps its pairs";
  expect_same_neighbours(paired, c);
  expect_sweeps_match(paired, c, {c.neighbours.size(), c.neighbours.size() - 3});
  mush::SweepRows weighted = c.plain;
  weighted.weights.assign(weighted.columns.size(), 0.1f);
  EXPECT_EQ(mush::plan_pairs(weighted), 0u) << "weighted rows stay as they are";
}

// Twinned rows (plan_twins, after plan_pairs or on plain rows) compute the same sweep: the grid's
// twins share their neighbours (one load for two rows), the other groups keep their layout, and a
// range may end between the two vertices of a twin.
TEST(RuntimeKernels, DeltaMushTwinnedSweepsEqualThePlainRows) {
  const SweepCase c = sweep_case();
  for (bool paired_first : {true, false}) {
    SCOPED_TRACE(paired_first ? "after plan_pairs" : "on plain rows");
    mush::SweepRows twinned = c.plain;
    if (paired_first) mush::plan_pairs(twinned);
    const std::size_t before = twinned.row_loads();
    const std::size_t saved = mush::plan_twins(twinned);
    ASSERT_FALSE(twinned.shared.empty());
    EXPECT_EQ(twinned.row_loads(), before - saved);
    EXPECT_GT(saved, 0u);
    for (std::size_t g : {4, 7, 10}) {  // the middle groups of the grid's inner rows: 6 shared, no singles
      EXPECT_EQ(twinned.shared[g], 6u) << "group " << g;
      EXPECT_EQ(twinned.widths[g], 0u) << "group " << g;
    }
    EXPECT_FALSE(twinned.twinned(c.grid / mush::kLanes)) << "the hub's group shares nothing";
    EXPECT_FALSE(twinned.twinned(twinned.widths.size() - 1)) << "a partial group is never twinned";
    expect_same_neighbours(twinned, c);
    expect_sweeps_match(twinned, c, {c.neighbours.size(), c.neighbours.size() - 3, 8 * 5 + 3});
    EXPECT_EQ(mush::plan_twins(twinned), 0u) << "twins are planned once";
  }
  mush::SweepRows weighted = c.plain;
  weighted.weights.assign(weighted.columns.size(), 0.1f);
  EXPECT_EQ(mush::plan_twins(weighted), 0u) << "weighted rows stay as they are";
  EXPECT_TRUE(weighted.shared.empty());
}

// The wavefront on one thread and pipelined over 2 to 4 (each thread a group of consecutive
// sweeps a few chunks behind the group before it) against plain sweeps of the whole range, one
// after another: the same bytes, for a number of sweeps below, at and above the thread count.
TEST(RuntimeKernels, DeltaMushWavefrontOnAnyThreadCountEqualsPlainSweeps) {
  const SweepCase c = sweep_case();
  mush::SweepRows rows = c.plain;
  std::size_t bandwidth = 0;
  for (std::size_t i = 0; i < rows.vertex_count(); ++i)
    rows.for_each_neighbour(
        i, [&](std::uint32_t j, float) { bandwidth = std::max<std::size_t>(bandwidth, i > j ? i - j : j - i); });
  rows.chunk = static_cast<std::uint32_t>(mush::padded_rows(bandwidth));
  ASSERT_GE((rows.vertex_count() + rows.chunk - 1) / rows.chunk, 4u) << "too few chunks to pipeline";
  std::vector<float> start(4 * (std::size_t(rows.zero_row) + mush::kLanes), 0.0f);
  for (std::size_t i = 0; i < rows.vertex_count(); ++i)
    for (int k = 0; k < 3; ++k) start[4 * i + k] = float((i * 7 + k * 3) % 11) - 5.0f;
  for (int iterations : {1, 2, 3, 7, 10}) {
    std::vector<float> a = start, b = start;  // sweep k reads a where k is odd
    for (int k = 1; k <= iterations; ++k)
      mush::sweep(rows, k % 2 ? a.data() : b.data(), k % 2 ? b.data() : a.data(), 0, rows.vertex_count());
    const std::vector<float>& plain = iterations % 2 ? b : a;
    for (std::size_t threads : {1, 2, 3, 4}) {
      ThreadPool pool(threads);
      for (int repeat = 0; repeat < 20; ++repeat) {  // the threads' interleaving differs from run to run
        std::vector<float> x = start, y = start;
        mush::smooth_wavefront(rows, x.data(), y.data(), iterations, pool);
        ASSERT_EQ(iterations % 2 ? y : x, plain) << iterations << " sweeps on " << threads << " threads";
      }
    }
  }
}

// Planned runs (plan_runs) name, per group, the first later group of another shape, as a scan
// finds it; sweeps that look them up compute exactly what sweeps that scan for them do, also
// over a range that starts and ends inside a run. Replanning pairs or twins drops them.
TEST(RuntimeKernels, DeltaMushPlannedRunsEqualTheScan) {
  const SweepCase c = sweep_case();
  mush::SweepRows planned = c.plain;
  mush::plan_pairs(planned);
  mush::plan_twins(planned);
  mush::plan_runs(planned);
  const std::size_t groups = planned.widths.size();
  ASSERT_EQ(planned.run_ends.size(), groups);
  std::size_t runs = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    std::size_t h = g + 1;
    while (h < groups && planned.same_shape(g, h)) ++h;
    EXPECT_EQ(planned.run_ends[g], h) << "group " << g;
    runs += g == 0 || !planned.same_shape(g - 1, g);
  }
  ASSERT_LT(runs, groups) << "some runs span several groups";
  // A range from the second group of the first run of several to 3 rows before that run's end.
  std::size_t inside = 1;
  while (!planned.same_shape(inside - 1, inside)) ++inside;
  const std::size_t begin_inside = mush::kLanes * inside, end_inside = mush::kLanes * planned.run_ends[inside] - 3;
  mush::SweepRows scanned = planned;
  scanned.run_ends.clear();
  std::vector<float> in(4 * (std::size_t(planned.zero_row) + mush::kLanes), 0.0f);
  for (std::size_t i = 0; i < planned.vertex_count(); ++i) {
    for (int k = 0; k < 3; ++k) in[4 * i + k] = float((i * 7 + k * 3) % 11);
  }
  EachIsa guard;
  for (simd::Isa isa : EachIsa::all()) {
    SCOPED_TRACE(simd::isa_name(isa));
    simd::set_active_isa(isa);
    for (auto [begin, end] :
         {std::pair<std::size_t, std::size_t>{0, planned.vertex_count()}, {begin_inside, end_inside}}) {
      std::vector<float> looked_up(in.size(), 7.0f), scanning(in.size(), 7.0f);
      mush::sweep(planned, in.data(), looked_up.data(), begin, end);
      mush::sweep(scanned, in.data(), scanning.data(), begin, end);
      EXPECT_EQ(looked_up, scanning) << "vertices [" << begin << ", " << end << ")";
    }
  }
  mush::SweepRows replanned = c.plain;
  mush::plan_runs(replanned);
  ASSERT_GT(mush::plan_twins(replanned), 0u);
  EXPECT_TRUE(replanned.run_ends.empty()) << "plan_twins changed the shapes: no stale runs";
}

// The SVD solution of max trace(R^T m) with det R = +1.
Eigen::Matrix3d rotation_by_svd(const Mat3f& m) {
  Eigen::JacobiSVD<Eigen::Matrix3d> svd(m.cast<double>(), Eigen::ComputeFullU | Eigen::ComputeFullV);
  Eigen::Matrix3d u = svd.matrixU();
  if ((u * svd.matrixV().transpose()).determinant() < 0) u.col(2) *= -1;
  return u * svd.matrixV().transpose();
}

TEST(RuntimeKernels, EightWideNearestRotationsMatchTheSvd) {
  std::mt19937 random(11);
  std::normal_distribution<float> normal;
  std::vector<Mat3f> m(3001), r(m.size());
  for (std::size_t trial = 0; trial < m.size(); ++trial) {
    for (int k = 0; k < 9; ++k) m[trial].data()[k] = normal(random);
    // Anisotropic (a smoothed covariance times a rotation, as DDM's fits), singular, reflecting.
    if (trial % 3 == 0) {
      m[trial] = Eigen::AngleAxisf(normal(random), Vec3f(normal(random), 1, 2).normalized()).toRotationMatrix() *
                 Vec3f(1.0f, 0.05f, 1e-3f).asDiagonal();
    }
    if (trial % 7 == 0) m[trial].col(2) = m[trial].col(0) * 0.5f + m[trial].col(1);
    if (trial % 11 == 0) m[trial].col(0) *= -1.0f;
  }
  for (simd::Isa isa : simd::runnable_isas()) {
    SCOPED_TRACE(simd::isa_name(isa));
    ddm::table_for(isa).nearest_rotations(m.data(), r.data(), m.size());
    for (std::size_t trial = 0; trial < m.size(); ++trial) {
      EXPECT_NEAR(r[trial].determinant(), 1.0f, 1e-4f) << trial;
      const Eigen::Matrix3d expected = rotation_by_svd(m[trial]);
      const double best = (expected.transpose() * m[trial].cast<double>()).trace();
      EXPECT_GE((r[trial].cast<double>().transpose() * m[trial].cast<double>()).trace(), best - 1e-5 * m[trial].norm())
          << trial;
      // Where the fit is well determined (two largest singular values well apart from 0), the
      // rotation itself matches.
      Eigen::JacobiSVD<Eigen::Matrix3d> svd(m[trial].cast<double>());
      if (svd.singularValues()(1) > 0.1 * svd.singularValues()(0)) {
        EXPECT_LT((r[trial].cast<double>() - expected).norm(), 1e-4) << trial;
      }
    }
  }
}

TEST(RuntimeKernels, DirectDeltaMushMatchesTheReferenceForEveryVariant) {
  const Character tube = test::tube_character({.joints = 4, .rings = 40, .sides = 16});
  Pose pose;
  test::bend_pose(tube, 0.7, pose, 1.0f);
  ThreadPool pool(3);
  EachIsa guard;
  for (DdmVariant variant : {DdmVariant::V0, DdmVariant::V1, DdmVariant::V2, DdmVariant::V3}) {
    SCOPED_TRACE(to_string(variant));
    DirectDeltaMushSettings settings;
    settings.variant = variant;
    DirectDeltaMush ddm;
    ddm.bind(tube.mesh.positions, tube.mesh.triangles, tube.skin, tube.rig.joint_count(), settings);
    simd::set_active_isa(simd::Isa::scalar);
    std::vector<Vec3f> want(tube.mesh.vertex_count());
    ddm.evaluate(pose.skinning, want);
    for (simd::Isa isa : simd::runnable_isas()) {
      SCOPED_TRACE(simd::isa_name(isa));
      simd::set_active_isa(isa);
      std::vector<Vec3f> one(want.size()), three(want.size());
      ddm.evaluate(pose.skinning, one);
      ddm.evaluate(pose.skinning, three, &pool);
      EXPECT_EQ(0, std::memcmp(one.data(), three.data(), one.size() * sizeof(Vec3f)));
      EXPECT_LE(max_distance(one, want), 2e-5 * tube.mesh.size());
    }
  }
}

}  // namespace

}  // namespace wobble
