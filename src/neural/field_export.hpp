#pragma once
// The .wfield export of a SkinningNetwork (internal: LibTorch): its forward pass written as the
// torch-free evaluator's layer list (include/wobble/fields/field_network.hpp, docs/neural.md).
// Keep in step with SkinningNetworkImpl::encode and ::fields and with the output normalisation:
// tests/neural/test_field_export.cpp compares both on random networks of several configurations.
#include <string>

#include <nlohmann/json.hpp>

#include <wobble/fields/field_network.hpp>

#include "network.hpp"

namespace wobble::neural {

// ONI is folded into the effective output weight (the file holds oni(V), not V).
fields::FieldNetworkFile export_field_network(SkinningNetwork& network, const nlohmann::json& metadata,
                                              const std::string& source_name);

}  // namespace wobble::neural
