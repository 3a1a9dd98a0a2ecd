#pragma once
// The renderer's GLSL sources, written once for GLSL 3.30 core and GLSL ES 3.00 (the prelude
// and #defines are added by build_program).
namespace wobble::render::shaders {

// Mesh: CPU path (positions already deformed) or, with `#define GPU_SKINNING`, linear blend
// skinning plus the Dynamic Skinning offsets in the vertex shader.
extern const char* const kMeshVertex;
extern const char* const kMeshFragment;
// Lines and points with per-vertex colours (ground grid, skeleton overlay).
extern const char* const kLinesVertex;
extern const char* const kLinesFragment;

}  // namespace wobble::render::shaders
