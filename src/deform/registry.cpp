// The list of deformers wobble knows. A new deformer adds one entry here.
#include <algorithm>

#include <wobble/deformer.hpp>

#include "deform/deformers.hpp"

namespace wobble {

std::span<const DeformerType> deformer_types() {
  static const std::vector<DeformerType> types = {
      {"lbs", DeformerStage::Base, "linear blend skinning", {}, make_lbs_deformer},
      {"dqs", DeformerStage::Base, "dual-quaternion skinning", {}, make_dqs_deformer},
  };
  return types;
}

const DeformerType* find_deformer_type(std::string_view name) {
  auto types = deformer_types();
  auto found = std::find_if(types.begin(), types.end(), [&](const DeformerType& t) { return t.name == name; });
  return found == types.end() ? nullptr : &*found;
}

}  // namespace wobble
