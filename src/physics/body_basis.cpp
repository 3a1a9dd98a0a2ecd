// A body's basis at points (dynamics.hpp's PointBasis): the skinning field evaluated there,
// modulated by the pins' d(X), in the body's affine layout. Without derivatives, points the body
// has already bound (its samples and collision points) take their d W from what binding computed:
// a shape body's collision points are its samples and the mesh's vertices (every one below 8,000
// vertices, a stride beyond: shape_body.cpp), so binding the mesh would otherwise evaluate the
// field twice at all or a part of its vertices.
#include <wobble/physics/dynamics.hpp>

#include "physics/body_state.hpp"

namespace wobble::physics {

namespace {

// B[p, 4i + a] = (d W)[p, i] [X_p; 1]_a, column by column.
Eigen::MatrixXd affine_basis(std::span<const Vec3d> scene_points, const Eigen::MatrixXd& modulated_W) {
  const auto N = static_cast<Eigen::Index>(scene_points.size());
  Eigen::MatrixX3d X(N, 3);
  for (Eigen::Index p = 0; p < N; ++p) X.row(p) = scene_points[static_cast<std::size_t>(p)].transpose();
  Eigen::MatrixXd B(N, 4 * modulated_W.cols());
  for (Eigen::Index i = 0; i < modulated_W.cols(); ++i) {
    for (int a = 0; a < 3; ++a) B.col(4 * i + a) = modulated_W.col(i).cwiseProduct(X.col(a));
    B.col(4 * i + 3) = modulated_W.col(i);
  }
  return B;
}

}  // namespace

std::vector<Vec3d> Body::State::normalised(std::span<const Vec3d> scene_points) const {
  std::vector<Vec3d> out(scene_points.size());
  for (std::size_t p = 0; p < scene_points.size(); ++p) out[p] = (scene_points[p] - translation) / scale;
  return out;
}

PointBasis Body::State::evaluated_basis(std::span<const Vec3d> scene_points, Eigen::VectorXd* d_out,
                                        Eigen::MatrixXd* grad_d_out) const {
  const Eigen::Index N = static_cast<Eigen::Index>(scene_points.size()), q = 4 * m;
  const std::vector<Vec3d> X0 = normalised(scene_points);
  const fields::FieldValues values = field->evaluate(X0, true);
  PointBasis out;
  out.modulated_W.resize(N, m);
  for (auto& D : out.D) D.resize(N, q);
  if (d_out) d_out->resize(N);
  if (grad_d_out) grad_d_out->resize(N, 3);
  for (Eigen::Index p = 0; p < N; ++p) {
    Vec3d grad_d;
    const double d = pins.modulation(X0[static_cast<std::size_t>(p)], &grad_d);
    if (d_out) (*d_out)[p] = d;
    if (grad_d_out) grad_d_out->row(p) = grad_d.transpose() / scale;  // scene frame
    const Vec3d& X = scene_points[static_cast<std::size_t>(p)];
    const double x4[4] = {X.x(), X.y(), X.z(), 1.0};
    for (int i = 0; i < m; ++i) {
      const double w = d * values.W(p, i);
      out.modulated_W(p, i) = w;
      for (int c = 0; c < 3; ++c) {
        const double gw = (d * values.dW[c](p, i) + values.W(p, i) * grad_d[c]) / scale;
        for (int a = 0; a < 4; ++a) out.D[c](p, 4 * i + a) = gw * x4[a] + (a == c ? w : 0.0);
      }
    }
  }
  out.B = affine_basis(scene_points, out.modulated_W);
  return out;
}

Eigen::MatrixXd Body::State::modulated_weights(std::span<const Vec3d> scene_points) const {
  const std::vector<Vec3d> X0 = normalised(scene_points);
  Eigen::MatrixXd W = field->evaluate(X0, false).W;
  for (Eigen::Index p = 0; p < W.rows(); ++p) W.row(p) *= pins.modulation(X0[static_cast<std::size_t>(p)], nullptr);
  return W;
}

PointBasis Body::State::bound_basis(std::span<const Vec3d> scene_points) const {
  const auto N = static_cast<Eigen::Index>(scene_points.size());
  const auto samples = static_cast<Eigen::Index>(rest.size());
  std::vector<Eigen::Index> known(scene_points.size());
  std::vector<Vec3d> unbound;
  for (std::size_t p = 0; p < scene_points.size(); ++p) {
    known[p] = bound_rows.find(scene_points[p]);
    if (known[p] < 0) unbound.push_back(scene_points[p]);
  }
  const Eigen::MatrixXd evaluated = unbound.empty() ? Eigen::MatrixXd() : modulated_weights(unbound);
  PointBasis out;
  out.modulated_W.resize(N, m);
  for (Eigen::Index i = 0; i < m; ++i) {
    Eigen::Index next_unbound = 0;
    for (Eigen::Index p = 0; p < N; ++p) {
      const Eigen::Index r = known[static_cast<std::size_t>(p)];
      out.modulated_W(p, i) = r < 0         ? evaluated(next_unbound++, i)
                              : r < samples ? basis.modulated_W(r, i)
                                            : collision_basis.modulated_W(r - samples, i);
    }
  }
  out.B = affine_basis(scene_points, out.modulated_W);
  return out;
}

PointBasis Body::basis_at(std::span<const Vec3d> scene_points, bool with_derivatives) const {
  return with_derivatives ? s_->evaluated_basis(scene_points) : s_->bound_basis(scene_points);
}

}  // namespace wobble::physics
