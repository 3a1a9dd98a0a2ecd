#pragma once
// Reading and writing files. Every function throws wobble::Error with a one-line message that
// names the file and the problem. Writers never leave a half-written file behind.
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <wobble/offline/baked_frames.hpp>
#include <wobble/character.hpp>
#include <wobble/pose.hpp>

namespace wobble {

// Reads any supported file, chosen by extension: .gltf/.glb (tinygltf); .off, .obj (static
// meshes); .fbx, .dae, .x, .mesh.xml/.mesh (Ogre), .b3d, .md5mesh, .bvh and the rest through
// assimp. Repairs are recorded in Character::diagnostics and logged once each as warnings.
Character load_character(const std::filesystem::path& path);
// The path's extension in lower case, with its dot (".glb"; "" for none): what the readers and
// writers choose by.
std::string lowercase_extension(const std::filesystem::path& path);

Character read_gltf(const std::filesystem::path& path);
// In a child process: a crash, a hang (WOBBLE_IMPORT_SECONDS, default 300) or exhausted memory in
// assimp is an Error naming the file ("the assimp X importer failed (signal 11, ...)").
Character read_with_assimp(const std::filesystem::path& path);
Character read_off(const std::filesystem::path& path);
Character read_obj(const std::filesystem::path& path);

// Writes a character as glTF 2.0 (.gltf with embedded buffers, or .glb by extension).
// With `baked` the character's clip `clip_index` is written with the skeleton and the baked
// deformation as per-frame morph targets in bind space, driven by a weights animation, so that
// any glTF viewer plays it; without it the character and all its clips are written.
void write_gltf(const std::filesystem::path& path, const Character& character, const BakedFrames* baked = nullptr,
                std::size_t clip_index = 0);

// PC2 point cache: world-space positions per frame.
void write_pc2(const std::filesystem::path& path, const BakedFrames& baked, float frame_rate);
// Reads a PC2 back (for tests and tools): [frame][vertex].
std::vector<std::vector<Vec3f>> read_pc2(const std::filesystem::path& path);
// The same with the header's timing: sample k is at frame start_frame + k * sample_step.
struct PointCache {
  float start_frame = 0, sample_step = 1;
  std::vector<std::vector<Vec3f>> frames;
};
PointCache read_point_cache(const std::filesystem::path& path);

// One Wavefront OBJ (positions, uvs, normals if given, triangles).
void write_obj(const std::filesystem::path& path, const Mesh& mesh, std::span<const Vec3f> positions);
// A folder of OBJ files, frame_0000.obj ...; the folder is written whole or not at all.
void write_obj_sequence(const std::filesystem::path& folder, const Mesh& mesh, const BakedFrames& baked);

}  // namespace wobble
