#include <wobble/deformer.hpp>

#include <algorithm>

#include <wobble/error.hpp>
#include <fmt/core.h>

#include <wobble/log.hpp>

#include "core/fail.hpp"
#include "deform/deformers.hpp"

namespace wobble {

namespace {

std::string known_deformer_names() {
  std::string names;
  for (const DeformerType& type : deformer_types()) names += (names.empty() ? "" : ", ") + type.name;
  return names;
}

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

}  // namespace

void require_skinned(const Character& character, std::string_view deformer) {
  if (!character.is_skinned()) {
    fail(character.source, "deformer '{}' needs a skinned character (this one has no skin)", deformer);
  }
}

DeformerStack DeformerStack::parse(std::string_view spec, const nlohmann::json& settings) {
  if (!settings.is_object()) fail_plain("settings: expected a JSON object with one section per deformer");
  DeformerStack stack;
  std::vector<std::string> names;
  std::size_t position = 0;
  while (position <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', position), spec.size());
    names.push_back(trim(spec.substr(position, comma - position)));
    position = comma + 1;
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    if (name.empty()) fail_plain("deformer stack '{}': empty deformer name", spec);
    const DeformerType* type = find_deformer_type(name);
    if (!type) fail_plain("deformer stack '{}': unknown deformer '{}' (known: {})", spec, name, known_deformer_names());
    if (type->stage == DeformerStage::Base) {
      if (i != 0) fail_plain("deformer stack '{}': base skinning '{}' must come first", spec, name);
      stack.has_base_ = true;
    }
    if (std::count(names.begin(), names.end(), name) > 1) fail_plain("deformer stack '{}': '{}' appears twice", spec, name);
    nlohmann::json section = settings.contains(name) ? settings.at(name) : nlohmann::json::object();
    if (!section.is_object()) fail_plain("settings: section '{}' must be a JSON object", name);
    for (const auto& [key, value] : section.items()) {
      const bool known = std::any_of(type->parameters.begin(), type->parameters.end(),
                                     [&, &key = key](const ParameterSpec& p) { return p.key == key; });
      if (!known) {
        std::string keys;
        for (const ParameterSpec& p : type->parameters) keys += (keys.empty() ? "" : ", ") + p.key;
        fail_plain("settings: unknown parameter '{}' for deformer '{}' (known: {})", key, name,
                   keys.empty() ? "none" : keys);
      }
    }
    try {
      stack.deformers_.push_back(type->create(section));
    } catch (const nlohmann::json::exception& error) {
      fail_plain("settings: deformer '{}': {}", name, error.what());
    }
  }
  for (const auto& [section_name, value] : settings.items()) {
    if (!find_deformer_type(section_name)) {
      fail_plain("settings: unknown deformer section '{}' (known: {})", section_name, known_deformer_names());
    }
    if (std::find(names.begin(), names.end(), section_name) == names.end()) {
      warn(fmt::format("settings: section '{}' is ignored: that deformer is not in the stack '{}'", section_name, spec));
    }
  }
  return stack;
}

void DeformerStack::bind(const Character& character) {
  for (std::size_t k = 0; k < deformers_.size(); ++k) deformers_[k]->set_upstream(k ? deformers_[k - 1].get() : nullptr);
  for (auto& deformer : deformers_) deformer->bind(character);
  bound_ = &character;
}

void DeformerStack::reset() {
  for (auto& deformer : deformers_) deformer->reset();
}

void DeformerStack::evaluate(const FrameInput& frame, std::vector<Vec3f>& positions, std::vector<Vec3f>& normals) {
  positions.resize(frame.character.mesh.vertex_count());
  normals.resize(frame.character.mesh.normals.size());
  evaluate(frame, std::span<Vec3f>(positions), std::span<Vec3f>(normals));
}

void DeformerStack::evaluate(const FrameInput& frame, std::span<Vec3f> positions, std::span<Vec3f> normals) {
  const Mesh& mesh = frame.character.mesh;
  if (bound_ != &frame.character) fail_plain("deformer stack '{}' was bound to another character", spec());
  if (positions.size() != mesh.vertex_count()) {
    fail_plain("deformer stack '{}': {} positions for a mesh of {} vertices", spec(), positions.size(), mesh.vertex_count());
  }
  if (!normals.empty() && normals.size() != mesh.normals.size()) {
    fail_plain("deformer stack '{}': {} normals for a mesh with {}", spec(), normals.size(), mesh.normals.size());
  }
  if (!has_base_) {
    std::copy(mesh.positions.begin(), mesh.positions.end(), positions.begin());
    if (!normals.empty()) std::copy(mesh.normals.begin(), mesh.normals.end(), normals.begin());
  }
  for (auto& deformer : deformers_) deformer->evaluate(frame, positions, normals);
}

std::string DeformerStack::spec() const {
  std::string result;
  for (const auto& deformer : deformers_) result += (result.empty() ? "" : ",") + std::string(deformer->name());
  return result;
}

}  // namespace wobble
