#pragma once
// Command-line flags for every deformer parameter, made from the deformers' descriptions, and
// the settings they build together with --settings FILE.
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <wobble/parameters.hpp>
#include <wobble/stack.hpp>

namespace wobble::cli {

class DeformerOptions {
 public:
  // Adds --deformer, --settings and one flag per deformer parameter (help from the description).
  void add_to(CLI::App& command);
  const std::string& stack_text() const { return stack_; }
  StackDescription stack() const { return StackDescription::parse(stack_); }
  void set_stack(std::string stack) { stack_ = std::move(stack); }  // `wobble render --compare`: one stack per panel
  void set_value(const std::string& flag, const std::string& text) { values_[flag] = text; }  // as if --flag text
  // The settings file (if any) with the flags applied on top, for the stack and any others that
  // read the same settings (`wobble measure --against`). Throws Error for a flag whose deformer
  // is in none of the stacks, a bad value, or a bad settings file; warns of a section that none
  // of them reads.
  StackSettings settings(const std::vector<std::string>& other_stacks = {}) const;

 private:
  std::string stack_ = "lbs";
  std::string settings_file_;
  std::map<std::string, std::string> values_;  // flag -> text given
};

}  // namespace wobble::cli
