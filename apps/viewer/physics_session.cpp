#include "physics_session.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <wobble/error.hpp>
#include <wobble/physics/shape_body.hpp>

#include "core/fail.hpp"

namespace wobble::viewer {

namespace {

constexpr double kBallRadius = 0.3;  // m, in the shape's normalised frame
constexpr int kBallHandles = 6;

// A UV sphere of radius 1 about the origin, outward triangles.
Mesh unit_sphere(int rings = 12, int segments = 20) {
  Mesh m;
  for (int r = 0; r <= rings; ++r) {
    const double theta = std::numbers::pi * r / rings;
    for (int s = 0; s < segments; ++s) {
      const double phi = 2 * std::numbers::pi * s / segments;
      m.positions.emplace_back(static_cast<float>(std::sin(theta) * std::cos(phi)), static_cast<float>(std::cos(theta)),
                               static_cast<float>(std::sin(theta) * std::sin(phi)));
    }
  }
  auto index = [segments](int r, int s) { return static_cast<std::uint32_t>(r * segments + (s % segments)); };
  for (int r = 0; r < rings; ++r)
    for (int s = 0; s < segments; ++s) {
      if (r > 0) m.triangles.push_back({index(r, s), index(r, s + 1), index(r + 1, s)});
      if (r + 1 < rings) m.triangles.push_back({index(r, s + 1), index(r + 1, s + 1), index(r + 1, s)});
    }
  m.compute_normals();
  return m;
}

}  // namespace

PhysicsSession::PhysicsSession(const Mesh& shape, const PhysicsSettings& settings, fields::MeshFields neural)
    : shape_(shape), settings_(settings), neural_(std::move(neural)) {
  if (shape_.positions.empty()) fail_plain("physics: the shape has no vertices");
  const std::vector<Vec3d> file_points = fields::to_double(shape_.positions);
  normalization_ = fields::Normalization::of_points(file_points);
  size_ = shape_.size();
  for (const Vec3d& p : file_points) {
    rest_.push_back(to_normalized(p));
    rest_box_.extend(rest_.back());
  }
  painted_.assign(rest_.size(), false);
  ball_mesh_ = unit_sphere();
  apply(settings);
}

void PhysicsSession::build_fields() {
  const physics::Settings& s = settings_.physics;
  const FieldKey key{settings_.subspace, s.handles, s.points, s.sample_grid, s.field_grid};
  if (field_key_ == key) return;
  fields::SampleOptions sampling;
  sampling.grid_resolution = settings_.physics.sample_grid;
  // From the file's points, as a scene samples them (not from rest_: normalising twice rounds).
  samples_ = shape_.triangles.empty() ? fields::sample_point_cloud(fields::to_double(shape_.positions), sampling)
                                      : fields::sample_mesh(shape_, sampling);
  samples_ = fields::subsample(samples_, static_cast<std::size_t>(settings_.physics.points));
  if (settings_.subspace == Subspace::Neural) {
    if (!neural_) fail_plain("physics: no neural fields model (export one with `wobble fields export`)");
    field_ = neural_(shape_, true);  // a point cloud (no triangles) is encoded from its points (shape_sample.hpp)
  } else {
    field_ = physics::shape_eigenmodes(physics::shape_cover(samples_, rest_), s.handles, s.field_grid);
  }
  field_key_ = key;
}

physics::DirichletRegion PhysicsSession::pins() const {
  physics::Predicate inside;
  if (settings_.pin_mode == PinMode::Plane) {
    const int axis = std::clamp(settings_.pin_axis, 0, 2);
    const double level = settings_.pin_level;
    const bool above = settings_.pin_above;
    inside = [axis, level, above](const Vec3d& X) { return above ? X[axis] > level : X[axis] < level; };
  } else if (settings_.pin_mode == PinMode::Predicate) {
    inside = physics::parse_predicate(settings_.pin_predicate);
  } else if (settings_.pin_mode == PinMode::Painted) {
    auto marked = std::make_shared<std::vector<Vec3d>>();
    for (std::size_t v = 0; v < rest_.size(); ++v)
      if (painted_[v]) marked->push_back(rest_[v]);
    const double r2 = std::pow(0.5 * settings_.pin_brush_radius, 2);
    inside = [marked, r2](const Vec3d& X) {
      return std::any_of(marked->begin(), marked->end(), [&](const Vec3d& p) { return (p - X).squaredNorm() <= r2; });
    };
  } else {
    return {};
  }
  std::vector<Vec3d> anchors;
  for (const Vec3d& p : physics::shape_cover(samples_, rest_))
    if (inside(p)) anchors.push_back(p);
  if (anchors.empty()) return {};  // nothing selected: free
  return physics::DirichletRegion(inside, std::move(anchors), settings_.physics.pin_blend);
}

physics::Plane PhysicsSession::floor_plane() const {
  physics::Plane plane;
  const double tilt_x = settings_.floor_tilt_x * std::numbers::pi / 180,
               tilt_z = settings_.floor_tilt_z * std::numbers::pi / 180;
  const Eigen::Matrix3d turn =
      (Eigen::AngleAxisd(tilt_x, Vec3d::UnitX()) * Eigen::AngleAxisd(tilt_z, Vec3d::UnitZ())).toRotationMatrix();
  plane.normal = turn * Vec3d::UnitY();
  plane.axis_u = turn * Vec3d::UnitX();
  const Vec3d centre = rest_box_.center();
  plane.origin = Vec3d(centre.x(), rest_box_.min().y() - settings_.floor_offset, centre.z());
  return plane;
}

void PhysicsSession::build_world() {
  world_ = physics::World();
  world_.solver.time_step = settings_.physics.time_step();
  world_.solver.max_iterations = settings_.physics.max_iterations;
  world_.solver.tolerance = settings_.physics.tolerance;
  const physics::Settings& s = settings_.physics;
  world_.contact = {s.contact, s.contact_radius, s.contact_min_gap, s.contact_stiffness};  // the dropped ball
  world_.add_body(physics::shape_body("shape", samples_, field_, rest_, pins(), s.material(), s.model));
  vertex_basis_ = world_.body(0).basis_at(rest_, false);
  update_live(settings_);
  ball_body_ = -1;
  drag_.reset();
  clock_.reset();
  meter_.reset();
  update_vertices();
}

void PhysicsSession::apply(const PhysicsSettings& settings) {
  settings_ = settings;
  build_fields();
  const bool ball = has_ball();
  build_world();
  if (ball) drop_ball();
}

void PhysicsSession::reset() { apply(settings_); }

void PhysicsSession::update_live(const PhysicsSettings& settings) {
  settings_.gravity = settings.gravity;
  settings_.gravity_direction = settings.gravity_direction;
  settings_.floor = settings.floor;
  settings_.floor_offset = settings.floor_offset;
  settings_.floor_tilt_x = settings.floor_tilt_x;
  settings_.floor_tilt_z = settings.floor_tilt_z;
  settings_.physics.gravity = settings.physics.gravity;
  settings_.physics.drag_stiffness = settings.physics.drag_stiffness;
  settings_.physics.drag_radius = settings.physics.drag_radius;
  const Vec3d direction =
      settings_.gravity_direction.norm() > 0 ? Vec3d(settings_.gravity_direction.normalized()) : Vec3d(0, -1, 0);
  world_.solver.gravity = settings_.gravity ? Vec3d(settings_.physics.gravity.norm() * direction) : Vec3d::Zero();
  world_.planes.clear();
  if (settings_.floor) world_.planes.push_back(floor_plane());
  if (drag_) {
    drag_->stiffness = settings_.physics.drag_stiffness;
    drag_->radius = settings_.physics.drag_radius;
    world_.drags = {*drag_};
  }
}

void PhysicsSession::solve_step() {
  meter_.start();
  const physics::StepStats stats = world_.step();
  meter_.record(stats.iterations, stats.contacts);
}

void PhysicsSession::step() {
  solve_step();
  update_vertices();
}

int PhysicsSession::advance(double seconds) {
  const int steps = clock_.due(seconds, settings_.physics.time_step());
  for (int s = 0; s < steps; ++s) solve_step();
  if (steps > 0) update_vertices();  // once per frame: the display needs only the last state
  return steps;
}

void PhysicsSession::update_vertices() {
  const physics::Body& body = world_.body(0);
  const std::vector<Vec3d> now = body.bound_positions(vertex_basis_, rest_);
  vertices_.resize(now.size());
  for (std::size_t v = 0; v < now.size(); ++v) vertices_[v] = to_file(now[v]).cast<float>();
  if (ball_body_ >= 0) {
    const std::vector<Vec3d> ball = world_.body(ball_body_).bound_positions(ball_basis_, ball_rest_);
    ball_vertices_.resize(ball.size());
    for (std::size_t v = 0; v < ball.size(); ++v) ball_vertices_[v] = to_file(ball[v]).cast<float>();
  }
}

std::vector<float> PhysicsSession::pinned_vertices() const {
  std::vector<float> out(rest_.size(), 0.0f);
  const physics::DirichletRegion& region = world_.body(0).pins();
  for (std::size_t v = 0; v < rest_.size(); ++v) out[v] = region.contains(rest_[v]) ? 1.0f : 0.0f;
  return out;
}

std::vector<Eigen::Matrix3d> PhysicsSession::vertex_deformations() const {
  const physics::Body& body = world_.body(0);
  const auto Z = physics::handle_matrices(body.z(), body.handle_count());
  std::vector<Eigen::Matrix3d> out(rest_.size(), Eigen::Matrix3d::Identity());
  for (std::size_t v = 0; v < rest_.size(); ++v)
    for (std::size_t i = 0; i < Z.size(); ++i)
      out[v] +=
          vertex_basis_.modulated_W(static_cast<Eigen::Index>(v), static_cast<Eigen::Index>(i)) * Z[i].leftCols<3>();
  return out;
}

void PhysicsSession::press(const Vec3d& rest_point) {
  physics::Drag drag;
  drag.body = 0;
  drag.rest_point = to_normalized(rest_point);
  drag.target = to_normalized(position_of(rest_point));
  drag.stiffness = settings_.physics.drag_stiffness;
  drag.radius = settings_.physics.drag_radius;
  drag_ = drag;
  world_.drags = {drag};
}

void PhysicsSession::drag_to(const Vec3d& target) {
  if (!drag_) return;
  drag_->target = to_normalized(target);
  world_.drags = {*drag_};
}

void PhysicsSession::release() {
  drag_.reset();
  world_.drags.clear();
}

Vec3d PhysicsSession::grabbed_rest() const { return drag_ ? to_file(drag_->rest_point) : Vec3d::Zero(); }

Vec3d PhysicsSession::grabbed_position() const {
  return drag_ ? position_of(to_file(drag_->rest_point)) : Vec3d::Zero();
}

Vec3d PhysicsSession::position_of(const Vec3d& rest_point) const {
  const physics::Body& body = world_.body(0);
  const std::vector<Vec3d> point{to_normalized(rest_point)};
  return to_file(body.bound_positions(body.basis_at(point, false), point)[0]);
}

Vec3d PhysicsSession::drag_target() const { return drag_ ? to_file(drag_->target) : Vec3d::Zero(); }

void PhysicsSession::paint_pins(const Vec3d& rest_point, bool erase) {
  const Vec3d centre = to_normalized(rest_point);
  const double r2 = settings_.pin_brush_radius * settings_.pin_brush_radius;
  for (std::size_t v = 0; v < rest_.size(); ++v)
    if ((rest_[v] - centre).squaredNorm() <= r2) painted_[v] = !erase;
}

void PhysicsSession::drop_ball() {
  if (ball_body_ >= 0) return;
  const Vec3d top(rest_box_.center().x(), rest_box_.max().y() + kBallRadius + 0.2, rest_box_.center().z());
  fields::SampleOptions sampling;
  sampling.grid_resolution = 12;
  fields::SamplePoints samples = fields::subsample(fields::sample_mesh(ball_mesh_, sampling), 300);
  const std::vector<Vec3d> sphere = fields::to_double(ball_mesh_.positions);
  auto field = physics::shape_eigenmodes(physics::shape_cover(samples, sphere), kBallHandles, 10);
  physics::BodyDescription d = physics::shape_body("ball", std::move(samples), std::move(field), sphere, {},
                                                   settings_.physics.material(), settings_.physics.model);
  d.scale = kBallRadius;
  d.translation = top;
  ball_body_ = world_.add_body(std::move(d));
  ball_rest_.clear();
  for (const Vec3d& p : sphere) ball_rest_.push_back(kBallRadius * p + top);
  ball_basis_ = world_.body(ball_body_).basis_at(ball_rest_, false);
  update_vertices();
}

void PhysicsSession::remove_ball() {
  if (ball_body_ < 0) return;
  const Eigen::VectorXd z = world_.body(0).z(), z_prev = world_.body(0).previous_z();
  build_world();
  world_.body(0).set_state(z, z_prev);
  update_vertices();
}

Vec3d PhysicsSession::floor_origin() const { return to_file(world_.planes.front().origin); }
Vec3d PhysicsSession::floor_normal() const { return world_.planes.front().normal; }

double PhysicsSession::lowest_height() const {
  double lowest = 1e300;
  for (const Vec3f& v : vertices_) lowest = std::min(lowest, static_cast<double>(v.y()));
  return lowest;
}

}  // namespace wobble::viewer
