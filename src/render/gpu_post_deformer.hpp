#pragma once
// The GPU path's post-deformers: Delta Mush (wobble mode) after the skin, and Direct Delta Mush
// instead of it, as chains of per-element kernels (render/gpu_kernel.hpp) that end in a
// positions and a normals table (vec4 per original vertex) which the renderer draws from.
#include <memory>
#include <span>
#include <vector>

#include <wobble/delta_mush.hpp>
#include <wobble/direct_delta_mush.hpp>
#include <wobble/math.hpp>
#include <wobble/mesh.hpp>

#include "render/gpu_kernel.hpp"

namespace wobble::render {

// What the renderer hands a post-deformer each frame.
struct GpuFrame {
  // The skinning tables of the vertex shader's path (shaders::kSkinningFunctions) and, per
  // original vertex, its ranges (uvec4) and rest position with bend weight (vec4).
  GLuint matrices = 0, skin = 0, pairs = 0, joints = 0, ranges = 0, rest = 0;
  bool dynamic = false;
  float inv_max_angle2 = 1;
  std::span<const Mat4f> skinning;     // per joint, bind space -> world
  Vec3f lbs_centroid = Vec3f::Zero();  // the centroid of the LBS positions (a precision centre)
};

// Area-weighted vertex normals of a triangle mesh from a positions table.
class GpuNormals {
 public:
  GpuNormals(KernelContext& context, std::size_t vertex_count, std::span<const Triangle> triangles);
  ~GpuNormals();
  void run(KernelContext& context, const FrameTable& positions, FrameTable& normals) const;

 private:
  Kernel kernel_;
  GLuint vertex_corners_ = 0, corner_vertices_ = 0;
};

class GpuPostDeformer {
 public:
  GpuPostDeformer(KernelContext& context, std::size_t vertex_count, std::span<const Triangle> triangles);
  virtual ~GpuPostDeformer() = default;
  // The frame's kernels: positions() and normals() hold the result afterwards.
  virtual void run(KernelContext& context, const GpuFrame& frame) = 0;
  const FrameTable& positions() const { return positions_; }
  const FrameTable& normals() const { return normals_; }

 protected:
  FrameTable positions_, normals_;
  GpuNormals normal_kernel_;
};

// Delta Mush on the skinned (and Dynamic Skinning) positions: skin, gather, sweeps, restore,
// scatter, normals.
class GpuDeltaMush final : public GpuPostDeformer {
 public:
  GpuDeltaMush(KernelContext& context, const DeltaMushOperator& mush, std::size_t vertex_count,
               std::span<const Triangle> triangles);
  ~GpuDeltaMush() override;
  void set_output(float scale, bool smooth_only) { scale_ = scale, smooth_only_ = smooth_only; }
  void run(KernelContext& context, const GpuFrame& frame) override;

 private:
  Kernel skin_, gather_, sweep_, restore_, scatter_;
  GLuint weld_ = 0, members_ = 0, rows_ = 0, corners_ = 0, welded_of_ = 0;
  FrameTable input_, smoothed_a_, smoothed_b_, restored_;
  int iterations_ = 0;
  float scale_ = 1;
  bool smooth_only_ = false;
};

// Direct Delta Mush (any variant) from the skinning matrices, then normals.
class GpuDirectDeltaMush final : public GpuPostDeformer {
 public:
  GpuDirectDeltaMush(KernelContext& context, const DirectDeltaMushTables& ddm, std::span<const Triangle> triangles);
  ~GpuDirectDeltaMush() override;
  void run(KernelContext& context, const GpuFrame& frame) override;

 private:
  Kernel kernel_;
  GLuint vertices_ = 0, slots_ = 0, quaternions_ = 0;
  DdmVariant variant_;
  std::size_t width_ = 0, joint_count_ = 0;
  std::vector<float> quaternion_table_;  // v3: per joint its rotation, per frame
};

}  // namespace wobble::render
