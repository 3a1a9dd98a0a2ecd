#pragma once
// The deformer stack the viewer edits: which deformers are on (in stack order) and every
// deformer's settings (wobble::StackSettings, the format `wobble bake --settings` reads).
// Settings of deformers that are switched off are kept, so switching one back on restores them.
#include <optional>
#include <string>
#include <vector>

#include <wobble/parameters.hpp>
#include <wobble/stack.hpp>

namespace wobble::viewer {

class StackEditor {
 public:
  // "lbs,dynamic" and its settings; throws Error as StackDescription::parse does.
  static StackEditor from(const std::string& spec, StackSettings settings = {});

  // Parsed once per edit (the viewer asks every frame); throws Error as StackDescription::parse.
  const StackDescription& stack() const;
  std::string spec() const;
  bool contains(const std::string& deformer) const;
  const std::vector<std::string>& deformers() const { return deformers_; }
  // The base skinning (lbs, dqs, dlbs...), or empty.
  std::string base() const;
  void set_base(const std::string& name);
  // Switches a non-base deformer on or off; the stack stays ordered base, effects, post
  // (registry order within a stage).
  void set_enabled(const std::string& name, bool enabled);

  StackSettings& settings() { return settings_; }
  const StackSettings& settings() const { return settings_; }
  // Only the sections of the deformers in the stack: what a saved settings file holds.
  StackSettings stack_settings() const;

 private:
  void sort();
  std::vector<std::string> deformers_;
  StackSettings settings_;
  mutable std::optional<StackDescription> parsed_;  // stack(), until the next edit
};

}  // namespace wobble::viewer
