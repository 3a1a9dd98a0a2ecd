#pragma once
// What the Delta Mush and Direct Delta Mush tests loop over and compare: settings covering every
// mode, smoothing and variant, LBS of the two-joint cylinder (the mush's input), and the largest
// distance between two frames (frame_distance.hpp).
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <wobble/delta_mush.hpp>
#include <wobble/direct_delta_mush.hpp>
#include <wobble/lbs.hpp>
#include <wobble/math.hpp>

#include "frame_distance.hpp"
#include "two_joint_cylinder.hpp"

namespace wobble::test {

inline std::vector<Vec3f> run_lbs(const std::vector<Mat4f>& matrices, const Cylinder& c) {
  std::vector<Vec3f> out(c.positions.size());
  const LbsJob job{.skinning_matrices = matrices,
                   .skin = &c.skin,
                   .in_positions = c.positions,
                   .in_normals = {},
                   .out_positions = out,
                   .out_normals = {}};
  job.run();
  return out;
}

// Delta Mush settings of every mode and smoothing, with few and many iterations, pinned
// boundaries, a scale and a mask over `vertex_count` vertices.
inline std::vector<DeltaMushSettings> all_settings(std::size_t vertex_count) {
  std::vector<DeltaMushSettings> list;
  for (MushMode mode : {MushMode::Wobble, MushMode::Blender}) {
    for (MushSmoothing smoothing : {MushSmoothing::Uniform, MushSmoothing::Length, MushSmoothing::Cotangent}) {
      if (mode == MushMode::Blender && smoothing == MushSmoothing::Cotangent) continue;
      for (int variant = 0; variant < 3; ++variant) {
        DeltaMushSettings s;
        s.mode = mode;
        s.smoothing = smoothing;
        s.iterations = variant == 0 ? 10 : variant == 1 ? 40 : 3;
        s.step = variant == 2 ? 1.0f : 0.5f;
        s.pin_boundary = variant == 1;
        s.scale = variant == 2 ? 1.7f : 1.0f;
        if (variant == 2) {
          s.mask.resize(vertex_count);
          for (std::size_t v = 0; v < vertex_count; ++v) s.mask[v] = float(v % 7) / 6.0f;
        }
        list.push_back(s);
      }
    }
  }
  return list;
}

inline std::string describe(const DeltaMushSettings& s) {
  return fmt::format("{} {} iterations {} step {} pin {} scale {} mask {}", to_string(s.mode), to_string(s.smoothing),
                     s.iterations, s.step, s.pin_boundary, s.scale, !s.mask.empty());
}

// Every Direct Delta Mush variant, for the loops over them.
inline constexpr DdmVariant kVariants[] = {DdmVariant::V0, DdmVariant::V1, DdmVariant::V2, DdmVariant::V3};

// Each variant with the default settings, then with cotangent smoothing, 3 iterations, step 2.
inline std::vector<DirectDeltaMushSettings> variants() {
  std::vector<DirectDeltaMushSettings> list;
  for (DdmVariant variant : kVariants) {
    DirectDeltaMushSettings s;
    s.variant = variant;
    list.push_back(s);
    s.smoothing = MushSmoothing::Cotangent;
    s.iterations = 3;
    s.step = 2.0;
    list.push_back(s);
  }
  return list;
}

}  // namespace wobble::test
