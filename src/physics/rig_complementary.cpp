// Rig-complementary dynamics (see rig_complementary.hpp).
#include <wobble/physics/rig_complementary.hpp>

#include <algorithm>
#include <cmath>

#include <wobble/error.hpp>
#include <wobble/physics/input_checks.hpp>
#include <wobble/physics/eigenmodes.hpp>
#include <wobble/physics/rig_weights_field.hpp>

#include "core/fail.hpp"

namespace wobble::physics {

namespace {

// Skinning eigenmodes under J_rig^T B = 0 at the samples, over the joints that carry weight there,
// on a grid covering the samples and the mesh vertices.
std::shared_ptr<const fields::SkinningField> constrained_eigenmodes(const std::vector<Vec3d>& samples,
                                                                    const std::vector<Vec3d>& vertices,
                                                                    const Eigen::MatrixXd& rig_weights,
                                                                    const RigComplementaryOptions& options) {
  std::vector<int> used;
  for (Eigen::Index j = 0; j < rig_weights.cols(); ++j)
    if (rig_weights.col(j).cwiseAbs().maxCoeff() > 1e-8) used.push_back(static_cast<int>(j));
  RigConstraint constraint;
  constraint.points = samples;
  constraint.weights.resize(rig_weights.rows(), static_cast<Eigen::Index>(used.size()));
  for (std::size_t k = 0; k < used.size(); ++k)
    constraint.weights.col(static_cast<Eigen::Index>(k)) = rig_weights.col(used[k]);
  std::vector<Vec3d> cover = samples;
  cover.insert(cover.end(), vertices.begin(), vertices.end());
  EigenmodeOptions eigen;
  eigen.handles = options.handles;
  eigen.grid_resolution = options.field_grid;
  return skinning_eigenmodes(cover, eigen, &constraint);
}

}  // namespace

RigComplementary::RigComplementary(const Character& character, const RigComplementaryOptions& options)
    : character_(character), options_(options) {
  if (!character.is_skinned())
    fail(character.source, "has no skin: rig-complementary simulation needs a rigged character");
  check_subspace_sizes(options.handles, options.points, options.sample_grid, options.field_grid,
                       character.source.string());
  check_material(options.material, character.source.string());
  check_vector(options.gravity, character.source.string() + ": gravity", input_limits::kAcceleration, "m/s^2");
  fields::SampleOptions sampling;
  sampling.grid_resolution = options.sample_grid;
  fields::SamplePoints samples = fields::subsample(fields::sample_mesh(character.mesh, sampling), options.points);
  normalization_ = samples.normalization;
  samples_ = samples.points;
  for (const Vec3f& v : character.mesh.positions) vertices_.push_back(normalization_.to_normalized(v.cast<double>()));
  RigWeightsOptions rig_options;
  rig_options.grid_resolution = options.field_grid;
  const auto rig_field = rig_weights_field(character, normalization_, rig_options);
  rig_weights_ = rig_field->evaluate(samples_, true);
  BodyDescription description;
  description.name = character.source.filename().string();
  description.samples = samples;
  if (options.fields) {
    description.field = options.fields;
    if (description.field->handle_count() < 1) fail(character.source, "the given complementary fields are empty");
  } else {
    description.field = constrained_eigenmodes(samples_, vertices_, rig_weights_.W, options);
  }
  description.material = options.material;
  description.model = options.model;
  world_.solver.gravity = options.gravity;
  world_.contact.enabled = false;
  world_.add_body(std::move(description));
  vertex_basis_ = world_.body(0).basis_at(vertices_, false);
}

void RigComplementary::rig_state(const Pose& pose, Eigen::MatrixXd& x, Eigen::MatrixXd* F) const {
  const Eigen::Index N = static_cast<Eigen::Index>(samples_.size()), J = rig_weights_.W.cols();
  x.setZero(N, 3);
  if (F) F->setZero(N, 9);
  const double k = normalization_.scale;
  for (Eigen::Index p = 0; p < N; ++p) {
    const Vec3d X = normalization_.from_normalized(samples_[static_cast<std::size_t>(p)]);
    Vec3d xp = Vec3d::Zero();
    Eigen::Matrix3d Fp = Eigen::Matrix3d::Zero();
    for (Eigen::Index j = 0; j < J; ++j) {
      const double w = rig_weights_.W(p, j);
      const bool has_gradient =
          rig_weights_.dW[0](p, j) != 0 || rig_weights_.dW[1](p, j) != 0 || rig_weights_.dW[2](p, j) != 0;
      if (w == 0 && !has_gradient) continue;
      const Eigen::Matrix4d S = pose.skinning[static_cast<std::size_t>(j)].cast<double>();
      const Vec3d xj = k * (S.topLeftCorner<3, 3>() * X + S.topRightCorner<3, 1>() - normalization_.center);
      xp += w * xj;
      Fp += w * S.topLeftCorner<3, 3>();
      // d x / d X_normalised = sum_j w_j A_j + sum_j x_j grad w_j^T (x_j in the normalised frame).
      const Vec3d g(rig_weights_.dW[0](p, j), rig_weights_.dW[1](p, j), rig_weights_.dW[2](p, j));
      Fp += xj * g.transpose();
    }
    // The weights sum to one, so their gradients sum to zero: subtracting x grad(sum w) = 0 keeps
    // the expression translation-invariant in floating point.
    const Vec3d gsum(rig_weights_.dW[0].row(p).sum(), rig_weights_.dW[1].row(p).sum(), rig_weights_.dW[2].row(p).sum());
    Fp -= xp * gsum.transpose();
    x.row(p) = xp.transpose();
    if (F)
      for (int i = 0; i < 9; ++i) (*F)(p, i) = Fp(i / 3, i % 3);
  }
}

int clip_frame_count(const Clip& clip, double fps) {
  return std::max(2, static_cast<int>(std::floor(clip.duration() * fps)) + 1);
}

double clip_frame_time(const Clip& clip, int frame, double fps) { return clip.start() + frame / fps; }

void RigComplementary::step_clip_frame(const Clip& clip, int frame, double fps, int substeps, Pose& pose) {
  const double t = clip_frame_time(clip, frame, fps), dt = 1.0 / (fps * substeps);
  const int steps = frame == 0 ? 1 : substeps;
  for (int s = 0; s < steps; ++s) {
    evaluate_pose(character_.rig, &clip, static_cast<float>(t - (steps - 1 - s) * dt), pose);
    step(pose, dt);
  }
}

void RigComplementary::step(const Pose& pose, double dt) {
  if (pose.skinning.size() != character_.rig.joint_count())
    fail(character_.source, "pose has the wrong number of joints");
  world_.solver.time_step = dt;
  Eigen::MatrixXd x, F;
  rig_state(pose, x, &F);
  if (!started_) {
    rig_previous_ = rig_current_ = x;
    started_ = true;
  }
  Body& body = world_.body(0);
  Eigen::VectorXd force = Eigen::VectorXd::Zero(body.dofs());
  if (options_.rig_inertia) {
    const Eigen::MatrixXd acceleration = (x - 2.0 * rig_current_ + rig_previous_) / (dt * dt);
    const int q = 4 * body.handle_count();
    const PointBasis& basis = body.basis();
    for (int d = 0; d < 3; ++d)
      force.segment(d * q, q) = -basis.B.transpose() * (body.point_masses().cwiseProduct(acceleration.col(d)));
  }
  rig_previous_ = rig_current_;
  rig_current_ = x;
  body.set_base(std::move(x), std::move(F), std::move(force));
  world_.step();
}

std::vector<Vec3f> RigComplementary::vertex_positions(const Pose& pose) const {
  const Mesh& mesh = character_.mesh;
  const Skin& skin = character_.skin;
  const Body& body = world_.body(0);
  const int q = 4 * body.handle_count();
  std::vector<Vec3f> out(mesh.vertex_count());
  for (std::size_t v = 0; v < mesh.vertex_count(); ++v) {
    const Eigen::Vector4d X(mesh.positions[v].x(), mesh.positions[v].y(), mesh.positions[v].z(), 1.0);
    Vec3d lbs = Vec3d::Zero();
    const auto joints = skin.joints_of(v);
    const auto weights = skin.weights_of(v);
    for (std::size_t k = 0; k < joints.size(); ++k)
      lbs += weights[k] * (pose.skinning[joints[k]].cast<double>() * X).head<3>();
    Vec3d u;
    for (int d = 0; d < 3; ++d)
      u[d] = vertex_basis_.B.row(static_cast<Eigen::Index>(v)).dot(body.z().segment(d * q, q));
    out[v] = (lbs + u / normalization_.scale).cast<float>();
  }
  return out;
}

Eigen::MatrixXd RigComplementary::rig_jacobian_block(int a) const {
  Eigen::MatrixXd block = rig_weights_.W;
  if (a < 3)
    for (Eigen::Index p = 0; p < block.rows(); ++p) block.row(p) *= samples_[static_cast<std::size_t>(p)][a];
  return block;
}

Eigen::VectorXd RigComplementary::complementarity_residual(const Eigen::VectorXd& z, double* scale) const {
  const Body& body = world_.body(0);
  const int q = 4 * body.handle_count();
  const Eigen::Index N = static_cast<Eigen::Index>(samples_.size()), J = rig_weights_.W.cols();
  Eigen::MatrixXd u(N, 3);
  for (int d = 0; d < 3; ++d) u.col(d) = body.basis().B * z.segment(d * q, q);
  Eigen::VectorXd r(12 * J);
  double jacobian_norm2 = 0;
  for (int a = 0; a < 4; ++a) {
    const Eigen::MatrixXd block = rig_jacobian_block(a);
    const Eigen::MatrixXd jtu = block.transpose() * u;  // joints x 3
    for (Eigen::Index j = 0; j < J; ++j)
      for (int d = 0; d < 3; ++d) r[12 * j + 4 * d + a] = jtu(j, d);
    jacobian_norm2 += 3 * block.squaredNorm();  // J_rig = I3 (x) J: one copy per dimension
  }
  if (scale) *scale = std::sqrt(jacobian_norm2) * u.norm();
  return r;
}

Complementarity RigComplementary::complementarity() const {
  // J_rig = I3 (x) J with J[p, 4j + a] = w_j(p) [X_p; 1]_a, and B likewise I3 (x) B, so every norm
  // is sqrt(3) times its one-dimension block's.
  const Eigen::MatrixXd& B = world_.body(0).basis().B;
  double jtb2 = 0, j2 = 0;
  for (int a = 0; a < 4; ++a) {
    const Eigen::MatrixXd block = rig_jacobian_block(a);
    jtb2 += (block.transpose() * B).squaredNorm();
    j2 += block.squaredNorm();
  }
  Complementarity out;
  out.absolute = std::sqrt(3 * jtb2);
  const double scale = std::sqrt(3 * j2) * std::sqrt(3 * B.squaredNorm());
  out.relative = scale > 0 ? out.absolute / scale : 0;
  return out;
}

RigComplementaryOptions rig_options(const Settings& settings) {
  RigComplementaryOptions o;
  copy_subspace_and_material(settings, o);
  o.rig_inertia = settings.rig_inertia;
  return o;
}

}  // namespace wobble::physics
