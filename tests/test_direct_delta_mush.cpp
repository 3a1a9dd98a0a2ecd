// Direct Delta Mush: exact rest pose and rigid motions, proper rotations (det +1), closeness to
// Delta Mush on real characters, degenerate meshes, bind mismatch, thread determinism, the CLI.
#include <cmath>
#include <cstring>
#include <numbers>
#include <random>

#include <gtest/gtest.h>

#include <wobble/offline/bake.hpp>
#include <wobble/delta_mush.hpp>
#include <wobble/direct_delta_mush.hpp>
#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/lbs.hpp>
#include <wobble/parallel.hpp>
#include <wobble/pose.hpp>

#include <Eigen/LU>
#include <Eigen/SVD>

#include "deform/implicit_smoothing.hpp"
#include "synthetic_rigs.hpp"
#include "test_util.hpp"

using namespace wobble;

namespace {

constexpr float kPi = std::numbers::pi_v<float>;

double max_distance(std::span<const Vec3f> a, std::span<const Vec3f> b) {
  double worst = 0;
  for (std::size_t v = 0; v < a.size(); ++v) worst = std::max<double>(worst, (a[v] - b[v]).norm());
  return worst;
}

// Every variant, for the loops over them.
constexpr DdmVariant kVariants[] = {DdmVariant::V0, DdmVariant::V1, DdmVariant::V2, DdmVariant::V3};

std::vector<DirectDeltaMushSettings> variants() {
  std::vector<DirectDeltaMushSettings> list;
  for (DdmVariant variant : kVariants) {
    DirectDeltaMushSettings s;
    s.variant = variant;
    list.push_back(s);
    s.smoothing = MushSmoothing::Cotangent;
    s.iterations = 3;
    s.step = 2.0;
    list.push_back(s);
  }
  return list;
}

Character figure() { return load_character(test::shared_asset("characters/RiggedFigure/RiggedFigure.gltf")); }

}  // namespace

TEST(NearestRotation, IsAProperRotationClosestToTheMatrix) {
  std::mt19937 random(7);
  std::normal_distribution<float> normal;
  for (int trial = 0; trial < 2000; ++trial) {
    Mat3f m;
    for (int k = 0; k < 9; ++k) m.data()[k] = normal(random);
    if (trial % 3 == 0) m.col(2) = m.col(0) * 0.5f + m.col(1);  // singular
    if (trial % 5 == 0)
      m = Eigen::AngleAxisf(normal(random), Vec3f(1, 2, 3).normalized()).toRotationMatrix() *
          Vec3f(3, 1, 0.01f).asDiagonal();
    const Mat3f r = nearest_rotation(m);
    EXPECT_NEAR(r.determinant(), 1.0f, 1e-4f) << trial;
    EXPECT_LE((r.transpose() * r - Mat3f::Identity()).norm(), 1e-4f) << trial;
    // Compare with the SVD solution of max trace(R^T m).
    Eigen::JacobiSVD<Eigen::Matrix3d> svd(m.cast<double>(), Eigen::ComputeFullU | Eigen::ComputeFullV);
    Eigen::Matrix3d u = svd.matrixU();
    if ((u * svd.matrixV().transpose()).determinant() < 0) u.col(2) *= -1;
    const Eigen::Matrix3d expected = u * svd.matrixV().transpose();
    const double best = (expected.transpose() * m.cast<double>()).trace();
    EXPECT_GE((r.cast<double>().transpose() * m.cast<double>()).trace(), best - 1e-4 * m.norm()) << trial;
  }
  EXPECT_TRUE(nearest_rotation(Mat3f::Zero()).isIdentity());
}

TEST(ImplicitSmoothing, MatchesADenseSolveOfTheNonSymmetricSystem) {
  // A small irregular mesh: a fan, a strip and an isolated vertex; cotangent-like weights with a
  // vertex whose edges all weigh 0.
  const std::vector<Triangle> triangles = {{0, 1, 2}, {0, 2, 3}, {0, 3, 4}, {0, 4, 1}, {4, 3, 5}, {5, 3, 6}};
  const std::vector<Edge> edges = unique_edges(triangles);
  const std::size_t n = 8;  // vertex 7 is isolated
  std::vector<double> weight(edges.size());
  for (std::size_t e = 0; e < edges.size(); ++e) weight[e] = 0.2 + 0.37 * double((e * 7) % 5);
  for (std::size_t e = 0; e < edges.size(); ++e) {
    if (edges[e].a == 6 || edges[e].b == 6) weight[e] = 0.0;
  }
  const double lambda = 0.8;
  const ImplicitSmoothing smoothing(n, edges, weight, lambda);
  // The dense A = I + lambda (I - D^-1 W), with vertex 6's row uniform.
  Eigen::MatrixXd w = Eigen::MatrixXd::Zero(n, n);
  for (std::size_t e = 0; e < edges.size(); ++e) w(edges[e].a, edges[e].b) = w(edges[e].b, edges[e].a) = weight[e];
  Eigen::MatrixXd a = Eigen::MatrixXd::Identity(n, n);
  for (std::size_t i = 0; i < n; ++i) {
    const double sum = w.row(i).sum();
    if (sum == 0) {
      // Uniform over the vertex's mesh neighbours (vertex 6), or untouched (isolated vertex 7).
      std::vector<std::uint32_t> neighbours;
      for (const Edge& e : edges) {
        if (e.a == i) neighbours.push_back(e.b);
        if (e.b == i) neighbours.push_back(e.a);
      }
      if (neighbours.empty()) continue;
      a(i, i) += lambda;
      for (std::uint32_t j : neighbours) a(i, j) -= lambda / double(neighbours.size());
      continue;
    }
    a(i, i) += lambda;
    for (std::size_t j = 0; j < n; ++j) a(i, j) -= lambda * w(i, j) / sum;
  }
  EXPECT_GT((a - a.transpose()).norm(), 0.1);  // really not symmetric
  std::mt19937 random(3);
  std::uniform_real_distribution<double> uniform(-1, 1);
  const std::size_t columns = 3;
  Eigen::MatrixXd y(n, columns);
  for (std::size_t k = 0; k < n * columns; ++k) y.data()[k] = uniform(random);
  std::vector<double> block(n * columns);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t c = 0; c < columns; ++c) block[i * columns + c] = y(i, c);
  }
  smoothing.solve(block, columns);
  const Eigen::MatrixXd expected = a.fullPivLu().solve(y);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t c = 0; c < columns; ++c) {
      // Vertex 6 and its neighbours see the tiny symmetric stand-in weight (1e-9 relative).
      EXPECT_NEAR(block[i * columns + c], expected(i, c), 1e-7) << i << " " << c;
    }
  }
  EXPECT_LT(smoothing.last_iterations(), 40);
}

TEST(DirectDeltaMush, RestPoseAndRigidMotionAreExactForEveryVariant) {
  const Character character = figure();
  const Mesh& mesh = character.mesh;
  const float size = mesh.size();
  Pose rest;
  evaluate_pose(character.rig, nullptr, 0.0f, rest);
  // The rest pose of the rig need not be the bind pose: use identity skinning matrices for "rest".
  const std::vector<Mat4f> identity(character.rig.joint_count(), Mat4f::Identity());
  Mat4f rigid = Mat4f::Identity();
  rigid.topLeftCorner<3, 3>() = Eigen::AngleAxisf(2.0f, Vec3f(1, -1, 0.5f).normalized()).toRotationMatrix();
  rigid.topRightCorner<3, 1>() = Vec3f(0.3f, 1.0f, -2.0f) * size;
  const std::vector<Mat4f> moved(character.rig.joint_count(), rigid);
  for (const DirectDeltaMushSettings& settings : variants()) {
    DirectDeltaMush ddm;
    ddm.bind(mesh.positions, mesh.triangles, character.skin, character.rig.joint_count(), settings);
    std::vector<Vec3f> positions(mesh.vertex_count());
    std::vector<Mat3f> rotations(mesh.vertex_count());
    ddm.evaluate(identity, positions, nullptr, rotations);
    EXPECT_LE(max_distance(positions, mesh.positions), 1e-6 * size) << to_string(settings.variant);
    ddm.evaluate(moved, positions, nullptr, rotations);
    std::vector<Vec3f> expected(mesh.vertex_count());
    for (std::size_t v = 0; v < expected.size(); ++v) expected[v] = (rigid * mesh.positions[v].homogeneous()).head<3>();
    EXPECT_LE(max_distance(positions, expected), 1e-5 * size) << to_string(settings.variant);
  }
}

TEST(DirectDeltaMush, RotationsAreProperOnAnimatedCharacters) {
  for (const char* file : {"characters/RiggedFigure/RiggedFigure.gltf", "characters/wipf.glb"}) {
    const Character character = load_character(test::shared_asset(file));
    for (DdmVariant variant : kVariants) {
      DirectDeltaMushSettings settings;
      settings.variant = variant;
      DirectDeltaMush ddm;
      ddm.bind(character.mesh.positions, character.mesh.triangles, character.skin, character.rig.joint_count(),
               settings);
      const Clip& clip = character.clips[0];
      Pose pose;
      std::vector<Vec3f> positions(character.mesh.vertex_count());
      std::vector<Mat3f> rotations(character.mesh.vertex_count());
      double worst_det = 0, worst_orthogonality = 0;
      for (int k = 0; k <= 8; ++k) {
        evaluate_pose(character.rig, &clip, clip.start() + clip.duration() * k / 8.0f, pose);
        ddm.evaluate(pose.skinning, positions, nullptr, rotations);
        // Without rotations asked for, v3 runs its AVX2 kernel (with them, the scalar loop): the same positions.
        std::vector<Vec3f> alone(positions.size());
        ddm.evaluate(pose.skinning, alone);
        EXPECT_LE(max_distance(alone, positions), 1e-5 * character.mesh.size()) << file << " " << to_string(variant);
        for (const Mat3f& r : rotations) {
          worst_det = std::max<double>(worst_det, std::abs(r.determinant() - 1.0f));
          worst_orthogonality = std::max<double>(worst_orthogonality, (r.transpose() * r - Mat3f::Identity()).norm());
        }
        for (const Vec3f& p : positions) ASSERT_TRUE(p.allFinite());
      }
      EXPECT_LT(worst_det, 1e-4) << file << " " << to_string(variant);
      EXPECT_LT(worst_orthogonality, 1e-4) << file << " " << to_string(variant);
    }
  }
}

TEST(DirectDeltaMush, StaysCloseToDeltaMushOnRealCharacters) {
  // DDM approximates Delta Mush: compare both (and LBS) over each character's first clip.
  struct Bound {
    const char* file;
    double rms, max;  // relative to the character size, for v0
  };
  for (const Bound bound : {Bound{"characters/RiggedFigure/RiggedFigure.gltf", 0.01, 0.05},
                            Bound{"characters/wipf.glb", 0.01, 0.06}, Bound{"characters/clonk.glb", 0.01, 0.06}}) {
    const Character character = load_character(test::shared_asset(bound.file));
    const float size = character.mesh.size();
    BakeOptions options;
    options.fps = 10;
    options.stack = StackDescription::parse("lbs,deltamush");
    options.settings = test::settings_of({{"deltamush", {{"iterations", 10}, {"step", 0.5}}}});
    const BakedFrames mush = bake(character, options);
    options.stack = StackDescription::parse("lbs");
    options.settings = StackSettings();
    const BakedFrames lbs = bake(character, options);
    auto compare = [&](const BakedFrames& other, double& rms, double& max) {
      double sum2 = 0;
      std::size_t count = 0;
      max = 0;
      for (std::size_t k = 0; k < mush.positions.size(); ++k) {
        for (std::size_t v = 0; v < character.mesh.vertex_count(); ++v) {
          const double d = (mush.positions[k][v] - other.positions[k][v]).norm() / size;
          sum2 += d * d, max = std::max(max, d), ++count;
        }
      }
      rms = std::sqrt(sum2 / double(count));
    };
    double lbs_rms, lbs_max;
    compare(lbs, lbs_rms, lbs_max);
    std::printf(
        "%s (%zu vertices, %zu frames): distance to Delta Mush (10 iterations, step 0.5), relative to the size:\n"
        "  lbs     rms %.5f max %.5f\n",
        bound.file, character.mesh.vertex_count(), mush.positions.size(), lbs_rms, lbs_max);
    for (DdmVariant v : kVariants) {
      const char* variant = to_string(v);
      options.stack = StackDescription::parse("lbs,ddm");
      options.settings = test::settings_of({{"ddm", {{"variant", variant}}}});
      const BakedFrames ddm = bake(character, options);
      double rms, max;
      compare(ddm, rms, max);
      std::printf("  ddm %s  rms %.5f max %.5f\n", variant, rms, max);
      if (v == DdmVariant::V0) {
        EXPECT_LT(rms, bound.rms) << bound.file;
        EXPECT_LT(max, bound.max) << bound.file;
      }
      EXPECT_LT(rms, 3 * bound.rms) << bound.file << " " << variant;
    }
  }
}

TEST(DirectDeltaMush, DegenerateMeshesGiveFiniteOutput) {
  std::vector<Vec3f> rest = {{0, 0, 0},        {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0.5f, 0.5f, 1},
                             {0.5f, 0.5f, -1}, {2, 0, 0}, {3, 0, 0}, {5, 5, 5}, {2, 1, 0}};
  std::vector<Triangle> triangles = {{0, 1, 2}, {1, 3, 2}, {1, 2, 4}, {1, 2, 5},
                                     {1, 6, 7}, {3, 3, 9}, {1, 6, 3}, {6, 9, 3}};
  Skin skin;
  for (std::size_t v = 0; v < rest.size(); ++v) {
    const float w = std::clamp(rest[v].x() / 3.0f, 0.0f, 1.0f);
    std::vector<Influence> influences = {{0, 1 - w}, {1, w}};
    skin.add_vertex(influences);
  }
  Mat4f bend = Mat4f::Identity();
  bend.topLeftCorner<3, 3>() = Eigen::AngleAxisf(0.8f, Vec3f::UnitZ()).toRotationMatrix();
  const std::vector<Mat4f> pose = {Mat4f::Identity(), bend};
  for (const DirectDeltaMushSettings& settings : variants()) {
    DirectDeltaMush ddm;
    ddm.bind(rest, triangles, skin, 2, settings);
    std::vector<Vec3f> positions(rest.size());
    std::vector<Mat3f> rotations(rest.size());
    ddm.evaluate(pose, positions, nullptr, rotations);
    for (std::size_t v = 0; v < rest.size(); ++v) {
      ASSERT_TRUE(positions[v].allFinite()) << v;
      EXPECT_NEAR(rotations[v].determinant(), 1.0f, 1e-4f);
      EXPECT_LT((positions[v] - rest[v]).norm(), 10.0f);
    }
    // The isolated vertex moves with linear blending of its (own) weights.
    const Vec3f isolated = ((1 - 1.0f) * rest[8] + 1.0f * (bend * rest[8].homogeneous()).head<3>());
    EXPECT_LE((positions[8] - isolated).norm(), 1e-4f);
    const std::vector<Mat4f> identity(2, Mat4f::Identity());
    ddm.evaluate(identity, positions);
    EXPECT_LE(max_distance(positions, rest), 1e-5);
  }
}

TEST(DirectDeltaMush, CheapVariantsTurnAlongTheGeodesicBetweenTheJoints) {
  // A tube along x, two joints with a ramp; joint 1 turns by theta about z. Blending the joints'
  // rotations (v2: polar factor of the blended matrix, v3: normalised quaternion blend) gives,
  // per vertex, a turn about z by an angle between 0 and theta.
  const int rings = 30, sides = 12;
  std::vector<Vec3f> rest;
  std::vector<Triangle> triangles;
  Skin skin;
  for (int r = 0; r < rings; ++r) {
    for (int s = 0; s < sides; ++s) {
      const float a = 2 * kPi * s / sides, x = 3.0f * r / (rings - 1);
      rest.emplace_back(x, std::cos(a), std::sin(a));
      const float w = std::clamp(x - 1.0f, 0.0f, 1.0f);
      std::vector<Influence> influences = {{0, 1 - w}, {1, w}};
      skin.add_vertex(influences);
    }
  }
  auto at = [&](int r, int s) { return static_cast<std::uint32_t>(r * sides + (s % sides)); };
  for (int r = 0; r + 1 < rings; ++r) {
    for (int s = 0; s < sides; ++s) {
      triangles.push_back({at(r, s), at(r + 1, s + 1), at(r + 1, s)});
      triangles.push_back({at(r, s), at(r, s + 1), at(r + 1, s + 1)});
    }
  }
  const float theta = 1.3f;
  Mat4f bend = Mat4f::Identity();
  bend.topLeftCorner<3, 3>() = Eigen::AngleAxisf(theta, Vec3f::UnitZ()).toRotationMatrix();
  bend.topRightCorner<3, 1>() = Vec3f(1.5f, 0, 0) - bend.topLeftCorner<3, 3>() * Vec3f(1.5f, 0, 0);
  const std::vector<Mat4f> pose = {Mat4f::Identity(), bend};
  for (DdmVariant variant : {DdmVariant::V2, DdmVariant::V3}) {
    DirectDeltaMushSettings settings;
    settings.variant = variant;
    DirectDeltaMush ddm;
    ddm.bind(rest, triangles, skin, 2, settings);
    std::vector<Vec3f> positions(rest.size());
    std::vector<Mat3f> rotations(rest.size());
    ddm.evaluate(pose, positions, nullptr, rotations);
    float smallest = theta, largest = 0;
    for (std::size_t v = 0; v < rest.size(); ++v) {
      const Mat3f& r = rotations[v];
      ASSERT_LE((r * Vec3f::UnitZ() - Vec3f::UnitZ()).norm(), 1e-5f) << to_string(variant) << " vertex " << v;
      const float angle = std::atan2(r(1, 0), r(0, 0));
      EXPECT_GE(angle, -1e-5f) << to_string(variant) << " vertex " << v;
      EXPECT_LE(angle, theta + 1e-5f) << to_string(variant) << " vertex " << v;
      smallest = std::min(smallest, angle), largest = std::max(largest, angle);
    }
    EXPECT_LT(smallest, 0.05f * theta) << to_string(variant);  // the ends follow their joints
    EXPECT_GT(largest, 0.95f * theta) << to_string(variant);
  }
}

TEST(DirectDeltaMush, BindMismatchAndBadSettingsAreClearErrors) {
  const Character character = figure();
  DirectDeltaMush ddm;
  ddm.bind(character.mesh.positions, character.mesh.triangles, character.skin, character.rig.joint_count(), {});
  std::vector<Vec3f> other = character.mesh.positions;
  other[0].y() += 1;
  try {
    ddm.check_same_mesh(other, character.mesh.triangles);
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("another mesh"), std::string::npos);
  }
  std::vector<Vec3f> fewer(3);
  const std::vector<Mat4f> identity(character.rig.joint_count(), Mat4f::Identity());
  EXPECT_THROW(ddm.evaluate(identity, fewer), Error);
  DirectDeltaMushSettings bad;
  bad.iterations = 0;
  EXPECT_THROW(
      ddm.bind(character.mesh.positions, character.mesh.triangles, character.skin, character.rig.joint_count(), bad),
      Error);
  EXPECT_THROW(parse_ddm_variant("v9"), Error);
  EXPECT_THROW(ddm.bind(character.mesh.positions, character.mesh.triangles, character.skin, 1, {}), Error);
}

TEST(DirectDeltaMush, IdenticalBytesForAnyThreadCount) {
  const Character character = load_character(test::shared_asset("characters/clonk.glb"));
  DirectDeltaMush ddm;
  ddm.bind(character.mesh.positions, character.mesh.triangles, character.skin, character.rig.joint_count(), {});
  Pose pose;
  evaluate_pose(character.rig, &character.clips[0], 0.3f, pose);
  std::vector<Vec3f> one(character.mesh.vertex_count()), two(character.mesh.vertex_count());
  ddm.evaluate(pose.skinning, one, nullptr);
  ThreadPool pool(3);
  ddm.evaluate(pose.skinning, two, &pool);
  EXPECT_EQ(std::memcmp(one.data(), two.data(), one.size() * sizeof(Vec3f)), 0);
}

TEST(DirectDeltaMushCli, BakesWithTheVariantFlag) {
  test::ScratchDir scratch;
  const std::string input = test::shared_asset("characters/RiggedFigure/RiggedFigure.gltf").string();
  for (DdmVariant v : kVariants) {
    const char* variant = to_string(v);
    const auto out = scratch / (std::string(variant) + ".pc2");
    const auto result = test::run_wobble("bake '" + input + "' --clip 0 --fps 10 --deformer lbs,ddm --ddm-variant " +
                                         variant + " -q -o '" + out.string() + "'");
    ASSERT_EQ(result.exit_code, 0) << result.output;
    const auto frames = read_pc2(out);
    ASSERT_FALSE(frames.empty());
    for (const Vec3f& p : frames.back()) ASSERT_TRUE(p.allFinite());
  }
  const auto result = test::run_wobble("bake '" + input + "' --deformer lbs,ddm --ddm-variant v7 -q -o '" +
                                       (scratch / "bad.pc2").string() + "'");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("--ddm-variant: 'v7' is not one of v0, v1, v2, v3"), std::string::npos) << result.output;
}
