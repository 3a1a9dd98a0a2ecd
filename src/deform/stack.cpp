#include <wobble/stack.hpp>

#include <algorithm>

#include <wobble/error.hpp>

namespace wobble {

std::vector<std::string> split_stack_text(std::string_view text) {
  std::vector<std::string> names;
  std::size_t position = 0;
  while (position <= text.size()) {
    const std::size_t comma = std::min(text.find(',', position), text.size());
    std::string_view name = text.substr(position, comma - position);
    const auto first = name.find_first_not_of(" \t");
    const auto last = name.find_last_not_of(" \t");
    names.emplace_back(first == std::string_view::npos ? std::string_view() : name.substr(first, last - first + 1));
    position = comma + 1;
  }
  return names;
}

StackDescription StackDescription::parse(std::string_view text) {
  const std::string where = "deformer stack '" + std::string(text) + "'";
  StackDescription stack;
  const std::vector<std::string> names = split_stack_text(text);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    if (name.empty()) throw Error(where + ": empty deformer name");
    const DeformerDescription& deformer = deformer_at(name, where);
    if (deformer.stage == DeformerStage::Base && i != 0) {
      throw Error(where + ": base skinning '" + name + "' must come first");
    }
    if (stack.contains(name)) throw Error(where + ": '" + name + "' appears twice");
    StackEntry entry{&deformer, false};
    entry.folds_input =
        deformer.folds_linear_blend_input && i > 0 && stack.entries_.back().deformer->linear_blend_output;
    stack.entries_.push_back(entry);
  }
  return stack;
}

bool StackDescription::contains(std::string_view name) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const StackEntry& e) { return e.deformer->name == name; });
}

const DeformerDescription* StackDescription::base() const {
  return !entries_.empty() && entries_.front().deformer->stage == DeformerStage::Base ? entries_.front().deformer
                                                                                      : nullptr;
}

std::string StackDescription::text() const {
  std::string result;
  for (const StackEntry& e : entries_) result += (result.empty() ? "" : ",") + e.deformer->name;
  return result;
}

}  // namespace wobble
