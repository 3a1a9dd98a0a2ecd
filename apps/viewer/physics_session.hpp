#pragma once
// The viewer's physics simulation (PhysSkin++ III-D) of the shown shape: one deformable body in
// the shape's normalised frame (centred, longest side 2 m) on skinning eigenmodes or learned
// neural fields; pins by a plane or painted; gravity; a floor or ramp plane moved live (the
// penalty of eq. 14); a second object dropped onto the first (the barrier of eq. 15); and a
// Gaussian-kernel drag toward the cursor (eq. 13). Time advances in fixed implicit steps of
// 1 / (fps x substeps) seconds (the time step of `wobble simulate`), decoupled from the display rate: advance() takes the real time that
// passed and runs the steps that are due (a few at most, so a slow machine slows down rather
// than stalls). Positions given and returned are in the shape's file frame.
#include <memory>
#include <optional>
#include <vector>

#include <Eigen/Geometry>

#include <wobble/mesh.hpp>
#include <wobble/physics/dynamics.hpp>
#include <wobble/fields/sampling.hpp>

#include "physics_clock.hpp"
#include "physics_settings.hpp"

namespace wobble::viewer {

class PhysicsSession {
 public:
  // `shape`: the mesh (file frame; no triangles: a point cloud, e.g. Gaussian centres).
  // `neural`: the learned fields for Subspace::Neural (empty: not available). Throws Error when
  // the subspace cannot be built.
  PhysicsSession(const Mesh& shape, const PhysicsSettings& settings, fields::MeshFields neural);

  // The learned fields for Subspace::Neural (empty: not available); takes effect at apply().
  void set_neural_fields(fields::MeshFields neural) { neural_ = std::move(neural); }
  // New settings: rebuilds the body (the fields are kept while subspace, handles and points are
  // unchanged) and starts at rest.
  void apply(const PhysicsSettings& settings);
  void reset();
  // Runs the fixed steps due after `seconds` of real time (FixedStepClock); returns how many.
  int advance(double seconds);
  void step();
  // Settings that change between steps without a rebuild: gravity, the floor, the drag kernel.
  void update_live(const PhysicsSettings& settings);

  // Deformed vertices of the shape (file frame).
  const std::vector<Vec3f>& vertices() const { return vertices_; }
  // 1 for pinned vertices, 0 for free ones (for colouring).
  std::vector<float> pinned_vertices() const;
  // The linear part A of each vertex's local affine map (3DGS covariances: A Sigma A^T), file frame.
  std::vector<Eigen::Matrix3d> vertex_deformations() const;

  // Gaussian-kernel drag of the body at its rest point nearest to `rest_point`.
  void press(const Vec3d& rest_point);
  void drag_to(const Vec3d& target);
  void release();
  bool dragging() const { return drag_.has_value(); }
  Vec3d grabbed_rest() const;      // file frame
  Vec3d grabbed_position() const;  // now, file frame
  // Where a rest point of the shape (file frame) is now (file frame).
  Vec3d position_of(const Vec3d& rest_point) const;
  Vec3d drag_target() const;  // file frame

  // Painted pins: marks (or, with `erase`, unmarks) the rest vertices within the brush radius of `rest_point`.
  void paint_pins(const Vec3d& rest_point, bool erase);
  void clear_painted_pins() { painted_.assign(painted_.size(), false); }

  // The second object: a soft ball dropped from above the shape (toggle).
  void drop_ball();
  void remove_ball();
  bool has_ball() const { return ball_body_ >= 0; }
  const Mesh& ball_mesh() const { return ball_mesh_; }  // its triangles (on the unit sphere)
  const std::vector<Vec3f>& ball_vertices() const { return ball_vertices_; }

  // The floor plane (file frame) for drawing: a point on it and its unit normal.
  bool has_floor() const { return !world_.planes.empty(); }
  Vec3d floor_origin() const;
  Vec3d floor_normal() const;
  // The shape's size (file frame) and the lowest deformed vertex height (file frame y).
  double size() const { return size_; }
  double lowest_height() const;

  const PhysicsStats& stats() const { return meter_.stats(); }
  const fields::Normalization& normalization() const { return normalization_; }
  int handles() const { return world_.body(0).handle_count(); }
  const PhysicsSettings& settings() const { return settings_; }

 private:
  void build_fields();
  void solve_step();  // one physics step (its substeps), without updating the vertices
  void build_world();
  physics::DirichletRegion pins() const;
  physics::Plane floor_plane() const;
  void update_vertices();
  Vec3d to_file(const Vec3d& n) const { return normalization_.from_normalized(n); }
  Vec3d to_normalized(const Vec3d& x) const { return normalization_.to_normalized(x); }

  Mesh shape_;
  PhysicsSettings settings_;
  fields::MeshFields neural_;
  fields::Normalization normalization_;
  double size_ = 1;
  std::vector<Vec3d> rest_;       // vertices, normalised frame
  Eigen::AlignedBox3d rest_box_;  // normalised frame
  fields::SamplePoints samples_;
  std::shared_ptr<const fields::SkinningField> field_;
  struct FieldKey {
    Subspace subspace;
    int handles, points, sample_grid, field_grid;
    bool operator==(const FieldKey&) const = default;
  };
  std::optional<FieldKey> field_key_;
  std::vector<bool> painted_;  // per vertex
  physics::World world_;
  physics::PointBasis vertex_basis_;
  std::vector<Vec3f> vertices_;
  std::optional<physics::Drag> drag_;
  Mesh ball_mesh_;
  std::vector<Vec3d> ball_rest_;  // normalised frame of the shape
  physics::PointBasis ball_basis_;
  std::vector<Vec3f> ball_vertices_;
  int ball_body_ = -1;
  FixedStepClock clock_;
  StepMeter meter_;
};

}  // namespace wobble::viewer
