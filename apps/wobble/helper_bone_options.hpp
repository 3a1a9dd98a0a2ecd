#pragma once
// wobble bake --helper-bones N [--helper-influences K] [--helper-...]: the bake written as the
// character's skeleton plus N helper joints (wobble::helper_bones), flags from the decomposition's
// description with the prefix "helper-".
#include <cstddef>
#include <string>

#include <CLI/CLI.hpp>

#include <wobble/offline/baked_frames.hpp>
#include <wobble/character.hpp>
#include <wobble/offline/skinning_decomposition.hpp>

#include "described_options.hpp"

namespace wobble {
class ThreadPool;
}

namespace wobble::cli {

class HelperBoneOptions {
 public:
  void add_to(CLI::App& command);
  bool enabled() const { return options_.given("bones"); }
  // Before the work: throws Error naming the flag for a --helper-* flag without --helper-bones, an
  // output that is not glTF, or a bad value.
  void check(const std::string& output) const;
  // The helper bones of `baked` into `output` (glTF), with a summary unless quiet.
  void write(const std::string& output, const Character& character, std::size_t clip, const BakedFrames& baked,
             bool periodic, ThreadPool& pool, bool quiet) const;

 private:
  DescribedOptions options_{decomposition_description(), "helper-"};
};

}  // namespace wobble::cli
