#pragma once
// Factories of the built-in deformers, listed by registry.cpp (private to the library).
#include <memory>

#include <nlohmann/json.hpp>

#include <wobble/deformer.hpp>

namespace wobble {

std::unique_ptr<Deformer> make_lbs_deformer(const nlohmann::json& settings);
std::unique_ptr<Deformer> make_dqs_deformer(const nlohmann::json& settings);

}  // namespace wobble
