#pragma once
// A skinning job (LbsJob, DqsJob) run as a deformer's frame: the rest mesh as input (read from the
// character the stack was bound to, not copied at bind), normals when the mesh has them, checked
// and run on the pool when the frame is worth splitting (the thread rule); and the deformers'
// common part, which binds by packing the character's skin.
#include <span>
#include <string>

#include <wobble/character.hpp>
#include <wobble/deformer.hpp>
#include <wobble/lbs.hpp>
#include <wobble/parallel.hpp>

#include "core/fail.hpp"
#include "deform/deformers.hpp"

namespace wobble::deform {

template <class Job>
void run_skinning_frame(Job& job, const FrameInput& frame, std::span<Vec3f> positions, std::span<Vec3f> normals,
                        const char* deformer, double nanoseconds_per_vertex) {
  const Mesh& rest = frame.character.mesh;
  job.in_positions = rest.positions;
  job.out_positions = positions;
  if (!normals.empty() && rest.normals.size() == positions.size()) {
    job.in_normals = rest.normals;
    job.out_normals = normals;
  }
  if (std::string problem = job.validate(); !problem.empty()) fail_plain("{}: {}", deformer, problem);
  job.run(pool_worth_using(frame.pool, positions.size(), nanoseconds_per_vertex));
}

// A deformer that skins with a job over the packed skin and has no settings (lbs, dqs).
class PackedSkinDeformer : public Deformer {
 public:
  void update(const DeformerSettings&) override {}
  void bind(const Character& character) override {
    require_skinned(character, name());
    skin_ = PackedSkin::from(character.skin);
  }

 protected:
  PackedSkin skin_;
};

}  // namespace wobble::deform
