#include "neural_subspace.hpp"

#include <wobble/error.hpp>
#include <wobble/fields/field_network.hpp>
#ifdef WOBBLE_HAVE_NEURAL
#include <wobble/neural/neural_field.hpp>
#endif

#include "core/fail.hpp"

namespace wobble::python {

MeshFields subspace_fields(const std::string& subspace, const std::optional<std::filesystem::path>& model, bool rig,
                           const std::string& who) {
  if (subspace == "eigenmodes") {
    if (model) fail(*model, "a neural model is used only with subspace='neural'");
    return {};
  }
  if (subspace != "neural") fail_plain("{}: unknown subspace '{}' (use eigenmodes or neural)", who, subspace);
#ifdef WOBBLE_HAVE_NEURAL
  return neural::mesh_fields(model.value_or(std::filesystem::path()), rig);  // also reads .pt models
#else
  return fields::field_network_mesh_fields(model.value_or(std::filesystem::path()), rig);  // .wfield, no LibTorch
#endif
}

}  // namespace wobble::python
