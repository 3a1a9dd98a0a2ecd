// The surface quality ratio of a subspace: the cotangent Laplacian against closed forms, the
// Spectra bound against a dense eigensolver, the ratio's invariance and optimum.
#include <cmath>
#include <limits>
#include <map>

#include <Eigen/Eigenvalues>
#include <gtest/gtest.h>

#include <wobble/error.hpp>
#include <wobble/neural/polynomial_field.hpp>
#include <wobble/neural/subspace_quality.hpp>

using namespace wobble;
using namespace wobble::neural;

namespace {

// An icosphere of radius 1: the icosahedron with each triangle split 4 ways `levels` times,
// vertices pushed onto the sphere (welded through a midpoint cache).
Mesh icosphere(int levels, const Eigen::Vector3f& offset = Eigen::Vector3f::Zero()) {
  const float t = (1.0f + std::sqrt(5.0f)) / 2;
  Mesh m;
  for (const Eigen::Vector3f& p :
       {Eigen::Vector3f(-1, t, 0), Eigen::Vector3f(1, t, 0), Eigen::Vector3f(-1, -t, 0), Eigen::Vector3f(1, -t, 0),
        Eigen::Vector3f(0, -1, t), Eigen::Vector3f(0, 1, t), Eigen::Vector3f(0, -1, -t), Eigen::Vector3f(0, 1, -t),
        Eigen::Vector3f(t, 0, -1), Eigen::Vector3f(t, 0, 1), Eigen::Vector3f(-t, 0, -1), Eigen::Vector3f(-t, 0, 1)})
    m.positions.push_back(p.normalized());
  m.triangles = {{0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                 {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                 {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  for (int l = 0; l < levels; ++l) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> middle;
    auto mid = [&](std::uint32_t a, std::uint32_t b) {
      const auto key = std::minmax(a, b);
      auto [it, fresh] = middle.try_emplace(key, static_cast<std::uint32_t>(m.positions.size()));
      if (fresh) m.positions.push_back((m.positions[a] + m.positions[b]).normalized());
      return it->second;
    };
    std::vector<Triangle> finer;
    for (const Triangle& f : m.triangles) {
      const std::uint32_t ab = mid(f[0], f[1]), bc = mid(f[1], f[2]), ca = mid(f[2], f[0]);
      finer.insert(finer.end(), {{f[0], ab, ca}, {f[1], bc, ab}, {f[2], ca, bc}, {ab, bc, ca}});
    }
    m.triangles = finer;
  }
  for (auto& p : m.positions) p += offset;
  return m;
}

// The generalised eigenpairs of (L, M) by a dense solver, ascending.
Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> dense_eigen(const SurfaceOperator& op) {
  const Eigen::MatrixXd L(op.laplacian), M(op.mass.asDiagonal());
  return Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd>(L, M);
}

Eigen::MatrixXd with_constant(const Eigen::MatrixXd& W) {
  Eigen::MatrixXd out(W.rows(), W.cols() + 1);
  out.col(0).setOnes();
  out.rightCols(W.cols()) = W;
  return out;
}

}  // namespace

TEST(SubspaceQuality, CotangentLaplacianIsExactForLinearFunctionsOnAFlatPatch) {
  // A 5 x 5 grid in the plane z = 0 with jittered interior vertices: L x = 0 away from the border.
  Mesh m;
  for (int j = 0; j < 5; ++j)
    for (int i = 0; i < 5; ++i) {
      const bool inner = i > 0 && i < 4 && j > 0 && j < 4;
      m.positions.emplace_back(i + (inner ? 0.2f * std::sin(3.0f * i + j) : 0),
                               j + (inner ? 0.2f * std::cos(i + 2.0f * j) : 0), 0);
    }
  for (std::uint32_t j = 0; j < 4; ++j)
    for (std::uint32_t i = 0; i < 4; ++i) {
      const std::uint32_t a = j * 5 + i;
      m.triangles.push_back({a, a + 1, a + 6});
      m.triangles.push_back({a, a + 6, a + 5});
    }
  const SurfaceOperator op = surface_operator(m);
  ASSERT_EQ(op.vertices.size(), 25u);
  EXPECT_EQ(op.components, 1);
  EXPECT_NEAR(op.mass.sum(), 16.0, 1e-9);  // the patch's area
  Eigen::VectorXd x(25), y(25);
  for (int v = 0; v < 25; ++v) x[v] = op.vertices[v].x(), y[v] = op.vertices[v].y();
  const Eigen::VectorXd Lx = op.laplacian * x, Ly = op.laplacian * y;
  for (int v = 0; v < 25; ++v) {
    const Vec3d& p = op.vertices[v];
    if (p.x() > 0.5 && p.x() < 3.5 && p.y() > 0.5 && p.y() < 3.5) {
      EXPECT_NEAR(Lx[v], 0, 1e-9);
      EXPECT_NEAR(Ly[v], 0, 1e-9);
    }
  }
  // The Dirichlet energy of x is the patch's area (|grad x| = 1), exactly for a linear function.
  EXPECT_NEAR(x.dot(op.laplacian * x), 16.0, 1e-9);
}

TEST(SubspaceQuality, BoundMatchesADenseSolverAndTheLowestEigenvectorsAreOptimal) {
  const SurfaceOperator op = surface_operator(icosphere(2));  // 162 vertices
  ASSERT_EQ(op.vertices.size(), 162u);
  EXPECT_EQ(op.components, 1);
  const auto dense = dense_eigen(op);
  const int K = 8;
  const Eigen::VectorXd bound = lowest_nonzero_eigenvalues(op, K);
  EXPECT_NEAR(dense.eigenvalues()[0], 0, 1e-9);
  for (int k = 0; k < K; ++k) EXPECT_NEAR(bound[k], dense.eigenvalues()[k + 1], 1e-8 * dense.eigenvalues()[K]);
  // The sphere's spectrum: l = 1 (three eigenvalues near 2), then l = 2 (five near 6).
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(bound[k], 2.0, 0.1);
  for (int k = 3; k < 8; ++k) EXPECT_NEAR(bound[k], 6.0, 0.5);

  const Eigen::MatrixXd lowest = dense.eigenvectors().middleCols(1, K);
  const SubspaceQuality best = subspace_quality(op, with_constant(lowest), true, bound);
  EXPECT_EQ(best.fields, K);
  EXPECT_NEAR(best.ratio, 1.0, 1e-8);
  // Any invertible recombination, plus any multiple of the constant, spans the same subspace.
  Eigen::MatrixXd mix = Eigen::MatrixXd::Random(K, K) + 3 * Eigen::MatrixXd::Identity(K, K);
  Eigen::MatrixXd recombined = lowest * mix;
  recombined.rowwise() += Eigen::RowVectorXd::LinSpaced(K, -2, 5);
  EXPECT_NEAR(subspace_quality(op, recombined, false, bound).ratio, 1.0, 1e-8);
  // Replacing one direction by a higher eigenvector costs exactly its eigenvalue gap.
  Eigen::MatrixXd worse = lowest;
  worse.col(K - 1) = dense.eigenvectors().col(K + 4);
  EXPECT_NEAR(subspace_quality(op, worse, false, bound).dirichlet_trace,
              bound.sum() - bound[K - 1] + dense.eigenvalues()[K + 4], 1e-8 * bound.sum());
}

TEST(SubspaceQuality, CoordinatesOnASphereAreNearlyOptimalAndRandomFieldsAreNot) {
  const Mesh sphere = icosphere(3);  // 642 vertices
  const SurfaceOperator op = surface_operator(sphere);
  Eigen::MatrixXd xyz(op.vertices.size(), 3);
  for (std::size_t v = 0; v < op.vertices.size(); ++v)
    xyz.row(static_cast<Eigen::Index>(v)) = op.vertices[v].transpose();
  const SubspaceQuality linear = subspace_quality(op, xyz, false, lowest_nonzero_eigenvalues(op, 3));
  EXPECT_GE(linear.ratio, 1.0 - 1e-9);  // Ky Fan
  EXPECT_LT(linear.ratio, 1.001);       // x, y, z are the l = 1 harmonics
  const Eigen::MatrixXd noise = Eigen::MatrixXd::Random(static_cast<Eigen::Index>(op.vertices.size()), 8);
  EXPECT_GT(subspace_quality(op, noise, false, lowest_nonzero_eigenvalues(op, 8)).ratio, 10);
  // On a sphere x^2 + y^2 + z^2 = 1: the quadratic polynomials with the constant are dependent.
  const QuadraticPolynomialField polynomials;
  const Eigen::MatrixXd P = polynomials.evaluate(op.vertices, false).W;
  EXPECT_TRUE(std::isinf(subspace_quality(op, P, true, lowest_nonzero_eigenvalues(op, 8)).ratio));
}

TEST(SubspaceQuality, MeshesInSeveralPiecesSkipTheirZeroEigenvalues) {
  Mesh two = icosphere(2);
  const Mesh other = icosphere(2, Eigen::Vector3f(3, 0, 0));
  const auto base = static_cast<std::uint32_t>(two.positions.size());
  two.positions.insert(two.positions.end(), other.positions.begin(), other.positions.end());
  for (Triangle t : other.triangles) two.triangles.push_back({t[0] + base, t[1] + base, t[2] + base});
  const SurfaceOperator op = surface_operator(two);
  EXPECT_EQ(op.components, 2);
  const auto dense = dense_eigen(op);
  const Eigen::VectorXd bound = lowest_nonzero_eigenvalues(op, 4);
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(bound[k], dense.eigenvalues()[k + 2], 1e-8 * dense.eigenvalues()[6]);
  // The piece indicator has zero energy: the ratio falls below 1, the reason to report such meshes apart.
  Eigen::MatrixXd W = dense.eigenvectors().middleCols(2, 4);
  for (std::size_t v = 0; v < op.vertices.size(); ++v)
    W(static_cast<Eigen::Index>(v), 3) = op.vertices[v].x() > 1.5 ? 1 : 0;
  EXPECT_LT(subspace_quality(op, W, false, bound).ratio, 1.0);
}

TEST(SubspaceQuality, WeldsSeamsAndRejectsBadInput) {
  // An icosphere whose triangles each have their own copies of their corners (seams everywhere)
  // welds back into one piece with the sphere's vertices.
  Mesh split;
  const Mesh sphere = icosphere(1);
  for (const Triangle& t : sphere.triangles) {
    const auto base = static_cast<std::uint32_t>(split.positions.size());
    for (std::uint32_t v : t) split.positions.push_back(sphere.positions[v]);
    split.triangles.push_back({base, base + 1, base + 2});
  }
  const SurfaceOperator op = surface_operator(split);
  EXPECT_EQ(op.components, 1);
  EXPECT_EQ(op.vertices.size(), sphere.positions.size());
  // Dependent directions span fewer than K dimensions: no finite ratio.
  Eigen::MatrixXd W = Eigen::MatrixXd::Random(static_cast<Eigen::Index>(op.vertices.size()), 3);
  W.col(2) = 2 * W.col(0) - W.col(1);
  EXPECT_TRUE(std::isinf(subspace_quality(op, W, false, lowest_nonzero_eigenvalues(op, 3)).ratio));
  EXPECT_THROW(subspace_quality(op, W, false, lowest_nonzero_eigenvalues(op, 2)), Error);  // K mismatch
  Mesh flat;
  flat.positions = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
  flat.triangles = {{0, 1, 2}};
  EXPECT_THROW(surface_operator(flat), Error);
  EXPECT_THROW(lowest_nonzero_eigenvalues(surface_operator(icosphere(0)), 20), Error);  // 12 vertices
}
