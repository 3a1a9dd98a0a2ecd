// Mesh animations for `wobble decompose`: PC2 point caches, folders of OBJ frames and morph-target
// glTF bakes.
#include <wobble/io/mesh_animation.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <system_error>
#include <vector>

#include <wobble/io/files.hpp>
#include <wobble/lbs.hpp>
#include <wobble/pose.hpp>

#include "core/fail.hpp"
#include "gltf_morph_animation.hpp"

namespace wobble {
namespace {

namespace fs = std::filesystem;

BakedFrames from_point_cache(const fs::path& path, double fps) {
  PointCache cache = read_point_cache(path);
  if (!std::isfinite(cache.start_frame) || !std::isfinite(cache.sample_step) || !(cache.sample_step > 0))
    fail(path, "the header's start frame {} and sample step {} do not give increasing frame times", cache.start_frame,
         cache.sample_step);
  BakedFrames baked;
  for (std::size_t k = 0; k < cache.frames.size(); ++k)
    baked.times.push_back(static_cast<float>((cache.start_frame + static_cast<double>(k) * cache.sample_step) / fps));
  baked.positions = std::move(cache.frames);
  return baked;
}

// The folder's .obj files, by name.
std::vector<fs::path> obj_frames(const fs::path& folder) {
  std::vector<fs::path> files;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    if (lowercase_extension(it->path()) == ".obj" && it->is_regular_file(error)) files.push_back(it->path());
  }
  if (error) fail(folder, "cannot list the folder: {}", error.message());
  std::sort(files.begin(), files.end());
  return files;
}

BakedFrames from_obj_folder(const fs::path& folder, double fps) {
  BakedFrames baked;
  for (const fs::path& file : obj_frames(folder)) {
    Character frame = read_obj(file);
    if (!baked.positions.empty() && frame.mesh.vertex_count() != baked.positions.front().size())
      fail(file, "{} vertices, the folder's first frame has {}", frame.mesh.vertex_count(),
           baked.positions.front().size());
    baked.times.push_back(static_cast<float>(static_cast<double>(baked.positions.size()) / fps));
    baked.positions.push_back(std::move(frame.mesh.positions));
  }
  if (baked.positions.empty()) fail(folder, "no .obj files in the folder (a mesh animation's frames)");
  return baked;
}

// The bind-space mesh morphed by key k's weights.
void morph(const Mesh& mesh, const MorphTargetAnimation& morphs, std::size_t k, std::vector<Vec3f>& out) {
  out = mesh.positions;
  for (std::size_t t = 0; t < morphs.targets.size(); ++t) {
    const float weight = morphs.weights[k][t];
    if (weight == 0.0f) continue;
    for (std::size_t v = 0; v < out.size(); ++v) out[v] += weight * morphs.targets[t][v];
  }
}

// Frame k: the mesh morphed at key k, skinned by the file's clip at the key's time (as a glTF
// viewer plays it; a static mesh is in world space already).
BakedFrames from_gltf_bake(const fs::path& path) {
  MorphTargetAnimation morphs;
  const Character character = read_gltf_morph_animation(path, morphs);
  const bool skinned = character.is_skinned() && morphs.clip.has_value();
  const PackedSkin skin = skinned ? PackedSkin::from(character.skin) : PackedSkin{};
  BakedFrames baked;
  baked.times = morphs.times;
  std::vector<Vec3f> bind;
  Pose pose;
  for (std::size_t k = 0; k < morphs.times.size(); ++k) {
    morph(character.mesh, morphs, k, bind);
    if (!skinned) {
      baked.positions.push_back(bind);
      continue;
    }
    evaluate_pose(character.rig, &character.clips[*morphs.clip], morphs.times[k], pose);
    std::vector<Vec3f>& world = baked.positions.emplace_back(bind.size());
    const LbsJob job{pose.skinning, &skin, bind, {}, world, {}};
    if (const std::string problem = job.validate(); !problem.empty())
      fail(path, "cannot skin frame {}: {}", k, problem);
    job.run();
  }
  return baked;
}

}  // namespace

BakedFrames read_mesh_animation(const fs::path& path, double fps) {
  if (!std::isfinite(fps) || !(fps > 0))
    fail(path, "the frame rate must be a positive number of frames per second, got {}", fps);
  std::error_code error;
  BakedFrames baked;
  if (fs::is_directory(path, error)) {
    baked = from_obj_folder(path, fps);
  } else if (lowercase_extension(path) == ".pc2") {
    baked = from_point_cache(path, fps);
  } else if (lowercase_extension(path) == ".glb" || lowercase_extension(path) == ".gltf") {
    baked = from_gltf_bake(path);
  } else {
    fail(path,
         "unknown mesh animation '{}' (use a .pc2 point cache, a folder of .obj frames or a morph-target "
         ".glb/.gltf bake)",
         path.extension().string());
  }
  if (baked.positions.empty()) fail(path, "the animation has no frames");
  for (std::size_t f = 0; f < baked.positions.size(); ++f)
    for (std::size_t v = 0; v < baked.positions[f].size(); ++v)
      if (!baked.positions[f][v].allFinite()) fail(path, "frame {} vertex {} is not finite", f, v);
  return baked;
}

}  // namespace wobble
