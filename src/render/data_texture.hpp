#pragma once
// Data in 2D textures (WebGL 2 has no storage buffers): element i of a table lives at texel
// (i % kDataTextureWidth, i / kDataTextureWidth), read in shaders with texelFetch.
#include <cstddef>
#include <cstdint>

#include "render/gl.hpp"

namespace wobble::render {

inline constexpr int kDataTextureWidth = 2048;  // GLES 3.0's minimum guaranteed texture size

// Texture rows for `texels` texels (at least one); throws Error if the GPU allows fewer.
std::size_t data_texture_rows(std::size_t texels);

// (Re)uploads `texels` texels of `channels` floats (2: RG32F, 4: RGBA32F) into `texture`
// (created when 0), nearest filtering. Throws Error if the table exceeds the maximum size.
void upload_data_texture(GLuint& texture, const float* data, std::size_t texels, int channels);
// The same for unsigned integers (1: R32UI, 2: RG32UI, 4: RGBA32UI), read with a usampler2D.
void upload_data_texture(GLuint& texture, const std::uint32_t* data, std::size_t texels, int channels);

}  // namespace wobble::render
