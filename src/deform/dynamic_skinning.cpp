// Dynamic Skinning: sampling of the joints' angular velocities at 60 Hz, the oscillation filter,
// and the bend kernel that adds the offsets to the base-skinned positions.
#include <wobble/dynamic_skinning.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <utility>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <wobble/character.hpp>
#include <wobble/deformer.hpp>
#include <wobble/error.hpp>
#include <wobble/parallel.hpp>

#include "core/fail.hpp"
#include "deform/deformers.hpp"
#include "deform/describe.hpp"
#include "deform/dynamic_skinning_kernels.hpp"
#include "deform/dynamic_skinning_layout.hpp"
#include "deform/dynamic_skinning_state.hpp"
#include "deform/vertex_costs.hpp"

namespace wobble {

namespace {

using dynamic_kernels::kChunk;
using dynamic_kernels::kJointStride;
constexpr double kGridTolerance = 1e-6;  // in samples: a time this close to n dt is on the grid

// Sample index of r (a time in samples from the grid's origin) when it lies on the grid.
bool on_grid(double r, std::int64_t& n) {
  const double k = std::round(r);
  if (std::abs(r - k) < kGridTolerance) {
    n = static_cast<std::int64_t>(k);
    return true;
  }
  n = static_cast<std::int64_t>(std::floor(r));
  return false;
}
std::int64_t floor_sample(double r) {
  std::int64_t n;
  on_grid(r, n);
  return n;
}
std::int64_t ceil_sample(double r) {
  std::int64_t n;
  return on_grid(r, n) ? n : n + 1;
}

Vec3d rotation_log(const Eigen::Quaterniond& q) {
  Eigen::Quaterniond d = q;
  if (d.w() < 0) d.coeffs() = -d.coeffs();
  const double vn = d.vec().norm();
  if (vn == 0) return Vec3d::Zero();
  return d.vec() * (2 * std::atan2(vn, d.w()) / vn);
}

}  // namespace

namespace dynamic_kernels {
extern const Table reference = {pairs_scalar, dense_scalar};
WOBBLE_SIMD_DEFINE_TABLE_FOR
}  // namespace dynamic_kernels

// ---------------------------------------------------------------------------------------------

std::string DynamicSkinningParameters::validate() const { return dynamic_description().problems(this); }

DynamicSkinningState::DynamicSkinningState() : s_(std::make_unique<State>()) {}
DynamicSkinningState::~DynamicSkinningState() = default;
DynamicSkinningState::DynamicSkinningState(const DynamicSkinningState& other)
    : s_(std::make_unique<State>(*other.s_)) {}
DynamicSkinningState& DynamicSkinningState::operator=(const DynamicSkinningState& other) {
  if (this != &other) s_ = std::make_unique<State>(*other.s_);
  return *this;
}
// A moved-from state stays usable (a fresh one, or the assigned-to one's old state).
DynamicSkinningState::DynamicSkinningState(DynamicSkinningState&& other) noexcept
    : s_(std::exchange(other.s_, std::make_unique<State>())) {}
DynamicSkinningState& DynamicSkinningState::operator=(DynamicSkinningState&& other) noexcept {
  std::swap(s_, other.s_);
  return *this;
}

bool DynamicSkinningState::initialized() const { return s_->initialized; }
double DynamicSkinningState::sample_period() const { return s_->grid_period; }
float DynamicSkinningState::character_size() const { return s_->size; }
const HierarchicalWeights& DynamicSkinningState::hierarchical_weights() const { return s_->weights; }
std::size_t DynamicSkinningState::active_pair_count() const { return s_->active_pairs; }
std::span<const Vec3d> DynamicSkinningState::filtered() const { return s_->frame_filtered; }
std::span<const Vec3d> DynamicSkinningState::angular_velocities() const { return s_->last_omega; }
std::span<const float> DynamicSkinningState::bend_weights() const { return s_->gamma; }
std::span<const float> DynamicSkinningState::joint_table() const { return s_->joint_data; }
double DynamicSkinningState::sample_position(double t) const { return (t - s_->grid_origin) / s_->grid_period; }
double DynamicSkinningState::sample_time(std::int64_t n) const {
  return s_->grid_origin + static_cast<double>(n) * s_->grid_period;
}

void DynamicSkinningState::initialize(const Character& character, const DynamicSkinningParameters& parameters) {
  initialize(character.rig, character.mesh, character.skin, parameters);
}

namespace {

// The bend weights gamma_i: given, from the mesh's named attribute (non-finite values 0), or 1.
std::vector<float> bend_weights_of(const Mesh& mesh, const DynamicSkinningParameters& parameters) {
  const std::size_t n = mesh.vertex_count();
  if (!parameters.bend_weights.empty()) {
    if (parameters.bend_weights.size() != n)
      fail_plain("dynamic: bend_weights has {} values, the mesh {} vertices", parameters.bend_weights.size(), n);
    return parameters.bend_weights;
  }
  std::vector<float> gamma(n, 1.0f);
  if (parameters.bend_weight_attribute.empty()) return gamma;
  auto found = mesh.vertex_scalars.find(parameters.bend_weight_attribute);
  if (found != mesh.vertex_scalars.end() && found->second.size() == n)
    for (std::size_t v = 0; v < n; ++v) gamma[v] = std::isfinite(found->second[v]) ? found->second[v] : 0.0f;
  return gamma;
}

// Radius restrictions of flexible origins, per joint, their centres in bind space.
std::vector<std::optional<dynamic_kernels::RestrictedOrigin>> restricted_origins(
    const Rig& rig, const DynamicSkinningParameters& parameters,
    const std::unordered_map<std::string, int>& joint_index) {
  std::vector<std::optional<dynamic_kernels::RestrictedOrigin>> restricted(rig.joint_count());
  for (const JointDynamics& joint : parameters.joints) {
    auto found = joint_index.find(joint.joint);
    if (found == joint_index.end())
      fail_plain("dynamic: settings name joint '{}', which is not in the rig", joint.joint);
    if (!(joint.radius > 0)) continue;
    const Mat4f bind = rig.inverse_bind[found->second].inverse();
    restricted[found->second] =
        dynamic_kernels::RestrictedOrigin{joint.radius, (bind * joint.origin.homogeneous()).head<3>()};
  }
  return restricted;
}

}  // namespace

void DynamicSkinningState::initialize(const Rig& rig, const Mesh& mesh, const Skin& skin,
                                      const DynamicSkinningParameters& parameters) {
  if (std::string problem = parameters.validate(); !problem.empty()) fail_plain("dynamic: {}", problem);
  const std::size_t n = mesh.vertex_count();
  if (rig.joint_count() == 0) fail_plain("dynamic: the character has no skeleton");
  if (skin.vertex_count() != n) fail_plain("dynamic: the skin has {} vertices, the mesh {}", skin.vertex_count(), n);
  s_->initialized = false;
  s_->vertex_count = n;
  s_->size = mesh.size();
  if (!(s_->size > 0) || !std::isfinite(s_->size)) s_->size = 1;
  s_->parents = rig.parents;
  s_->joint_index.clear();
  for (std::size_t j = 0; j < rig.joint_count(); ++j) s_->joint_index.emplace(rig.names[j], static_cast<int>(j));
  s_->weights = HierarchicalWeights::from(rig, skin);
  s_->gamma = bend_weights_of(mesh, parameters);
  s_->max_abs_gamma = 0;
  for (float g : s_->gamma) s_->max_abs_gamma = std::max(s_->max_abs_gamma, std::abs(g));
  s_->layout = std::make_shared<const dynamic_kernels::PairLayout>(dynamic_kernels::pair_layout(
      rig, mesh, skin, s_->weights, s_->gamma, restricted_origins(rig, parameters, s_->joint_index)));
  clear_history(rig.joint_count());
  s_->initialized = true;
}

void DynamicSkinningState::clear_history(std::size_t joint_count) {
  s_->joint_parameters.assign(joint_count, {});
  s_->joint_origin.assign(joint_count, Vec3f::Zero());
  s_->filters.assign(joint_count, {});
  s_->last_omega.assign(joint_count, Vec3d::Zero());
  s_->last_velocity.assign(joint_count, Vec3d::Zero());
  s_->filtered_last.assign(joint_count, Vec3d::Zero());
  s_->filtered_prev.assign(joint_count, Vec3d::Zero());
  s_->linear_last.assign(joint_count, Vec3d::Zero());
  s_->linear_prev.assign(joint_count, Vec3d::Zero());
  s_->interval_omega.assign(joint_count, Vec3d::Zero());
  s_->interval_velocity.assign(joint_count, Vec3d::Zero());
  s_->frame_filtered.assign(joint_count, Vec3d::Zero());
  s_->frame_linear.assign(joint_count, Vec3d::Zero());
  s_->active.assign(joint_count, 0);
  s_->joint_data.assign(joint_count * kJointStride, 0.0f);
  s_->scratch_pose.resize(joint_count);
  s_->started = false;
}

std::size_t DynamicSkinningState::pair_count() const { return s_->layout ? s_->layout->stored_pairs : 0; }
std::size_t DynamicSkinningState::dense_lane_count() const { return s_->layout ? s_->layout->dense_pairs : 0; }

void DynamicSkinningState::reset() {
  s_->started = false;
  if (s_->grid_period != 1.0 / kDynamicSampleRate || s_->grid_origin != 0) set_sample_grid(1.0 / kDynamicSampleRate, 0);
}

void DynamicSkinningState::set_sample_grid(double period_s, double origin_s) {
  if (!(period_s > 0) || !std::isfinite(period_s) || !std::isfinite(origin_s)) {
    fail_plain("dynamic: the sampling grid needs a positive period and a finite origin (got {} s from {} s)", period_s,
               origin_s);
  }
  s_->grid_period = period_s;
  s_->grid_origin = origin_s;
  for (State::JointParameters& p : s_->joint_parameters)
    p.values_valid = false;  // the coefficients depend on the period
  s_->started = false;
}

// The parameters were checked when they were set (validate()); nothing is checked per frame.
void DynamicSkinningState::resolve_parameters(const DynamicSkinningParameters& parameters) {
  const std::size_t joint_count = s_->parents.size();
  // Per joint (f, tau, A, D); coefficients are recomputed only for joints whose values changed.
  std::vector<State::JointParameters>& resolved = s_->joint_parameters;
  std::vector<std::array<double, 3>>& wanted = s_->scratch_values;
  wanted.assign(joint_count, {parameters.frequency, parameters.damping, parameters.amplitude});
  for (std::size_t j = 0; j < joint_count; ++j) {
    resolved[j].drag = parameters.drag;
    resolved[j].enabled = true;
    s_->joint_origin[j].setZero();
  }
  for (const JointDynamics& joint : parameters.joints) {
    auto found = s_->joint_index.find(joint.joint);
    if (found == s_->joint_index.end())
      fail_plain("dynamic: settings name joint '{}', which is not in the rig", joint.joint);
    const int j = found->second;
    wanted[j] = {joint.frequency.value_or(parameters.frequency) * joint.frequency_scale,
                 joint.damping.value_or(parameters.damping) * joint.damping_scale,
                 joint.amplitude.value_or(parameters.amplitude) * joint.amplitude_scale};
    resolved[j].drag = joint.drag.value_or(parameters.drag) * joint.drag_scale;
    resolved[j].enabled = joint.enabled;
    s_->joint_origin[j] = joint.origin;
  }
  for (std::size_t j = 0; j < joint_count; ++j) {
    if (resolved[j].values_valid && resolved[j].values == wanted[j]) continue;
    resolved[j].coefficients = OscillationCoefficients::from(wanted[j][0], wanted[j][1], wanted[j][2], s_->grid_period);
    resolved[j].values = wanted[j];
    resolved[j].values_valid = true;
  }
  s_->max_angle = parameters.max_angle;
  s_->linear_drag = parameters.linear_drag;
  s_->max_time_step = parameters.max_time_step;
  s_->skip_below = parameters.skip_below;
}

void DynamicSkinningState::sample_pose(const Pose& pose, std::vector<Quatf>& rotations,
                                       std::vector<Vec3f>& translations) const {
  const std::size_t joint_count = s_->parents.size();
  rotations.resize(joint_count);
  translations.resize(joint_count);
  for (std::size_t j = 0; j < joint_count; ++j) {
    rotations[j] = pose.local[j].rotation;
    translations[j] = pose.local[j].translation;
  }
}

// Omega_j: the rotation of joint j relative to its parent between the previous sample and this
// pose, divided by the step, turned into world space by the parent's world rotation. v_j: the
// same for the local translation.
void DynamicSkinningState::velocities(const Pose& pose, std::span<const Quatf> previous_rotations,
                                      std::span<const Vec3f> previous_translations, double step,
                                      std::vector<Vec3d>& omega, std::vector<Vec3d>& velocity) {
  const std::size_t joint_count = s_->parents.size();
  omega.resize(joint_count);
  velocity.resize(joint_count);
  std::vector<Eigen::Quaterniond>& world = s_->scratch_world;
  world.resize(joint_count);
  const double inv_step = 1.0 / step;
  for (std::size_t j = 0; j < joint_count; ++j) {
    const Eigen::Quaterniond current = pose.local[j].rotation.cast<double>().normalized();
    const Eigen::Quaterniond previous = previous_rotations[j].cast<double>().normalized();
    const int parent = s_->parents[j];
    const Eigen::Quaterniond parent_world = parent < 0 ? Eigen::Quaterniond::Identity() : world[parent];
    world[j] = (parent_world * current).normalized();
    const Vec3d local_omega = rotation_log(current * previous.conjugate()) * inv_step;
    omega[j] = parent_world * local_omega;
    const Vec3d local_velocity = (pose.local[j].translation - previous_translations[j]).cast<double>() * inv_step;
    velocity[j] = parent_world * local_velocity;
  }
}

void DynamicSkinningState::commit_sample(const std::vector<Vec3d>& omega, const std::vector<Vec3d>& velocity) {
  for (std::size_t j = 0; j < s_->parents.size(); ++j) {
    const State::JointParameters& p = s_->joint_parameters[j];
    const Vec3d y = s_->filters[j].push(p.coefficients, omega[j]);
    s_->filtered_prev[j] = s_->filtered_last[j];
    s_->filtered_last[j] = p.drag * omega[j] + y;
    s_->linear_prev[j] = s_->linear_last[j];
    s_->linear_last[j] = velocity[j];
    s_->last_omega[j] = omega[j];
    s_->last_velocity[j] = velocity[j];
  }
  ++s_->last_sample;
}

void DynamicSkinningState::restart(const Pose& pose, double t, const PoseSampler& pose_at) {
  const std::size_t joint_count = s_->parents.size();
  s_->last_sample = floor_sample(sample_position(t));
  std::int64_t n;
  const bool grid = on_grid(sample_position(t), n);
  std::vector<Vec3d>& omega = s_->scratch_omega;
  std::vector<Vec3d>& velocity = s_->scratch_velocity;
  if (pose_at) {
    const double s = sample_time(s_->last_sample);
    std::vector<Quatf> previous_rotations;
    std::vector<Vec3f> previous_translations;
    pose_at(s - s_->grid_period, s_->scratch_pose);
    sample_pose(s_->scratch_pose, previous_rotations, previous_translations);
    const Pose* current = &pose;
    if (!grid) {
      pose_at(s, s_->scratch_pose);
      current = &s_->scratch_pose;
    }
    velocities(*current, previous_rotations, previous_translations, s_->grid_period, omega, velocity);
    sample_pose(*current, s_->sample_rotations, s_->sample_translations);
  } else {
    omega.assign(joint_count, Vec3d::Zero());
    velocity.assign(joint_count, Vec3d::Zero());
    sample_pose(pose, s_->sample_rotations, s_->sample_translations);
  }
  for (std::size_t j = 0; j < joint_count; ++j) {
    // Steady state: as if the joint had always moved at its current velocity (no wobble pending).
    s_->filters[j].reset(omega[j]);
    s_->filtered_last[j] = s_->filtered_prev[j] = s_->joint_parameters[j].drag * omega[j];
    s_->linear_last[j] = s_->linear_prev[j] = velocity[j];
    s_->last_omega[j] = omega[j];
    s_->last_velocity[j] = velocity[j];
    s_->interval_omega[j] = omega[j];
    s_->interval_velocity[j] = velocity[j];
  }
  s_->last_time = t;
  s_->started = true;
}

// The periodic steady state of the oscillation filter, exactly.
//
// Per joint and component the filter is linear and time invariant. Its oscillation term obeys
// y_{n+1} = a1 y_n - a2 y_{n-1} + b x_n, with x_n = H_n - H_{n-1} the change of the angular
// velocity H between samples; as a state Y_n = (y_n, y_{n-1}):
//     Y_{n+1} = A Y_n + (b x_n, 0),   A = [[a1, -a2], [1, 0]].
// A cycle of M samples has periodic input (H_{n+M} = H_n, so x_{n+M} = x_n), and running it once
// from Y_0 gives
//     Y_M = A^M Y_0 + Z,   Z = sum_{n=0}^{M-1} A^{M-1-n} (b x_n, 0)   (the cycle run from rest).
// The steady state is the Y_0 that the cycle maps onto itself, Y_M = Y_0:
//     (I - A^M) Y_0 = Z,
// a 2x2 solve with three right-hand sides (the components). I - A^M is invertible: A's eigenvalues
// r e^{+-iw} have modulus r = exp(-dt/tau) < 1, so A^M's are r^M < 1. It is the state a cold start
// converges to after many cycles (the transient decays as r^{kM}), reached without running them.
// The drag term D H and the linear-drag velocity have no memory: at sample 0 they are the cycle's.
void DynamicSkinningState::start_periodic(const DynamicSkinningParameters& parameters, const PoseSampler& pose_at,
                                          double cycle_start, double period) {
  if (!s_->initialized) fail_plain("dynamic: start_periodic() before initialize()");
  if (!pose_at) fail_plain("dynamic: a seamless loop needs the clip's poses (a pose sampler)");
  if (!(period > 0) || !std::isfinite(period) || !std::isfinite(cycle_start)) {
    fail_plain("dynamic: a loop needs a positive period and a finite start (got {} s from {} s)", period, cycle_start);
  }
  const std::int64_t samples = std::max<std::int64_t>(1, std::llround(period * kDynamicSampleRate));
  const auto m = static_cast<std::size_t>(samples);
  set_sample_grid(period / static_cast<double>(samples), cycle_start);
  resolve_parameters(parameters);
  // H_n and V_n over one cycle, n = 0..M (index 0 from sample -1 to 0; H_0 = H_M up to rounding).
  std::vector<std::vector<Vec3d>> omega(m + 1), velocity(m + 1);
  pose_at(sample_time(-1), s_->scratch_pose);
  sample_pose(s_->scratch_pose, s_->sample_rotations, s_->sample_translations);
  for (std::size_t n = 0; n <= m; ++n) {
    pose_at(sample_time(static_cast<std::int64_t>(n)), s_->scratch_pose);
    velocities(s_->scratch_pose, s_->sample_rotations, s_->sample_translations, s_->grid_period, omega[n], velocity[n]);
    sample_pose(s_->scratch_pose, s_->sample_rotations, s_->sample_translations);
  }
  pose_at(sample_time(0), s_->scratch_pose);  // the next sample measures its motion from sample 0
  sample_pose(s_->scratch_pose, s_->sample_rotations, s_->sample_translations);

  for (std::size_t j = 0; j < s_->parents.size(); ++j) {
    const State::JointParameters& p = s_->joint_parameters[j];
    const OscillationCoefficients& c = p.coefficients;
    // H_k for k in [0, M), wrapped: H_0 is taken as H_M so that the cycle's inputs repeat exactly.
    auto input = [&](std::int64_t k) -> const Vec3d& {
      const std::int64_t wrapped = ((k % samples) + samples) % samples;
      return omega[wrapped == 0 ? m : static_cast<std::size_t>(wrapped)][j];
    };
    Eigen::Matrix2d a, power = Eigen::Matrix2d::Identity();
    a << c.a1, -c.a2, 1, 0;
    Eigen::Matrix<double, 2, 3> z = Eigen::Matrix<double, 2, 3>::Zero();
    for (std::int64_t n = 0; n < samples; ++n) {
      const Vec3d x = input(n) - input(n - 1);
      z = a * z;
      z.row(0) += c.b * x.transpose();
      power = a * power;
    }
    const Eigen::Matrix<double, 2, 3> y = (Eigen::Matrix2d::Identity() - power).fullPivLu().solve(z);
    OscillationFilter& filter = s_->filters[j];
    filter.last_input = input(0);
    filter.last_step = input(0) - input(-1);
    filter.y1 = y.row(0).transpose();
    filter.y2 = y.row(1).transpose();
    s_->filtered_last[j] = p.drag * input(0) + filter.y1;
    s_->filtered_prev[j] = p.drag * input(-1) + filter.y2;
    s_->linear_last[j] = velocity[m][j];
    s_->linear_prev[j] = velocity[m - 1 == 0 ? m : m - 1][j];
    s_->last_omega[j] = s_->interval_omega[j] = input(0);
    s_->last_velocity[j] = s_->interval_velocity[j] = velocity[m][j];
  }
  s_->last_sample = 0;
  s_->last_time = cycle_start;
  s_->started = true;
  s_->periodic_start = true;
}

void DynamicSkinningState::apply(const DynamicSkinningParameters& parameters, const Pose& pose,
                                 std::span<Vec3f> positions, double t, const PoseSampler& pose_at, ThreadPool* pool) {
  if (!s_->initialized) fail_plain("dynamic: apply() before initialize()");
  if (positions.size() != s_->vertex_count) {
    fail_plain("dynamic: {} positions given, the character has {} vertices", positions.size(), s_->vertex_count);
  }
  advance(parameters, pose, t, pose_at);
  run_kernel(positions, pool);
}

void DynamicSkinningState::advance(const DynamicSkinningParameters& parameters, const Pose& pose, double t,
                                   const PoseSampler& pose_at) {
  if (!s_->initialized) fail_plain("dynamic: advance() before initialize()");
  if (pose.local.size() != s_->parents.size() || pose.world.size() != s_->parents.size()) {
    fail_plain("dynamic: the pose has {} joints, the rig {}", pose.local.size(), s_->parents.size());
  }
  if (!std::isfinite(t)) fail_plain("dynamic: time must be finite (got {})", t);
  resolve_parameters(parameters);
  const std::size_t joint_count = s_->parents.size();

  // A long step is a jump, except the first after start_periodic with the cycle's poses at hand.
  const bool long_step = t - s_->last_time > s_->max_time_step && !(s_->periodic_start && pose_at);
  s_->periodic_start = false;
  if (!s_->started || t < s_->last_time - 1e-9 || long_step) restart(pose, t, pose_at);

  std::int64_t grid_index;
  const bool grid = on_grid(sample_position(t), grid_index);
  if (pose_at) {
    // Sub-sample the clip on the 60 Hz grid up to the first sample at or after t.
    const std::int64_t target = ceil_sample(sample_position(t));
    while (s_->last_sample < target) {
      const std::int64_t next = s_->last_sample + 1;
      const Pose* sample = &pose;
      if (!(grid && next == grid_index)) {
        pose_at(sample_time(next), s_->scratch_pose);
        sample = &s_->scratch_pose;
      }
      velocities(*sample, s_->sample_rotations, s_->sample_translations, s_->grid_period, s_->scratch_omega,
                 s_->scratch_velocity);
      sample_pose(*sample, s_->sample_rotations, s_->sample_translations);
      commit_sample(s_->scratch_omega, s_->scratch_velocity);
    }
    if (grid) {
      s_->frame_filtered = s_->filtered_last;
      s_->frame_linear = s_->linear_last;
    } else {
      const double alpha = sample_position(t) - static_cast<double>(s_->last_sample - 1);
      for (std::size_t j = 0; j < joint_count; ++j) {
        s_->frame_filtered[j] = s_->filtered_prev[j] + alpha * (s_->filtered_last[j] - s_->filtered_prev[j]);
        s_->frame_linear[j] = s_->linear_prev[j] + alpha * (s_->linear_last[j] - s_->linear_prev[j]);
      }
    }
  } else {
    // Interactive: the velocity over the last frame step holds for the samples inside it.
    const double step = t - s_->last_time;
    if (step > 0) {
      velocities(pose, s_->sample_rotations, s_->sample_translations, step, s_->interval_omega, s_->interval_velocity);
      sample_pose(pose, s_->sample_rotations, s_->sample_translations);
    }
    const std::int64_t target = floor_sample(sample_position(t));
    while (s_->last_sample < target) commit_sample(s_->interval_omega, s_->interval_velocity);
    if (grid) {
      s_->frame_filtered = s_->filtered_last;
      s_->frame_linear = s_->linear_last;
    } else {
      // Between samples: toward the next sample, whose oscillation term is already known.
      const double alpha = sample_position(t) - static_cast<double>(s_->last_sample);
      for (std::size_t j = 0; j < joint_count; ++j) {
        const State::JointParameters& p = s_->joint_parameters[j];
        const Vec3d next = p.drag * s_->interval_omega[j] + s_->filters[j].next_oscillation(p.coefficients);
        s_->frame_filtered[j] = s_->filtered_last[j] + alpha * (next - s_->filtered_last[j]);
        s_->frame_linear[j] = s_->linear_last[j] + alpha * (s_->interval_velocity[j] - s_->linear_last[j]);
      }
    }
  }
  s_->last_time = t;
  fill_joint_table(pose);
}

void DynamicSkinningState::fill_joint_table(const Pose& pose) {
  const std::size_t joint_count = s_->parents.size();
  const float inv_size = 1.0f / s_->size;
  const double gamma_scale = std::max(s_->max_abs_gamma, 1e-30f);
  for (std::size_t j = 0; j < joint_count; ++j) {
    float* row = s_->joint_data.data() + j * kJointStride;
    std::fill(row, row + kJointStride, 0.0f);
    const Vec3d& f = s_->frame_filtered[j];
    const Vec3d linear = -s_->linear_drag * s_->frame_linear[j];
    const double angle = f.norm();
    const bool bend = angle * gamma_scale >= s_->skip_below;
    const bool push = linear.norm() * gamma_scale * inv_size >= s_->skip_below;
    s_->active[j] = s_->joint_parameters[j].enabled && std::isfinite(angle) && (bend || push);
    if (!s_->active[j]) continue;
    const Vec3f q = (pose.world[j] * s_->joint_origin[j].homogeneous()).head<3>();
    row[0] = q.x(), row[1] = q.y(), row[2] = q.z();
    if (bend) {
      const Vec3f g = (f * inv_size).cast<float>();
      const Vec3f axis = (f / angle).cast<float>();
      row[3] = g.x(), row[4] = g.y(), row[5] = g.z();
      row[6] = axis.x(), row[7] = axis.y(), row[8] = axis.z();
      row[9] = static_cast<float>(s_->size / angle);
    }
    if (push)
      row[10] = static_cast<float>(linear.x()), row[11] = static_cast<float>(linear.y()),
      row[12] = static_cast<float>(linear.z());
  }
}

void DynamicSkinningState::run_kernel(std::span<Vec3f> positions, ThreadPool* pool) {
  const dynamic_kernels::PairLayout& L = *s_->layout;
  std::size_t active_pairs = 0;
  for (const dynamic_kernels::Segment& segment : L.segments) {
    if (!s_->active[segment.joint]) continue;
    active_pairs += segment.pairs;
  }
  s_->active_pairs = active_pairs;
  if (active_pairs == 0) return;

  const float inv_max_angle2 = static_cast<float>(1.0 / (s_->max_angle * s_->max_angle));
  const dynamic_kernels::Table& kernels = dynamic_kernels::table();
  const std::size_t chunks = (s_->vertex_count + kChunk - 1) / kChunk;
  auto body = [&](std::size_t chunk_begin, std::size_t chunk_end) {
    alignas(32) float px[kChunk], py[kChunk], pz[kChunk], dx[kChunk], dy[kChunk], dz[kChunk];
    for (std::size_t c = chunk_begin; c < chunk_end; ++c) {
      const std::uint32_t first_segment = L.chunk_segments[c], last_segment = L.chunk_segments[c + 1];
      bool any = false;
      for (std::uint32_t s = first_segment; s < last_segment && !any; ++s) any = s_->active[L.segments[s].joint];
      if (!any) continue;
      const std::size_t first = c * kChunk, count = std::min(kChunk, s_->vertex_count - first);
      const std::uint16_t* order = L.chunk_order.data() + first;
      const bool identity = L.chunk_identity[c];
      std::fill(dx, dx + count, 0.0f);
      std::fill(dy, dy + count, 0.0f);
      std::fill(dz, dz + count, 0.0f);
      if (identity) {
        for (std::size_t i = 0; i < count; ++i) {
          const Vec3f& p = positions[first + i];
          px[i] = p.x(), py[i] = p.y(), pz[i] = p.z();
        }
      } else {
        for (std::size_t i = 0; i < count; ++i) {
          const Vec3f& p = positions[first + order[i]];
          px[i] = p.x(), py[i] = p.y(), pz[i] = p.z();
        }
      }
      for (std::uint32_t s = first_segment; s < last_segment; ++s) {
        const dynamic_kernels::Segment& segment = L.segments[s];
        if (!s_->active[segment.joint]) continue;
        const float* joint = s_->joint_data.data() + segment.joint * kJointStride;
        if (segment.dense) {
          kernels.dense(joint, segment.first, L.pair_beta.data(), L.pair_gamma.data(), segment.begin, segment.end, px,
                        py, pz, dx, dy, dz, inv_max_angle2);
        } else {
          kernels.pairs(joint, L.pair_vertex.data(), L.pair_beta.data(), L.pair_gamma.data(), segment.begin,
                        segment.end, px, py, pz, dx, dy, dz, inv_max_angle2);
        }
      }
      if (identity) {
        for (std::size_t i = 0; i < count; ++i) positions[first + i] += Vec3f(dx[i], dy[i], dz[i]);
      } else {
        for (std::size_t i = 0; i < count; ++i) positions[first + order[i]] += Vec3f(dx[i], dy[i], dz[i]);
      }
    }
  };
  parallel_for(pool, chunks, 1, body);
}

void DynamicSkinningState::reference_offsets(std::span<const Vec3f> base, std::span<Vec3f> offsets) const {
  const dynamic_kernels::PairLayout& L = *s_->layout;
  const float inv_max_angle2 = static_cast<float>(1.0 / (s_->max_angle * s_->max_angle));
  std::fill(offsets.begin(), offsets.end(), Vec3f::Zero());
  for (std::size_t c = 0; c + 1 < L.chunk_segments.size(); ++c) {
    const std::size_t first = c * kChunk;
    for (std::uint32_t s = L.chunk_segments[c]; s < L.chunk_segments[c + 1]; ++s) {
      const dynamic_kernels::Segment& segment = L.segments[s];
      if (!s_->active[segment.joint]) continue;
      const float* joint = s_->joint_data.data() + segment.joint * kJointStride;
      for (std::uint32_t k = segment.begin; k < segment.end; ++k) {
        if (L.pair_beta[k] == 0) continue;  // a gap of a dense segment
        const std::size_t v = first + L.chunk_order[first + L.pair_vertex[k]];
        offsets[v] += dynamic_kernels::pair_offset<true>(joint, base[v].x(), base[v].y(), base[v].z(), L.pair_beta[k],
                                                         L.pair_gamma[k], inv_max_angle2);
      }
    }
  }
}

float DynamicSkinningState::inverse_max_angle_squared() const {
  return static_cast<float>(1.0 / (s_->max_angle * s_->max_angle));
}

HierarchicalWeights DynamicSkinningState::kernel_weights() const {
  const dynamic_kernels::PairLayout& L = *s_->layout;
  std::vector<std::vector<std::pair<std::uint32_t, float>>> rows(s_->vertex_count);
  for (std::size_t c = 0; c + 1 < L.chunk_segments.size(); ++c) {
    const std::size_t first = c * kChunk;
    for (std::uint32_t s = L.chunk_segments[c]; s < L.chunk_segments[c + 1]; ++s) {
      const dynamic_kernels::Segment& segment = L.segments[s];
      for (std::uint32_t k = segment.begin; k < segment.end; ++k) {
        if (L.pair_beta[k] == 0) continue;  // a gap of a dense segment
        rows[first + L.chunk_order[first + L.pair_vertex[k]]].emplace_back(segment.joint, L.pair_beta[k]);
      }
    }
  }
  HierarchicalWeights result;
  for (auto& row : rows) {
    std::sort(row.begin(), row.end());
    for (const auto& [joint, beta] : row) {
      result.joints.push_back(joint);
      result.betas.push_back(beta);
    }
    result.offsets.push_back(static_cast<std::uint32_t>(result.joints.size()));
  }
  return result;
}

void dynamic_skinning_initialize(DynamicSkinningState& state, const Rig& rig, const Mesh& mesh, const Skin& skin,
                                 const DynamicSkinningParameters& parameters) {
  state.initialize(rig, mesh, skin, parameters);
}

void dynamic_skinning_apply(DynamicSkinningState& state, const DynamicSkinningParameters& parameters, const Pose& pose,
                            std::span<Vec3f> positions, double t, const PoseSampler& pose_at, ThreadPool* pool) {
  state.apply(parameters, pose, positions, t, pose_at, pool);
}

void dynamic_skinning_reset(DynamicSkinningState& state) { state.reset(); }

// ---------------------------------------------------------------------------------------------
// The deformer and its description.

namespace {

class DynamicDeformer final : public Deformer {
 public:
  explicit DynamicDeformer(DynamicSkinningParameters parameters) : parameters_(std::move(parameters)) {}
  const DeformerDescription& description() const override { return dynamic_description(); }

  void bind(const Character& character) override {
    bind_skinned(character, "dynamic", [&] { state_.initialize(character, parameters_); });
  }
  // Live values (f, tau, A, D, angles, per-joint values): the filter history is kept.
  void update(const DeformerSettings& settings) override { parameters_ = settings.as<DynamicSkinningParameters>(); }
  void reset() override { state_.reset(); }
  void start_periodic(const PoseSampler& pose_at, double cycle_start, double period) override {
    state_.start_periodic(parameters_, pose_at, cycle_start, period);
  }
  void evaluate(const FrameInput& frame, std::span<Vec3f> positions, std::span<Vec3f> normals) override {
    state_.apply(parameters_, frame.pose, positions, frame.time, frame.pose_at,
                 pool_worth_using(frame.pool, positions.size(), deform::vertex_cost_ns::kDynamicSkinning));
  }

 private:
  DynamicSkinningParameters parameters_;
  DynamicSkinningState state_;
};

describe::Fields<JointDynamics> joint_fields() {
  // One chain per parameter (key, accessor, unit, range, help), laid out by hand:
  // clang-format off
  describe::Fields<JointDynamics> f;
  const double nyquist = kDynamicSampleRate / 2;
  f.number("frequency", [](auto& j) -> auto& { return j.frequency; })
      .unit("Hz").range(0, nyquist).soft(0, 10).optional().help("replaces the global frequency f");
  f.number("damping", [](auto& j) -> auto& { return j.damping; })
      .unit("s").range(0, 1e6).soft(0, 2).optional().help("replaces the global damping tau");
  f.number("amplitude", [](auto& j) -> auto& { return j.amplitude; })
      .unit("s").range(-1e6, 1e6).soft(0, 1).optional().help("replaces the global amplitude A");
  f.number("drag", [](auto& j) -> auto& { return j.drag; })
      .unit("s").range(-1e6, 1e6).soft(0, 0.5).optional().help("replaces the global drag D");
  f.number("frequency_scale", [](auto& j) -> auto& { return j.frequency_scale; })
      .range(0, 1e6).soft(0, 4).help("multiplies the frequency");
  f.number("damping_scale", [](auto& j) -> auto& { return j.damping_scale; })
      .range(0, 1e6).soft(0, 4).help("multiplies the damping");
  f.number("amplitude_scale", [](auto& j) -> auto& { return j.amplitude_scale; })
      .range(-1e6, 1e6).soft(0, 4).help("multiplies the amplitude");
  f.number("drag_scale", [](auto& j) -> auto& { return j.drag_scale; })
      .range(-1e6, 1e6).soft(0, 4).help("multiplies the drag");
  f.boolean("enabled", [](auto& j) -> auto& { return j.enabled; }).help("false: the joint adds no offset");
  f.vector3("origin", [](auto& j) -> auto& { return j.origin; })
      .unit("scene units").range(-1e30, 1e30)
      .help("flexible origin: the rotation centre in the joint's bind-pose frame");
  f.number("radius", [](auto& j) -> auto& { return j.radius; })
      .unit("scene units").bind().range(0, 1e30)
      .help("above 0: only vertices within this bind-pose distance of the origin follow the joint (smooth falloff)");
  // clang-format on
  return f;
}

// Per joint, the frequency after its replacement and scale stays below the sampling's Nyquist
// frequency.
std::string check_joint_frequencies(const void* object) {
  const auto& p = *static_cast<const DynamicSkinningParameters*>(object);
  for (const JointDynamics& joint : p.joints) {
    const double f = joint.frequency.value_or(p.frequency) * joint.frequency_scale;
    if (f > kDynamicSampleRate / 2) {
      return fmt::format("joint '{}': frequency {} Hz is above {} Hz", joint.joint, f, kDynamicSampleRate / 2);
    }
  }
  return {};
}

}  // namespace

const DeformerDescription& dynamic_description() {
  static const DeformerDescription description = [] {
    // One chain per parameter (key, accessor, unit, range, help), laid out by hand:
    // clang-format off
    describe::Fields<DynamicSkinningParameters> f;
    f.number("frequency", [](auto& p) -> auto& { return p.frequency; })
        .unit("Hz").range(0, kDynamicSampleRate / 2).soft(0, 10)
        .help("oscillation frequency f (at most the 60 Hz sampling's Nyquist frequency)");
    f.number("damping", [](auto& p) -> auto& { return p.damping; })
        .unit("s").range(0, 1e6).soft(0, 2).help("decay time tau of the oscillations");
    f.number("amplitude", [](auto& p) -> auto& { return p.amplitude; })
        .unit("s").range(-1e6, 1e6).soft(0, 1).help("oscillation amplitude A (bend angle per angular velocity)");
    f.number("drag", [](auto& p) -> auto& { return p.drag; })
        .unit("s").range(-1e6, 1e6).soft(0, 0.5).help("drag D (bend angle per angular velocity)");
    f.number("max_angle", [](auto& p) -> auto& { return p.max_angle; }, std::numbers::pi / 180)
        .unit("degrees").above(0, 180).soft(1, 180).help("soft limit on the bend angle");
    f.number("linear_drag", [](auto& p) -> auto& { return p.linear_drag; })
        .unit("s").range(-1e6, 1e6).soft(0, 0.2).help("drag against the joints' linear velocity; 0: off");
    f.text("bend_weight_attribute", [](auto& p) -> auto& { return p.bend_weight_attribute; })
        .bind().help("per-vertex attribute with the bend weights gamma, used when bend_weights is empty; empty: none");
    f.vertex_array("bend_weights", [](auto& p) -> auto& { return p.bend_weights; })
        .bind().range(-1e6, 1e6).help("per-vertex bend weights gamma, any sign (a JSON array; empty: the attribute, else 1)");
    f.joint_table<JointDynamics>("joints", [](auto& p) -> auto& { return p.joints; },
                                 [](JointDynamics& j) -> std::string& { return j.joint; }, joint_fields())
        .flag("dynamic-joints")
        .help("per-joint overrides, a JSON object: {\"Head\": {\"amplitude_scale\": 2, \"enabled\": false}}");
    f.number("max_time_step", [](auto& p) -> auto& { return p.max_time_step; })
        .unit("s").range(0, 1e9).soft(0, 1).help("larger forward time steps, and any backward step, restart the history");
    f.number("skip_below", [](auto& p) -> auto& { return p.skip_below; })
        .unit("radians").range(0, 1).soft(0, 1e-3).help("joints whose bend angle stays below this are skipped");
    // clang-format on
    DeformerDescription d = f.deformer(
        "dynamic", DeformerStage::Effect, "Dynamic Skinning: drag and damped oscillations from the joints' motion",
        [](const DeformerSettings& s) {
          return std::unique_ptr<Deformer>(std::make_unique<DynamicDeformer>(s.as<DynamicSkinningParameters>()));
        });
    d.check_together = check_joint_frequencies;
    return d;
  }();
  return description;
}

}  // namespace wobble
