#pragma once
// Linear blend skinning as a runtime job: p' = sum_j w_j M_j p, n' = sum_j w_j M_j n (the
// blended matrix's linear part; normals are renormalised only when asked). run() never allocates.
#include <span>
#include <string>

#include <wobble/math.hpp>
#include <wobble/skin.hpp>

namespace wobble {

class ThreadPool;

struct LbsJob {
  std::span<const Mat4f> skinning_matrices;  // per joint: bind space -> world
  const PackedSkin* skin = nullptr;
  std::span<const Vec3f> in_positions;
  std::span<const Vec3f> in_normals;  // may be empty
  std::span<Vec3f> out_positions;
  std::span<Vec3f> out_normals;  // empty iff in_normals is empty
  bool normalize_normals = true;

  // Empty string if the job can run; otherwise what is wrong.
  std::string validate() const;
  // Processes vertices [begin, end) with the SIMD layer's best instruction set for this processor.
  void run(std::size_t begin, std::size_t end) const;
  // All vertices, on the pool's threads when given (identical results for any thread count).
  void run(ThreadPool* pool = nullptr) const;
};

}  // namespace wobble
