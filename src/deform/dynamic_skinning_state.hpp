#pragma once
// The state behind a DynamicSkinningState (include/wobble/dynamic_skinning.hpp): bind data, the
// filter history and the grid it is sampled on, the per-frame joint data the kernel reads, and
// scratch. Private to the runtime: only src/deform/dynamic_skinning.cpp reads it.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <Eigen/Geometry>

#include <wobble/dynamic_skinning.hpp>
#include <wobble/pose.hpp>

namespace wobble {

struct DynamicSkinningState::State {
  struct JointParameters {
    OscillationCoefficients coefficients;
    std::array<double, 3> values{};  // the (f, tau, A) the coefficients were made from
    bool values_valid = false;
    double drag = 0;
    bool enabled = true;
  };

  bool initialized = false;
  std::size_t vertex_count = 0;
  float size = 1;
  std::vector<int> parents;
  std::unordered_map<std::string, int> joint_index;
  HierarchicalWeights weights;
  std::vector<float> gamma;
  float max_abs_gamma = 1;

  // The pairs as the bend kernel reads them (src/deform/dynamic_skinning_layout.hpp): made at
  // initialize, read-only after, shared by copies.
  std::shared_ptr<const dynamic_kernels::PairLayout> layout;

  // Resolved per-joint parameters (for the current apply).
  std::vector<JointParameters> joint_parameters;
  std::vector<Vec3f> joint_origin;  // per joint, in the joint's frame
  double max_angle = 1, linear_drag = 0, max_time_step = 0.25, skip_below = 1e-5;

  // History, and the grid it is sampled on.
  double grid_period = 1.0 / kDynamicSampleRate, grid_origin = 0;
  bool started = false;
  bool periodic_start = false;   // start_periodic() ran and no apply() since
  std::int64_t last_sample = 0;  // index n of the last sample pushed (time n dt)
  double last_time = 0;          // time of the last apply
  std::vector<OscillationFilter> filters;
  std::vector<Vec3d> last_omega, last_velocity;     // Omega_n, v_n
  std::vector<Vec3d> filtered_last, filtered_prev;  // F_n, F_{n-1}
  std::vector<Vec3d> linear_last, linear_prev;      // linear drag offsets at n, n-1
  std::vector<Quatf> sample_rotations;              // local rotations at the last sample / frame
  std::vector<Vec3f> sample_translations;
  std::vector<Vec3d> interval_omega, interval_velocity;  // interactive: velocity over the last frame step
  Pose scratch_pose;
  std::vector<Vec3d> scratch_omega, scratch_velocity;
  std::vector<Eigen::Quaterniond> scratch_world;
  std::vector<std::array<double, 3>> scratch_values;

  // Per-frame joint data for the kernel (float, structure of arrays).
  std::vector<Vec3d> frame_filtered, frame_linear;
  std::vector<std::uint8_t> active;
  std::vector<float> joint_data;  // per joint: q(3), G = F/L (3), n = F/|F| (3), 1/|G|, linear offset (3)
  std::size_t active_pairs = 0;
};

}  // namespace wobble
