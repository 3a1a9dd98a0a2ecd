// The C API of helper bones (include/wobble/wobble_offline.h) over wobble::helper_bones: a host's
// bake (joint world matrices and positions per frame) in, the helpers and the refitted skin out
// as flat arrays. The boundary (status codes, messages) is wobble.h's (capi/guarded.hpp).
#include <wobble/wobble_offline.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <wobble/offline/helper_bones.hpp>
#include <wobble/parallel.hpp>
#include <wobble/parameters.hpp>

#include "capi/guarded.hpp"
#include "deform/description_json.hpp"

struct wobble_helper_bones {
  std::uint32_t helper_count = 0, frame_count = 0, influences = 0;
  std::vector<std::int32_t> parents;
  std::vector<float> inverse_bind, local_transforms, weights;
  std::vector<std::uint16_t> joints;
  double rmse = 0, secondary_rms = 0;
};

namespace wobble::capi {
namespace {

constexpr const char* kFit = "wobble_helper_bones_fit";

// NULL or "": the defaults; else an object of the decomposition's keys, checked by its description.
DecompositionParameters fit_parameters(const char* settings_json) {
  return described_settings_from_json(decomposition_description(), settings_json, std::string(kFit) + ": settings")
      .as<DecompositionParameters>();
}

// The character with the host's weighting rule and one empty clip (helper_bones adds the helpers'
// channels to it).
Character host_character(const Character& character, const std::uint8_t* joints_weighted) {
  Character copy = character;
  if (joints_weighted) {
    bool any = false;
    for (std::size_t j = 0; j < copy.rig.joint_count(); ++j) {
      copy.rig.skinned[j] = joints_weighted[j] != 0;
      any = any || joints_weighted[j] != 0;
    }
    if (!any) fail_plain("{}: joints_weighted: no joint may carry weight", kFit);
  }
  copy.clips = {Clip{"host", {}}};
  return copy;
}

// The frames as a bake of `character`: checked, skinning = world * inverse bind.
BakedFrames baked_frames(const Character& character, const wobble_baked_frames& frames) {
  if (frames.frame_count == 0) fail_plain("{}: frames: frame_count is 0", kFit);
  require(frames.times, "frames->times");
  require(frames.joint_world_matrices, "frames->joint_world_matrices");
  require(frames.positions, "frames->positions");
  const std::size_t joints = character.rig.joint_count(), vertices = character.mesh.vertex_count();
  BakedFrames baked;
  for (std::size_t f = 0; f < frames.frame_count; ++f) {
    const double time = frames.times[f];
    if (!std::isfinite(time) || (f > 0 && !(static_cast<float>(time) > baked.times.back())))
      fail_plain("{}: frames: times[{}] = {} (finite, rising)", kFit, f, time);
    baked.times.push_back(static_cast<float>(time));
    std::vector<Mat4f>& skinning = baked.skinning.emplace_back(joints);
    for (std::size_t j = 0; j < joints; ++j) {
      const Mat4f world = Eigen::Map<const Mat4f>(frames.joint_world_matrices + 16 * (f * joints + j));
      if (!world.allFinite())
        fail_plain("{}: frames: the world matrix of joint {} in frame {} is not finite", kFit, j, f);
      skinning[j] = world * character.rig.inverse_bind[j];
    }
    std::vector<Vec3f>& positions = baked.positions.emplace_back(vertices);
    for (std::size_t v = 0; v < vertices; ++v) {
      positions[v] = Eigen::Map<const Vec3f>(frames.positions + 3 * (f * vertices + v));
      if (!positions[v].allFinite()) fail_plain("{}: frames: position {} of frame {} is not finite", kFit, v, f);
    }
  }
  return baked;
}

// Helper joint j's channel values in frame f, as 10 floats (translation, rotation, scale).
void local_transform(const Clip& clip, std::uint32_t joint, std::size_t f, float* out) {
  out[7] = out[8] = out[9] = 1.0f;  // no scale channel: unscaled
  for (const Channel& channel : clip.channels) {
    if (channel.joint != joint) continue;
    const int offset = channel.path == ChannelPath::Translation ? 0 : channel.path == ChannelPath::Rotation ? 3 : 7;
    for (int c = 0; c < channel.components(); ++c) out[offset + c] = channel.values[f * channel.components() + c];
  }
}

std::unique_ptr<wobble_helper_bones> flattened(const HelperBones& fit, std::size_t character_joints, std::size_t frames,
                                               int influences) {
  auto out = std::make_unique<wobble_helper_bones>();
  const Rig& rig = fit.character.rig;
  out->helper_count = static_cast<std::uint32_t>(fit.helpers);
  out->frame_count = static_cast<std::uint32_t>(frames);
  out->local_transforms.resize(frames * fit.helpers * 10);
  for (std::size_t h = 0; h < fit.helpers; ++h) {
    const auto joint = static_cast<std::uint32_t>(character_joints + h);
    out->parents.push_back(rig.parents[joint]);
    out->inverse_bind.insert(out->inverse_bind.end(), rig.inverse_bind[joint].data(),
                             rig.inverse_bind[joint].data() + 16);
    for (std::size_t f = 0; f < frames; ++f)
      local_transform(fit.character.clips.front(), joint, f, &out->local_transforms[(f * fit.helpers + h) * 10]);
  }
  const PackedSkin skin = PackedSkin::from(fit.character.skin, static_cast<std::uint32_t>(influences));
  out->influences = skin.width;
  out->joints = skin.joints;
  out->weights = skin.weights;
  out->rmse = fit.rmse;
  out->secondary_rms = fit.secondary_rms;
  return out;
}

}  // namespace
}  // namespace wobble::capi

using wobble::capi::guarded;
using wobble::capi::require;

extern "C" {

wobble_status wobble_helper_bones_fit(const wobble_character* character, const wobble_baked_frames* frames,
                                      const char* settings_json, const uint8_t* joints_weighted, int periodic,
                                      uint32_t threads, wobble_helper_bones** out) {
  return guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    require(out, "out (the result)");
    *out = nullptr;
    require(character, "character");
    require(frames, "frames");
    const wobble::DecompositionParameters parameters = wobble::capi::fit_parameters(settings_json);
    const wobble::Character host = wobble::capi::host_character(character->character, joints_weighted);
    if (static_cast<std::size_t>(parameters.bones) > host.mesh.vertex_count())
      wobble::fail_plain("{}: {} helpers for {} vertices (at most one a vertex)", wobble::capi::kFit, parameters.bones,
                         host.mesh.vertex_count());
    const wobble::BakedFrames baked = wobble::capi::baked_frames(host, *frames);
    std::unique_ptr<wobble::ThreadPool> pool;
    if (threads > 1) pool = std::make_unique<wobble::ThreadPool>(threads);
    const wobble::HelperBones fit = wobble::helper_bones(host, 0, baked, parameters, periodic != 0, pool.get());
    *out = wobble::capi::flattened(fit, host.rig.joint_count(), baked.times.size(), parameters.influences).release();
  });
}

wobble_status wobble_helper_bones_destroy(wobble_helper_bones* helpers) {
  delete helpers;
  return WOBBLE_OK;
}

wobble_status wobble_helper_bones_get(const wobble_helper_bones* helpers, wobble_helper_bones_result* result) {
  return guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    require(helpers, "helpers");
    require(result, "result");
    *result = {helpers->helper_count,   helpers->frame_count,         helpers->influences,
               helpers->parents.data(), helpers->inverse_bind.data(), helpers->local_transforms.data(),
               helpers->joints.data(),  helpers->weights.data(),      helpers->rmse,
               helpers->secondary_rms};
  });
}

wobble_status wobble_helper_bones_description(const char** json) {
  return guarded(WOBBLE_INVALID_ARGUMENT, [&] {
    require(json, "json (the result)");
    static const std::string description = wobble::deformer_description_json(wobble::decomposition_description());
    *json = description.c_str();
  });
}

}  // extern "C"
