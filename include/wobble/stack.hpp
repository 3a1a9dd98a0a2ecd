#pragma once
// A deformer stack as typed entries, parsed once from its text ("lbs,dynamic,deltamush"):
// one base skinning first (lbs, dqs, dlbs), then effects and post-deformers, each at most once.
// The CLI, the viewer, Python, Blender and the GPU path all read this description.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <wobble/parameters.hpp>

namespace wobble {

struct StackEntry {
  const DeformerDescription* deformer = nullptr;
  // The deformer folds its input into its bind: it follows a deformer whose output is a plain
  // linear blend of the skinning matrices (Delta Mush after lbs).
  bool folds_input = false;
  bool operator==(const StackEntry&) const = default;
};

class StackDescription {
 public:
  StackDescription() = default;
  // Throws Error("deformer stack 'TEXT': ...") for an empty or unknown name (with the closest
  // known one), a base skinning that is not first, or a deformer listed twice.
  static StackDescription parse(std::string_view text);

  std::span<const StackEntry> entries() const { return entries_; }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  bool contains(std::string_view name) const;
  // The base skinning, or null (the stack then starts from the rest mesh).
  const DeformerDescription* base() const;
  std::string text() const;  // "lbs,dynamic"
  bool operator==(const StackDescription&) const = default;

 private:
  std::vector<StackEntry> entries_;
};

// Splits "a, b,c" at commas and trims blanks and tabs around each name (empty names kept).
std::vector<std::string> split_stack_text(std::string_view text);

}  // namespace wobble
