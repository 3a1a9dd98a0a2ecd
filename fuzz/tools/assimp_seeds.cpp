// Writes assimp_scene seeds: each model file given, imported by assimp as wobble imports it, in
// the fuzz target's byte format (assimp_scene_bytes.hpp).
//   assimp_seeds OUT_FOLDER MODEL...
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include "../assimp_scene_bytes.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: assimp_seeds OUT_FOLDER MODEL...\n");
    return 2;
  }
  const std::filesystem::path folder = argv[1];
  std::filesystem::create_directories(folder);
  int written = 0;
  for (int i = 2; i < argc; ++i) {
    Assimp::Importer importer;
    const aiScene* scene =
        importer.ReadFile(argv[i], aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_ValidateDataStructure);
    if (!scene || !scene->mRootNode) continue;  // a model this assimp cannot read is no seed
    const std::vector<std::uint8_t> bytes = wobble::fuzz::encode_scene(*scene);
    std::ofstream out(folder / (std::filesystem::path(argv[i]).filename().string() + ".scene"), std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    ++written;
  }
  std::printf("assimp_seeds: %d seeds in %s\n", written, folder.string().c_str());
  return written > 0 ? 0 : 1;
}
