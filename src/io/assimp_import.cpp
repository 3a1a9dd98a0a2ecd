// Everything assimp reads (FBX, Collada, DirectX .x, Ogre, B3D, MD5, BVH, 3DS, PLY ...) into a
// Character: assimp's import here, the conversion in assimp_conversion.cpp.
//
// Isolation. assimp's parsers crash on some broken files (Debian's 5.2.5 X importer on an index
// of 99999, for one), so read_with_assimp runs the import and the conversion in a child process
// (isolated_call.hpp) and gets the Character back over a pipe (character_wire.hpp). The
// conversion itself (character_from_assimp) checks every index and count it uses.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <system_error>

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/io/read_limits.hpp>

#include "assimp_scene.hpp"
#include "character_wire.hpp"
#include "core/ascii.hpp"
#include "core/fail.hpp"
#include "isolated_call.hpp"

namespace wobble {
namespace {

namespace fs = std::filesystem;

std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t')
      c = ' ';
    else if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126)
      c = '?';
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s.empty() ? std::string("unknown error") : s;
}

// assimp catches what its importers throw and keeps only the text: an allocation that failed
// (a count of 4294967295 vertices, say) comes back as "std::bad_alloc". Rethrown, the isolated
// call reports it as the import's memory limit instead of showing the C++ library's name.
[[noreturn]] void import_failed(const fs::path& path, const Assimp::Importer& importer) {
  const std::string error = importer.GetErrorString();
  if (error == "std::bad_alloc") throw std::bad_alloc();
  fail(path, "cannot import: {}", one_line(error));
}

// assimp's import and wobble's conversion, in this process (the isolated child runs this).
Character import_here(const fs::path& path) {
  Assimp::Importer importer;
  const aiScene* scene =
      importer.ReadFile(path.string(), aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_ValidateDataStructure);
  if (!scene || !scene->mRootNode) import_failed(path, importer);
  bool missing_normals = false;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m)
    if (is_triangle_mesh(scene->mMeshes[m]) && !scene->mMeshes[m]->HasNormals()) missing_normals = true;
  if (missing_normals) {
    scene = importer.ApplyPostProcessing(aiProcess_GenNormals);
    if (!scene) import_failed(path, importer);
  }
  return character_from_assimp(*scene, path);
}

// "X" for a.x, "MESH.XML" for an Ogre a.mesh.xml: the importer's name in messages.
std::string format_name(const fs::path& path) {
  std::string name = path.filename().string();
  const std::size_t dot = ascii_lower(name).find(".mesh.xml") != std::string::npos ? name.size() - 9 : name.rfind('.');
  std::string format = dot == std::string::npos ? std::string("(no extension)") : name.substr(dot + 1);
  for (char& c : format) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return format;
}

}  // namespace

Character read_with_assimp(const fs::path& path) {
  require_regular_file(path, "a file assimp can import");
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  const std::string bytes = run_isolated([&] { return encode_character(import_here(path)); }, import_limits(size),
                                         "the assimp " + format_name(path) + " importer", path);
  return decode_character(bytes, path);
}

}  // namespace wobble
