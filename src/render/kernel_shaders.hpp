#pragma once
// GLSL of the GPU path's post-deformer kernels (render/gpu_kernel.hpp: each defines
// `vec4 kernel(int i)`), written once for compute shaders, GLSL 3.30 and GLSL ES 3.00.
namespace wobble::render::shaders {

// Per original vertex: linear blend skinning plus the Dynamic Skinning offsets, the input of
// Delta Mush (put kSkinningMatrices and kSkinningFunctions before it).
extern const char* const kSkinKernel;
// Delta Mush (DeltaMushOperator's steps): per welded vertex, the members' mean relative to the
// frame's centre; one smoothing sweep; the details restored in the corner frames. Per original
// vertex: the welded result scattered back with the scale.
extern const char* const kMushGatherKernel;
extern const char* const kMushSweepKernel;
extern const char* const kMushRestoreKernel;
extern const char* const kMushScatterKernel;
// Per original vertex: the area-weighted normal of its triangles.
extern const char* const kNormalsKernel;
// Per original vertex: Direct Delta Mush, variant chosen by `#define DDM_VARIANT 0..3`, with
// kSkinningMatrices and kRotationFunctions before it.
extern const char* const kDirectDeltaMushKernel;
// rotation_of(quaternion), nearest_rotation(m): the rotation (det +1) nearest to m, by the
// scaled Newton polar iteration of the CPU (nearest_rotation() in direct_delta_mush.cpp), and
// for matrices it cannot fit (singular, reflecting) by Horn's quaternion eigenvector.
extern const char* const kRotationFunctions;

}  // namespace wobble::render::shaders
