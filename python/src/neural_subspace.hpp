#pragma once
// The subspace choice of wobble.Simulation and wobble.RigSimulation, as `wobble simulate
// --subspace eigenmodes|neural [--neural-model FILE]`: learned fields from a .wfield model without
// LibTorch; with WOBBLE_PYTHON_NEURAL also from a LibTorch .pt model.
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <wobble/mesh.hpp>
#include <wobble/fields/skinning_field.hpp>

namespace wobble::python {

using fields::MeshFields;

// Empty for "eigenmodes"; for "neural" the model's fields (default model: the shipped one, or
// with `rig` the rig-complementary one). `who` names the caller in errors.
MeshFields subspace_fields(const std::string& subspace, const std::optional<std::filesystem::path>& model, bool rig,
                           const std::string& who);

}  // namespace wobble::python
