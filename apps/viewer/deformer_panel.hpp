#pragma once
// The deformer-stack panel (Dear ImGui), generated from the deformers' descriptions: a base
// skinning choice, a switch for every effect and post-deformer, and a widget for every parameter
// of the deformers in the stack (sliders over the described ranges, integers, switches, choice
// boxes, text), with the description's help as tooltip. Live parameters apply while dragging;
// bind parameters are typed and applied on Enter (a rebind). Keyed parameters are shown, not
// edited. New deformers and parameters appear without changes here. Two kinds get editors of
// their own: per-vertex arrays (bend weights are painted with the brush) and per-joint tables
// (the selected joint's entry, its fields generated from the nested description).
#include <string>

#include "stack_editor.hpp"

namespace wobble {
struct Rig;
}

namespace wobble::viewer {

enum class PanelChange { None, Settings, Stack };

// What changed: settings only (apply with DeformerStack::update, the motion goes on) or the
// stack's composition (rebuild). `error` receives a refused value's message.
PanelChange deformer_panel(StackEditor& editor, const Rig& rig, int selected_joint, std::string& error);

// One parameter's row: its widget (a slider over the described range for live numbers, a typed
// field applied on Enter for bind ones), its help as tooltip, a "reset to default" menu; true
// when the value changed (a refused value's message goes to `error`).
bool parameter_row(const ParameterDescription& p, DeformerSettings& settings, std::string& error);

// The selected joint's entry of a per-joint table parameter; true when it changed.
bool joint_entry_editor(const ParameterDescription& table, DeformerSettings& settings, const std::string& joint,
                        std::string& error);

}  // namespace wobble::viewer
