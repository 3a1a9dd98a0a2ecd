#pragma once
// Where `wobble render` puts its frames, chosen by OUT: one PNG, a contact sheet (PNG with
// --sheet), a PNG sequence (a folder ending in /), or a video (.mp4, .gif). Everything is
// written atomically: nothing appears at OUT unless the whole output succeeded.
#include <filesystem>
#include <memory>
#include <string>

#include <wobble/io/image.hpp>

namespace wobble::cli {

class FrameSink {
 public:
  virtual ~FrameSink() = default;
  virtual void add(const RgbaImage& frame, double time) = 0;
  virtual void finish() = 0;
};

// Throws Error naming OUT for an unknown type, a single PNG asked for several frames, or a
// video without ffmpeg.
std::unique_ptr<FrameSink> make_frame_sink(const std::string& out, bool sheet, std::size_t frame_count, int width,
                                           int height, double fps);

}  // namespace wobble::cli
