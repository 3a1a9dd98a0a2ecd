#pragma once
// The elastic part of a body's reduced Hessian (PhysSkin++ III-D), as a dense matrix and as a
// matrix-free product.
//
// With z ordered by output dimension d (blocks of q = 4m), F_p(d, c) = F0 + D_c[p] . z_d, so the
// Hessian block (d, e) is sum_p G_p (v_p H_p)[(d, .), (e, .)] G_p^T with G_p = [D_0[p]; D_1[p];
// D_2[p]]^T (q x 3), the Kronecker structure of the map (I3 (x) B): one small G_p serves all
// nine blocks. `dall` holds every G_p side by side (q x 3N, column 3p + c = D_c[p]^T, single
// precision), so each block is one level-3 product over all points, A * dall^T, with
// A = [G_p h_p]_p, and a product H v costs two thin products, dall^T V and dall T.
// Single precision: the Hessian only steers Newton; energies and gradients stay double.
#include <Eigen/Core>

namespace wobble::physics {

// Per point, v_p d2psi/dF2 (9 x 9, row-major, index 3 d + c of F), N points one after another.
using PointHessians = Eigen::Matrix<float, 81, Eigen::Dynamic>;

// hessian (3q x 3q, the body's block) += the elastic Hessian. Diagonal blocks (d, d) are
// symmetric, so only their lower triangles are multiplied.
void add_elastic_hessian(const Eigen::MatrixXf& dall, const PointHessians& hessians,
                         Eigen::Ref<Eigen::MatrixXd> hessian);

// out (3q) += the elastic Hessian times v (3q).
void add_elastic_hessian_product(const Eigen::MatrixXf& dall, const PointHessians& hessians,
                                 Eigen::Ref<const Eigen::VectorXd> v, Eigen::Ref<Eigen::VectorXd> out);

// Thin products with a wide matrix A (q x n, n = 3N points' columns) and three vectors, reading
// A once, eight columns at a time; a general product would copy (pack) all of A first, which costs
// more than these products.
// Y (3 x n) = Z^T A for Z (q x 3).
template <class Matrix, class Thin, class Out>
void thin_transposed_product(const Matrix& A, const Thin& Z, Out& Y) {
  Y.resize(3, A.cols());
  Eigen::Index r = 0;
  for (; r + 8 <= A.cols(); r += 8)
    Y.template middleCols<8>(r).noalias() = Z.transpose().lazyProduct(A.template middleCols<8>(r));
  for (; r < A.cols(); ++r)
    for (int d = 0; d < 3; ++d) Y(d, r) = A.col(r).dot(Z.col(d));
}
// out (q x 3) += A W^T for W (3 x n).
template <class Matrix, class Wide, class Out>
void add_thin_product(const Matrix& A, const Wide& W, Out& out) {
  Eigen::Index r = 0;
  for (; r + 8 <= A.cols(); r += 8)
    out.noalias() += A.template middleCols<8>(r).lazyProduct(W.template middleCols<8>(r).transpose());
  for (; r < A.cols(); ++r)
    for (int d = 0; d < 3; ++d) out.col(d) += W(d, r) * A.col(r);
}

}  // namespace wobble::physics
