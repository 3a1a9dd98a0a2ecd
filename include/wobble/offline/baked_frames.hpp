#pragma once
// A baked animation: frames of world-space positions and the pose of each frame (what bake()
// produces and the io library's writers take).
#include <vector>

#include <wobble/math.hpp>

namespace wobble {

struct BakedFrames {
  std::vector<float> times;                   // seconds
  std::vector<std::vector<Vec3f>> positions;  // [frame][vertex], world space
  std::vector<std::vector<Mat4f>> skinning;   // [frame][joint], the pose used for the frame
};

}  // namespace wobble
