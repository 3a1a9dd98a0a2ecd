#pragma once
// The state behind a physics::Body (include/wobble/physics/dynamics.hpp): what binding made
// (the basis at the sample and collision points, masses, volumes), the drive of the coming step
// and the reduced state z. Private to the physics library: src/physics/dynamics.cpp reads it.
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include <wobble/physics/dynamics.hpp>

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
  Eigen::VectorXd collision_mass;  // total mass spread evenly over the collision points
  Eigen::VectorXd collision_d;
  Eigen::MatrixXd collision_x0;  // C x 3
  Eigen::VectorXd base_force;    // 12m
  bool driven = false;
  double time = 0;
  Eigen::VectorXd z, z_prev, initial_velocity_z;
};

}  // namespace wobble::physics
