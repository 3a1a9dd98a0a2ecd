#include "assimp_materials.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <unordered_map>

#include <assimp/material.h>
#include <assimp/scene.h>

#include <fmt/format.h>

#include "image_mime_type.hpp"

namespace wobble {
namespace {

namespace fs = std::filesystem;

}  // namespace

void read_materials(const fs::path& path, const aiScene* scene, Mesh& mesh, Diagnostics& diagnostics) {
  std::unordered_map<std::string, int> image_of;  // texture reference -> index in mesh.images
  for (unsigned i = 0; i < scene->mNumMaterials; ++i) {
    const aiMaterial* source = scene->mMaterials[i];
    Material material;
    aiString name;
    if (source->Get(AI_MATKEY_NAME, name) == AI_SUCCESS) material.name = name.C_Str();
    aiColor4D color;
    if (source->Get(AI_MATKEY_BASE_COLOR, color) == AI_SUCCESS ||
        source->Get(AI_MATKEY_COLOR_DIFFUSE, color) == AI_SUCCESS) {
      const Vec4f c(color.r, color.g, color.b, color.a);
      if (c.allFinite()) material.base_color = c.cwiseMax(0.0f).cwiseMin(1.0f);
    }
    float opacity = 1.0f;
    if (source->Get(AI_MATKEY_OPACITY, opacity) == AI_SUCCESS && std::isfinite(opacity) && opacity < 1.0f)
      material.base_color.w() = std::clamp(opacity, 0.0f, 1.0f);
    int two_sided = 0;
    if (source->Get(AI_MATKEY_TWOSIDED, two_sided) == AI_SUCCESS) material.double_sided = two_sided != 0;

    aiString texture;
    if (source->GetTexture(aiTextureType_BASE_COLOR, 0, &texture) == AI_SUCCESS ||
        source->GetTexture(aiTextureType_DIFFUSE, 0, &texture) == AI_SUCCESS) {
      const std::string reference = texture.C_Str();
      if (auto it = image_of.find(reference); it != image_of.end()) {
        material.base_color_image = it->second;
      } else if (const aiTexture* embedded = scene->GetEmbeddedTexture(reference.c_str())) {
        const std::string mime = image_mime_type_of_extension(embedded->achFormatHint);
        if (embedded->mHeight == 0 && !mime.empty() && embedded->pcData) {
          Image image;
          image.name = embedded->mFilename.length ? embedded->mFilename.C_Str() : reference;
          image.mime_type = mime;
          const auto* bytes = reinterpret_cast<const std::uint8_t*>(embedded->pcData);
          image.encoded.assign(bytes, bytes + embedded->mWidth);
          material.base_color_image = image_of[reference] = static_cast<int>(mesh.images.size());
          mesh.images.push_back(std::move(image));
        } else {
          diagnostics.repair("texture_skipped", fmt::format("embedded texture {} is not PNG/JPEG: skipped", reference));
        }
      } else if (!reference.empty()) {
        std::string relative = reference;
        std::replace(relative.begin(), relative.end(), '\\', '/');
        const fs::path file = path.parent_path() / relative;
        std::error_code ec;
        const std::string mime = image_mime_type_of_extension(file.extension().string());
        if (!mime.empty() && fs::is_regular_file(file, ec)) {
          std::ifstream in(file, std::ios::binary);
          Image image;
          image.name = file.filename().string();
          image.mime_type = mime;
          image.encoded.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
          material.base_color_image = image_of[reference] = static_cast<int>(mesh.images.size());
          mesh.images.push_back(std::move(image));
        } else {
          diagnostics.repair("texture_skipped",
                             fmt::format("texture {} is missing or not PNG/JPEG: skipped", reference));
        }
      }
    }
    mesh.materials.push_back(std::move(material));
  }
}

}  // namespace wobble
