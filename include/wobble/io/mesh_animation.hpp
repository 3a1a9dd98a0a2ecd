#pragma once
// Reading a mesh animation (what `wobble decompose` fits): positions per frame with their times,
// from a PC2 point cache, a folder of OBJ frames or a morph-target glTF bake.
#include <filesystem>

#include <wobble/offline/baked_frames.hpp>

namespace wobble {

// Chosen by what the path names:
//   .pc2      frames at (startFrame + k * sampleRate) / fps seconds (the header counts in frames);
//   a folder  its .obj files in name order (frame_0000.obj, ...), each read as read_obj reads
//             one file (so a rest OBJ and its frames number their vertices alike), at k / fps;
//   .glb/.gltf a morph-target bake (`wobble bake IN --clip C -o bake.glb`: a target per frame in
//             bind space, driven by a weights animation): a frame at each key of the weights
//             channel (its own times; fps is not used), the bind-space mesh morphed by the key's
//             weights and then skinned by the file's clip at the key's time, so in world space as
//             a glTF viewer shows it and as `wobble bake -o x.pc2` writes it; vertices in
//             read_gltf's order.
// Frames keep the file's vertex order. Throws Error naming the file for an empty animation, frames
// of different vertex counts, positions that are not finite, fps <= 0, or a glTF without one
// animated morphed mesh. `positions` is filled; `skinning` stays empty.
BakedFrames read_mesh_animation(const std::filesystem::path& path, double fps);

}  // namespace wobble
