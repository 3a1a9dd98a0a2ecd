#pragma once
// One panel of `wobble render`: a deformer stack with optional per-panel parameter overrides,
// written STACK[:flag=value]... (e.g. "lbs,dynamic:amplitude=0" for drag only).
#include <string>
#include <utility>
#include <vector>

#include <wobble/parameters.hpp>
#include <wobble/stack.hpp>

#include "deformer_options.hpp"

namespace wobble::cli {

struct PanelSpec {
  std::string text;                                            // as given (the default label)
  StackDescription stack;                                      // "lbs,dynamic"
  std::vector<std::pair<std::string, std::string>> overrides;  // flag, value
};

// Throws Error for an empty stack, a malformed override or an unknown parameter flag.
PanelSpec parse_panel_spec(const std::string& text);

// Settings of each panel: the shared flags and settings file (checked against the union of the
// stacks; each panel keeps the sections of its own deformers), then the panel's overrides.
std::vector<StackSettings> panel_settings(const DeformerOptions& shared, const std::vector<PanelSpec>& panels);

}  // namespace wobble::cli
