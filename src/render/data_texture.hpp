#pragma once
// Float data in 2D textures (WebGL 2 has no storage buffers): element i of a table lives at
// texel (i % kDataTextureWidth, i / kDataTextureWidth), read in shaders with texelFetch.
#include <cstddef>

#include "render/gl.hpp"

namespace wobble::render {

inline constexpr int kDataTextureWidth = 2048;  // GLES 3.0's minimum guaranteed texture size

// (Re)uploads `texels` texels of `channels` floats (2: RG32F, 4: RGBA32F) into `texture`
// (created when 0), nearest filtering. Throws Error if the table exceeds the maximum size.
void upload_data_texture(GLuint& texture, const float* data, std::size_t texels, int channels);

}  // namespace wobble::render
