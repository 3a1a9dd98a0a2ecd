// wobble info FILE [--json]
#include <algorithm>
#include <cstdio>
#include <iostream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <wobble/io/files.hpp>

#include "commands.hpp"

namespace wobble::cli {

namespace {

nlohmann::json describe(const Character& c) {
  using nlohmann::json;
  json out;
  out["file"] = c.source.string();
  const Eigen::AlignedBox3f box = c.mesh.bounds();
  out["vertices"] = c.mesh.vertex_count();
  out["triangles"] = c.mesh.triangle_count();
  out["size"] = c.mesh.size();
  if (c.mesh.vertex_count()) {
    out["bounds"] = {{"min", {box.min().x(), box.min().y(), box.min().z()}},
                     {"max", {box.max().x(), box.max().y(), box.max().z()}}};
  }
  json meshes = json::array();
  for (const Primitive& p : c.mesh.primitives) {
    meshes.push_back({{"name", p.name},
                      {"mesh", p.source_mesh},
                      {"primitive", p.source_primitive},
                      {"vertices", p.vertex_count},
                      {"triangles", p.triangle_count},
                      {"material", p.material}});
  }
  out["meshes"] = meshes;
  json attributes = json::array();
  if (!c.mesh.normals.empty()) attributes.push_back("NORMAL");
  if (!c.mesh.uvs.empty()) attributes.push_back("TEXCOORD_0");
  for (const auto& [name, values] : c.mesh.vertex_scalars) attributes.push_back(name);
  out["vertex_attributes"] = attributes;
  out["materials"] = c.mesh.materials.size();
  out["images"] = c.mesh.images.size();

  json joints = json::array();
  std::size_t skinned = 0;
  std::vector<int> depth(c.rig.joint_count(), 0);  // parents come first: one pass, not one walk per joint
  for (std::size_t j = 0; j < c.rig.joint_count(); ++j) {
    if (c.rig.parents[j] >= 0) depth[j] = depth[static_cast<std::size_t>(c.rig.parents[j])] + 1;
    skinned += c.rig.skinned[j] ? 1 : 0;
    joints.push_back({{"name", c.rig.names[j]},
                      {"parent", c.rig.parents[j]},
                      {"depth", depth[j]},
                      {"skinned", static_cast<bool>(c.rig.skinned[j])}});
  }
  out["joint_count"] = c.rig.joint_count();
  out["skinned_joint_count"] = skinned;
  out["hierarchy_depth"] = c.rig.empty() ? 0 : c.rig.max_depth() + 1;
  out["joints"] = joints;

  json clips = json::array();
  for (const Clip& clip : c.clips) {
    clips.push_back({{"name", clip.name},
                     {"start", clip.start()},
                     {"end", clip.end()},
                     {"duration", clip.duration()},
                     {"channels", clip.channels.size()},
                     {"keys", clip.key_count()}});
  }
  out["clips"] = clips;

  json skin;
  skin["max_influences"] = c.skin.max_influences();
  skin["mean_influences"] = c.skin.vertex_count() ? double(c.skin.joints.size()) / double(c.skin.vertex_count()) : 0.0;
  skin["vertices"] = c.skin.empty() ? 0 : c.skin.vertex_count();
  out["skin"] = skin;

  json repairs = json::array();
  for (const Repair& r : c.diagnostics.repairs())
    repairs.push_back({{"kind", r.kind}, {"message", r.message}, {"count", r.count}});
  out["repairs"] = repairs;
  return out;
}

void print_text(const nlohmann::json& d) {
  fmt::print("{}\n", d["file"].get<std::string>());
  fmt::print("  vertices {}, triangles {}, size {:.4g} (bounding-box diagonal)\n", d["vertices"].get<std::size_t>(),
             d["triangles"].get<std::size_t>(), d["size"].get<double>());
  fmt::print("  meshes ({}):\n", d["meshes"].size());
  for (const auto& m : d["meshes"]) {
    fmt::print("    {:<24} {:>7} vertices {:>7} triangles\n",
               m["name"].get<std::string>().empty() ? "(unnamed)" : m["name"].get<std::string>(),
               m["vertices"].get<std::size_t>(), m["triangles"].get<std::size_t>());
  }
  std::string attributes;
  for (const auto& a : d["vertex_attributes"]) attributes += " " + a.get<std::string>();
  fmt::print("  vertex attributes:{}\n", attributes.empty() ? " none" : attributes);
  fmt::print("  joints {} ({} skinned), hierarchy depth {}\n", d["joint_count"].get<std::size_t>(),
             d["skinned_joint_count"].get<std::size_t>(), d["hierarchy_depth"].get<int>());
  for (const auto& j : d["joints"]) {
    // Indentation shows the depth up to 40 levels (a deeper chain would print quadratic whitespace).
    fmt::print("    {:>{}}{}{}\n", "", 2 * std::min(j["depth"].get<int>(), 40), j["name"].get<std::string>(),
               j["skinned"].get<bool>() ? "" : "  (helper)");
  }
  fmt::print("  clips ({}):\n", d["clips"].size());
  for (const auto& c : d["clips"]) {
    fmt::print("    {:<24} {:>8.3f} s  {:>4} channels {:>7} keys\n", c["name"].get<std::string>(),
               c["duration"].get<double>(), c["channels"].get<std::size_t>(), c["keys"].get<std::size_t>());
  }
  const auto& s = d["skin"];
  if (s["vertices"].get<std::size_t>() > 0) {
    fmt::print("  skin: max {} influences per vertex, mean {:.2f}\n", s["max_influences"].get<std::size_t>(),
               s["mean_influences"].get<double>());
  } else {
    fmt::print("  skin: none (static mesh or skeleton only)\n");
  }
  if (d["repairs"].empty()) {
    fmt::print("  repairs: none\n");
  } else {
    fmt::print("  repairs:\n");
    for (const auto& r : d["repairs"]) {
      fmt::print("    {} ({}x): {}\n", r["kind"].get<std::string>(), r["count"].get<std::size_t>(),
                 r["message"].get<std::string>());
    }
  }
}

}  // namespace

Runner add_info_command(CLI::App& app) {
  struct Options {
    std::string file;
    bool json = false;
  };
  auto options = std::make_shared<Options>();
  app.add_option("FILE", options->file, "character or mesh file")->required();
  app.add_flag("--json", options->json, "machine-readable JSON on stdout");
  return [options] {
    const Character character = load_character(options->file);
    const nlohmann::json description = describe(character);
    if (options->json) {
      std::cout << description.dump(2) << "\n";
    } else {
      print_text(description);
    }
    return 0;
  };
}

}  // namespace wobble::cli
