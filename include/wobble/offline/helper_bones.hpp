#pragma once
// Helper bones: a character's secondary motion (a bake of its deformer stack) carried by a few
// extra joints that any engine plays with plain linear blend skinning.
//
// The character's joints are the decomposition's fixed bones (their skinning matrices per frame,
// as the bake posed them); N rigid helper bones are found for what those cannot reproduce, and
// the skin is refitted over both (at most K influences a vertex). Each helper becomes a child of
// the character joint it follows best, animated per baked frame next to the clip's own channels.
#include <cstddef>
#include <functional>

#include <wobble/offline/baked_frames.hpp>
#include <wobble/character.hpp>
#include <wobble/offline/skinning_decomposition.hpp>

namespace wobble {

class ThreadPool;

struct HelperBones {
  // The character with the helpers added after its own joints, the refitted skin, and one clip:
  // the baked clip with a translation and rotation channel (and scale where a parent scales) per
  // helper, keyed at the baked frames' times. No morph targets.
  Character character;
  std::size_t helpers = 0;
  std::size_t iterations = 0;
  // Against the stack's frames, RMS over frames and vertices (scene units): plain LBS of the
  // extended skeleton as an engine plays it, and the character's own skinning alone (the
  // secondary motion the helpers are to carry).
  double rmse = 0;
  double secondary_rms = 0;
};

// `baked` is bake() of `character`'s clip `clip` (its positions and its poses' skinning matrices);
// `parameters.bones` helpers. `periodic`: the frames are one loop, both ends, and the helpers' last
// frame is their first. Throws Error for a bake of another character or clip, or bad parameters.
HelperBones helper_bones(const Character& character, std::size_t clip, const BakedFrames& baked,
                         const DecompositionParameters& parameters, bool periodic, ThreadPool* pool,
                         const std::function<void(const DecompositionProgress&)>& progress = {});

}  // namespace wobble
