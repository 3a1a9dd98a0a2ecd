#pragma once
// Reduced-order implicit dynamics on skinning subspaces (PhysSkin++ III-D, eq. 10-16).
//
// Each deformable body has its own reduced coordinates z in R^{12m}, ordered by output dimension
// then handle then [x, y, z, 1]: z[d * 4m + 4 i + a] = (Z_i)_{d a}. Positions of its points are
// x = x0 + (I3 (x) B) z with B[p, 4i + a] = d(X_p) W_i(X_p) [X_p; 1]_a, where x0 = X + g(X) (plus the
// rig displacement for rig-complementary bodies). One time step solves
//   z_{t+1} = argmin 1/(2h^2) |z - 2 z_t + z_{t-1}|_M^2 + E_elastic + E_force + E_planes + E_contact
// by Newton's method with a backtracking (Armijo) line search on the exact energy. Each Newton
// direction solves the exact Hessian system by conjugate gradients (matrix-free products),
// preconditioned by a Cholesky factorisation of the Hessian assembled at an earlier iteration or
// step (dense level-3 products, reduced_hessian.hpp; regularised by a multiple of the identity
// only if the factorisation fails), refreshed when the solves get slow or the contact set
// changes. Iterations stop when the update's size in the energy norm is below the tolerance.
//
// Units: scene units are metres, time in seconds, stiffnesses per unit mass in 1/s^2. Bodies are
// built in their normalised frame (longest side 2) and placed by a uniform scale and a translation.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <Eigen/Core>

#include <wobble/physics/dirichlet.hpp>
#include <wobble/physics/elasticity.hpp>
#include <wobble/fields/sampling.hpp>
#include <wobble/fields/skinning_field.hpp>

namespace wobble::physics {

struct BodyDescription {
  std::string name;
  fields::SamplePoints samples;                        // normalised frame
  std::shared_ptr<const fields::SkinningField> field;  // evaluated in the normalised frame
  Material material;
  EnergyModel model = EnergyModel::NeoHookean;
  DirichletRegion pins;                // normalised frame; empty: free
  Vec3d pin_velocity = Vec3d::Zero();  // prescribed motion of the pinned region (m/s)
  double scale = 1.0;                  // scene = scale * normalised + translation
  Vec3d translation = Vec3d::Zero();
  Vec3d initial_velocity = Vec3d::Zero();  // m/s, applied to the free part (z-space)
  // Points (normalised frame) that meet planes and other objects; empty: the sample points.
  // Mesh vertices here keep the visible surface out of the floor between sample points.
  std::vector<Vec3d> collision_points;
};

// A rigid obstacle moved by a prescribed rigid motion: x(t) = c + v t + R(w t)(X - c).
struct KinematicBody {
  std::string name;
  std::vector<Vec3d> points;  // scene frame at t = 0 (contact samples)
  Vec3d center = Vec3d::Zero();
  Vec3d velocity = Vec3d::Zero();
  Vec3d angular_velocity = Vec3d::Zero();  // rad/s about `center`
  Eigen::Matrix3d rotation(double t) const;
  Vec3d position(const Vec3d& rest, double t) const;
};

// A plane that pushes points back to its positive side by the penalty of eq. 14,
// E = stiffness * sum_j m_j |x_j - xbar_j|^2 over points behind it (within `thickness`) whose
// projection lies inside the rectangle. half_u / half_v <= 0 mean unbounded. Points in contact
// also feel a viscous tangential drag, E = friction * m_j |P_t (x_j - x_j(t))|^2 / (2h), a simple
// stand-in for friction so that dropped objects come to rest.
struct Plane {
  Vec3d origin = Vec3d::Zero();
  Vec3d normal = Vec3d::UnitY();
  Vec3d axis_u = Vec3d::UnitX();  // in-plane axis for the rectangle
  double half_u = 0, half_v = 0;
  double stiffness = 1e7;                  // 1/s^2 (per unit mass)
  double friction = 20;                    // 1/s: viscous damping of tangential motion in contact
  double thickness = 0.5;                  // m; points deeper than this are ignored
  Vec3d velocity = Vec3d::Zero();          // m/s
  Vec3d angular_velocity = Vec3d::Zero();  // rad/s about `origin`
  // Moves the plane by one time step (translation, then rotation of normal and axis).
  void advance(double dt);
};

// The IPC-style point-pair barrier of eq. 15 between different bodies.
struct ContactOptions {
  bool enabled = true;
  double radius = 0.1;     // r_c (m)
  double min_gap = 0.25;   // r_p, normalised minimum gap, in [0, 1)
  double stiffness = 1e4;  // k_c per unit mass and r_c^2 (1/s^2)
};

// A Gaussian-kernel drag force around a rest point of a body toward a target (Fig. 4b):
// f(p) = stiffness * m_p * exp(-|X_p - X*|^2 / (2 radius^2)) * (target - x(X*)), held fixed during a step.
struct Drag {
  int body = 0;
  Vec3d rest_point = Vec3d::Zero();  // scene frame, rest
  Vec3d target = Vec3d::Zero();      // scene frame
  double stiffness = 400;            // 1/s^2: pulls a 2 m shape by hand in the viewer
  double radius = 0.25;              // m
};

struct SolverOptions {
  double time_step = 1.0 / 60.0;  // s
  int max_iterations = 20;
  // Stop when the Newton update u is below this in the energy norm, as a length (m):
  // sqrt(u^T H u h^2 / total mass), the mass-weighted RMS point displacement where inertia dominates.
  double tolerance = 1e-6;
  Vec3d gravity = Vec3d(0, -9.81, 0);
  // Keep the factorised Hessian as the conjugate-gradient preconditioner across iterations and
  // steps, refreshed when a solve needs more than `refresh_after` iterations, fails to converge, or
  // the plane and contact terms change. false: assemble and factorise the exact Hessian every iteration.
  bool reuse_hessian = true;
  int refresh_after = 12;
};

struct StepStats {
  int iterations = 0;
  double energy = 0;
  std::size_t contacts = 0;
  int hessian_refreshes = 0;  // Hessians assembled and factorised during the step
  int cg_iterations = 0;      // preconditioned conjugate-gradient iterations, all Newton iterations together
};

// Values precomputed at points: the (d-modulated) basis B and the derivative matrices D_c
// (D_c[p, 4i + a] = d/dX_c (d W_i [X; 1]_a)), from which x and F are affine in z.
struct PointBasis {
  Eigen::MatrixXd B;
  Eigen::MatrixXd D[3];
  Eigen::MatrixXd modulated_W;  // d(X) W(X), N x m (affine maps for Gaussians)
};

class Body {
 public:
  explicit Body(BodyDescription description);
  ~Body();
  Body(const Body& other);
  Body& operator=(const Body& other);

  const std::string& name() const;
  int handle_count() const;
  int dofs() const { return 12 * handle_count(); }
  std::size_t point_count() const;
  const std::vector<Vec3d>& rest_points() const;       // scene frame
  const std::vector<Vec3d>& collision_points() const;  // scene frame, rest
  // Current positions of the collision points (scene frame).
  std::vector<Vec3d> collision_positions() const;
  const Eigen::VectorXd& z() const;
  const Eigen::VectorXd& previous_z() const;
  void set_state(const Eigen::VectorXd& z, const Eigen::VectorXd& z_prev);
  // Current positions of the sample points (scene frame).
  std::vector<Vec3d> positions() const;
  const Material& material() const;
  EnergyModel model() const;
  const Eigen::MatrixXd& mass_block() const;  // 4m x 4m; M = I3 (x) mass_block
  double total_mass() const;
  double scale() const;
  const Vec3d& translation() const;
  const DirichletRegion& pins() const;
  const fields::SkinningField& field() const;
  const PointBasis& basis() const;               // at the sample points
  const Eigen::VectorXd& point_masses() const;   // kg
  const Eigen::VectorXd& point_volumes() const;  // m^3

  // The basis at any points given in the scene frame (binding mesh vertices, Gaussians).
  PointBasis basis_at(std::span<const Vec3d> scene_points, bool with_derivatives) const;
  // x = x0(X) + (I3 (x) B) z for bound points, x0 = X + g (pins moving) at time t.
  std::vector<Vec3d> bound_positions(const PointBasis& basis, std::span<const Vec3d> scene_points) const;

  // Rig-complementary driving (eq. 18, 24): base positions x0 and base deformation gradients F0
  // (rows of 9, row-major) at the sample points for the coming step, and an extra linear force
  // on z (e.g. the rig's inertial forcing). Without a call, x0 = X + g and F0 = I + grad g.
  void set_base(Eigen::MatrixXd x0, Eigen::MatrixXd F0, Eigen::VectorXd force);

 private:
  friend class World;
  void update_pins(double t);

  // The body's bind data (basis, masses, collision points), its drive and its state
  // (src/physics/body_state.hpp): out of this header, so that the solver's layout can change
  // without changing the library's interface.
  struct State;
  std::unique_ptr<State> s_;
};

class World {
 public:
  SolverOptions solver;
  ContactOptions contact;
  std::vector<Plane> planes;
  std::vector<Drag> drags;

  int add_body(BodyDescription description);
  int add_kinematic(KinematicBody body);
  Body& body(int i) { return *bodies_.at(i); }
  const Body& body(int i) const { return *bodies_.at(i); }
  std::size_t body_count() const { return bodies_.size(); }
  const KinematicBody& kinematic(int i) const { return kinematics_.at(i); }
  std::size_t kinematic_count() const { return kinematics_.size(); }
  double time() const { return time_; }

  // Advances every body by one time step; throws Error if the state stops being finite.
  StepStats step();
  // Total energy of the step's objective at the current state (for tests).
  const StepStats& last_stats() const { return stats_; }
  // Constant full-space force per point (N per point) added to the next steps, e.g. wind (scene frame).
  void set_point_forces(int body, Eigen::MatrixXd forces);

 private:
  struct Contact {
    int body_a, point_a;
    int body_b, point_b;  // body_b < 0: kinematic obstacle -1 - index
    Vec3d normal;
    double radius;
    double stiffness;
  };
  struct HessianTerms;    // what the Hessian at a state is made of (dynamics.cpp)
  struct Preconditioner;  // the factorised Hessian kept between iterations and steps
  struct Direction;
  struct Evaluation;  // the energy, gradient and Hessian terms evaluate() sums
  struct Search;      // a descent direction at a Newton iterate
  // step() in stages.
  void place_kinematics(double t);
  int lay_out_bodies(double h);
  Eigen::VectorXd predict_bodies(double t1, int total);
  Eigen::VectorXd linear_force(std::size_t b) const;
  void add_drag_forces(std::size_t b, Eigen::MatrixXd& forces) const;
  double admissible_start(Eigen::VectorXd& z);
  StepStats minimise(Eigen::VectorXd& z, double& energy, int total);
  Search search_direction(const HessianTerms& terms, const Eigen::VectorXd& gradient, double negligible,
                          StepStats& stats);
  void commit_state(const Eigen::VectorXd& z, double t1);
  // The step's objective at z, and its stages (each adds its terms to `out`).
  double evaluate(const Eigen::VectorXd& z, Eigen::VectorXd* gradient, HessianTerms* terms);
  void add_inertia_and_loads(std::size_t b, const Eigen::VectorXd& zb, Evaluation& out) const;
  static Eigen::MatrixXd collision_positions_at(const Body& body, const Eigen::VectorXd& zb);
  bool add_elasticity(std::size_t b, const Eigen::VectorXd& zb, Evaluation& out) const;
  void add_plane_penalties(std::size_t b, const Eigen::MatrixXd& xc, Evaluation& out);
  bool add_contact_barriers(const std::vector<Eigen::MatrixXd>& positions, Evaluation& out);
  void assemble_hessian(const HessianTerms& terms, Eigen::MatrixXd& hessian) const;
  Eigen::VectorXd hessian_product(const HessianTerms& terms, const Eigen::VectorXd& v) const;
  bool refresh_preconditioner(const HessianTerms& terms);
  Direction newton_direction(const HessianTerms& terms, const Eigen::VectorXd& gradient, double negligible) const;
  // visit(offset, q, B row of the point (a view, not a copy: CG products call this per iteration),
  // sign) for the one or two deformable sides of a contact.
  template <class Visit>
  void for_each_contact_side(const Contact& c, Visit&& visit) const;
  void build_contacts();
  double last_step_motion() const;
  double contact_barrier_stiffness() const;

  std::vector<std::unique_ptr<Body>> bodies_;
  std::vector<KinematicBody> kinematics_;
  std::vector<Eigen::MatrixXd> point_forces_;
  std::vector<int> offsets_;
  std::vector<Contact> contacts_;
  std::vector<Eigen::VectorXd> predicted_, linear_force_;
  std::vector<std::vector<Vec3d>> kinematic_now_;
  double time_ = 0;
  StepStats stats_;
  std::uint64_t active_signature_ = 0;  // which plane and contact terms were active at the last evaluation
  std::shared_ptr<Preconditioner> preconditioner_;
};

// z -> the handle matrices Z_i (3 x 4 each) of one body.
std::vector<Eigen::Matrix<double, 3, 4>> handle_matrices(const Eigen::VectorXd& z, int handles);

}  // namespace wobble::physics
