#include "deformer_panel.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <imgui.h>
#include <imgui_stdlib.h>

#include <wobble/rig.hpp>

namespace wobble::viewer {
namespace {

// One parameter's widget. Returns true when the stack must be rebuilt: switches and choices at
// once; dragged numbers at once for cheap deformers, on release for post-deformers (whose bind
// can take a while).
bool parameter_widget(const ParameterSpec& spec, DeformerStage stage, nlohmann::json& section) {
  const ParameterView view = parameter_view(spec);
  const char* label = spec.key.c_str();
  const bool has = section.contains(spec.key);
  bool changed = false, commit = false;
  switch (spec.type) {
    case ParameterSpec::Type::Number: {
      float value = has && section[spec.key].is_number() ? section[spec.key].get<float>() : static_cast<float>(view.default_number);
      const float speed = std::max(0.001f, 0.01f * std::abs(value != 0 ? value : static_cast<float>(view.default_number)));
      if (ImGui::DragFloat(label, &value, speed, 0, 0, "%.4g")) section[spec.key] = value, changed = true;
      commit = ImGui::IsItemDeactivatedAfterEdit();
      break;
    }
    case ParameterSpec::Type::Integer: {
      int value = has && section[spec.key].is_number() ? section[spec.key].get<int>() : static_cast<int>(view.default_number);
      if (ImGui::DragInt(label, &value, 0.1f, 0, 1000)) section[spec.key] = value, changed = true;
      commit = ImGui::IsItemDeactivatedAfterEdit();
      break;
    }
    case ParameterSpec::Type::Boolean: {
      bool value = has && section[spec.key].is_boolean() && section[spec.key].get<bool>();
      if (ImGui::Checkbox(label, &value)) section[spec.key] = value, changed = commit = true;
      break;
    }
    case ParameterSpec::Type::Text: {
      std::string value = has && section[spec.key].is_string() ? section[spec.key].get<std::string>() : view.default_text;
      if (!view.choices.empty()) {
        if (ImGui::BeginCombo(label, value.c_str())) {
          for (const std::string& choice : view.choices)
            if (ImGui::Selectable(choice.c_str(), choice == value)) section[spec.key] = choice, changed = commit = true;
          ImGui::EndCombo();
        }
      } else {
        if (ImGui::InputText(label, &value, ImGuiInputTextFlags_EnterReturnsTrue)) section[spec.key] = value, changed = commit = true;
        if (ImGui::IsItemDeactivatedAfterEdit()) section[spec.key] = value, commit = true;
      }
      break;
    }
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("--%s: %s", spec.flag.c_str(), describe(spec).c_str());
  if (has && ImGui::BeginPopupContextItem(spec.key.c_str())) {
    if (ImGui::Selectable("reset to default")) section.erase(spec.key), commit = true;
    ImGui::EndPopup();
  }
  return stage == DeformerStage::Post ? commit : (changed || commit);
}

}  // namespace

bool joint_overrides_editor(nlohmann::json& dynamic_section, const std::string& joint) {
  nlohmann::json& joints = dynamic_section["joints"];
  if (joints.is_string()) joints = nlohmann::json::parse(joints.get<std::string>(), nullptr, false);
  if (!joints.is_object()) joints = nlohmann::json::object();
  nlohmann::json entry = joints.contains(joint) ? joints[joint] : nlohmann::json::object();
  bool changed = false;
  ImGui::PushID(joint.c_str());
  bool enabled = entry.value("enabled", true);
  if (ImGui::Checkbox("enabled", &enabled)) entry["enabled"] = enabled, changed = true;
  for (const char* key : {"frequency_scale", "damping_scale", "amplitude_scale", "drag_scale"}) {
    float value = entry.value(key, 1.0f);
    if (ImGui::DragFloat(key, &value, 0.01f, 0.0f, 100.0f, "%.3g")) entry[key] = value, changed = true;
  }
  std::array<float, 3> origin{0, 0, 0};
  if (entry.contains("origin") && entry["origin"].is_array() && entry["origin"].size() == 3)
    for (int i = 0; i < 3; ++i) origin[i] = entry["origin"][i].get<float>();
  if (ImGui::DragFloat3("origin", origin.data(), 0.005f, 0, 0, "%.3f")) entry["origin"] = origin, changed = true;
  float radius = entry.value("radius", 0.0f);
  if (ImGui::DragFloat("radius", &radius, 0.005f, 0.0f, 1e6f, "%.3f")) entry["radius"] = radius, changed = true;
  if (ImGui::Button("clear this joint's overrides")) entry = nlohmann::json::object(), changed = true;
  ImGui::PopID();
  if (changed) {
    if (entry.empty()) joints.erase(joint);
    else joints[joint] = entry;
    if (joints.empty()) dynamic_section.erase("joints");
  }
  return changed;
}

bool deformer_panel(StackSettings& stack, const Rig& rig, int selected_joint) {
  bool rebuild = false;
  const auto types = deformer_types();
  // Base skinning.
  const std::string base = stack.base();
  if (ImGui::BeginCombo("base skinning", base.empty() ? "(none)" : base.c_str())) {
    for (const DeformerType& type : types)
      if (type.stage == DeformerStage::Base && ImGui::Selectable(type.name.c_str(), type.name == base)) {
        stack.set_base(type.name);
        rebuild = true;
      }
    ImGui::EndCombo();
  }
  for (const DeformerType& type : types) {
    if (type.stage == DeformerStage::Base) continue;
    bool on = stack.contains(type.name);
    if (ImGui::Checkbox(type.name.c_str(), &on)) stack.set_enabled(type.name, on), rebuild = true;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", type.summary.c_str());
  }
  ImGui::Text("stack: %s", stack.spec().c_str());

  for (const std::string& name : stack.deformers()) {
    const DeformerType* type = find_deformer_type(name);
    if (!type || type->parameters.empty()) continue;
    if (!ImGui::CollapsingHeader(name.c_str(), ImGuiTreeNodeFlags_DefaultOpen)) continue;
    ImGui::PushID(name.c_str());
    nlohmann::json& section = stack.section(name);
    for (const ParameterSpec& spec : type->parameters) {
      if (spec.key == "bend_weights") {
        const bool painted = section.contains("bend_weights");
        ImGui::Text("bend_weights: %s", painted ? "painted (brush panel)" : "from the mesh attribute or 1");
        if (painted) {
          ImGui::SameLine();
          if (ImGui::SmallButton("clear")) section.erase("bend_weights"), rebuild = true;
        }
        continue;
      }
      if (spec.key == "joints") {
        const bool valid = selected_joint >= 0 && selected_joint < static_cast<int>(rig.joint_count());
        if (ImGui::TreeNode("joints", "per-joint overrides: %s", valid ? rig.names[selected_joint].c_str() : "(click a joint)")) {
          if (valid && joint_overrides_editor(section, rig.names[selected_joint])) rebuild = true;
          ImGui::TreePop();
        }
        continue;
      }
      if (parameter_widget(spec, type->stage, section)) rebuild = true;
    }
    ImGui::PopID();
  }
  return rebuild;
}

}  // namespace wobble::viewer
