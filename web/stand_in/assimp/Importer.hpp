// Web build stand-in for assimp's Importer (assimp is not built for WebAssembly). load.cpp asks
// it whether an extension is supported; every extension it does not read itself is passed on to
// read_with_assimp, which on the web reports that the format needs the desktop build.
#pragma once
#include <string>

namespace Assimp {

class Importer {
 public:
  bool IsExtensionSupported(const std::string&) const { return true; }
  void GetExtensionList(std::string& out) const { out.clear(); }
};

}  // namespace Assimp
