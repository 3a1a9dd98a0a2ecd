#pragma once
// Command-line flags for the parameters of one description that is not a stack deformer's (a
// skinning decomposition's, the physics settings'): --PREFIX<flag> each, with the description's
// help, checked by it.
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include <wobble/parameters.hpp>

namespace wobble::cli {

class DescribedOptions {
 public:
  DescribedOptions(const DeformerDescription& description, std::string prefix)
      : description_(&description), prefix_(std::move(prefix)) {}
  // One option per parameter (those `include` accepts, when given), in `group` of the help.
  void add_to(CLI::App& command, const std::string& group,
              const std::function<bool(const ParameterDescription&)>& include = {});
  // True when the parameter's flag was given.
  bool given(std::string_view key) const { return values_.count(std::string(key)) > 0; }
  // "--helper-bones": a parameter's flag as the command line spells it.
  std::string flag(std::string_view key) const;
  // The defaults with the given flags applied; throws Error naming the flag for a bad value.
  DeformerSettings settings() const;

 private:
  const DeformerDescription* description_;
  std::string prefix_;
  std::map<std::string, std::string> values_;  // key -> text given
};

}  // namespace wobble::cli
