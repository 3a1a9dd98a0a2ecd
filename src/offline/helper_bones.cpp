// Helper bones: the decomposition with the character's joints as fixed bones, then each helper
// placed in the skeleton (a parent, a bind, local keys per frame) so that an engine's skinning of
// the extended skeleton gives the decomposition's transforms back.
#include <wobble/offline/helper_bones.hpp>

#include <cmath>
#include <limits>

#include <fmt/core.h>

#include <wobble/parallel.hpp>

#include "core/fail.hpp"

namespace wobble {
namespace {

void check_bake(const Character& character, std::size_t clip, const BakedFrames& baked) {
  if (clip >= character.clips.size()) fail(character.source, "helper bones: no clip {}", clip);
  if (!character.is_skinned()) fail(character.source, "helper bones need a skinned character");
  if (baked.times.empty()) fail(character.source, "helper bones: the bake has no frames");
  if (baked.positions.size() != baked.times.size() || baked.skinning.size() != baked.times.size())
    fail(character.source, "helper bones: {} times, {} frames and {} poses", baked.times.size(), baked.positions.size(),
         baked.skinning.size());
  for (std::size_t f = 0; f < baked.times.size(); ++f) {
    if (baked.positions[f].size() != character.mesh.vertex_count() ||
        baked.skinning[f].size() != character.rig.joint_count())
      fail(character.source, "helper bones: frame {} is not a bake of this character", f);
  }
}

BoneTransform bone_transform(const Mat4f& m) { return m.cast<double>().topRows<3>(); }

Eigen::Matrix4d full(const BoneTransform& m) {
  Eigen::Matrix4d out = Eigen::Matrix4d::Identity();
  out.topRows<3>() = m;
  return out;
}

DecompositionInput decomposition_input(const Character& character, const BakedFrames& baked, bool periodic) {
  DecompositionInput input;
  input.rest = character.mesh.positions;
  input.triangles = character.mesh.triangles;
  input.frames = baked.positions;
  for (const auto& pose : baked.skinning) {
    std::vector<BoneTransform>& frame = input.fixed.emplace_back();
    for (const Mat4f& m : pose) frame.push_back(bone_transform(m));
  }
  input.fixed_usable = character.rig.skinned;
  input.fixed_skin = &character.skin;
  input.periodic = periodic;
  return input;
}

// The skinned joint whose motion is closest to helper h's on the helper's own vertices (weighted
// by its weights), among the joints those vertices were skinned to.
int followed_joint(const Character& character, const DecompositionInput& input, const Decomposition& result,
                   std::size_t h) {
  const std::uint32_t bone = static_cast<std::uint32_t>(result.fixed_bones + h);
  std::vector<std::pair<std::size_t, double>> vertices;  // vertex, weight of h
  std::vector<bool> candidate(character.rig.joint_count(), false);
  for (std::size_t v = 0; v < input.rest.size(); ++v) {
    const auto bones = result.weights.joints_of(v);
    for (std::size_t k = 0; k < bones.size(); ++k) {
      if (bones[k] != bone) continue;
      vertices.emplace_back(v, result.weights.weights_of(v)[k]);
      for (std::uint32_t j : character.skin.joints_of(v)) candidate[j] = character.rig.skinned[j];
    }
  }
  int best = -1;
  double best_gap = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < candidate.size(); ++j) {
    if (!candidate[j]) continue;
    double gap = 0;
    for (std::size_t f = 0; f < input.frames.size(); ++f) {
      const BoneTransform difference = input.fixed[f][j] - result.transforms[f][h];
      for (const auto& [v, w] : vertices)
        gap += w * (difference * input.rest[v].cast<double>().homogeneous()).squaredNorm();
    }
    if (gap < best_gap) best_gap = gap, best = static_cast<int>(j);
  }
  if (best >= 0) return best;
  for (std::size_t j = 0; j < character.rig.joint_count(); ++j)  // a helper with no vertex: the first skinned joint
    if (character.rig.skinned[j]) return static_cast<int>(j);
  return 0;
}

Eigen::Matrix4d translation_to(const Vec3f& t) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  m.topRightCorner<3, 1>() = t.cast<double>();
  return m;
}

// The parent's world transform in frame f: its skinning matrix times its bind (S = W * IBM).
Eigen::Matrix4d parent_world(const Character& character, const BakedFrames& baked, std::size_t f, int parent) {
  return baked.skinning[f][parent].cast<double>() * character.rig.inverse_bind[parent].cast<double>().inverse();
}

// Helper h's channels: local = W_parent(f)^-1 * M_h(f) * B_h, B_h the translation to its centre.
void add_helper_channels(Clip& clip, const Character& character, const BakedFrames& baked, const Decomposition& result,
                         std::size_t h, int parent, std::uint32_t joint) {
  Channel translation{joint, ChannelPath::Translation, Interpolation::Linear, baked.times, {}};
  Channel rotation{joint, ChannelPath::Rotation, Interpolation::Linear, baked.times, {}};
  Channel scale{joint, ChannelPath::Scale, Interpolation::Linear, baked.times, {}};
  bool scaled = false;
  Quatf previous = Quatf::Identity();
  for (std::size_t f = 0; f < baked.times.size(); ++f) {
    const Eigen::Matrix4d local = parent_world(character, baked, f, parent).inverse() * full(result.transforms[f][h]) *
                                  translation_to(result.centres[h]);
    Transform trs = Transform::from_matrix(local.cast<float>());
    if (trs.rotation.dot(previous) < 0) trs.rotation.coeffs() = -trs.rotation.coeffs();
    previous = trs.rotation;
    scaled |= (trs.scale - Vec3f::Ones()).cwiseAbs().maxCoeff() > 1e-5f;
    translation.values.insert(translation.values.end(),
                              {trs.translation.x(), trs.translation.y(), trs.translation.z()});
    rotation.values.insert(rotation.values.end(),
                           {trs.rotation.x(), trs.rotation.y(), trs.rotation.z(), trs.rotation.w()});
    scale.values.insert(scale.values.end(), {trs.scale.x(), trs.scale.y(), trs.scale.z()});
  }
  clip.channels.push_back(std::move(translation));
  clip.channels.push_back(std::move(rotation));
  if (scaled) clip.channels.push_back(std::move(scale));
}

// RMS over frames and vertices of LBS with `skin` and per-frame skinning matrices against the bake.
double lbs_rmse(const Skin& skin, const Mesh& mesh, const BakedFrames& baked,
                const std::vector<std::vector<Eigen::Matrix4d>>& skinning, ThreadPool* pool) {
  std::vector<double> errors(baked.times.size(), 0.0);
  parallel_for(pool, baked.times.size(), 1, [&](std::size_t begin, std::size_t end) {
    for (std::size_t f = begin; f < end; ++f) {
      for (std::size_t v = 0; v < mesh.vertex_count(); ++v) {
        Eigen::Vector4d p = Eigen::Vector4d::Zero();
        const auto joints = skin.joints_of(v);
        const auto weights = skin.weights_of(v);
        for (std::size_t k = 0; k < joints.size(); ++k)
          p += static_cast<double>(weights[k]) *
               (skinning[f][joints[k]] * mesh.positions[v].cast<double>().homogeneous());
        errors[f] += (p.head<3>() - baked.positions[f][v].cast<double>()).squaredNorm();
      }
    }
  });
  double total = 0;
  for (double e : errors) total += e;
  return std::sqrt(total / static_cast<double>(baked.times.size() * mesh.vertex_count()));
}

// Every joint's skinning matrix per frame as the written character plays: the bake's for the
// character's joints, parent world * the helpers' written keys * their inverse bind for helpers.
std::vector<std::vector<Eigen::Matrix4d>> played_skinning(const Character& original, const Character& extended,
                                                          const BakedFrames& baked) {
  const Clip& clip = extended.clips.front();
  std::vector<std::vector<Eigen::Matrix4d>> skinning(baked.times.size());
  for (std::size_t f = 0; f < baked.times.size(); ++f) {
    for (const Mat4f& m : baked.skinning[f]) skinning[f].push_back(m.cast<double>());
    for (std::size_t j = original.rig.joint_count(); j < extended.rig.joint_count(); ++j) {
      Transform local = extended.rig.rest_local[j];
      for (const Channel& channel : clip.channels) {
        if (channel.joint != j) continue;
        float value[4];
        channel.sample(baked.times[f], value);
        if (channel.path == ChannelPath::Translation) local.translation = Vec3f(value[0], value[1], value[2]);
        if (channel.path == ChannelPath::Rotation)
          local.rotation = Quatf(value[3], value[0], value[1], value[2]).normalized();
        if (channel.path == ChannelPath::Scale) local.scale = Vec3f(value[0], value[1], value[2]);
      }
      const int parent = extended.rig.parents[j];
      skinning[f].push_back(parent_world(original, baked, f, parent) * local.matrix().cast<double>() *
                            extended.rig.inverse_bind[j].cast<double>());
    }
  }
  return skinning;
}

}  // namespace

HelperBones helper_bones(const Character& character, std::size_t clip, const BakedFrames& baked,
                         const DecompositionParameters& parameters, bool periodic, ThreadPool* pool,
                         const std::function<void(const DecompositionProgress&)>& progress) {
  check_bake(character, clip, baked);
  const DecompositionInput input = decomposition_input(character, baked, periodic);
  const Decomposition result = decompose(input, parameters, pool, progress);

  HelperBones out;
  out.helpers = result.free_bones;
  out.iterations = result.iterations;
  out.character = character;
  out.character.clips = {character.clips[clip]};
  const int digits = static_cast<int>(fmt::format("{}", result.free_bones - 1).size());
  for (std::size_t h = 0; h < result.free_bones; ++h) {
    const int parent = followed_joint(character, input, result, h);
    const Eigen::Matrix4d bind = translation_to(result.centres[h]);
    const Mat4f rest_local = (character.rig.inverse_bind[parent].cast<double>() * bind).cast<float>();
    const int joint =
        out.character.rig.add_joint(fmt::format("wobble_helper_{:0{}}", h, digits), parent,
                                    Transform::from_matrix(rest_local), bind.inverse().cast<float>(), true);
    add_helper_channels(out.character.clips.front(), character, baked, result, h, parent,
                        static_cast<std::uint32_t>(joint));
  }
  out.character.skin = result.weights;  // fixed bones are the joints, helper h is joint fixed + h

  std::vector<std::vector<Eigen::Matrix4d>> own(baked.times.size());
  for (std::size_t f = 0; f < baked.times.size(); ++f)
    for (const Mat4f& m : baked.skinning[f]) own[f].push_back(m.cast<double>());
  out.secondary_rms = lbs_rmse(character.skin, character.mesh, baked, own, pool);
  out.rmse =
      lbs_rmse(out.character.skin, character.mesh, baked, played_skinning(character, out.character, baked), pool);
  return out;
}

}  // namespace wobble
