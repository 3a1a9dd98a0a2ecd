#pragma once
// USD output: a baked animation as a USD stage in the text form (usda 1.0, as the OpenUSD
// documentation specifies it), readable by Blender, Houdini, Maya, Unreal and Omniverse.
//
// The stage holds one Xform named after the character and one Mesh under it (UsdGeomMesh):
// triangles (faceVertexCounts, faceVertexIndices), time-sampled points (world space, the
// vertices in the same order as PC2 writes them), extent and normals, and the UVs as the
// vertex primvar `st`. Time code k is frame time t_k * fps, timeCodesPerSecond and
// framesPerSecond are the frame rate, startTimeCode and endTimeCode the first and last frame;
// upAxis "Y" and metersPerUnit 1 (wobble's world space is glTF's: Y up, metres).
#include <filesystem>
#include <string>

#include <wobble/character.hpp>
#include <wobble/io.hpp>

namespace wobble {

// Writes `baked` (frames of the character's mesh) to `path` atomically (a failure leaves no
// file). `description` goes into the stage's doc string (the stack and clip, say). Throws Error
// naming the file for non-finite positions, a vertex count that is not the mesh's, frame times
// that do not increase, or a frame rate that is not a positive number.
void write_usda(const std::filesystem::path& path, const Character& character, const BakedFrames& baked,
                double frame_rate, const std::string& description = {});

}  // namespace wobble
