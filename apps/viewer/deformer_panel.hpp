#pragma once
// The deformer-stack panel (Dear ImGui), generated from the deformer registry: a base skinning
// choice, a switch for every effect and post-deformer, and a widget for every parameter of the
// deformers in the stack (numbers, integers, switches, choices listed in the help text, text).
// New deformers and parameters appear without changes here. Two parameters get editors of
// their own: `bend_weights` (painted with the brush) and the per-joint overrides `joints`.
#include <string>

#include "stack_settings.hpp"

namespace wobble {
struct Rig;
}

namespace wobble::viewer {

// Returns true when the stack must be rebuilt (a deformer switched, a value committed).
bool deformer_panel(StackSettings& stack, const Rig& rig, int selected_joint);

// The per-joint overrides of `dynamic` for one joint: enabled, the four scales, origin, radius.
bool joint_overrides_editor(nlohmann::json& dynamic_section, const std::string& joint);

}  // namespace wobble::viewer
