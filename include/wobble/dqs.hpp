#pragma once
// Dual-quaternion skinning (Kavan et al. 2007): blend the joints' rigid transforms as dual
// quaternions (signs aligned with the vertex's first influence), normalise, apply. Joints whose
// skinning matrix also scales or shears are split as M = [R | t] * S (polar decomposition); the
// stretches S are blended linearly per vertex and applied before the rigid part.
#include <span>
#include <string>
#include <vector>

#include <wobble/math.hpp>
#include <wobble/skin.hpp>

namespace wobble {

class ThreadPool;

struct DualQuaternion {
  Quatf real = Quatf::Identity();
  Quatf dual = Quatf(0, 0, 0, 0);
  static DualQuaternion from_rigid(const Quatf& rotation, const Vec3f& translation);
};

// Per-joint transforms for DQS, derived from skinning matrices once per frame.
struct DqsJoints {
  std::vector<DualQuaternion> rigid;
  std::vector<Mat3f> stretch;  // empty when every joint is rigid (the common, fast case)
  void set(std::span<const Mat4f> skinning_matrices);
};

struct DqsJob {
  const DqsJoints* joints = nullptr;
  const PackedSkin* skin = nullptr;
  std::span<const Vec3f> in_positions;
  std::span<const Vec3f> in_normals;  // may be empty
  std::span<Vec3f> out_positions;
  std::span<Vec3f> out_normals;  // empty iff in_normals is empty

  std::string validate() const;
  void run(std::size_t begin, std::size_t end) const;
  void run(ThreadPool* pool = nullptr) const;
};

}  // namespace wobble
