#pragma once
// DESKTOP ONLY (src/render/video_writer.cpp): MP4 (H.264) or GIF through Debian's ffmpeg, fed
// raw RGBA frames through a pipe. Written to a temporary sibling and renamed on finish(), so a
// failed ffmpeg leaves no output.
#include <filesystem>
#include <memory>

#include <wobble/io/image.hpp>

namespace wobble::render {

class VideoWriter {
 public:
  // Format from the extension (.mp4 or .gif). Throws Error if ffmpeg is not on PATH.
  VideoWriter(const std::filesystem::path& target, int width, int height, double fps);
  ~VideoWriter();  // without finish(): stops ffmpeg and removes the temporary
  VideoWriter(const VideoWriter&) = delete;
  VideoWriter& operator=(const VideoWriter&) = delete;
  void add_frame(const RgbaImage& frame);
  // Waits for ffmpeg; throws Error naming the file if it failed; renames into place.
  void finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The ffmpeg program found on PATH, or empty.
std::filesystem::path find_ffmpeg();

}  // namespace wobble::render
