// Elastic reduced Hessian: dense assembly and products (see reduced_hessian.hpp).
#include "physics/reduced_hessian.hpp"

#include "physics/reduced_hessian_kernels.hpp"

namespace wobble::physics {

namespace hessian_kernels {
namespace {
void transposed_product_reference(const float* A, std::size_t q, std::size_t n, const float* Z, float* Y) {
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t d = 0; d < 3; ++d) {
      float sum = 0;
      for (std::size_t i = 0; i < q; ++i) sum += A[r * q + i] * Z[d * q + i];
      Y[3 * r + d] = sum;
    }
}
void add_product_reference(const float* A, std::size_t q, std::size_t n, const float* W, float* out) {
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t d = 0; d < 3; ++d)
      for (std::size_t i = 0; i < q; ++i) out[d * q + i] += A[r * q + i] * W[3 * r + d];
}
}  // namespace
extern const Table reference = {transposed_product_reference, add_product_reference};
WOBBLE_SIMD_DEFINE_TABLE_FOR
}  // namespace hessian_kernels

namespace {

// A = [G_p h_p]_p with h_p the (d, e) block of point p's Hessian (3 x 3).
void scale_columns(const Eigen::MatrixXf& dall, const PointHessians& hessians, int d, int e, Eigen::MatrixXf& A) {
  const Eigen::Index N = hessians.cols();
  for (Eigen::Index p = 0; p < N; ++p) {
    const float* H = hessians.col(p).data();
    Eigen::Matrix3f h;
    for (int c = 0; c < 3; ++c)
      for (int c2 = 0; c2 < 3; ++c2) h(c, c2) = H[9 * (3 * d + c) + 3 * e + c2];
    A.middleCols<3>(3 * p).noalias() = dall.middleCols<3>(3 * p) * h;
  }
}

}  // namespace

void add_elastic_hessian(const Eigen::MatrixXf& dall, const PointHessians& hessians,
                         Eigen::Ref<Eigen::MatrixXd> hessian) {
  const Eigen::Index q = dall.rows();
  Eigen::MatrixXf A(q, dall.cols()), block(q, q);
  for (int d = 0; d < 3; ++d)
    for (int e = d; e < 3; ++e) {
      scale_columns(dall, hessians, d, e, A);
      if (d == e) {
        block.setZero();
        block.triangularView<Eigen::Lower>() += A * dall.transpose();
        const Eigen::MatrixXd full = block.cast<double>().selfadjointView<Eigen::Lower>();
        hessian.block(d * q, d * q, q, q) += full;
      } else {
        block.noalias() = A * dall.transpose();
        const Eigen::MatrixXd blockd = block.cast<double>();
        hessian.block(d * q, e * q, q, q) += blockd;
        hessian.block(e * q, d * q, q, q) += blockd.transpose();
      }
    }
}

void add_elastic_hessian_product(const Eigen::MatrixXf& dall, const PointHessians& hessians,
                                 Eigen::Ref<const Eigen::VectorXd> v, Eigen::Ref<Eigen::VectorXd> out) {
  const Eigen::Index q = dall.rows(), N = hessians.cols();
  const hessian_kernels::Table& kernels = hessian_kernels::table();
  Eigen::Matrix<float, Eigen::Dynamic, 3> V(q, 3);
  for (int d = 0; d < 3; ++d) V.col(d) = v.segment(d * q, q).cast<float>();
  // dF(d, c) of point p = (V^T dall)(d, 3p + c); the stress change goes back the same way.
  Eigen::Matrix<float, 3, Eigen::Dynamic> Y(3, 3 * N);
  kernels.transposed_product(dall.data(), static_cast<std::size_t>(q), static_cast<std::size_t>(3 * N), V.data(),
                             Y.data());
  for (Eigen::Index p = 0; p < N; ++p) {
    const Eigen::Map<const Eigen::Matrix<float, 9, 9, Eigen::RowMajor>> H(hessians.col(p).data());
    Eigen::Matrix<float, 9, 1> dF;
    for (int d = 0; d < 3; ++d)
      for (int c = 0; c < 3; ++c) dF[3 * d + c] = Y(d, 3 * p + c);
    const Eigen::Matrix<float, 9, 1> dP = H * dF;
    for (int d = 0; d < 3; ++d)
      for (int c = 0; c < 3; ++c) Y(d, 3 * p + c) = dP[3 * d + c];
  }
  Eigen::Matrix<float, Eigen::Dynamic, 3> R = Eigen::Matrix<float, Eigen::Dynamic, 3>::Zero(q, 3);
  kernels.add_product(dall.data(), static_cast<std::size_t>(q), static_cast<std::size_t>(3 * N), Y.data(), R.data());
  for (int d = 0; d < 3; ++d) out.segment(d * q, q) += R.col(d).cast<double>();
}

}  // namespace wobble::physics
