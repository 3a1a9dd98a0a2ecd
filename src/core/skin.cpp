#include <wobble/skin.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/core.h>

#include <wobble/diagnostics.hpp>
#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble {

std::size_t Skin::max_influences() const {
  std::size_t result = 0;
  for (std::size_t v = 0; v < vertex_count(); ++v) result = std::max<std::size_t>(result, offsets[v + 1] - offsets[v]);
  return result;
}

void Skin::add_vertex(std::span<const Influence> influences) {
  const std::size_t first = joints.size();
  for (const Influence& influence : influences) {
    if (influence.weight == 0.0f) continue;
    // Exports sometimes list a joint twice: merge so each joint appears once per vertex.
    bool merged = false;
    for (std::size_t k = first; k < joints.size(); ++k) {
      if (joints[k] == influence.joint) {
        weights[k] += influence.weight;
        merged = true;
        break;
      }
    }
    if (!merged) {
      joints.push_back(influence.joint);
      weights.push_back(influence.weight);
    }
  }
  offsets.push_back(static_cast<std::uint32_t>(joints.size()));
}

void Skin::normalize(std::size_t joint_count, std::uint32_t fallback_joint, Diagnostics& diagnostics,
                     const std::filesystem::path& source) {
  std::vector<std::uint32_t> new_offsets{0};
  std::vector<std::uint32_t> new_joints;
  std::vector<float> new_weights;
  new_joints.reserve(joints.size());
  new_weights.reserve(weights.size());
  std::size_t dropped = 0, renormalised = 0, unweighted = 0;
  std::size_t first_renormalised = 0, first_unweighted = 0;
  float first_sum = 0;
  for (std::size_t v = 0; v < vertex_count(); ++v) {
    const std::size_t first = new_joints.size();
    double sum = 0;
    for (std::uint32_t k = offsets[v]; k < offsets[v + 1]; ++k) {
      if (joints[k] >= joint_count) {
        fail(source, "vertex {} is bound to joint {}, but the skeleton has {} joints", v, joints[k], joint_count);
      }
      if (!std::isfinite(weights[k]) || weights[k] < 0) {
        ++dropped;
        continue;
      }
      if (weights[k] == 0) continue;
      new_joints.push_back(joints[k]);
      new_weights.push_back(weights[k]);
      sum += weights[k];
    }
    if (sum <= std::numeric_limits<float>::min()) {
      if (unweighted++ == 0) first_unweighted = v;
      new_joints.resize(first);
      new_weights.resize(first);
      new_joints.push_back(fallback_joint);
      new_weights.push_back(1.0f);
    } else {
      if (std::abs(sum - 1.0) > 1e-3 && renormalised++ == 0) {
        first_renormalised = v;
        first_sum = static_cast<float>(sum);
      }
      for (std::size_t k = first; k < new_weights.size(); ++k)
        new_weights[k] = static_cast<float>(new_weights[k] / sum);
    }
    new_offsets.push_back(static_cast<std::uint32_t>(new_joints.size()));
  }
  if (dropped) {
    diagnostics.repair("weights_invalid", "negative or non-finite skin weights were dropped", dropped);
  }
  if (renormalised) {
    diagnostics.repair("weights_normalized",
                       fmt::format("skin weights that did not sum to 1 were normalised (first: vertex {}, sum {:.6g})",
                                   first_renormalised, first_sum),
                       renormalised);
  }
  if (unweighted) {
    diagnostics.repair("weights_missing",
                       fmt::format("vertices without any skin weight were bound to joint {} (first: vertex {})",
                                   fallback_joint, first_unweighted),
                       unweighted);
  }
  offsets = std::move(new_offsets);
  joints = std::move(new_joints);
  weights = std::move(new_weights);
}

PackedSkin PackedSkin::from(const Skin& skin, std::uint32_t width) {
  PackedSkin packed;
  packed.width = width ? width : std::max<std::uint32_t>(1, static_cast<std::uint32_t>(skin.max_influences()));
  const std::size_t n = skin.vertex_count();
  packed.joints.assign(n * packed.width, 0);
  packed.weights.assign(n * packed.width, 0.0f);
  std::vector<Influence> sorted;
  for (std::size_t v = 0; v < n; ++v) {
    auto js = skin.joints_of(v);
    auto ws = skin.weights_of(v);
    sorted.clear();
    for (std::size_t k = 0; k < js.size(); ++k) sorted.push_back({js[k], ws[k]});
    const bool truncated = sorted.size() > packed.width;
    if (truncated) {
      // Keep the strongest influences; ties broken by joint index so the result is deterministic.
      std::sort(sorted.begin(), sorted.end(), [](const Influence& a, const Influence& b) {
        return a.weight != b.weight ? a.weight > b.weight : a.joint < b.joint;
      });
      sorted.resize(packed.width);
    }
    float sum = 0;
    for (const Influence& i : sorted) sum += i.weight;
    const float scale = truncated && sum > 0 ? 1.0f / sum : 1.0f;
    for (std::size_t k = 0; k < sorted.size(); ++k) {
      if (sorted[k].joint > std::numeric_limits<std::uint16_t>::max()) {
        fail_plain("skin: joint index {} exceeds the packed layout's limit of 65535", sorted[k].joint);
      }
      packed.joints[v * packed.width + k] = static_cast<std::uint16_t>(sorted[k].joint);
      packed.weights[v * packed.width + k] = sorted[k].weight * scale;
    }
  }
  return packed;
}

}  // namespace wobble
