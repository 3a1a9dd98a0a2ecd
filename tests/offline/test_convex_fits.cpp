// The decomposition's two closed-form pieces: weighted Procrustes and simplex least squares.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

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
    if (w(j) > 0)
      EXPECT_NEAR(gradient(j), mu, 1e-9) << j;
    else
      EXPECT_GE(gradient(j), mu - 1e-9) << j;
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

double objective(const Eigen::MatrixXd& G, const Eigen::VectorXd& h, const Eigen::VectorXd& w) {
  return w.dot(G * w) - 2 * h.dot(w);
}

// The simplex least squares over the indices `support` alone, as a full-length vector.
Eigen::VectorXd over_support(const Eigen::MatrixXd& G, const Eigen::VectorXd& h, const std::vector<int>& support) {
  const int m = static_cast<int>(support.size());
  Eigen::MatrixXd sub_g(m, m);
  Eigen::VectorXd sub_h(m);
  for (int a = 0; a < m; ++a) {
    sub_h(a) = h(support[a]);
    for (int b = 0; b < m; ++b) sub_g(a, b) = G(support[a], support[b]);
  }
  const Eigen::VectorXd sub_w = simplex_least_squares(sub_g, sub_h, {});
  Eigen::VectorXd w = Eigen::VectorXd::Zero(h.size());
  for (int a = 0; a < m; ++a) w(support[a]) = sub_w(a);
  return w;
}

// The exact K-sparse optimum: every support of K indices tried.
double best_over_all_supports(const Eigen::MatrixXd& G, const Eigen::VectorXd& h, int most) {
  const int n = static_cast<int>(h.size());
  std::vector<bool> chosen(static_cast<std::size_t>(n), false);
  std::fill(chosen.begin(), chosen.begin() + most, true);
  double best = std::numeric_limits<double>::infinity();
  do {
    std::vector<int> support;
    for (int j = 0; j < n; ++j)
      if (chosen[static_cast<std::size_t>(j)]) support.push_back(j);
    best = std::min(best, objective(G, h, over_support(G, h, support)));
  } while (std::prev_permutation(chosen.begin(), chosen.end()));
  return best;
}

// Points a_j (columns of A) and a target b: min |A w - b|^2 over convex combinations of at most K
// points. Keeping the dense optimum's K largest weights is often not the best K points. The sparse
// solver's swaps (a heuristic: the exact choice is combinatorial) must never be worse than that
// guess and must mend most of its misses, against every support tried.
TEST(SimplexLeastSquares, SparseMendsMostOfWhatTruncationMisses) {
  std::mt19937 random(11);
  std::normal_distribution<double> normal;
  int truncation_missed = 0, mended = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 7, most = 2 + trial % 2;
    Eigen::MatrixXd a(4, n);
    for (int r = 0; r < a.rows(); ++r)
      for (int c = 0; c < n; ++c) a(r, c) = normal(random);
    Eigen::VectorXd b(4);
    for (int r = 0; r < b.size(); ++r) b(r) = 0.3 * normal(random);
    const Eigen::MatrixXd G = a.transpose() * a + 1e-3 * Eigen::MatrixXd::Identity(n, n);
    const Eigen::VectorXd h = a.transpose() * b;
    const Eigen::VectorXd dense = simplex_least_squares(G, h, {});
    if ((dense.array() > 0).count() <= most) continue;
    std::vector<int> largest(static_cast<std::size_t>(n));
    std::iota(largest.begin(), largest.end(), 0);
    std::sort(largest.begin(), largest.end(), [&](int i, int j) { return dense(i) > dense(j); });
    largest.resize(static_cast<std::size_t>(most));
    const double truncated = objective(G, h, over_support(G, h, largest));
    const double best = best_over_all_supports(G, h, most);
    const Eigen::VectorXd w = sparse_simplex_least_squares(G, h, {}, most);
    EXPECT_LE((w.array() > 0).count(), most);
    EXPECT_NEAR(w.sum(), 1.0, 1e-12);
    const double found = objective(G, h, w);
    EXPECT_LE(found, truncated + 1e-12) << "trial " << trial;
    if (truncated <= best + 1e-6) continue;
    ++truncation_missed;
    if (found <= best + 1e-9 * std::max(1.0, std::abs(best))) ++mended;
  }
  EXPECT_GT(truncation_missed, 10);  // the case this guards is common, not a corner
  std::printf("truncation missed the best support %d times, the swaps found it %d times\n", truncation_missed, mended);
  EXPECT_GE(4 * mended, 3 * truncation_missed);
}

// Hand-computed: points on a line at 0, 1, 2, 4, the target at 1.5, at most two, a 1e-2 ridge.
// The dense optimum spreads as 0.25 - (a_j - 1.75) / 35 (0.30, 0.27, 0.24, 0.19): its largest two,
// {0, 1}, reach 1 at best; one swap finds {1, 2}, half and half, exact with the least weight norm.
TEST(SimplexLeastSquares, SparseHandComputedCase) {
  Eigen::MatrixXd a(1, 4);
  a << 0, 1, 2, 4;
  const Eigen::MatrixXd G = a.transpose() * a + 1e-2 * Eigen::MatrixXd::Identity(4, 4);
  const Eigen::VectorXd h = a.transpose() * Eigen::VectorXd::Constant(1, 1.5);
  const Eigen::VectorXd w = sparse_simplex_least_squares(G, h, {}, 2);
  EXPECT_NEAR(w(1), 0.5, 1e-9);
  EXPECT_NEAR(w(2), 0.5, 1e-9);
  EXPECT_EQ(w(0), 0.0);
  EXPECT_EQ(w(3), 0.0);
}

}  // namespace
}  // namespace wobble::decomposition
