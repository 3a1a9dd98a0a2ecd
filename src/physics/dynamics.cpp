// Reduced-order implicit dynamics (see dynamics.hpp). Heavy Eigen code: its own translation unit.
#include <wobble/physics/dynamics.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Cholesky>
#include <Eigen/Geometry>
#include <spdlog/spdlog.h>

#include <wobble/error.hpp>

#include "core/fail.hpp"
#include "fields/cell_hash.hpp"
#include "physics/body_state.hpp"
#include "physics/reduced_hessian.hpp"

namespace wobble::physics {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

Eigen::Matrix3d rotation_of(const Vec3d& angle_axis) {
  const double angle = angle_axis.norm();
  if (angle < 1e-300) return Eigen::Matrix3d::Identity();
  return Eigen::AngleAxisd(angle, angle_axis / angle).toRotationMatrix();
}

// The barrier of eq. 15 in the normalised gap dh = d / r and its first two derivatives in dh.
double barrier(double dh, double rp, double* first, double* second) {
  if (dh >= 1.0) {
    if (first) *first = 0;
    if (second) *second = 0;
    return 0;
  }
  if (dh <= rp) return kInfinity;
  const double a = dh - 1.0, b = dh - rp, lg = std::log(b);
  if (first) *first = -2.0 * a * lg - a * a / b;
  if (second) *second = -2.0 * lg - 4.0 * a / b + a * a / (b * b);
  return -a * a * lg;
}

// The displacements B z of the points a basis spans (one row each), z holding the m handles'
// 12 coordinates as x, y and z blocks of 4m.
Eigen::MatrixXd displacements(const PointBasis& basis, const Eigen::VectorXd& z, int m) {
  const int q = 4 * m;
  Eigen::MatrixXd u(basis.B.rows(), 3);
  for (int d = 0; d < 3; ++d) u.col(d).noalias() = basis.B * z.segment(d * q, q);
  return u;
}

// Positions x0 + B z, x0 the points' base positions (one row each).
std::vector<Vec3d> displaced(const Eigen::MatrixXd& x0, const PointBasis& basis, const Eigen::VectorXd& z, int m) {
  const Eigen::MatrixXd u = displacements(basis, z, m);
  std::vector<Vec3d> out(static_cast<std::size_t>(u.rows()));
  for (Eigen::Index p = 0; p < u.rows(); ++p)
    out[static_cast<std::size_t>(p)] = x0.row(p).transpose() + u.row(p).transpose();
  return out;
}

}  // namespace

Eigen::Matrix3d KinematicBody::rotation(double t) const { return rotation_of(angular_velocity * t); }

Vec3d KinematicBody::position(const Vec3d& rest, double t) const {
  return center + velocity * t + rotation(t) * (rest - center);
}

void Plane::advance(double dt) {
  origin += velocity * dt;
  const Eigen::Matrix3d R = rotation_of(angular_velocity * dt);
  normal = (R * normal).normalized();
  axis_u = (R * axis_u).normalized();
}

std::vector<Eigen::Matrix<double, 3, 4>> handle_matrices(const Eigen::VectorXd& z, int handles) {
  std::vector<Eigen::Matrix<double, 3, 4>> Z(static_cast<std::size_t>(handles));
  const int q = 4 * handles;
  for (int i = 0; i < handles; ++i)
    for (int d = 0; d < 3; ++d)
      for (int a = 0; a < 4; ++a) Z[static_cast<std::size_t>(i)](d, a) = z[d * q + 4 * i + a];
  return Z;
}

// ---------------------------------------------------------------------------------------------
// Body

Body::Body(BodyDescription description) : s_(std::make_unique<State>()) {
  s_->take_settings(description);
  s_->place_samples(description.samples);
  s_->basis = s_->evaluated_basis(s_->rest, &s_->d, &s_->grad_d);
  s_->bound_rows = PointRows(s_->rest);
  s_->bind_samples();
  s_->place_collision_points(description.collision_points);
  s_->collision_basis = basis_at(s_->collision_rest, false);
  s_->bound_rows.add(s_->collision_rest);
  s_->bind_collision_points();
  s_->start_at_rest(description.initial_velocity);
}

void Body::State::take_settings(BodyDescription& description) {
  name = std::move(description.name);
  field = std::move(description.field);
  material = description.material;
  model = description.model;
  pins = std::move(description.pins);
  pin_velocity = description.pin_velocity;
  scale = description.scale;
  translation = description.translation;
  if (!field) fail_plain("body '{}': no skinning field", name);
  if (description.samples.points.empty()) fail_plain("body '{}': no sample points", name);
  if (!(scale > 0) || !std::isfinite(scale)) fail_plain("body '{}': scale must be positive", name);
  material.check();
  m = field->handle_count();
  if (m < 1) fail_plain("body '{}': the skinning field has no handles", name);
}

void Body::State::place_samples(const fields::SamplePoints& samples) {
  const std::size_t N = samples.points.size();
  rest.resize(N);
  volume.resize(static_cast<Eigen::Index>(N));
  const double s3 = scale * scale * scale;
  for (std::size_t p = 0; p < N; ++p) {
    rest[p] = scale * samples.points[p] + translation;
    volume[static_cast<Eigen::Index>(p)] = samples.volumes[p] * s3;
  }
  point_mass = material.density * volume;
}

void Body::State::bind_samples() {
  const auto N = static_cast<Eigen::Index>(rest.size());
  dall.resize(4 * m, 3 * N);
  dstack.resize(4 * m, 3 * N);
  for (Eigen::Index p = 0; p < N; ++p)
    for (int c = 0; c < 3; ++c) {
      dall.col(3 * p + c) = basis.D[c].row(p).transpose().cast<float>();
      dstack.col(3 * p + c) = basis.D[c].row(p).transpose();
    }
  mass = basis.B.transpose() * point_mass.asDiagonal() * basis.B;
  // A small regulariser keeps M invertible for handles that no free point uses (fully pinned) and
  // the Hessian well enough conditioned for its single-precision assembly, which preconditions
  // Newton's solves (at 1e-10, 64 handles needed a refresh and 20 solver iterations per solve).
  mass.diagonal().array() += 1e-7 * std::max(mass.diagonal().maxCoeff(), 1e-300);
  x0.resize(N, 3);
  F0.setZero(N, 9);
  for (Eigen::Index p = 0; p < N; ++p) x0.row(p) = rest[static_cast<std::size_t>(p)].transpose();
  F0.col(0).setOnes();
  F0.col(4).setOnes();
  F0.col(8).setOnes();
}

void Body::State::place_collision_points(const std::vector<Vec3d>& points) {
  if (points.empty()) {
    collision_rest = rest;
  } else {
    for (const Vec3d& p : points) collision_rest.push_back(scale * p + translation);
  }
}

void Body::State::bind_collision_points() {
  const auto C = static_cast<Eigen::Index>(collision_rest.size());
  collision_mass = Eigen::VectorXd::Constant(C, point_mass.sum() / static_cast<double>(C));
  collision_d.resize(C);
  collision_x0.resize(C, 3);
  for (Eigen::Index p = 0; p < C; ++p) {
    const Vec3d& X = collision_rest[static_cast<std::size_t>(p)];
    collision_d[p] = pins.modulation((X - translation) / scale, nullptr);
    collision_x0.row(p) = X.transpose();
  }
}

void Body::State::start_at_rest(const Vec3d& initial_velocity) {
  const Eigen::Index dofs = 12 * m;
  base_force.setZero(dofs);
  z.setZero(dofs);
  z_prev.setZero(dofs);
  if (!(initial_velocity.squaredNorm() > 0)) return;
  // Mass-weighted least-squares velocity in z-space; applied as z_prev = -h v at the first step.
  Eigen::LDLT<Eigen::MatrixXd> solve(mass);
  const int q = 4 * m;
  initial_velocity_z.setZero(dofs);
  for (int c = 0; c < 3; ++c)
    initial_velocity_z.segment(c * q, q) = solve.solve(basis.B.transpose() * (point_mass * initial_velocity[c]));
}

Body::~Body() = default;
Body::Body(const Body& other) : s_(std::make_unique<State>(*other.s_)) {}
Body& Body::operator=(const Body& other) {
  if (this != &other) s_ = std::make_unique<State>(*other.s_);
  return *this;
}

const std::string& Body::name() const { return s_->name; }
int Body::handle_count() const { return s_->m; }
std::size_t Body::point_count() const { return s_->rest.size(); }
const std::vector<Vec3d>& Body::rest_points() const { return s_->rest; }
const std::vector<Vec3d>& Body::collision_points() const { return s_->collision_rest; }
const Eigen::VectorXd& Body::z() const { return s_->z; }
const Eigen::VectorXd& Body::previous_z() const { return s_->z_prev; }
const Material& Body::material() const { return s_->material; }
EnergyModel Body::model() const { return s_->model; }
const Eigen::MatrixXd& Body::mass_block() const { return s_->mass; }
double Body::scale() const { return s_->scale; }
const Vec3d& Body::translation() const { return s_->translation; }
const DirichletRegion& Body::pins() const { return s_->pins; }
const fields::SkinningField& Body::field() const { return *s_->field; }
const PointBasis& Body::basis() const { return s_->basis; }
const Eigen::VectorXd& Body::point_masses() const { return s_->point_mass; }
const Eigen::VectorXd& Body::point_volumes() const { return s_->volume; }

double Body::total_mass() const { return s_->point_mass.sum(); }

void Body::set_state(const Eigen::VectorXd& z, const Eigen::VectorXd& z_prev) {
  if (z.size() != dofs() || z_prev.size() != dofs()) fail_plain("body '{}': state has the wrong size", s_->name);
  s_->z = z;
  s_->z_prev = z_prev;
  s_->initial_velocity_z.resize(0);
}

std::vector<Vec3d> Body::bound_positions(const PointBasis& basis, std::span<const Vec3d> scene_points) const {
  std::vector<Vec3d> out(scene_points.size());
  const Eigen::MatrixXd u = displacements(basis, s_->z, s_->m);
  for (std::size_t p = 0; p < scene_points.size(); ++p) {
    Vec3d x = scene_points[p] + u.row(static_cast<Eigen::Index>(p)).transpose();
    if (s_->pin_velocity.squaredNorm() > 0 && !s_->driven) {
      const double d = s_->pins.modulation((scene_points[p] - s_->translation) / s_->scale, nullptr);
      x += (1.0 - d) * s_->pin_velocity * s_->time;
    }
    out[p] = x;
  }
  return out;
}

std::vector<Vec3d> Body::collision_positions() const {
  return displaced(s_->collision_x0, s_->collision_basis, s_->z, s_->m);
}

std::vector<Vec3d> Body::positions() const { return displaced(s_->x0, s_->basis, s_->z, s_->m); }

void Body::set_base(Eigen::MatrixXd x0, Eigen::MatrixXd F0, Eigen::VectorXd force) {
  const Eigen::Index N = static_cast<Eigen::Index>(s_->rest.size());
  if (x0.rows() != N || x0.cols() != 3 || F0.rows() != N || F0.cols() != 9 || force.size() != dofs())
    fail_plain("body '{}': base state has the wrong size", s_->name);
  s_->x0 = std::move(x0);
  s_->F0 = std::move(F0);
  s_->base_force = std::move(force);
  s_->driven = true;
}

void Body::update_pins(double t) {
  s_->time = t;
  if (s_->driven || s_->pin_velocity.squaredNorm() == 0) return;
  const Vec3d shift = s_->pin_velocity * t;
  for (Eigen::Index p = 0; p < s_->collision_x0.rows(); ++p)
    s_->collision_x0.row(p) =
        (s_->collision_rest[static_cast<std::size_t>(p)] + (1.0 - s_->collision_d[p]) * shift).transpose();
  for (Eigen::Index p = 0; p < s_->x0.rows(); ++p) {
    s_->x0.row(p) = (s_->rest[static_cast<std::size_t>(p)] + (1.0 - s_->d[p]) * shift).transpose();
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 3; ++c) s_->F0(p, 3 * a + c) = (a == c ? 1.0 : 0.0) - shift[a] * s_->grad_d(p, c);
  }
}

// ---------------------------------------------------------------------------------------------
// World

int World::add_body(BodyDescription description) {
  bodies_.push_back(std::make_unique<Body>(std::move(description)));
  point_forces_.emplace_back();
  return static_cast<int>(bodies_.size()) - 1;
}

int World::add_kinematic(KinematicBody body) {
  kinematics_.push_back(std::move(body));
  return static_cast<int>(kinematics_.size()) - 1;
}

void World::set_point_forces(int body, Eigen::MatrixXd forces) {
  const Body& b = *bodies_.at(static_cast<std::size_t>(body));
  if (forces.size() > 0 && (forces.rows() != static_cast<Eigen::Index>(b.point_count()) || forces.cols() != 3))
    fail_plain("body '{}': point forces need one row of 3 per sample point", b.name());
  point_forces_[static_cast<std::size_t>(body)] = std::move(forces);
}

// The largest distance a collision point of any body moved over the last step.
double World::last_step_motion() const {
  double motion = 0;
  for (const auto& body : bodies_) {
    const int q = 4 * body->handle_count();
    for (int d = 0; d < 3; ++d) {
      const Eigen::VectorXd delta = body->s_->collision_basis.B * (body->s_->z - body->s_->z_prev).segment(d * q, q);
      motion = std::max(motion, delta.cwiseAbs().maxCoeff());
    }
  }
  return motion;
}

// The barrier's stiffness: the contact stiffness per unit mass times the mean collision point's
// mass and the radius squared.
double World::contact_barrier_stiffness() const {
  double mass = 0;
  std::size_t count = 0;
  for (const auto& body : bodies_) {
    mass += body->s_->collision_mass.sum();
    count += body->s_->collision_rest.size();
  }
  const double mean_point_mass = mass / static_cast<double>(std::max<std::size_t>(count, 1));
  return contact.stiffness * mean_point_mass * contact.radius * contact.radius;
}

void World::build_contacts() {
  contacts_.clear();
  if (!contact.enabled || bodies_.size() + kinematics_.size() < 2 || bodies_.empty()) return;
  // Query radius: the contact radius plus a margin for the last step's motion, so that pairs that
  // may meet during this step are in the set (their barrier is zero until then).
  const double radius = contact.radius;
  const double query = radius + 3.0 * last_step_motion();
  std::vector<std::vector<Vec3d>> now(bodies_.size());
  for (std::size_t b = 0; b < bodies_.size(); ++b) now[b] = bodies_[b]->collision_positions();
  // Points of all objects: deformable (body >= 0) and kinematic (-1 - index).
  fields::CellHash grid(query);
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    for (std::size_t p = 0; p < now[b].size(); ++p) grid.add(now[b][p], static_cast<int>(b), static_cast<int>(p));
  for (std::size_t k = 0; k < kinematic_now_.size(); ++k)
    for (std::size_t p = 0; p < kinematic_now_[k].size(); ++p)
      grid.add(kinematic_now_[k][p], -1 - static_cast<int>(k), static_cast<int>(p));
  auto position = [&](int object, int point) -> const Vec3d& {
    return object >= 0 ? now[static_cast<std::size_t>(object)][static_cast<std::size_t>(point)]
                       : kinematic_now_[static_cast<std::size_t>(-1 - object)][static_cast<std::size_t>(point)];
  };
  const double stiffness = contact_barrier_stiffness();
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    for (std::size_t p = 0; p < now[b].size(); ++p)
      grid.visit_near(now[b][p], [&](int ob, int op) {
        // Each deformable pair once (lower body index first); kinematic pairs from the deformable side.
        if (ob >= 0 && ob <= static_cast<int>(b)) return;
        const Vec3d delta = now[b][p] - position(ob, op);
        const double distance = delta.norm();
        if (distance >= query || distance <= 0) return;
        if (distance <= 1.01 * contact.min_gap * radius) {
          spdlog::debug("contact between {} and {} already closer than the minimum gap; skipped", b, ob);
          return;
        }
        contacts_.push_back({static_cast<int>(b), static_cast<int>(p), ob, op, delta / distance, radius, stiffness});
      });
}

template <class Visit>
void World::for_each_contact_side(const Contact& c, Visit&& visit) const {
  const Body& a = *bodies_[static_cast<std::size_t>(c.body_a)];
  visit(offsets_[static_cast<std::size_t>(c.body_a)], 4 * a.s_->m, a.s_->collision_basis.B.row(c.point_a), 1.0);
  if (c.body_b < 0) return;
  const Body& b = *bodies_[static_cast<std::size_t>(c.body_b)];
  visit(offsets_[static_cast<std::size_t>(c.body_b)], 4 * b.s_->m, b.s_->collision_basis.B.row(c.point_b), -1.0);
}

// What the Hessian at one state is made of, kept by evaluate() for products and assembly.
struct World::HessianTerms {
  struct PlaneTerm {
    Vec3d normal;
    std::vector<Eigen::Index> points;             // collision points in contact
    std::vector<double> normal_weight, friction;  // 2k and c per point in contact
  };
  struct BodyTerms {
    PointHessians points;  // v_p d2psi/dF2 at the sample points
    std::vector<PlaneTerm> planes;
  };
  std::vector<BodyTerms> bodies;
  std::vector<std::pair<std::size_t, double>> contacts;  // active contact, second derivative of its term in the gap
};

// The objective being summed by evaluate(): one running energy (the terms are added in a fixed
// order, so that the sum is the same bytes whatever stages it passes through), and the gradient
// and Hessian terms when asked for.
struct World::Evaluation {
  double energy = 0;
  Eigen::VectorXd* gradient = nullptr;
  HessianTerms* terms = nullptr;
};

double World::evaluate(const Eigen::VectorXd& z, Eigen::VectorXd* gradient, HessianTerms* terms) {
  Evaluation out{0, gradient, terms};
  active_signature_ = 0;
  if (gradient) gradient->setZero(z.size());
  if (terms) {
    terms->bodies.resize(bodies_.size());
    terms->contacts.clear();
  }
  std::vector<Eigen::MatrixXd> positions(bodies_.size());
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    const Eigen::VectorXd zb = z.segment(offsets_[b], 12 * bodies_[b]->s_->m);
    add_inertia_and_loads(b, zb, out);
    positions[b] = collision_positions_at(*bodies_[b], zb);
    if (!add_elasticity(b, zb, out)) return kInfinity;
    add_plane_penalties(b, positions[b], out);
  }
  if (!add_contact_barriers(positions, out)) return kInfinity;
  return out.energy;
}

// Inertia (the distance to the inertial prediction in the mass norm over h^2) and linear forces.
void World::add_inertia_and_loads(std::size_t b, const Eigen::VectorXd& zb, Evaluation& out) const {
  const Body& body = *bodies_[b];
  const int o = offsets_[b], q = 4 * body.s_->m;
  const double h = solver.time_step;
  const double inv_h2 = 1.0 / (h * h);
  const Eigen::VectorXd r = zb - predicted_[b];
  for (int d = 0; d < 3; ++d) {
    const Eigen::VectorXd Mr = body.s_->mass * r.segment(d * q, q);
    out.energy += 0.5 * inv_h2 * r.segment(d * q, q).dot(Mr);
    if (out.gradient) out.gradient->segment(o + d * q, q) += inv_h2 * Mr;
  }
  out.energy -= linear_force_[b].dot(zb);
  if (out.gradient) out.gradient->segment(o, 12 * body.s_->m) -= linear_force_[b];
}

// The body's collision points at state zb (C x 3).
Eigen::MatrixXd World::collision_positions_at(const Body& body, const Eigen::VectorXd& zb) {
  const Eigen::Map<const Eigen::MatrixXd> Zb(zb.data(), 4 * body.s_->m, 3);
  Eigen::MatrixXd xc = body.s_->collision_x0;
  for (int d = 0; d < 3; ++d)
    xc.col(d).noalias() += body.s_->collision_basis.B * Zb.col(d);  // products with a vector: nothing packed
  return xc;
}

// Elastic energy at the sample points; false where a point's energy is not finite (inverted).
bool World::add_elasticity(std::size_t b, const Eigen::VectorXd& zb, Evaluation& out) const {
  const Body& body = *bodies_[b];
  const int o = offsets_[b], q = 4 * body.s_->m;
  const Eigen::Index N = static_cast<Eigen::Index>(body.point_count());
  // Deformation gradients, affine in z: Fz(d, 3p + c) = D_c[p] . z_d = F_p(d, c) - F0_p(d, c).
  const Eigen::Map<const Eigen::MatrixXd> Zb(zb.data(), q, 3);
  Eigen::Matrix<double, 3, Eigen::Dynamic> Fz;  // Fz(d, 3p + c)
  thin_transposed_product(body.s_->dstack, Zb, Fz);
  // stress(d, 3p + c) = v_p P_p(d, c).
  const double mu = body.s_->material.mu(), lambda = body.s_->material.lambda();
  Eigen::Matrix<double, 3, Eigen::Dynamic> stress(3, 3 * N);
  if (out.terms) out.terms->bodies[b].points.resize(81, N);
  for (Eigen::Index p = 0; p < N; ++p) {
    Mat3d Fp;
    for (int d = 0; d < 3; ++d)
      for (int c = 0; c < 3; ++c) Fp(d, c) = body.s_->F0(p, 3 * d + c) + Fz(d, 3 * p + c);
    Mat3d P;
    Mat9d H;
    const double psi = energy_derivatives(body.s_->model, mu, lambda, Fp, P, out.terms ? &H : nullptr);
    if (!std::isfinite(psi)) return false;
    const double v = body.s_->volume[p];
    out.energy += v * psi;
    for (int d = 0; d < 3; ++d)
      for (int c = 0; c < 3; ++c) stress(d, 3 * p + c) = v * P(d, c);
    if (out.terms) {
      // Mat9d is column-major and symmetric: its storage is also the row-major layout.
      out.terms->bodies[b].points.col(p) =
          Eigen::Map<const Eigen::Matrix<double, 81, 1>>(H.data()).cast<float>() * static_cast<float>(v);
    }
  }
  if (out.gradient) {
    Eigen::Matrix<double, Eigen::Dynamic, 3> g = Eigen::Matrix<double, Eigen::Dynamic, 3>::Zero(q, 3);
    add_thin_product(body.s_->dstack, stress, g);
    for (int d = 0; d < 3; ++d) out.gradient->segment(o + d * q, q) += g.col(d);
  }
  return true;
}

// Planes (eq. 14): penalty on points behind a plane, inside its rectangle, and viscous friction
// on their slip since the start of the step.
void World::add_plane_penalties(std::size_t b, const Eigen::MatrixXd& xc, Evaluation& out) {
  const Body& body = *bodies_[b];
  const int o = offsets_[b], q = 4 * body.s_->m;
  const double h = solver.time_step;
  if (out.terms) out.terms->bodies[b].planes.clear();
  for (const Plane& plane : planes) {
    const Vec3d n = plane.normal;
    const Vec3d u = plane.axis_u;
    const Vec3d w = n.cross(u);
    const Eigen::Index C = xc.rows();
    const Eigen::MatrixXd& Bc = body.s_->collision_basis.B;
    HessianTerms::PlaneTerm term;
    term.normal = n;
    for (Eigen::Index p = 0; p < C; ++p) {
      const Vec3d rel = xc.row(p).transpose() - plane.origin;
      const double s = n.dot(rel);
      if (s >= 0 || s < -plane.thickness) continue;
      if (plane.half_u > 0 && std::abs(u.dot(rel)) > plane.half_u) continue;
      if (plane.half_v > 0 && std::abs(w.dot(rel)) > plane.half_v) continue;
      const double k = plane.stiffness * body.s_->collision_mass[p];
      const double c = plane.friction * body.s_->collision_mass[p] / h;
      const Vec3d slip = rel - s * n -
                         (body.s_->start.row(p).transpose() - plane.origin -
                          n.dot(body.s_->start.row(p).transpose() - plane.origin) * n);
      out.energy += k * s * s + 0.5 * c * slip.squaredNorm();
      if (out.gradient)
        for (int d = 0; d < 3; ++d)
          out.gradient->segment(o + d * q, q) += (2.0 * k * s * n[d] + c * slip[d]) * Bc.row(p).transpose();
      term.points.push_back(p);
      term.normal_weight.push_back(2.0 * k);
      term.friction.push_back(c);
      active_signature_ = active_signature_ * 1000003u + static_cast<std::uint64_t>(p) + 1u;
    }
    if (out.terms && !term.points.empty()) out.terms->bodies[b].planes.push_back(std::move(term));
  }
}

// Contacts (eq. 15, 16): the gap along the stored direction is affine in z. false where a pair
// is closer than the barrier allows.
bool World::add_contact_barriers(const std::vector<Eigen::MatrixXd>& positions, Evaluation& out) {
  for (const Contact& c : contacts_) {
    const Vec3d xa = positions[static_cast<std::size_t>(c.body_a)].row(c.point_a).transpose();
    const Vec3d xb = c.body_b >= 0
                         ? Vec3d(positions[static_cast<std::size_t>(c.body_b)].row(c.point_b).transpose())
                         : kinematic_now_[static_cast<std::size_t>(-1 - c.body_b)][static_cast<std::size_t>(c.point_b)];
    const double gap = c.normal.dot(xa - xb) / c.radius;
    double first = 0, second = 0;
    const double b =
        barrier(gap, contact.min_gap, out.gradient || out.terms ? &first : nullptr, out.terms ? &second : nullptr);
    if (!std::isfinite(b)) return false;
    if (gap >= 1.0) continue;
    const std::size_t index = static_cast<std::size_t>(&c - contacts_.data());
    active_signature_ = active_signature_ * 998244353u + static_cast<std::uint64_t>(index) + 7u;
    out.energy += c.stiffness * b;
    if (out.terms) out.terms->contacts.emplace_back(index, c.stiffness * second / (c.radius * c.radius));
    if (!out.gradient) continue;
    // J_c = n^T [J_a, -J_b]; entries n_d B_a[p] on the d-block of body a (and minus for b).
    const double g1 = c.stiffness * first / c.radius;
    Eigen::VectorXd& gradient = *out.gradient;
    for_each_contact_side(c, [&](int offset, int q, const auto& row, double sign) {
      for (int d = 0; d < 3; ++d) gradient.segment(offset + d * q, q) += (g1 * sign * c.normal[d]) * row.transpose();
    });
  }
  return true;
}

void World::assemble_hessian(const HessianTerms& terms, Eigen::MatrixXd& hessian) const {
  const double h = solver.time_step, inv_h2 = 1.0 / (h * h);
  const Eigen::Index total = offsets_.empty() ? 0 : offsets_.back() + bodies_.back()->dofs();
  hessian.setZero(total, total);
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    const Body& body = *bodies_[b];
    const int o = offsets_[b], q = 4 * body.s_->m;
    for (int d = 0; d < 3; ++d) hessian.block(o + d * q, o + d * q, q, q) += inv_h2 * body.s_->mass;
    add_elastic_hessian(body.s_->dall, terms.bodies[b].points, hessian.block(o, o, 3 * q, 3 * q));
    const Eigen::MatrixXd& Bc = body.s_->collision_basis.B;
    for (const auto& plane : terms.bodies[b].planes) {
      const Vec3d& n = plane.normal;
      Eigen::MatrixXd rows(static_cast<Eigen::Index>(plane.points.size()), q);
      for (std::size_t k = 0; k < plane.points.size(); ++k)
        rows.row(static_cast<Eigen::Index>(k)) = Bc.row(plane.points[k]);
      const Eigen::Map<const Eigen::VectorXd> weights(plane.normal_weight.data(), rows.rows());
      const Eigen::Map<const Eigen::VectorXd> friction(plane.friction.data(), rows.rows());
      const Eigen::MatrixXd Q = rows.transpose() * weights.asDiagonal() * rows;
      const Eigen::MatrixXd Qf = rows.transpose() * friction.asDiagonal() * rows;
      for (int d = 0; d < 3; ++d)
        for (int e = 0; e < 3; ++e) {
          const double tangential = (d == e ? 1.0 : 0.0) - n[d] * n[e];
          if (n[d] * n[e] != 0) hessian.block(o + d * q, o + e * q, q, q) += (n[d] * n[e]) * Q;
          if (tangential != 0) hessian.block(o + d * q, o + e * q, q, q) += tangential * Qf;
        }
    }
  }
  for (const auto& [index, contact_g2] : terms.contacts) {
    const Contact& c = contacts_[index];
    const double g2 = contact_g2;  // a copy: lambdas may not capture structured bindings (C++17, clang 14)
    for_each_contact_side(c, [&](int so, int sq, const auto& srow, double ssign) {
      for_each_contact_side(c, [&](int to, int tq, const auto& trow, double tsign) {
        const Eigen::MatrixXd outer = (g2 * ssign * tsign) * srow.transpose() * trow;
        for (int d = 0; d < 3; ++d)
          for (int e = 0; e < 3; ++e)
            if (c.normal[d] * c.normal[e] != 0)
              hessian.block(so + d * sq, to + e * tq, sq, tq) += (c.normal[d] * c.normal[e]) * outer;
      });
    });
  }
}

Eigen::VectorXd World::hessian_product(const HessianTerms& terms, const Eigen::VectorXd& v) const {
  const double h = solver.time_step, inv_h2 = 1.0 / (h * h);
  Eigen::VectorXd out = Eigen::VectorXd::Zero(v.size());
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    const Body& body = *bodies_[b];
    const int o = offsets_[b], q = 4 * body.s_->m;
    const Eigen::Map<const Eigen::MatrixXd> V(v.data() + o, q, 3);
    for (int d = 0; d < 3; ++d) out.segment(o + d * q, q).noalias() += inv_h2 * (body.s_->mass * V.col(d));
    add_elastic_hessian_product(body.s_->dall, terms.bodies[b].points, v.segment(o, 3 * q), out.segment(o, 3 * q));
    const Eigen::MatrixXd& Bc = body.s_->collision_basis.B;
    for (const auto& plane : terms.bodies[b].planes) {
      const Vec3d& n = plane.normal;
      for (std::size_t k = 0; k < plane.points.size(); ++k) {
        const auto row = Bc.row(plane.points[k]);
        const Vec3d moved = (row * V).transpose();
        const double along = n.dot(moved);
        const Vec3d force = plane.normal_weight[k] * along * n + plane.friction[k] * (moved - along * n);
        for (int d = 0; d < 3; ++d) out.segment(o + d * q, q) += force[d] * row.transpose();
      }
    }
  }
  for (const auto& [index, contact_g2] : terms.contacts) {
    const Contact& c = contacts_[index];
    const double g2 = contact_g2;  // a copy: lambdas may not capture structured bindings (C++17, clang 14)
    double gap_change = 0;
    for_each_contact_side(c, [&](int offset, int q, const auto& row, double sign) {
      for (int d = 0; d < 3; ++d) gap_change += sign * c.normal[d] * row.transpose().dot(v.segment(offset + d * q, q));
    });
    for_each_contact_side(c, [&](int offset, int q, const auto& row, double sign) {
      for (int d = 0; d < 3; ++d)
        out.segment(offset + d * q, q) += (g2 * gap_change * sign * c.normal[d]) * row.transpose();
    });
  }
  return out;
}

// The factorised Hessian used as the preconditioner, and where it was assembled.
struct World::Preconditioner {
  Eigen::LLT<Eigen::MatrixXd> factor;
  bool valid = false;
  Eigen::Index dofs = 0;
  double time_step = 0;
  std::uint64_t signature = 0;  // active plane and contact terms when it was assembled
  int refreshes = 0;
};

bool World::refresh_preconditioner(const HessianTerms& terms) {
  Preconditioner& pre = *preconditioner_;
  Eigen::MatrixXd hessian;
  assemble_hessian(terms, hessian);
  pre.factor.compute(hessian);
  double regulariser = 1e-8 * std::max(hessian.diagonal().cwiseAbs().maxCoeff(), 1e-300);
  while (pre.factor.info() != Eigen::Success && regulariser <= 1e30) {
    hessian.diagonal().array() += regulariser;
    pre.factor.compute(hessian);
    regulariser *= 10;
  }
  pre.valid = pre.factor.info() == Eigen::Success;
  pre.dofs = hessian.rows();
  pre.time_step = solver.time_step;
  pre.signature = active_signature_;
  ++pre.refreshes;
  return pre.valid;
}

struct World::Direction {
  Eigen::VectorXd step;
  double energy_norm2 = 0;  // step^T H step
  int iterations = 0;
  bool converged = false;
};

// Preconditioned conjugate gradients on H d = -g from d = 0 (an inexact Newton step), stopped when
// an iteration adds less than kForcing of the step's size in the energy norm or less than
// `negligible` (squared energy norm), or at negative curvature.
World::Direction World::newton_direction(const HessianTerms& terms, const Eigen::VectorXd& gradient,
                                         double negligible) const {
  constexpr double kForcing = 1e-2;
  constexpr int kMaxIterations = 40;
  const Eigen::LLT<Eigen::MatrixXd>& factor = preconditioner_->factor;
  Direction out;
  out.step.setZero(gradient.size());
  Eigen::VectorXd r = -gradient;
  Eigen::VectorXd s = factor.solve(r);
  double rs = r.dot(s);
  if (!(rs > 0)) {
    out.converged = true;
    return out;
  }
  Eigen::VectorXd p = s;
  for (out.iterations = 1; out.iterations <= kMaxIterations; ++out.iterations) {
    const Eigen::VectorXd Hp = hessian_product(terms, p);
    const double curvature = p.dot(Hp);
    if (!(curvature > 0)) {
      // Negative curvature: keep what we have (or the preconditioned gradient, a descent direction).
      if (out.iterations == 1) out.step = p;
      out.converged = out.iterations == 1;
      return out;
    }
    const double alpha = rs / curvature;
    out.step += alpha * p;
    out.energy_norm2 += alpha * alpha * curvature;
    r -= alpha * Hp;
    // Converged when this iteration's gain in the energy norm is a small part of the step's:
    // directions that hardly change the energy (nearly unused handle coordinates) do not count.
    const double gain = alpha * alpha * curvature;
    if (gain <= kForcing * kForcing * out.energy_norm2 || gain <= negligible) {
      out.converged = true;
      return out;
    }
    s = factor.solve(r);
    const double rs_next = r.dot(s);
    p = s + (rs_next / rs) * p;
    rs = rs_next;
  }
  out.iterations = kMaxIterations;
  return out;
}

StepStats World::step() {
  const double h = solver.time_step;
  if (!(h > 0) || !std::isfinite(h)) fail_plain("time step must be positive (got {})", h);
  if (bodies_.empty()) {
    time_ += h;
    return stats_ = {};
  }
  const double t1 = time_ + h;
  // The contact set is found where the obstacles are now; the step's objective sees them at its end.
  place_kinematics(time_);
  const int total = lay_out_bodies(h);
  build_contacts();
  place_kinematics(t1);
  for (Plane& plane : planes) plane.advance(h);
  Eigen::VectorXd z = predict_bodies(t1, total);
  double energy = admissible_start(z);
  StepStats stats = minimise(z, energy, total);
  commit_state(z, t1);
  time_ = t1;
  stats.energy = energy;
  stats.contacts = contacts_.size();
  stats_ = stats;
  return stats;
}

// The obstacles' contact points at time t.
void World::place_kinematics(double t) {
  kinematic_now_.assign(kinematics_.size(), {});
  for (std::size_t k = 0; k < kinematics_.size(); ++k)
    for (const Vec3d& p : kinematics_[k].points) kinematic_now_[k].push_back(kinematics_[k].position(p, t));
}

// Each body's offset in the world's state; a pending initial velocity becomes the previous state.
// Returns the world's number of degrees of freedom.
int World::lay_out_bodies(double h) {
  offsets_.assign(bodies_.size(), 0);
  int total = 0;
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    Body& body = *bodies_[b];
    if (body.s_->initial_velocity_z.size() == body.dofs()) {
      body.s_->z_prev = body.s_->z - h * body.s_->initial_velocity_z;
      body.s_->initial_velocity_z.resize(0);
    }
    offsets_[b] = total;
    total += body.dofs();
  }
  return total;
}

// The inertial prediction 2 z - z_prev of every body (also kept for evaluate()), with the step's
// start positions, pins and linear forces at its end t1.
Eigen::VectorXd World::predict_bodies(double t1, int total) {
  predicted_.assign(bodies_.size(), {});
  linear_force_.assign(bodies_.size(), {});
  Eigen::VectorXd z(total);
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    Body& body = *bodies_[b];
    const int q = 4 * body.s_->m;
    body.s_->start = body.s_->collision_x0;
    for (int d = 0; d < 3; ++d) body.s_->start.col(d) += body.s_->collision_basis.B * body.s_->z.segment(d * q, q);
    body.update_pins(t1);
    predicted_[b] = 2.0 * body.s_->z - body.s_->z_prev;
    linear_force_[b] = linear_force(b);
    z.segment(offsets_[b], body.dofs()) = predicted_[b];
  }
  return z;
}

// The body's constant force on z: its base force plus gravity, point forces and drags through the basis.
Eigen::VectorXd World::linear_force(std::size_t b) const {
  const Body& body = *bodies_[b];
  const int q = 4 * body.s_->m;
  Eigen::VectorXd f = body.s_->base_force;
  Eigen::MatrixXd forces = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(body.point_count()), 3);
  for (int d = 0; d < 3; ++d) forces.col(d) = body.s_->point_mass * solver.gravity[d];
  if (point_forces_[b].size() > 0) forces += point_forces_[b];
  add_drag_forces(b, forces);
  for (int d = 0; d < 3; ++d) f.segment(d * q, q) += body.s_->basis.B.transpose() * forces.col(d);
  return f;
}

// Drags on body b: springs from the grabbed point's current position to its target, spread over
// the sample points by a Gaussian of the rest distance.
void World::add_drag_forces(std::size_t b, Eigen::MatrixXd& forces) const {
  const Body& body = *bodies_[b];
  const int q = 4 * body.s_->m;
  for (const Drag& drag : drags) {
    if (drag.body != static_cast<int>(b)) continue;
    const Vec3d rest[1] = {drag.rest_point};
    const PointBasis at = body.basis_at(rest, false);
    Vec3d grabbed = drag.rest_point;
    for (int d = 0; d < 3; ++d) grabbed[d] += at.B.row(0).dot(body.s_->z.segment(d * q, q));
    const Vec3d pull = drag.target - grabbed;
    for (Eigen::Index p = 0; p < forces.rows(); ++p) {
      const double r2 = (body.s_->rest[static_cast<std::size_t>(p)] - drag.rest_point).squaredNorm();
      const double kernel = std::exp(-r2 / (2.0 * drag.radius * drag.radius));
      forces.row(p) += (drag.stiffness * body.s_->point_mass[p] * kernel) * pull.transpose();
    }
  }
}

// Start from the inertial prediction if it is admissible (contacts), else from the current state.
// Returns the energy at the start.
double World::admissible_start(Eigen::VectorXd& z) {
  double energy = evaluate(z, nullptr, nullptr);
  if (!std::isfinite(energy)) {
    for (std::size_t b = 0; b < bodies_.size(); ++b) z.segment(offsets_[b], bodies_[b]->dofs()) = bodies_[b]->s_->z;
    energy = evaluate(z, nullptr, nullptr);
    if (!std::isfinite(energy))
      fail_plain("physics: the state at time {} s is not admissible (contacts overlap)", time_);
  }
  return energy;
}

// A descent direction at one Newton iterate, the objective's slope along it, and whether the
// preconditioner behind it was assembled at this iterate.
struct World::Search {
  Direction direction;
  double slope = 0;
  bool fresh = false;
};

// The preconditioned Newton direction (the preconditioner refreshed where it is stale or no longer
// fits), or the steepest descent where that is no descent.
World::Search World::search_direction(const HessianTerms& terms, const Eigen::VectorXd& gradient, double negligible,
                                      StepStats& stats) {
  Preconditioner& pre = *preconditioner_;
  Search out;
  if (!pre.valid || !solver.reuse_hessian || pre.signature != active_signature_) {
    refresh_preconditioner(terms);
    out.fresh = true;
  }
  Direction& direction = out.direction;
  if (pre.valid) {
    direction = newton_direction(terms, gradient, negligible);
    if (!direction.converged && !out.fresh) {
      // The stale preconditioner no longer fits: refresh it and solve again.
      stats.cg_iterations += direction.iterations;
      out.fresh = true;
      if (refresh_preconditioner(terms)) direction = newton_direction(terms, gradient, negligible);
    }
    stats.cg_iterations += direction.iterations;
    if (direction.iterations > solver.refresh_after) pre.valid = false;  // refresh at the next solve
  }
  out.slope = direction.step.size() > 0 ? gradient.dot(direction.step) : 0.0;
  if (!(out.slope < 0)) {
    // No factorisation or no descent: the steepest descent direction.
    direction.step = -gradient;
    direction.energy_norm2 = hessian_product(terms, direction.step).dot(direction.step);
    out.slope = -gradient.squaredNorm();
  }
  return out;
}

namespace {

struct LineSearch {
  double alpha = 1.0;  // the last step length tried, halved once more where none was accepted
  Eigen::VectorXd trial;
  double energy = kInfinity;
};

// Backtracking from the full step to the first that decreases the energy enough (Armijo, 1e-4 of
// the slope), at most 40 halvings.
template <class Energy>
LineSearch backtracking_line_search(const Eigen::VectorXd& z, const Eigen::VectorXd& step, double energy, double slope,
                                    Energy&& energy_at) {
  LineSearch out;
  for (int k = 0; k < 40; ++k) {
    out.trial = z + out.alpha * step;
    out.energy = energy_at(out.trial);
    if (std::isfinite(out.energy) && out.energy <= energy + 1e-4 * out.alpha * slope) break;
    out.alpha *= 0.5;
  }
  return out;
}

}  // namespace

// Newton iterations from z on the step's objective (energy: its value at z, kept current), until
// the update is below the tolerance in the energy norm or no direction lowers the energy.
StepStats World::minimise(Eigen::VectorXd& z, double& energy, int total) {
  const double h = solver.time_step;
  Eigen::VectorXd gradient;
  HessianTerms terms;
  StepStats stats;
  if (!preconditioner_) preconditioner_ = std::make_shared<Preconditioner>();
  Preconditioner& pre = *preconditioner_;
  if (pre.dofs != total || pre.time_step != h) pre.valid = false;
  const int refreshes_before = pre.refreshes;
  double total_mass = 0;
  for (const auto& body : bodies_) total_mass += body->total_mass();
  // A conjugate-gradient gain below this (a tenth of the tolerance, in the energy norm) cannot matter.
  const double negligible = 0.01 * solver.tolerance * solver.tolerance * total_mass / (h * h);
  for (int iteration = 0; iteration < solver.max_iterations; ++iteration) {
    energy = evaluate(z, &gradient, &terms);
    stats.iterations = iteration + 1;
    const Search search = search_direction(terms, gradient, negligible, stats);
    if (search.slope == 0) break;
    const LineSearch line =
        backtracking_line_search(z, search.direction.step, energy, search.slope,
                                 [&](const Eigen::VectorXd& x) { return evaluate(x, nullptr, nullptr); });
    if (!std::isfinite(line.energy) || line.energy > energy + 1e-12 * std::abs(energy)) {
      if (search.fresh) break;
      pre.valid = false;  // a stale preconditioner gave a poor direction: retry from here with a fresh one
      continue;
    }
    z = line.trial;
    energy = line.energy;
    // The update's size in the energy norm, as a length (see SolverOptions::tolerance).
    const double update =
        line.alpha * h * std::sqrt(std::max(search.direction.energy_norm2, 0.0) / std::max(total_mass, 1e-300));
    if (update < solver.tolerance) break;
  }
  stats.hessian_refreshes = pre.refreshes - refreshes_before;
  return stats;
}

// The new state becomes the current one, the current the previous.
void World::commit_state(const Eigen::VectorXd& z, double t1) {
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    Body& body = *bodies_[b];
    const Eigen::VectorXd next = z.segment(offsets_[b], body.dofs());
    if (!next.allFinite()) fail_plain("physics: body '{}' diverged at time {} s", body.name(), t1);
    body.s_->z_prev = body.s_->z;
    body.s_->z = next;
  }
}

}  // namespace wobble::physics
