// The decomposition's two closed-form pieces: weighted Procrustes and simplex least squares.
#include <random>

#include <gtest/gtest.h>

#include "offline/procrustes.hpp"
#include "offline/simplex_least_squares.hpp"

namespace wobble::decomposition {
namespace {

TEST(Procrustes, RecoversAKnownRigidMotionWithWeights) {
  std::mt19937 random(4);
  std::normal_distribution<double> normal;
  const Eigen::Matrix3d rotation = Eigen::Quaterniond(0.3, -0.5, 0.8, 0.1).normalized().toRotationMatrix();
  const Eigen::Vector3d translation(1, -2, 0.5);
  ProcrustesSums sums;
  for (int i = 0; i < 10; ++i) {
    const Eigen::Vector3d p(normal(random), normal(random), normal(random));
    // add_weighted with weight w and q = w (R p + T) is the same problem as add with a = w^2.
    const double w = 0.1 + 0.09 * i;
    sums.add_weighted(w, p, w * (rotation * p + translation));
  }
  BoneTransform fitted;
  ASSERT_TRUE(fit_rigid(sums, fitted));
  EXPECT_LT((fitted.leftCols<3>() - rotation).norm(), 1e-12);
  EXPECT_LT((fitted.col(3) - translation).norm(), 1e-12);
}

TEST(Procrustes, NeverReflects) {
  // Targets mirrored in x: the best rotation, not the mirror.
  ProcrustesSums sums;
  const Eigen::Vector3d points[4] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-1, -1, -1}};
  for (const auto& p : points) sums.add(1.0, p, Eigen::Vector3d(-p.x(), p.y(), p.z()));
  BoneTransform fitted;
  ASSERT_TRUE(fit_rigid(sums, fitted));
  EXPECT_NEAR(fitted.leftCols<3>().determinant(), 1.0, 1e-12);
  ProcrustesSums empty;
  EXPECT_FALSE(fit_rigid(empty, fitted));
}

// KKT conditions of min w^T G w - 2 h^T w on the simplex, checked independently of the solver.
void expect_kkt(const Eigen::MatrixXd& G, const Eigen::VectorXd& h, const Eigen::VectorXd& w) {
  EXPECT_NEAR(w.sum(), 1.0, 1e-12);
  EXPECT_GE(w.minCoeff(), 0.0);
  const Eigen::VectorXd gradient = G * w - h;
  // On the support the gradient is one value (-mu); off it, not smaller.
  double mu = 0;
  int support = 0;
  for (int j = 0; j < w.size(); ++j)
    if (w(j) > 0) mu += gradient(j), ++support;
  mu /= support;
  for (int j = 0; j < w.size(); ++j) {
    if (w(j) > 0) EXPECT_NEAR(gradient(j), mu, 1e-9) << j;
    else EXPECT_GE(gradient(j), mu - 1e-9) << j;
  }
}

TEST(SimplexLeastSquares, MeetsTheOptimalityConditions) {
  std::mt19937 random(8);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 50; ++trial) {
    const int n = 2 + trial % 9;
    Eigen::MatrixXd a(3 * n, n);
    for (int r = 0; r < a.rows(); ++r)
      for (int c = 0; c < n; ++c) a(r, c) = normal(random);
    Eigen::VectorXd b(3 * n);
    for (int r = 0; r < b.size(); ++r) b(r) = normal(random);
    const Eigen::MatrixXd G = a.transpose() * a;
    const Eigen::VectorXd h = a.transpose() * b;
    expect_kkt(G, h, simplex_least_squares(G, h, {}));
    const int start[] = {0, 1};
    expect_kkt(G, h, simplex_least_squares(G, h, start));
  }
}

TEST(SimplexLeastSquares, HandComputedCases) {
  // Two points on a line: min (w0 * 0 + w1 * 1 - t)^2 with w0 + w1 = 1 is w1 = t, inside [0, 1] ...
  Eigen::MatrixXd G(2, 2);
  G << 0, 0, 0, 1;
  Eigen::VectorXd h(2);
  h << 0, 0.3;
  Eigen::VectorXd w = simplex_least_squares(G, h, {});
  EXPECT_NEAR(w(1), 0.3, 1e-12);
  // ... and clamped to the end outside it.
  h << 0, 1.7;
  w = simplex_least_squares(G, h, {});
  EXPECT_NEAR(w(1), 1.0, 1e-12);
  EXPECT_EQ(w(0), 0.0);
}

TEST(SimplexLeastSquares, SparseKeepsAtMostK) {
  std::mt19937 random(2);
  std::normal_distribution<double> normal;
  const int n = 8;
  Eigen::MatrixXd a(n, n);
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) a(r, c) = normal(random);
  const Eigen::MatrixXd G = a.transpose() * a + Eigen::MatrixXd::Identity(n, n);
  const Eigen::VectorXd h = Eigen::VectorXd::Constant(n, 0.5);  // the dense optimum uses every index
  ASSERT_GT((simplex_least_squares(G, h, {}).array() > 0).count(), 2);
  const Eigen::VectorXd w = sparse_simplex_least_squares(G, h, {}, 2);
  EXPECT_LE((w.array() > 0).count(), 2);
  EXPECT_NEAR(w.sum(), 1.0, 1e-12);
}

}  // namespace
}  // namespace wobble::decomposition
