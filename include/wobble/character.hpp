#pragma once
// Character: everything read from one file. A static mesh has an empty rig and skin.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <wobble/clip.hpp>
#include <wobble/diagnostics.hpp>
#include <wobble/mesh.hpp>
#include <wobble/rig.hpp>
#include <wobble/skin.hpp>

namespace wobble {

struct Character {
  std::filesystem::path source;
  Mesh mesh;
  Rig rig;
  Skin skin;  // empty for static meshes; otherwise one row per mesh vertex
  std::vector<Clip> clips;
  Diagnostics diagnostics;  // repairs made while loading

  bool is_skinned() const { return !rig.empty() && !skin.empty(); }
  // A clip by name, or by index when `name_or_index` is a number; nullopt if none matches.
  std::optional<std::size_t> find_clip(const std::string& name_or_index) const;
  // As find_clip, but throws Error naming the source and listing the clips it has.
  std::size_t require_clip(const std::string& name_or_index) const;
  // Throws Error naming the source if the pieces do not fit together (sizes, indices, NaN).
  void check() const;
};

}  // namespace wobble
