// Direct Delta Mush on procedural meshes: the nearest proper rotation against the SVD, the
// implicit smoothing against a dense solve, degenerate meshes give finite output, and the cheap
// variants turn along the geodesic between the joints.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include <gtest/gtest.h>

#include <wobble/delta_mush.hpp>
#include <wobble/direct_delta_mush.hpp>
#include <wobble/skin.hpp>

#include <Eigen/LU>
#include <Eigen/SVD>

#include "deform/implicit_smoothing.hpp"
#include "mush_cases.hpp"

using namespace wobble;

namespace {

constexpr float kPi = std::numbers::pi_v<float>;
using test::max_distance;
using test::variants;

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
