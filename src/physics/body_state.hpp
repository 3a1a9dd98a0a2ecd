#pragma once
// The state behind a physics::Body (include/wobble/physics/dynamics.hpp): what binding made
// (the basis at the sample and collision points, masses, volumes), the drive of the coming step
// and the reduced state z. Private to the physics library: dynamics.cpp and body_basis.cpp read it.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <wobble/physics/dynamics.hpp>

#include "physics/point_rows.hpp"

namespace wobble::physics {

struct Body::State {
  std::string name;
  int m = 0;
  std::shared_ptr<const fields::SkinningField> field;
  Material material;
  EnergyModel model = EnergyModel::NeoHookean;
  DirichletRegion pins;
  Vec3d pin_velocity;
  double scale = 1;
  Vec3d translation;
  std::vector<Vec3d> rest;             // scene frame
  Eigen::VectorXd volume, point_mass;  // m^3, kg
  Eigen::VectorXd d;                   // d(X) at the points
  Eigen::MatrixXd grad_d;              // N x 3
  PointBasis basis;
  Eigen::MatrixXf dall;               // q x 3N, column 3p + c = D_c[p]^T (single precision, for the Hessian products)
  Eigen::MatrixXd dstack;             // the same in double precision (F and the elastic gradient)
  Eigen::MatrixXd mass;               // 4m x 4m
  Eigen::MatrixXd x0, F0;             // N x 3, N x 9
  Eigen::MatrixXd start;              // collision points at the start of the step, C x 3
  std::vector<Vec3d> collision_rest;  // scene frame
  PointBasis collision_basis;
  PointRows bound_rows;            // rest, then collision_rest, by position (body_basis.cpp)
  Eigen::VectorXd collision_mass;  // total mass spread evenly over the collision points
  Eigen::VectorXd collision_d;
  Eigen::MatrixXd collision_x0;  // C x 3
  Eigen::VectorXd base_force;    // 12m
  bool driven = false;
  double time = 0;
  Eigen::VectorXd z, z_prev, initial_velocity_z;

  // Binding, in the order Body::Body runs it (the basis at the samples with d(X), then at the
  // collision points, comes from body_basis.cpp between the stages).
  void take_settings(BodyDescription& description);               // the description's settings, checked
  void place_samples(const fields::SamplePoints& samples);        // scene frame, volumes, masses
  void bind_samples();                                            // derivative stacks, the reduced mass, the rest state
  void place_collision_points(const std::vector<Vec3d>& points);  // empty: the samples
  void bind_collision_points();                                   // their masses, d(X), rest positions
  void start_at_rest(const Vec3d& initial_velocity);              // z = 0; the velocity's least-squares z

  // The basis at points (body_basis.cpp). evaluated_basis: the field and its derivatives evaluated
  // there (and d(X) with its scene-frame gradient, when asked). bound_basis, without derivatives:
  // d W from binding's rows where a point is a sample or collision point, evaluated elsewhere.
  PointBasis evaluated_basis(std::span<const Vec3d> scene_points, Eigen::VectorXd* d_out = nullptr,
                             Eigen::MatrixXd* grad_d_out = nullptr) const;
  PointBasis bound_basis(std::span<const Vec3d> scene_points) const;
  Eigen::MatrixXd modulated_weights(std::span<const Vec3d> scene_points) const;  // d W, evaluated
  std::vector<Vec3d> normalised(std::span<const Vec3d> scene_points) const;
};

}  // namespace wobble::physics
