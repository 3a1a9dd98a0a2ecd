#pragma once
// The characters the viewer offers in its menu: a procedural cylinder with a small rig and a
// swaying clip (always available, any resolution), and the bundled assets (clonk.glb ...).
#include <filesystem>
#include <string>
#include <vector>

#include <wobble/character.hpp>

namespace wobble::viewer {

struct BundledCharacter {
  std::string label;
  std::filesystem::path path;  // empty: the procedural cylinder
};

// The folder holding the unpacked bundled assets: build/assets on the desktop (set at build
// time), /assets in the browser (preloaded into the page's file system).
std::filesystem::path bundled_assets_folder();
// The cylinder first, then every .glb/.gltf in `folder` (sorted by name); bundled assets first
// when present, so the viewer opens on a real character.
std::vector<BundledCharacter> bundled_characters(const std::filesystem::path& folder);

// An upright cylinder (height 2, radius 0.2, base at y = 0) of about `vertices` vertices, a chain
// of four joints along it with smooth skin weights, and a clip "Sway" (2 s, looping) that bends
// the chain from side to side and stops abruptly, so the effect has something to show.
Character make_cylinder_character(long vertices = 2000);

Character load_bundled(const BundledCharacter& character);

}  // namespace wobble::viewer
