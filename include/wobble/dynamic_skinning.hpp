#pragma once
// Dynamic Skinning (Rohmer et al., TVCG 2026): cartoon secondary motion (drag and damped
// oscillations) added on top of a base skinning, from the skeleton's motion alone.
//
//   Measure  Omega_j: the angular velocity of joint j relative to its parent, expressed in world
//            space, sampled every dt = 1/60 s of animation time on the grid t = n dt, whatever
//            the frame rate (coarser frames are sub-sampled through a pose sampler, finer frames
//            interpolate the filter output between the two surrounding samples).
//   Filter   F_j = D Omega_j + sum_k kappa(k dt) (H_j(t - k dt) - H_j(t - (k+1) dt)),
//            kappa(t) = A exp(-t / tau) sin(2 pi f t), evaluated as an exact second-order
//            recursive filter (oscillation_filter below); F_j is an angle vector (radians).
//   Bend     each base-skinned vertex p_i turns about the axis through the joint's origin q_j
//            (the joint, or a flexible origin) with direction F_j by
//            theta = -gamma_i |F_j x (p_i - q_j)| / L, L the character size (bind-pose bounding
//            box diagonal), so that the effect does not depend on the unit of length. A soft
//            limit keeps the angle below max_angle: theta <- theta / sqrt(1 + (theta/max_angle)^2).
//            Offsets are summed with the hierarchical weights beta_ij and added: p_i += d_i.
//
// Units: f in Hz, tau in seconds, A and D in seconds (angle per angular velocity), max_angle in
// radians here (degrees in the settings file), lengths in scene units.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <wobble/math.hpp>
#include <wobble/pose.hpp>

namespace wobble {

struct Character;
struct Mesh;
struct Rig;
struct Skin;
class ThreadPool;
namespace dynamic_kernels {
struct PairLayout;
}

// The sampling period of the joint velocities: 1/60 s of animation time.
inline constexpr double kDynamicSampleRate = 60.0;  // Hz

// ---------------------------------------------------------------------------------------------
// Hierarchical weights: beta_ij = sum of vertex i's skin weights over joint j and all of j's
// descendants (turning the shoulder bends the whole arm). Sparse rows by vertex, joints in
// ascending (topological) order; only pairs with beta > 0 are stored.
struct HierarchicalWeights {
  std::vector<std::uint32_t> offsets{0};  // pairs of vertex v: [offsets[v], offsets[v+1])
  std::vector<std::uint32_t> joints;
  std::vector<float> betas;

  std::size_t vertex_count() const { return offsets.size() - 1; }
  std::size_t pair_count() const { return joints.size(); }
  // beta_ij, 0 when j does not act on v.
  float beta(std::size_t v, std::uint32_t j) const;
  // Sums in double, then rounds to float. Throws Error if the skin does not fit the rig.
  static HierarchicalWeights from(const Rig& rig, const Skin& skin);
};

// ---------------------------------------------------------------------------------------------
// The oscillation kernel kappa(k dt) = A r^k sin(k w), r = exp(-dt/tau), w = 2 pi f dt, applied
// to the increments x_n = H_n - H_{n-1}. Its z-transform is A r sin(w) z^-1 / (1 - 2 r cos(w)
// z^-1 + r^2 z^-2), so y_n = 2 r cos(w) y_{n-1} - r^2 y_{n-2} + A r sin(w) x_{n-1}: exact, no
// history buffer, O(1) per step. Stable for any tau >= 0 (r < 1).
struct OscillationCoefficients {
  double a1 = 0, a2 = 0, b = 0;  // y_n = a1 y_{n-1} - a2 y_{n-2} + b x_{n-1}
  static OscillationCoefficients from(double frequency_hz, double damping_s, double amplitude_s,
                                      double dt = 1.0 / kDynamicSampleRate);
};

// The filter state of one joint (three components, double precision).
struct OscillationFilter {
  Vec3d last_input = Vec3d::Zero();  // H_{n}
  Vec3d last_step = Vec3d::Zero();   // x_n = H_n - H_{n-1}
  Vec3d y1 = Vec3d::Zero();          // oscillation term y_n
  Vec3d y2 = Vec3d::Zero();          // y_{n-1}

  // Starts from a steady state: the velocity was `omega` forever (no wobble pending).
  void reset(const Vec3d& omega = Vec3d::Zero());
  // The oscillation term of the next sample, y_{n+1}: it depends only on the past (kappa(0) = 0).
  Vec3d next_oscillation(const OscillationCoefficients& c) const { return c.a1 * y1 - c.a2 * y2 + c.b * last_step; }
  // Pushes sample H_{n+1} = omega and returns the oscillation term y_{n+1} (F = D omega + y).
  Vec3d push(const OscillationCoefficients& c, const Vec3d& omega);
};

// Reference for the tests: the direct sum F_n = D H_n + sum_{k=0..n} kappa(k dt) (H_{n-k} -
// H_{n-k-1}) over the whole history H_0..H_n (oldest first), with H_{-1} = `before`.
Vec3d oscillation_direct_sum(std::span<const Vec3d> history, const Vec3d& before, double frequency_hz, double damping_s,
                             double amplitude_s, double drag_s, double dt = 1.0 / kDynamicSampleRate);

// ---------------------------------------------------------------------------------------------
// Per-joint settings. Replacements win over the global values, then the scales multiply.
struct JointDynamics {
  std::string joint;  // joint name (must exist in the rig)
  std::optional<double> frequency, damping, amplitude, drag;
  double frequency_scale = 1, damping_scale = 1, amplitude_scale = 1, drag_scale = 1;
  bool enabled = true;  // false: the joint adds no offset
  // Flexible deformation origin: the rotation centre, in the joint's bind-pose frame (scene
  // units; the joint itself by default).
  Vec3f origin = Vec3f::Zero();
  // > 0: only vertices within this bind-pose distance of the origin follow this joint, with a
  // smooth falloff (1 - (r/radius)^2)^2 (scene units). 0: no restriction.
  float radius = 0;
};

struct DynamicSkinningParameters {
  double frequency = 2.5;                 // f, Hz, in [0, 30] (30 Hz is the Nyquist frequency of the sampling)
  double damping = 0.3;                   // tau, s (how long a wobble lasts)
  double amplitude = 0.25;                // A, s
  double drag = 0.08;                     // D, s
  double max_angle = 1.0471975511965976;  // soft limit on |theta|, radians (60 degrees), in (0, pi]
  // Optional extra from Velocity Skinning: the whole subtree of a joint is pushed against its
  // linear velocity (relative to its parent, in world space), by linear_drag * v, in seconds.
  double linear_drag = 0;
  std::vector<JointDynamics> joints;  // per-joint overrides
  // Per-vertex bend weights gamma_i (any sign); empty: the mesh attribute named below, else 1.
  std::vector<float> bend_weights;
  std::string bend_weight_attribute = "_BEND_WEIGHT";  // empty: ignore painted weights
  // Time steps backwards, or forwards by more than this (s), forget the history (a jump).
  double max_time_step = 0.25;
  // Joints with |F_j| * max|gamma| below this (radians) are skipped: offsets below 1e-5 L.
  double skip_below = 1e-5;

  // Empty if usable, otherwise what is wrong (one line).
  std::string validate() const;
};

// ---------------------------------------------------------------------------------------------
// The state of the effect for one character: bind data (hierarchical weights, bend weights,
// flexible origins) and the filter history. The integration API of the paper's minimal app:
//
//   DynamicSkinningState state;
//   dynamic_skinning_initialize(state, rig, mesh, skin, parameters);  // once
//   each frame: pose, base skinning into `positions`, then
//   dynamic_skinning_apply(state, parameters, pose, positions, t);  // adds the offsets d_i
//
// Layout parameters (bend weights, origins' radii, the joint list) are read at initialise;
// the rest (f, tau, A, D, scales, enabled, origins' centres, max_angle) may change every frame.
class DynamicSkinningState {
 public:
  DynamicSkinningState();
  ~DynamicSkinningState();
  DynamicSkinningState(const DynamicSkinningState& other);
  DynamicSkinningState& operator=(const DynamicSkinningState& other);
  DynamicSkinningState(DynamicSkinningState&& other) noexcept;
  DynamicSkinningState& operator=(DynamicSkinningState&& other) noexcept;

  void initialize(const Rig& rig, const Mesh& mesh, const Skin& skin, const DynamicSkinningParameters& parameters);
  void initialize(const Character& character, const DynamicSkinningParameters& parameters);
  bool initialized() const;
  // Forgets the history: the next apply() starts afresh (steady state at that time).
  void reset();
  // positions: the base-skinned positions (world space) in, with the offsets added out.
  // pose: the pose of time t (the one the base skinning used). pose_at may be empty.
  // Time going backwards or jumping forward by more than max_time_step resets the history.
  void apply(const DynamicSkinningParameters& parameters, const Pose& pose, std::span<Vec3f> positions, double t,
             const PoseSampler& pose_at = {}, ThreadPool* pool = nullptr);

  // Seamless loops. Starts the history in the periodic steady state of a cycle of `period`
  // seconds that starts at `cycle_start`: the filter state that one cycle maps onto itself, exact
  // (from the filter's closed form, see start_periodic in dynamic_skinning.cpp), as if the cycle
  // had run forever. pose_at gives the pose at any time of the endless repetition. The samples
  // are taken every period / round(60 period) s from cycle_start (1/60 s when the period is a
  // whole number of them), so that each cycle has the same samples; the next apply() must be at a
  // time >= cycle_start, and may be any time later when it is given pose_at (a viewer starting
  // mid-cycle: the samples in between come from pose_at, not a restart for a long step).
  // reset() goes back to the plain 60 Hz grid from 0.
  void start_periodic(const DynamicSkinningParameters& parameters, const PoseSampler& pose_at, double cycle_start,
                      double period);
  // The sampling grid, t = origin + n period (s): 1/60 s from 0 unless start_periodic set it.
  // Set it by hand only to reproduce a loop's sampling (tests); the history restarts.
  void set_sample_grid(double period_s, double origin_s);
  double sample_period() const;

  // Introspection (tests, benchmarks, viewers).
  float character_size() const;
  const HierarchicalWeights& hierarchical_weights() const;
  std::size_t pair_count() const;                     // pairs kept (beta gamma != 0)
  std::size_t dense_lane_count() const;               // lanes of dense segments (gaps included)
  std::size_t active_pair_count() const;              // pairs evaluated last apply
  std::span<const Vec3d> filtered() const;            // F_j of the last apply, radians
  std::span<const Vec3d> angular_velocities() const;  // Omega_j, last sample, rad/s
  std::span<const float> bend_weights() const;
  // The kernel's scalar reference (std::sin/std::cos): offsets for the last apply's joint data.
  void reference_offsets(std::span<const Vec3f> base, std::span<Vec3f> offsets) const;

  // GPU skinning (src/render): advance() is apply() without the kernel (sampling, filtering, then
  // the joint table); joint_table() holds kJointTableStride floats per joint for the last
  // apply/advance: origin q (3), G = F/L (3), axis F/|F| (3), L/|F| (1), linear-drag offset (3),
  // unused (3). Rows of inactive joints are zero (they add no offset).
  static constexpr std::size_t kJointTableStride = 16;
  void advance(const DynamicSkinningParameters& parameters, const Pose& pose, double t,
               const PoseSampler& pose_at = {});
  std::span<const float> joint_table() const;
  float inverse_max_angle_squared() const;  // 1 / max_angle^2 of the last apply/advance
  // The (vertex, joint, beta) pairs the kernel evaluates, rows in mesh order: radius falloffs
  // folded into beta, vertices with bend weight 0 left out (gamma: bend_weights()).
  HierarchicalWeights kernel_weights() const;

 private:
  // Bind data, the filter history on its sampling grid, per-frame joint data and scratch
  // (src/deform/dynamic_skinning_state.hpp): out of this header, so that the kernel's layout and
  // buffers can change without changing the library's interface. A copy continues the same motion.
  struct State;
  std::unique_ptr<State> s_;

  void resolve_parameters(const DynamicSkinningParameters& parameters);
  void sample_pose(const Pose& pose, std::vector<Quatf>& rotations, std::vector<Vec3f>& translations) const;
  void velocities(const Pose& pose, std::span<const Quatf> previous_rotations,
                  std::span<const Vec3f> previous_translations, double step, std::vector<Vec3d>& omega,
                  std::vector<Vec3d>& velocity);
  void restart(const Pose& pose, double t, const PoseSampler& pose_at);
  double sample_position(double t) const;  // t in samples of the grid
  double sample_time(std::int64_t n) const;
  void commit_sample(const std::vector<Vec3d>& omega, const std::vector<Vec3d>& velocity);
  void fill_joint_table(const Pose& pose);
  void run_kernel(std::span<Vec3f> positions, ThreadPool* pool);
  void clear_history(std::size_t joint_count);
};

void dynamic_skinning_initialize(DynamicSkinningState& state, const Rig& rig, const Mesh& mesh, const Skin& skin,
                                 const DynamicSkinningParameters& parameters = {});
void dynamic_skinning_apply(DynamicSkinningState& state, const DynamicSkinningParameters& parameters, const Pose& pose,
                            std::span<Vec3f> positions, double t, const PoseSampler& pose_at = {},
                            ThreadPool* pool = nullptr);
void dynamic_skinning_reset(DynamicSkinningState& state);

}  // namespace wobble
