#pragma once
// Command-line flags for every deformer parameter in the registry, and the settings JSON they
// build together with --settings FILE.
#include <map>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace wobble::cli {

class DeformerOptions {
 public:
  // Adds --deformer, --settings and one flag per registered deformer parameter.
  void add_to(CLI::App& command);
  const std::string& stack() const { return stack_; }
  void set_stack(std::string stack) { stack_ = std::move(stack); }  // `wobble render --compare`: one stack per panel
  void set_value(const std::string& flag, const std::string& text) { values_[flag] = text; }  // as if --flag text
  // The settings file (if any) with the flags applied on top. Throws Error for a flag whose
  // deformer is not in the stack, or an unreadable settings file.
  nlohmann::json settings() const;

 private:
  std::string stack_ = "lbs";
  std::string settings_file_;
  std::map<std::string, std::string> values_;  // flag -> text given
};

}  // namespace wobble::cli
