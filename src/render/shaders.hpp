#pragma once
// The renderer's GLSL sources, written once for GLSL 3.30 core and GLSL ES 3.00 (the prelude
// and #defines are added by build_program).
#include <string>

namespace wobble::render::shaders {

// Mesh: CPU path (positions already deformed, or computed by the post-deformer kernels) or, with
// `#define GPU_SKINNING` and the skinning functions before it (skinned_mesh_vertex()), linear
// blend skinning plus the Dynamic Skinning offsets in the vertex shader.
extern const char* const kMeshVertex;
// GLSL: the skinning matrices (u_matrices) and skinning_matrix(joint); needs kTableAccess
// (render/gpu_kernel.hpp) before it.
extern const char* const kSkinningMatrices;
// GLSL: the other skinning tables (u_skin, u_pairs, u_joints), blended_matrix(ranges) and
// dynamic_offset(p, ranges, gamma); needs kSkinningMatrices before it.
extern const char* const kSkinningFunctions;
std::string skinned_mesh_vertex();
extern const char* const kMeshFragment;
// Lines and points with per-vertex colours (ground grid, skeleton overlay).
extern const char* const kLinesVertex;
extern const char* const kLinesFragment;

}  // namespace wobble::render::shaders
