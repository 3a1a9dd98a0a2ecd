// load_character: picks the reader by file extension, then checks and reports what it read.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <string>
#include <system_error>

#include <assimp/Importer.hpp>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/io/read_limits.hpp>

#include "core/ascii.hpp"
#include "core/fail.hpp"

namespace wobble {
namespace {

namespace fs = std::filesystem;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// True for the PLY files of 3D Gaussian splatting (vertex properties f_dc_0, opacity, scale_0,
// rot_0 ...): a point cloud of Gaussians, not a mesh with faces.
bool is_gaussian_splat_ply(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  for (int n = 0; n < 200 && std::getline(in, line); ++n) {
    if (line.rfind("end_header", 0) == 0) break;
    if (line.find("property") != std::string::npos &&
        (line.find(" f_dc_0") != std::string::npos || line.find(" opacity") != std::string::npos))
      return true;
  }
  return false;
}

// The extensions assimp reads ("*.3ds;*.fbx;..." -> ".3ds .fbx ...").
std::string assimp_extensions() {
  Assimp::Importer importer;
  std::string list;
  importer.GetExtensionList(list);
  std::string out;
  for (char c : list) {
    if (c == '*') continue;
    out += c == ';' ? ' ' : c;
  }
  return out;
}

Character read_by_extension(const fs::path& path) {
  const std::string name = ascii_lower(path.filename().string());
  const std::string extension = lowercase_extension(path);
  Character character;
  if (extension == ".gltf" || extension == ".glb") {
    character = read_gltf(path);
  } else if (extension == ".off") {
    character = read_off(path);
  } else if (extension == ".obj") {
    character = read_obj(path);
  } else if (extension == ".ply" && is_gaussian_splat_ply(path)) {
    fail(path, "a 3D Gaussian splatting PLY (a cloud of Gaussians, not a mesh): not a character wobble can load");
  } else {
    const bool ogre_xml = ends_with(name, ".mesh.xml") || ends_with(name, ".skeleton.xml");
    Assimp::Importer importer;
    if (extension.empty() || (!ogre_xml && !importer.IsExtensionSupported(extension)))
      fail(path, "unknown file type '{}'; supported: .gltf .glb .off .obj and through assimp {}",
           extension.empty() ? std::string("(no extension)") : extension, assimp_extensions());
    character = read_with_assimp(path);
  }
  character.source = path;
  character.check();
  return character;
}

}  // namespace

std::string lowercase_extension(const fs::path& path) { return ascii_lower(path.extension().string()); }

Character load_character(const fs::path& path) {
  require_regular_file(path, "a character or mesh file");
  Character character;
  try {
    character = read_by_extension(path);
  } catch (const std::bad_alloc&) {
    // The readers check counts against their data and the read budget (read_limits.hpp); this is
    // the last line: memory ran out all the same.
    fail(path, "ran out of memory while reading the file");
  }
  character.diagnostics.log_warnings(path.string());
  return character;
}

}  // namespace wobble
