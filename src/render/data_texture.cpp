#include "render/data_texture.hpp"

#include <algorithm>
#include <vector>

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble::render {

namespace {

template <typename T>
void upload(GLuint& texture, const T* data, std::size_t texels, int channels, GLint internal, GLenum format,
            GLenum type) {
  const std::size_t rows = data_texture_rows(texels);
  // Padded to whole rows so that one upload fills the texture.
  std::vector<T> padded(rows * kDataTextureWidth * channels, T(0));
  if (data) std::copy(data, data + texels * channels, padded.begin());
  if (texture == 0) glGenTextures(1, &texture);
  glBindTexture(GL_TEXTURE_2D, texture);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexImage2D(GL_TEXTURE_2D, 0, internal, kDataTextureWidth, static_cast<GLsizei>(rows), 0, format, type,
               padded.data());
}

}  // namespace

std::size_t data_texture_rows(std::size_t texels) {
  const std::size_t rows = std::max<std::size_t>(1, (texels + kDataTextureWidth - 1) / kDataTextureWidth);
  GLint max_size = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
  if (rows > static_cast<std::size_t>(max_size)) {
    fail_plain("OpenGL: a data table of {} entries needs {} texture rows, this GPU allows {}", texels, rows, max_size);
  }
  return rows;
}

void upload_data_texture(GLuint& texture, const float* data, std::size_t texels, int channels) {
  upload(texture, data, texels, channels, channels == 4 ? GL_RGBA32F : GL_RG32F, channels == 4 ? GL_RGBA : GL_RG,
         GL_FLOAT);
}

void upload_data_texture(GLuint& texture, const std::uint32_t* data, std::size_t texels, int channels) {
  const GLint internal = channels == 4 ? GL_RGBA32UI : channels == 2 ? GL_RG32UI : GL_R32UI;
  const GLenum format = channels == 4 ? GL_RGBA_INTEGER : channels == 2 ? GL_RG_INTEGER : GL_RED_INTEGER;
  upload(texture, data, texels, channels, internal, format, GL_UNSIGNED_INT);
}

}  // namespace wobble::render
