// RGBA images: composition, lines, labels (stb_easy_font), PNG encoding (stb_image_write) and
// texture decoding (stb_image). On the desktop the stb implementations come from Debian's libstb;
// under Emscripten this file compiles them itself.
#include <wobble/io/image.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#ifdef __EMSCRIPTEN__
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#endif
// stb_easy_font is a header of static functions, not all of which this file uses.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop
#include <stb_image.h>
#include <stb_image_write.h>

#include <wobble/io/output_file.hpp>
#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble {

RgbaImage::RgbaImage(int w, int h, std::uint32_t rgba) : width(w), height(h) {
  pixels.resize(static_cast<std::size_t>(w) * h * 4);
  const std::uint8_t c[4] = {static_cast<std::uint8_t>(rgba >> 24), static_cast<std::uint8_t>(rgba >> 16),
                             static_cast<std::uint8_t>(rgba >> 8), static_cast<std::uint8_t>(rgba)};
  for (std::size_t i = 0; i < pixels.size(); i += 4) std::memcpy(pixels.data() + i, c, 4);
}

void RgbaImage::blit(const RgbaImage& source, int x, int y) {
  const int x0 = std::max(0, x), x1 = std::min(width, x + source.width);
  if (x0 >= x1) return;
  for (int row = std::max(0, y); row < std::min(height, y + source.height); ++row) {
    std::memcpy(at(x0, row), source.at(x0 - x, row - y), 4 * static_cast<std::size_t>(x1 - x0));
  }
}

void RgbaImage::fill_rect(int x, int y, int w, int h, const Vec4f& color) {
  const float a = std::clamp(color.w(), 0.0f, 1.0f);
  for (int row = std::max(0, y); row < std::min(height, y + h); ++row) {
    for (int col = std::max(0, x); col < std::min(width, x + w); ++col) {
      std::uint8_t* p = at(col, row);
      for (int c = 0; c < 3; ++c) {
        const float value = std::clamp(color[c], 0.0f, 1.0f) * 255.0f;
        p[c] = static_cast<std::uint8_t>(std::lround(p[c] * (1 - a) + value * a));
      }
    }
  }
}

Vec2f RgbaImage::label_size(std::string_view text, int scale) {
  std::string copy(text);
  return Vec2f(static_cast<float>(stb_easy_font_width(copy.data()) * scale),
               static_cast<float>(stb_easy_font_height(copy.data()) * scale));
}

void RgbaImage::draw_line(double x0, double y0, double x1, double y1, const Vec4f& color) {
  const int steps = static_cast<int>(std::ceil(std::max(std::abs(x1 - x0), std::abs(y1 - y0)))) + 1;
  for (int k = 0; k <= steps; ++k) {
    const double t = static_cast<double>(k) / steps;
    fill_rect(static_cast<int>(std::lround(x0 + t * (x1 - x0))), static_cast<int>(std::lround(y0 + t * (y1 - y0))), 1,
              1, color);
  }
}

void RgbaImage::draw_text(std::string_view text, int x, int y, int scale, const Vec4f& color) {
  std::string copy(text);
  // stb_easy_font emits axis-aligned quads (4 vertices of 16 bytes each: x, y, z, colour).
  std::vector<char> buffer(copy.size() * 270 + 1024);
  const int quads = stb_easy_font_print(0, 0, copy.data(), nullptr, buffer.data(), static_cast<int>(buffer.size()));
  for (int q = 0; q < quads; ++q) {
    const float* v = reinterpret_cast<const float*>(buffer.data() + q * 64);
    const float left = v[0], top = v[1], right = v[8], bottom = v[9];  // vertices 0 and 2
    fill_rect(x + static_cast<int>(left * scale), y + static_cast<int>(top * scale),
              static_cast<int>((right - left) * scale), static_cast<int>((bottom - top) * scale), color);
  }
}

void RgbaImage::draw_label(std::string_view text, int x, int y, int scale, const Vec4f& color) {
  const Vec2f size = label_size(text, scale);
  const int pad = 2 * scale;
  fill_rect(x - pad, y - pad, static_cast<int>(size.x()) + 2 * pad, static_cast<int>(size.y()) + 2 * pad,
            Vec4f(0, 0, 0, 0.55f));
  draw_text(text, x, y, scale, color);
}

std::vector<std::uint8_t> encode_png(const RgbaImage& image) {
  std::vector<std::uint8_t> bytes;
  auto sink = [](void* context, void* data, int size) {
    auto* out = static_cast<std::vector<std::uint8_t>*>(context);
    out->insert(out->end(), static_cast<std::uint8_t*>(data), static_cast<std::uint8_t*>(data) + size);
  };
  if (!stbi_write_png_to_func(sink, &bytes, image.width, image.height, 4, image.pixels.data(), image.width * 4)) {
    fail_plain("PNG encoding failed ({}x{})", image.width, image.height);
  }
  return bytes;
}

void write_png(const std::filesystem::path& path, const RgbaImage& image) {
  const std::vector<std::uint8_t> bytes = encode_png(image);
  write_output(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

RgbaImage decode_image(const std::vector<std::uint8_t>& encoded, std::string_view what) {
  int w = 0, h = 0, channels = 0;
  stbi_uc* data = stbi_load_from_memory(encoded.data(), static_cast<int>(encoded.size()), &w, &h, &channels, 4);
  if (!data) fail_plain("{}: cannot decode the image ({})", what, stbi_failure_reason());
  RgbaImage image;
  image.width = w;
  image.height = h;
  image.pixels.assign(data, data + static_cast<std::size_t>(w) * h * 4);
  stbi_image_free(data);
  return image;
}

RgbaImage side_by_side(const std::vector<RgbaImage>& panels) {
  if (panels.empty()) return {};
  return grid(panels, static_cast<int>(panels.size()));
}

RgbaImage grid(const std::vector<RgbaImage>& cells, int columns) {
  if (cells.empty() || columns <= 0) return {};
  const int w = cells.front().width, h = cells.front().height;
  const int rows = (static_cast<int>(cells.size()) + columns - 1) / columns;
  RgbaImage result(w * std::min<int>(columns, static_cast<int>(cells.size())), h * rows, 0x000000ff);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    result.blit(cells[i], static_cast<int>(i % columns) * w, static_cast<int>(i / columns) * h);
  }
  return result;
}

}  // namespace wobble
