#pragma once
// Factories of the built-in deformers, listed by registry.cpp (private to the library).
#include <memory>

#include <nlohmann/json.hpp>

#include <wobble/deformer.hpp>

namespace wobble {

// Throws Error naming the character's file if it has no skin (for deformers that need one).
void require_skinned(const Character& character, std::string_view deformer);

std::unique_ptr<Deformer> make_lbs_deformer(const nlohmann::json& settings);
std::unique_ptr<Deformer> make_dqs_deformer(const nlohmann::json& settings);
std::unique_ptr<Deformer> make_delta_mush_deformer(const nlohmann::json& settings);
std::unique_ptr<Deformer> make_direct_delta_mush_deformer(const nlohmann::json& settings);
// Dynamic Skinning (dynamic_skinning.cpp) and delayed LBS (delayed_lbs.cpp).
std::unique_ptr<Deformer> make_dynamic_deformer(const nlohmann::json& settings);
std::unique_ptr<Deformer> make_dlbs_deformer(const nlohmann::json& settings);

}  // namespace wobble
