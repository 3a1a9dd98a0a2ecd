#pragma once
// The built-in deformers' descriptions, listed by registry.cpp (private to the library). Each is
// defined next to its deformer's code.
#include <string_view>

#include <wobble/deformer.hpp>
#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble {

// Throws Error naming the character's file if it has no skin (for deformers that need one).
void require_skinned(const Character& character, std::string_view deformer);

// A skinned deformer's bind: require_skinned, then bind(), whose Error is thrown again naming the
// character's file.
template <class Bind>
void bind_skinned(const Character& character, std::string_view deformer, Bind&& bind) {
  require_skinned(character, deformer);
  try {
    bind();
  } catch (const Error& error) {
    fail(character.source, "{}", error.what());
  }
}

const DeformerDescription& lbs_description();                // lbs.cpp
const DeformerDescription& dqs_description();                // dqs.cpp
const DeformerDescription& dlbs_description();               // delayed_lbs.cpp
const DeformerDescription& dynamic_description();            // dynamic_skinning.cpp
const DeformerDescription& delta_mush_description();         // delta_mush.cpp
const DeformerDescription& direct_delta_mush_description();  // direct_delta_mush.cpp

}  // namespace wobble
