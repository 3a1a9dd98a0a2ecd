#pragma once
// One headless OpenGL context for the whole render test binary (EGL on Mesa llvmpipe), and
// small picture helpers.
#include <gtest/gtest.h>

#include <wobble/io/image.hpp>
#include <wobble/render/headless_context.hpp>

namespace wobble::test {

// Makes the context on first use and keeps it current for the rest of the process.
inline void require_gl() {
  static std::unique_ptr<render::HeadlessContext> context = std::make_unique<render::HeadlessContext>();
}

// Pixels whose colour differs from `reference` by more than `tolerance` in any channel.
inline std::size_t differing_pixels(const RgbaImage& a, const RgbaImage& b, int tolerance = 24) {
  std::size_t count = 0;
  for (std::size_t i = 0; i + 3 < a.pixels.size() && i + 3 < b.pixels.size(); i += 4) {
    for (int c = 0; c < 3; ++c) {
      if (std::abs(int(a.pixels[i + c]) - int(b.pixels[i + c])) > tolerance) {
        ++count;
        break;
      }
    }
  }
  return count;
}

// Pixels that differ from the colour of the top-left pixel (the background there).
inline std::size_t non_background_pixels(const RgbaImage& image, int tolerance = 24) {
  RgbaImage flat(image.width, image.height);
  for (std::size_t i = 0; i < flat.pixels.size(); i += 4)
    std::copy(image.pixels.begin(), image.pixels.begin() + 4, flat.pixels.begin() + i);
  return differing_pixels(image, flat, tolerance);
}

}  // namespace wobble::test
