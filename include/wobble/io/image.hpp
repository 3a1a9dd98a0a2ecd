#pragma once
// RGBA8 images: composition of panels, text labels, lines, PNG files. The one image type of the
// project: the renderer reads frames into it, and the neural plots and field pictures draw on it.
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include <wobble/math.hpp>

namespace wobble {

struct RgbaImage {
  int width = 0, height = 0;
  std::vector<std::uint8_t> pixels;  // row-major, top row first, 4 bytes per pixel

  RgbaImage() = default;
  RgbaImage(int w, int h, std::uint32_t rgba = 0x000000ff);
  std::uint8_t* at(int x, int y) { return pixels.data() + 4 * (static_cast<std::size_t>(y) * width + x); }
  const std::uint8_t* at(int x, int y) const { return pixels.data() + 4 * (static_cast<std::size_t>(y) * width + x); }
  // Copies `source` with its top-left corner at (x, y), clipped to this image.
  void blit(const RgbaImage& source, int x, int y);
  // A filled rectangle, alpha-blended.
  void fill_rect(int x, int y, int w, int h, const Vec4f& color);
  // A line from (x0, y0) to (x1, y1), one pixel wide, clipped to the image.
  void draw_line(double x0, double y0, double x1, double y1, const Vec4f& color);
  // Text with stb_easy_font (ASCII), top-left at (x, y), each font pixel `scale` pixels.
  void draw_text(std::string_view text, int x, int y, int scale = 1, const Vec4f& color = Vec4f(0, 0, 0, 1));
  // draw_text on a translucent dark box, so that it stays readable on any background.
  void draw_label(std::string_view text, int x, int y, int scale = 2, const Vec4f& color = Vec4f(1, 1, 1, 1));
  // Width and height in pixels that draw_label's text takes (box excluded).
  static Vec2f label_size(std::string_view text, int scale);
};

// Writes a PNG atomically (temporary file, then rename); throws Error naming the file.
void write_png(const std::filesystem::path& path, const RgbaImage& image);
// Encodes a PNG in memory.
std::vector<std::uint8_t> encode_png(const RgbaImage& image);
// Decodes PNG or JPEG bytes to RGBA; throws Error naming `what` if they cannot be decoded.
RgbaImage decode_image(const std::vector<std::uint8_t>& encoded, std::string_view what);

// Panels side by side (left to right), all with the first one's height.
RgbaImage side_by_side(const std::vector<RgbaImage>& panels);
// A grid of `columns` columns (contact sheet), row by row.
RgbaImage grid(const std::vector<RgbaImage>& cells, int columns);

}  // namespace wobble
