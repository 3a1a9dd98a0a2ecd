#include "render/frame_sink.hpp"

#include <cmath>

#include <fmt/core.h>

#include <wobble/io/atomic_file.hpp>
#include <wobble/error.hpp>
#include <wobble/render/video_writer.hpp>

#include "core/fail.hpp"

namespace wobble::cli {

namespace {

class PngSink final : public FrameSink {
 public:
  explicit PngSink(std::filesystem::path out) : out_(std::move(out)) {}
  void add(const RgbaImage& frame, double) override { frame_ = frame; }
  void finish() override { write_png(out_, frame_); }

 private:
  std::filesystem::path out_;
  RgbaImage frame_;
};

class SheetSink final : public FrameSink {
 public:
  SheetSink(std::filesystem::path out, std::size_t count) : out_(std::move(out)) {
    columns_ = std::max(1, static_cast<int>(std::ceil(std::sqrt(static_cast<double>(count)))));
  }
  void add(const RgbaImage& frame, double time) override {
    cells_.push_back(frame);
    const int scale = std::max(1, frame.height / 180);
    const std::string text = fmt::format("t = {:.2f} s", time);
    const int h = static_cast<int>(RgbaImage::label_size(text, scale).y());
    cells_.back().draw_label(text, 4 * scale, frame.height - h - 4 * scale, scale);
  }
  void finish() override { write_png(out_, grid(cells_, columns_)); }

 private:
  std::filesystem::path out_;
  int columns_ = 1;
  std::vector<RgbaImage> cells_;
};

class SequenceSink final : public FrameSink {
 public:
  explicit SequenceSink(const std::filesystem::path& folder) : output_(folder, true) {}
  void add(const RgbaImage& frame, double) override {
    write_png(output_.temporary() / fmt::format("frame_{:04}.png", index_++), frame);
  }
  void finish() override { output_.commit(); }

 private:
  AtomicOutput output_;
  std::size_t index_ = 0;
};

class VideoSink final : public FrameSink {
 public:
  VideoSink(const std::filesystem::path& out, int width, int height, double fps) : writer_(out, width, height, fps) {}
  void add(const RgbaImage& frame, double) override { writer_.add_frame(frame); }
  void finish() override { writer_.finish(); }

 private:
  render::VideoWriter writer_;
};

}  // namespace

std::unique_ptr<FrameSink> make_frame_sink(const std::string& out, bool sheet, std::size_t frame_count, int width,
                                           int height, double fps) {
  if (!out.empty() && out.back() == '/') {
    if (sheet) fail(out, "--sheet writes one PNG, not a folder");
    std::string folder = out;
    while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
    return std::make_unique<SequenceSink>(folder);
  }
  std::string extension = std::filesystem::path(out).extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension == ".png") {
    if (sheet) return std::make_unique<SheetSink>(out, frame_count);
    if (frame_count != 1) {
      fail(out, "a PNG holds one frame, the range has {} (use --sheet, --end equal to --start, a folder/ or .mp4)",
           frame_count);
    }
    // Checks the folder now rather than after rendering.
    AtomicOutput probe(out);
    return std::make_unique<PngSink>(out);
  }
  if (sheet) fail(out, "--sheet writes a .png file");
  if (extension == ".mp4" || extension == ".gif") return std::make_unique<VideoSink>(out, width, height, fps);
  fail(out, "unknown output type '{}' (use .png, .mp4, .gif, or a folder ending in / for PNG files)", extension);
}

}  // namespace wobble::cli
