#pragma once
// Reading a mesh animation (what `wobble decompose` fits): positions per frame with their times,
// from a PC2 point cache or a folder of OBJ frames.
#include <filesystem>

#include <wobble/baked_frames.hpp>

namespace wobble {

// Chosen by what the path names:
//   .pc2      frames at (startFrame + k * sampleRate) / fps seconds (the header counts in frames);
//   a folder  its .obj files in name order (frame_0000.obj, ...), each read as read_obj reads
//             one file (so a rest OBJ and its frames number their vertices alike), at k / fps.
// Frames keep the file's vertex order. Throws Error naming the file for an empty animation, frames
// of different vertex counts, positions that are not finite, or fps <= 0. `positions` is filled;
// `skinning` stays empty.
BakedFrames read_mesh_animation(const std::filesystem::path& path, double fps);

}  // namespace wobble
