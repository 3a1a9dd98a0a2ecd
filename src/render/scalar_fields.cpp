#include <wobble/render/scalar_fields.hpp>

#include <wobble/dynamic_skinning.hpp>
#include <wobble/rig.hpp>
#include <wobble/skin.hpp>

namespace wobble::render {

std::vector<float> skin_weight_field(const Skin& skin, std::uint32_t joint) {
  std::vector<float> field(skin.vertex_count(), 0.0f);
  for (std::size_t v = 0; v < field.size(); ++v) {
    const auto joints = skin.joints_of(v);
    const auto weights = skin.weights_of(v);
    for (std::size_t k = 0; k < joints.size(); ++k) {
      if (joints[k] == joint) field[v] += weights[k];
    }
  }
  return field;
}

std::vector<float> hierarchical_weight_field(const Rig& rig, const Skin& skin, std::uint32_t joint) {
  const HierarchicalWeights weights = HierarchicalWeights::from(rig, skin);
  std::vector<float> field(weights.vertex_count(), 0.0f);
  for (std::size_t v = 0; v < field.size(); ++v) field[v] = weights.beta(v, joint);
  return field;
}

std::vector<float> bend_weight_field(const DynamicSkinningState& state) {
  const auto gamma = state.bend_weights();
  return {gamma.begin(), gamma.end()};
}

}  // namespace wobble::render
