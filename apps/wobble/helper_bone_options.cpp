#include "helper_bone_options.hpp"

#include <fmt/core.h>

#include <wobble/io/files.hpp>
#include <wobble/offline/helper_bones.hpp>
#include <wobble/parallel.hpp>

#include "core/fail.hpp"
#include "progress.hpp"

namespace wobble::cli {

void HelperBoneOptions::add_to(CLI::App& command) {
  options_.add_to(command, "Helper bones (the bake as extra joints that plain skinning plays; glTF output)");
}

void HelperBoneOptions::check(const std::string& output) const {
  for (const ParameterDescription& parameter : decomposition_description().parameters) {
    if (options_.given(parameter.key) && !enabled())
      fail_plain("{}: only with {}", options_.flag(parameter.key), options_.flag("bones"));
  }
  if (!enabled()) return;
  const std::string extension = lowercase_extension(output);
  if (extension != ".glb" && extension != ".gltf")
    fail_plain("{}: writes a glTF (.glb or .gltf), not '{}'", options_.flag("bones"), output);
  options_.settings();  // a bad value stops the bake before it starts
}

void HelperBoneOptions::write(const std::string& output, const Character& character, std::size_t clip,
                              const BakedFrames& baked, bool periodic, ThreadPool& pool, bool quiet) const {
  const auto parameters = options_.settings().as<DecompositionParameters>();
  if (static_cast<std::size_t>(parameters.bones) > character.mesh.vertex_count())
    fail_plain("{}: {} helpers for {} vertices (at most one a vertex)", options_.flag("bones"), parameters.bones,
               character.mesh.vertex_count());
  Progress progress("helper bones", quiet);
  const HelperBones helpers =
      helper_bones(character, clip, baked, parameters, periodic, &pool, [&](const DecompositionProgress& p) {
        progress.update(p.iteration, p.iterations, p.iteration == 0 ? p.stage : fmt::format("RMSE {:.4g}", p.rmse));
      });
  progress.finish();
  write_gltf(output, helpers.character);
  if (quiet) return;
  const double size = character.mesh.size();
  fmt::print(
      "helper bones: {} helpers, at most {} influences, {} iterations; plain skinning of the extended skeleton "
      "misses the stack by RMSE {:.4g} ({:.4f} % of the size), {:.1f} % of the secondary motion (RMS {:.4g})\n",
      helpers.helpers, parameters.influences, helpers.iterations, helpers.rmse, 100 * helpers.rmse / size,
      helpers.secondary_rms > 0 ? 100 * helpers.rmse / helpers.secondary_rms : 0.0, helpers.secondary_rms);
}

}  // namespace wobble::cli
