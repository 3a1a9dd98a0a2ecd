// The per-shape output maps of a torch-free neural fields network (see field_output.hpp).
#include "field_output.hpp"

#include <cmath>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include <wobble/error.hpp>
#include "core/fail.hpp"

namespace wobble::fields {

namespace {

// Scale: each column to mean square 1 (or unit norm) over the points.
FieldOutputTransform scale(const Eigen::MatrixXd& W, const std::string& target) {
  const double norm = target == "unit_norm" ? 1.0 : std::sqrt(static_cast<double>(W.rows()));
  return {Eigen::RowVectorXd::Zero(W.cols()), (norm / (W.colwise().norm().array() + 1e-12)).matrix().asDiagonal()};
}

// With G = [1, W]^T [1, W] / N = L L^T, [1, W] L^-T keeps the constant column 1 and makes the
// columns orthonormal in the mean-square product (the span of [1, W] is unchanged).
FieldOutputTransform orthonormal(const Eigen::MatrixXd& W, const std::string& source) {
  const auto n = W.rows(), m = W.cols();
  Eigen::MatrixXd Y(n, m + 1);
  Y << Eigen::VectorXd::Ones(n), W;
  const Eigen::MatrixXd G = Y.transpose() * Y / static_cast<double>(n);
  const Eigen::LLT<Eigen::MatrixXd> llt(G);
  const Eigen::MatrixXd L = llt.matrixL();
  // L_ii / sqrt(G_ii): the part of field i independent of the ones before it, relative to its size.
  if (llt.info() != Eigen::Success || (L.diagonal().array() / G.diagonal().array().sqrt()).minCoeff() < 1e-5)
    fail(source, "the {} fields are linearly dependent on {} points: they cannot be orthonormalised", m, n);
  const Eigen::MatrixXd inverse =
      L.transpose().triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(m + 1, m + 1));
  return {inverse.row(0).tail(m), inverse.bottomRightCorner(m, m)};
}

// An orthonormal basis of the centred span of W (eigenvectors of its Gram matrix, directions
// below 1e-10 of the largest eigenvalue dropped): depends only on the span, cannot fail on nearly
// dependent candidates.
FieldOutputTransform centred_basis(const Eigen::MatrixXd& W) {
  const Eigen::RowVectorXd mean = W.colwise().mean();
  const Eigen::MatrixXd centred = W.rowwise() - mean;
  const Eigen::MatrixXd G = centred.transpose() * centred / static_cast<double>(W.rows());
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(G);  // ascending
  const Eigen::VectorXd& values = eigen.eigenvalues();
  const double floor = 1e-10 * values.maxCoeff();
  std::vector<Eigen::Index> kept;
  for (Eigen::Index i = 0; i < values.size(); ++i)
    if (values[i] > floor) kept.push_back(i);
  Eigen::MatrixXd T(W.cols(), static_cast<Eigen::Index>(kept.size()));
  for (std::size_t k = 0; k < kept.size(); ++k)
    T.col(static_cast<Eigen::Index>(k)) = eigen.eigenvectors().col(kept[k]) / std::sqrt(values[kept[k]]);
  return {-mean * T, T};
}

// D = mean over the points of grad Q^T grad Q, Q = the centred orthonormal basis; its `keep`
// smallest eigenvectors.
FieldOutputTransform rayleigh_ritz(const Eigen::MatrixXd& W, const std::array<Eigen::MatrixXd, 3>& dW, int keep,
                                   const std::string& source) {
  const Eigen::Index c = W.rows(), m = W.cols();
  const FieldOutputTransform basis = centred_basis(W);
  const Eigen::Index r = basis.transform.cols();
  if (r < keep)
    fail(source, "only {} of the {} candidate fields are independent on {} points, {} needed", r, m, c, keep);
  Eigen::MatrixXd D = Eigen::MatrixXd::Zero(r, r);
  for (const Eigen::MatrixXd& d : dW) {
    const Eigen::MatrixXd dQ = d * basis.transform;
    D += dQ.transpose() * dQ;
  }
  D /= static_cast<double>(c);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(0.5 * (D + D.transpose()));  // ascending
  const Eigen::MatrixXd U = eigen.eigenvectors().leftCols(keep);
  FieldOutputTransform out{basis.offset * U, basis.transform * U};
  // Eigenvectors have no sign of their own: make each column's largest raw coefficient positive.
  for (int k = 0; k < keep; ++k) {
    Eigen::Index largest = 0;
    out.transform.col(k).cwiseAbs().maxCoeff(&largest);
    if (out.transform(largest, k) < 0) {
      out.transform.col(k) *= -1;
      out.offset[k] *= -1;
    }
  }
  return out;
}

}  // namespace

FieldOutputOptions FieldOutputOptions::from_json(const nlohmann::json& j, int raw_fields, int handles,
                                                 const std::string& source) {
  FieldOutputOptions o;
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string())
    fail(source, "output_normalization needs a string 'kind' (none, scale, orthonormal, rayleigh_ritz)");
  o.kind = j["kind"].get<std::string>();
  if (o.kind != "none" && o.kind != "scale" && o.kind != "orthonormal" && o.kind != "rayleigh_ritz")
    fail(source, "unknown output_normalization kind '{}' (none, scale, orthonormal, rayleigh_ritz)", o.kind);
  if (o.kind == "scale") {
    if (j.contains("target") && !j["target"].is_string()) fail(source, "output_normalization.target must be a string");
    o.target = j.contains("target") ? j["target"].get<std::string>() : std::string("mean_square_one");
    if (o.target != "mean_square_one" && o.target != "unit_norm")
      fail(source, "unknown output_normalization target '{}'", o.target);
  }
  if (o.kind != "rayleigh_ritz") {
    if (raw_fields != handles)
      fail(source, "field: the last layer gives {} columns, the model has {} handles", raw_fields, handles);
    return o;
  }
  if (!j.contains("keep") || !j["keep"].is_number_integer() || j["keep"].get<int>() != handles || handles >= raw_fields)
    fail(source, "output_normalization rayleigh_ritz: 'keep' must be the model's {} handles, below the {} raw fields",
         handles, raw_fields);
  o.keep = handles;
  return o;
}

FieldOutputTransform field_output_transform(const Eigen::MatrixXd& W, const std::array<Eigen::MatrixXd, 3>& dW,
                                            const FieldOutputOptions& options, const std::string& source) {
  if (options.kind == "none")
    return {Eigen::RowVectorXd::Zero(W.cols()), Eigen::MatrixXd::Identity(W.cols(), W.cols())};
  if (options.kind == "scale") return scale(W, options.target);
  if (options.kind == "orthonormal") return orthonormal(W, source);
  return rayleigh_ritz(W, dW, options.keep, source);
}

}  // namespace wobble::fields
