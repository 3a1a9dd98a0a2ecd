#pragma once
// The deformer stack the viewer edits: which deformers are on (in stack order) and every
// deformer's settings section, in the JSON format `wobble bake --settings` reads. Sections of
// deformers that are switched off are kept, so switching one back on restores its values.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <wobble/deformer.hpp>

namespace wobble::viewer {

class StackSettings {
 public:
  // "lbs,dynamic" and a settings file's object; throws Error as DeformerStack::parse does.
  static StackSettings from(const std::string& spec, const nlohmann::json& settings = nlohmann::json::object());

  std::string spec() const;
  bool contains(const std::string& deformer) const;
  const std::vector<std::string>& deformers() const { return deformers_; }
  // The base skinning (lbs, dqs, dlbs...), or empty.
  std::string base() const;
  void set_base(const std::string& name);
  // Switches a non-base deformer on or off; the stack stays ordered base, effects, post
  // (registry order within a stage).
  void set_enabled(const std::string& name, bool enabled);

  // The section of one deformer (created empty on first use).
  nlohmann::json& section(const std::string& deformer);
  const nlohmann::json* find_section(const std::string& deformer) const;
  // The sections of the deformers in the stack that hold anything: a settings file.
  nlohmann::json settings_file() const;
  // A fresh stack (not bound).
  DeformerStack build() const;

 private:
  void sort();
  std::vector<std::string> deformers_;
  nlohmann::json sections_ = nlohmann::json::object();
};

// What the viewer shows for a parameter: its default (as a number for Number and Integer
// parameters) and, for a Text parameter with a fixed set of values, the choices.
struct ParameterView {
  double default_number = 0;
  std::string default_text;
  std::vector<std::string> choices;
};
ParameterView parameter_view(const ParameterSpec& spec);

}  // namespace wobble::viewer
