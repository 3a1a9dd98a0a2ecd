#pragma once
// Rig-complementary dynamics (PhysSkin++ III-E, eq. 18 and 24): the character's LBS animation
// is the primary motion, u_rig; a complementary elastic displacement u_comp = B z lives in a
// subspace whose fields satisfy J_rig^T B = 0 at the sample points (eq. 21; skinning eigenmodes
// computed under that constraint, see eigenmodes.hpp), and z follows the implicit dynamics of
// eq. 24 with E_pot(X + u_rig + u_comp). Optionally (on by default) the rig's own acceleration
// drives z as a fictitious inertial force -B^T M (u_rig(t+1) - 2 u_rig(t) + u_rig(t-1)) / h^2,
// the full-space inertia of X + u_rig + u_comp that eq. 24 leaves out; without it a rigidly moving
// rig produces no secondary motion at all.
//
// The complementary subspace is, by default, skinning eigenmodes computed under the constraint;
// `fields` replaces them by any fields without a constant column, e.g. learned rig-complementary
// neural fields (trained with L_comp, so J_rig^T B is small but not exactly zero: complementarity()
// measures it).
//
// Frames: the physics runs in the normalised frame of the bind-space mesh (longest side 2,
// treated as metres); outputs are in the character's world frame.
#include <memory>
#include <vector>

#include <wobble/character.hpp>
#include <wobble/pose.hpp>
#include <wobble/physics/dynamics.hpp>
#include <wobble/physics/settings.hpp>

namespace wobble::physics {

struct RigComplementaryOptions {
  // The defaults are physics::Settings' (settings.hpp).
  int handles = default_settings().handles;  // eigenmodes only; given fields bring their own count
  std::size_t points = static_cast<std::size_t>(default_settings().points);
  int sample_grid = default_settings().sample_grid;  // sampling grid resolution
  int field_grid = default_settings().field_grid;    // eigenmode and rig-weight grid resolution
  Material material = default_settings().material();
  EnergyModel model = default_settings().model;
  bool rig_inertia = default_settings().rig_inertia;
  Vec3d gravity = Vec3d::Zero();  // m/s^2 in the normalised frame
  // Empty: constrained skinning eigenmodes. Otherwise fields in the physics frame, which depends
  // on the mesh alone (fields::Normalization::of_points of its bind positions; the neural samplers'
  // frame too), so callers build them up front.
  std::shared_ptr<const fields::SkinningField> fields;
};

// The options of a rig's simulation with the settings' subspace, material and rig coupling.
RigComplementaryOptions rig_options(const Settings& settings);

// How far the subspace is from complementary at the sample points: ||J_rig^T B||_F over all three
// dimensions (B with its d(X) W_i [X; 1] columns), and the same divided by ||J_rig||_F ||B||_F,
// which lies in [0, 1] whatever the fields' scale (0: exactly complementary).
struct Complementarity {
  double absolute = 0;
  double relative = 0;
};

// The number of frames a clip gives at `fps` (its duration, both ends included; at least 2).
int clip_frame_count(const Clip& clip, double fps);
// The clip time of frame `frame` at `fps`: clip.start() + frame / fps.
double clip_frame_time(const Clip& clip, int frame, double fps);

class RigComplementary {
 public:
  // Throws Error naming the character's source if it is not skinned.
  RigComplementary(const Character& character, const RigComplementaryOptions& options);

  // One implicit step of length dt toward the pose (its skinning matrices).
  void step(const Pose& pose, double dt);
  // Plays frame `frame` of `clip` sampled at `fps`: `substeps` implicit steps ending at the
  // frame's time (frame 0: one step at the clip's start, where the history begins), leaving
  // `pose` at that time. Frames are taken in order from 0. The schedule `wobble simulate --rig`
  // and the Python RigSimulation share, so that their outputs are the same floats.
  void step_clip_frame(const Clip& clip, int frame, double fps, int substeps, Pose& pose);
  // LBS of the mesh vertices plus the complementary displacement, world frame.
  std::vector<Vec3f> vertex_positions(const Pose& pose) const;
  // J_rig^T u at the sample points (12 per joint) for a complementary displacement u = B z given
  // by z, and the norms |J_rig| |u| to compare it with (for tests and diagnostics).
  Eigen::VectorXd complementarity_residual(const Eigen::VectorXd& z, double* scale) const;
  // The whole subspace's complementarity (see Complementarity).
  Complementarity complementarity() const;

  World& world() { return world_; }
  const Body& body() const { return world_.body(0); }
  const fields::Normalization& normalization() const { return normalization_; }
  const std::vector<Vec3d>& samples() const { return samples_; }         // normalised frame
  const Eigen::MatrixXd& rig_weights() const { return rig_weights_.W; }  // samples x joints

 private:
  // Rig positions (normalised frame, N x 3) and deformation gradients (N x 9) at the sample points.
  void rig_state(const Pose& pose, Eigen::MatrixXd& x, Eigen::MatrixXd* F) const;
  // One dimension's J_rig at the samples, the columns of homogeneous coordinate a (0..3) only:
  // samples x joints, w_j(p) [X_p; 1]_a.
  Eigen::MatrixXd rig_jacobian_block(int a) const;

  const Character& character_;
  RigComplementaryOptions options_;
  fields::Normalization normalization_;
  std::vector<Vec3d> samples_;       // normalised frame
  fields::FieldValues rig_weights_;  // at the samples
  World world_;
  PointBasis vertex_basis_;
  std::vector<Vec3d> vertices_;  // normalised bind positions
  Eigen::MatrixXd rig_previous_, rig_current_;
  bool started_ = false;
};

}  // namespace wobble::physics
