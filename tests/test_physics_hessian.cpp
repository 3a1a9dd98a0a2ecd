// The reduced elastic Hessian: the dense level-3 assembly and the matrix-free product both equal
// the definition, sum over points of G_p (v_p H_p)[(d, .), (e, .)] G_p^T, summed here point by
// point in double precision; the thin-product kernels of every instruction set match the reference.
#include <random>

#include <gtest/gtest.h>

#include "physics/reduced_hessian.hpp"
#include "physics/reduced_hessian_kernels.hpp"

using namespace wobble;
using namespace wobble::physics;

namespace {

struct Problem {
  Eigen::MatrixXf dall;    // q x 3N
  PointHessians hessians;  // 81 x N, symmetric 9 x 9 each
};

Problem random_problem(int handles, int points, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> unit(-1, 1);
  Problem p;
  const int q = 4 * handles;
  p.dall.resize(q, 3 * points);
  for (int i = 0; i < p.dall.size(); ++i) p.dall.data()[i] = unit(random);
  p.hessians.resize(81, points);
  for (int k = 0; k < points; ++k) {
    Eigen::Matrix<float, 9, 9> h;
    for (int i = 0; i < 81; ++i) h.data()[i] = unit(random);
    h = (h + h.transpose()).eval();
    p.hessians.col(k) = Eigen::Map<Eigen::Matrix<float, 81, 1>>(h.data());
  }
  return p;
}

Eigen::MatrixXd by_definition(const Problem& p) {
  const Eigen::Index q = p.dall.rows(), N = p.hessians.cols();
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(3 * q, 3 * q);
  for (Eigen::Index k = 0; k < N; ++k) {
    const Eigen::MatrixXd G = p.dall.middleCols(3 * k, 3).cast<double>();  // q x 3
    for (int d = 0; d < 3; ++d)
      for (int e = 0; e < 3; ++e) {
        Eigen::Matrix3d h;
        for (int c = 0; c < 3; ++c)
          for (int c2 = 0; c2 < 3; ++c2) h(c, c2) = p.hessians(9 * (3 * d + c) + 3 * e + c2, k);
        H.block(d * q, e * q, q, q) += G * h * G.transpose();
      }
  }
  return H;
}

}  // namespace

TEST(PhysicsHessian, AssemblyAndProductEqualTheDefinition) {
  for (int handles : {3, 5, 8}) {
    const Problem p = random_problem(handles, 37, 11u + static_cast<unsigned>(handles));
    const Eigen::MatrixXd expected = by_definition(p);
    const double scale = expected.cwiseAbs().maxCoeff();
    Eigen::MatrixXd assembled = Eigen::MatrixXd::Zero(expected.rows(), expected.cols());
    add_elastic_hessian(p.dall, p.hessians, assembled);
    EXPECT_LT((assembled - expected).cwiseAbs().maxCoeff(), 1e-5 * scale) << handles << " handles";
    const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(expected.rows(), -1.0, 2.0).array().sin();
    Eigen::VectorXd product = Eigen::VectorXd::Zero(v.size());
    add_elastic_hessian_product(p.dall, p.hessians, v, product);
    const Eigen::VectorXd reference = expected * v;
    EXPECT_LT((product - reference).cwiseAbs().maxCoeff(), 1e-5 * reference.cwiseAbs().maxCoeff())
        << handles << " handles";
  }
}

TEST(PhysicsHessian, ThinProductKernelsMatchTheReference) {
  namespace hk = hessian_kernels;
  for (std::size_t q : {4u, 12u, 36u, 68u}) {
    const std::size_t n = 21;
    std::vector<float> A(q * n), Z(q * 3), W(3 * n);
    for (std::size_t i = 0; i < A.size(); ++i) A[i] = std::sin(0.37f * static_cast<float>(i));
    for (std::size_t i = 0; i < Z.size(); ++i) Z[i] = std::cos(0.11f * static_cast<float>(i));
    for (std::size_t i = 0; i < W.size(); ++i) W[i] = std::sin(0.23f * static_cast<float>(i) + 1);
    std::vector<float> Y_ref(3 * n), out_ref(q * 3, 0.5f);
    hk::reference.transposed_product(A.data(), q, n, Z.data(), Y_ref.data());
    hk::reference.add_product(A.data(), q, n, W.data(), out_ref.data());
    for (simd::Isa isa : simd::runnable_isas()) {
      const hk::Table& table = hk::table_for(isa);
      std::vector<float> Y(3 * n), out(q * 3, 0.5f);
      table.transposed_product(A.data(), q, n, Z.data(), Y.data());
      table.add_product(A.data(), q, n, W.data(), out.data());
      for (std::size_t i = 0; i < Y.size(); ++i)
        ASSERT_NEAR(Y[i], Y_ref[i], 1e-5f * static_cast<float>(q)) << simd::isa_name(isa) << " q " << q;
      for (std::size_t i = 0; i < out.size(); ++i)
        ASSERT_NEAR(out[i], out_ref[i], 1e-5f * static_cast<float>(n)) << simd::isa_name(isa) << " q " << q;
    }
  }
}
