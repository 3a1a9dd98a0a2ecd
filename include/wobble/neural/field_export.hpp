#pragma once
// `wobble fields export`: a trained model (.pt, LibTorch) as a .wfield file that the torch-free
// evaluator (wobble/physics/field_network.hpp) reads: the same fields without LibTorch.
#include <filesystem>

#include <wobble/physics/field_network.hpp>

namespace wobble::neural {

// Throws Error naming the file when it is missing or not a wobble model.
physics::FieldNetworkFile export_field_network(const std::filesystem::path& model);

}  // namespace wobble::neural
