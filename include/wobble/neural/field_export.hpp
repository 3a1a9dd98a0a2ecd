#pragma once
// `wobble fields export`: a trained model (.pt, LibTorch) as a .wfield file that the torch-free
// evaluator (wobble/fields/field_network.hpp) reads: the same fields without LibTorch.
#include <filesystem>

#include <wobble/fields/field_network.hpp>

namespace wobble::neural {

// Throws Error naming the file when it is missing or not a wobble model.
fields::FieldNetworkFile export_field_network(const std::filesystem::path& model);

}  // namespace wobble::neural
