// The list of deformers wobble knows, in the order help texts and panels show them. A new
// deformer adds its description here (the description itself lives next to its code).
#include "deform/deformers.hpp"

namespace wobble {

std::span<const DeformerDescription* const> deformer_descriptions() {
  static const DeformerDescription* const all[] = {
      &lbs_description(),     &dqs_description(),        &dlbs_description(),
      &dynamic_description(), &delta_mush_description(), &direct_delta_mush_description(),
  };
  return all;
}

}  // namespace wobble
