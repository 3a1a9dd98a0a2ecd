#include "stack_editor.hpp"

#include <algorithm>

namespace wobble::viewer {
namespace {

// Position of a deformer in the registry, stage first: the order a stack must have.
std::pair<int, std::size_t> stack_rank(const std::string& name) {
  const auto all = deformer_descriptions();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i]->name == name) return {static_cast<int>(all[i]->stage), i};
  }
  return {99, 0};
}

bool is_base(const std::string& name) {
  const DeformerDescription* d = find_deformer(name);
  return d && d->stage == DeformerStage::Base;
}

}  // namespace

StackEditor StackEditor::from(const std::string& spec, StackSettings settings) {
  StackEditor editor;
  const StackDescription stack = StackDescription::parse(spec);  // entries() views it: keep it alive
  for (const StackEntry& entry : stack.entries()) editor.deformers_.push_back(entry.deformer->name);
  editor.settings_ = std::move(settings);
  return editor;
}

const StackDescription& StackEditor::stack() const {
  if (!parsed_) parsed_ = StackDescription::parse(spec());
  return *parsed_;
}

std::string StackEditor::spec() const {
  std::string out;
  for (const auto& d : deformers_) out += (out.empty() ? "" : ",") + d;
  return out;
}

bool StackEditor::contains(const std::string& deformer) const {
  return std::find(deformers_.begin(), deformers_.end(), deformer) != deformers_.end();
}

std::string StackEditor::base() const {
  const auto found = std::find_if(deformers_.begin(), deformers_.end(), is_base);
  return found == deformers_.end() ? std::string() : *found;
}

void StackEditor::set_base(const std::string& name) {
  std::erase_if(deformers_, is_base);
  if (!name.empty()) deformers_.push_back(name);
  sort();
}

void StackEditor::set_enabled(const std::string& name, bool enabled) {
  std::erase(deformers_, name);
  if (enabled) deformers_.push_back(name);
  sort();
}

StackSettings StackEditor::stack_settings() const {
  StackSettings out;
  for (const std::string& d : deformers_) {
    if (const DeformerSettings* section = settings_.find(d)) out.section(d) = *section;
  }
  return out;
}

void StackEditor::sort() {
  parsed_.reset();
  std::stable_sort(deformers_.begin(), deformers_.end(),
                   [](const std::string& a, const std::string& b) { return stack_rank(a) < stack_rank(b); });
}

}  // namespace wobble::viewer
