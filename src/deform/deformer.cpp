#include <wobble/deformer.hpp>

#include <algorithm>
#include <cmath>

#include <wobble/error.hpp>

#include "core/fail.hpp"
#include "deform/deformers.hpp"

namespace wobble {

void require_skinned(const Character& character, std::string_view deformer) {
  if (!character.is_skinned()) {
    fail(character.source, "deformer '{}' needs a skinned character (this one has no skin)", deformer);
  }
}

DeformerStack::DeformerStack(StackDescription stack, const StackSettings& settings)
    : description_(std::move(stack)), settings_(settings) {
  for (const StackEntry& entry : description_.entries()) current_.push_back(settings_.get(entry.deformer->name));
  deformers_.resize(current_.size());
  for (std::size_t k = 0; k < current_.size(); ++k) create(k);
}

DeformerStack DeformerStack::parse(std::string_view stack, const StackSettings& settings) {
  return DeformerStack(StackDescription::parse(stack), settings);
}

void DeformerStack::create(std::size_t index) {
  deformers_[index] = description_.entries()[index].deformer->create(current_[index]);
  deformers_[index]->set_stack_position(description_, index);
}

void DeformerStack::bind(const Character& character) {
  for (auto& deformer : deformers_) deformer->bind(character);
  bound_ = &character;
}

void DeformerStack::update(const StackSettings& settings) {
  settings_ = settings;
  for (std::size_t k = 0; k < deformers_.size(); ++k) {
    DeformerSettings next = settings_.get(description_.entries()[k].deformer->name);
    if (next == current_[k]) continue;
    const bool rebind = next.bind_differs(current_[k]);
    current_[k] = std::move(next);
    if (!rebind) {
      deformers_[k]->update(current_[k]);
      continue;
    }
    create(k);
    if (bound_) deformers_[k]->bind(*bound_);
  }
}

void DeformerStack::reset() {
  for (auto& deformer : deformers_) deformer->reset();
}

void DeformerStack::start_periodic(const PoseSampler& pose_at, double cycle_start, double period, double clip_time) {
  if (!bound_) fail_plain("deformer stack '{}': start_periodic() before bind()", spec());
  advance_keys(std::isnan(clip_time) ? cycle_start : clip_time);
  for (auto& deformer : deformers_) deformer->start_periodic(pose_at, cycle_start, period);
}

bool DeformerStack::keyed() const {
  return std::any_of(current_.begin(), current_.end(), [](const DeformerSettings& s) { return !s.keyed().empty(); });
}

void DeformerStack::advance_keys(double clip_time) {
  for (std::size_t k = 0; k < deformers_.size(); ++k) {
    if (!current_[k].keyed().empty() && current_[k].advance_to(clip_time)) deformers_[k]->update(current_[k]);
  }
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
    fail_plain("deformer stack '{}': {} positions for a mesh of {} vertices", spec(), positions.size(),
               mesh.vertex_count());
  }
  if (!normals.empty() && normals.size() != mesh.normals.size()) {
    fail_plain("deformer stack '{}': {} normals for a mesh with {}", spec(), normals.size(), mesh.normals.size());
  }
  advance_keys(std::isnan(frame.clip_time) ? frame.time : frame.clip_time);
  if (!description_.base()) {
    std::copy(mesh.positions.begin(), mesh.positions.end(), positions.begin());
    if (!normals.empty()) std::copy(mesh.normals.begin(), mesh.normals.end(), normals.begin());
  }
  for (auto& deformer : deformers_) deformer->evaluate(frame, positions, normals);
}

}  // namespace wobble
