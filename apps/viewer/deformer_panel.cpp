#include "deformer_panel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <imgui.h>
#include <imgui_stdlib.h>

#include <wobble/error.hpp>
#include <wobble/rig.hpp>

namespace wobble::viewer {
namespace {

// The allowed range as slider limits (an open end moves inside by one step of double).
std::pair<double, double> clamp_range(const ParameterDescription& p) {
  double low = std::isfinite(p.minimum) ? p.minimum : -1e300, high = std::isfinite(p.maximum) ? p.maximum : 1e300;
  if (p.minimum_exclusive) low = std::nextafter(low, high);
  if (p.maximum_exclusive) high = std::nextafter(high, low);
  return {low, high};
}

void tooltip(const ParameterDescription& p) {
  if (!ImGui::IsItemHovered()) return;
  if (p.flag.empty())
    ImGui::SetTooltip("%s", p.describe().c_str());
  else
    ImGui::SetTooltip("--%s: %s", p.flag.c_str(), p.describe().c_str());
}

std::optional<ParameterValue> number_widget(const ParameterDescription& p, double value) {
  const char* label = p.key.c_str();
  if (p.lifetime == Lifetime::Bind) {
    if (ImGui::InputDouble(label, &value, 0, 0, "%.6g", ImGuiInputTextFlags_EnterReturnsTrue)) return value;
    return std::nullopt;
  }
  const auto [low, high] = clamp_range(p);
  const double speed = std::max(1e-6, (p.slider_maximum() - p.slider_minimum()) / 300);
  if (ImGui::DragScalar(label, ImGuiDataType_Double, &value, static_cast<float>(speed), &low, &high, "%.4g",
                        ImGuiSliderFlags_AlwaysClamp)) {
    return value;
  }
  return std::nullopt;
}

std::optional<ParameterValue> integer_widget(const ParameterDescription& p, std::int64_t value) {
  const char* label = p.key.c_str();
  if (p.lifetime == Lifetime::Bind) {
    if (ImGui::InputScalar(label, ImGuiDataType_S64, &value, nullptr, nullptr, "%lld",
                           ImGuiInputTextFlags_EnterReturnsTrue)) {
      return value;
    }
    return std::nullopt;
  }
  const auto [low_d, high_d] = clamp_range(p);
  const std::int64_t low = static_cast<std::int64_t>(std::max(low_d, -9e18)),
                     high = static_cast<std::int64_t>(std::min(high_d, 9e18));
  if (ImGui::DragScalar(label, ImGuiDataType_S64, &value, 0.1f, &low, &high, "%lld", ImGuiSliderFlags_AlwaysClamp)) {
    return value;
  }
  return std::nullopt;
}

std::optional<ParameterValue> choice_widget(const ParameterDescription& p, const std::string& value) {
  std::optional<ParameterValue> chosen;
  if (ImGui::BeginCombo(p.key.c_str(), value.c_str())) {
    for (const std::string& choice : p.choices) {
      if (ImGui::Selectable(choice.c_str(), choice == value)) chosen = choice;
    }
    ImGui::EndCombo();
  }
  return chosen;
}

std::optional<ParameterValue> vector_widget(const ParameterDescription& p, std::array<double, 3> value) {
  const auto [low, high] = clamp_range(p);
  const double speed = std::max(1e-6, (p.slider_maximum() - p.slider_minimum()) / 300);
  if (ImGui::DragScalarN(p.key.c_str(), ImGuiDataType_Double, value.data(), 3, static_cast<float>(speed), &low, &high,
                         "%.3f", ImGuiSliderFlags_AlwaysClamp)) {
    return value;
  }
  return std::nullopt;
}

std::optional<ParameterValue> vertex_widget(const ParameterDescription& p, const VertexValues& value) {
  const std::string shown = !value.values.empty()      ? std::to_string(value.values.size()) + " values"
                            : !value.attribute.empty() ? "attribute " + value.attribute
                                                       : "none";
  ImGui::Text("%s: %s", p.key.c_str(), shown.c_str());
  if (value == std::get<VertexValues>(p.default_value)) return std::nullopt;
  ImGui::SameLine();
  if (ImGui::SmallButton("default")) return p.default_value;
  return std::nullopt;
}

// One parameter's widget: the new value when the user changed it.
std::optional<ParameterValue> value_widget(const ParameterDescription& p, const ParameterValue& value) {
  switch (p.type) {
    case ParameterType::Number: return number_widget(p, std::get<double>(value));
    case ParameterType::Integer: return integer_widget(p, std::get<std::int64_t>(value));
    case ParameterType::Boolean: {
      bool on = std::get<bool>(value);
      if (ImGui::Checkbox(p.key.c_str(), &on)) return on;
      return std::nullopt;
    }
    case ParameterType::Choice: return choice_widget(p, std::get<std::string>(value));
    case ParameterType::Text: {
      std::string text = std::get<std::string>(value);
      if (ImGui::InputText(p.key.c_str(), &text, ImGuiInputTextFlags_EnterReturnsTrue)) return text;
      return std::nullopt;
    }
    case ParameterType::Vector3: return vector_widget(p, std::get<std::array<double, 3>>(value));
    case ParameterType::VertexArray: return vertex_widget(p, std::get<VertexValues>(value));
    case ParameterType::JointTable: return std::nullopt;  // joint_entry_editor
  }
  return std::nullopt;
}

// Sets a value, keeping a refused one's message; true when it was taken.
bool try_set(DeformerSettings& settings, const std::string& key, const ParameterValue& value, std::string& error) {
  try {
    settings.set(key, value, settings.description().name + "." + key);
    return true;
  } catch (const Error& e) {
    error = e.what();
    return false;
  }
}

// A nested field: optional ones get an "override" switch (off: the global value).
bool field_row(const ParameterDescription& field, const ParameterValue& global, NamedValue*& current,
               std::vector<NamedValue>& values) {
  ImGui::PushID(field.key.c_str());
  bool changed = false;
  if (field.optional) {
    bool on = current != nullptr;
    if (ImGui::Checkbox("##override", &on)) {
      if (on)
        values.push_back({field.key, global});
      else
        std::erase_if(values, [&](const NamedValue& v) { return v.key == field.key; });
      changed = true;
    }
    ImGui::SameLine();
    if (!on) {
      ImGui::TextDisabled("%s (global)", field.key.c_str());
      ImGui::PopID();
      return changed;
    }
    if (changed) {
      ImGui::PopID();
      return true;
    }
  }
  const ParameterValue value = current ? current->value : field.default_value;
  if (const std::optional<ParameterValue> next = value_widget(field, value); next && !(*next == value)) {
    if (current)
      current->value = *next;
    else
      values.push_back({field.key, *next});
    changed = true;
  }
  tooltip(field);
  ImGui::PopID();
  return changed;
}

bool stack_choice(StackEditor& editor) {
  bool changed = false;
  const std::string base = editor.base();
  if (ImGui::BeginCombo("base skinning", base.empty() ? "(none)" : base.c_str())) {
    for (const DeformerDescription* d : deformer_descriptions()) {
      if (d->stage == DeformerStage::Base && ImGui::Selectable(d->name.c_str(), d->name == base)) {
        editor.set_base(d->name);
        changed = true;
      }
    }
    ImGui::EndCombo();
  }
  for (const DeformerDescription* d : deformer_descriptions()) {
    if (d->stage == DeformerStage::Base) continue;
    bool on = editor.contains(d->name);
    if (ImGui::Checkbox(d->name.c_str(), &on)) editor.set_enabled(d->name, on), changed = true;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", d->summary.c_str());
  }
  ImGui::Text("stack: %s", editor.spec().c_str());
  return changed;
}

}  // namespace

bool parameter_row(const ParameterDescription& p, DeformerSettings& settings, std::string& error) {
  if (const Keys* keys = settings.keys(p.key)) {
    ImGui::TextDisabled("%s: keyed (%zu keys)", p.key.c_str(), keys->points.size());
    tooltip(p);
    return false;
  }
  const ParameterValue value = settings.get(p.key);
  const std::optional<ParameterValue> next = value_widget(p, value);
  tooltip(p);
  bool changed = next && !(*next == value) && try_set(settings, p.key, *next, error);
  if (!(value == p.default_value) && ImGui::BeginPopupContextItem(p.key.c_str())) {
    if (ImGui::Selectable("reset to default")) changed = try_set(settings, p.key, p.default_value, error) || changed;
    ImGui::EndPopup();
  }
  return changed;
}

bool joint_entry_editor(const ParameterDescription& table, DeformerSettings& settings, const std::string& joint,
                        std::string& error) {
  JointTable entries = std::get<JointTable>(settings.get(table.key));
  auto entry = std::find_if(entries.begin(), entries.end(), [&](const JointEntry& e) { return e.joint == joint; });
  std::vector<NamedValue> values = entry == entries.end() ? std::vector<NamedValue>{} : entry->values;
  bool changed = false;
  ImGui::PushID(joint.c_str());
  for (const ParameterDescription& field : table.fields) {
    auto found = std::find_if(values.begin(), values.end(), [&](const NamedValue& v) { return v.key == field.key; });
    NamedValue* current = found == values.end() ? nullptr : &*found;
    const DeformerDescription& deformer = settings.description();
    const ParameterValue global = deformer.find(field.key) ? settings.get(field.key) : field.default_value;
    if (field_row(field, global, current, values)) changed = true;
  }
  if (!values.empty() && ImGui::Button("clear this joint's overrides")) values.clear(), changed = true;
  ImGui::PopID();
  if (!changed) return false;
  if (entry != entries.end()) entries.erase(entry);
  if (!values.empty()) entries.push_back({joint, values});
  return try_set(settings, table.key, entries, error);
}

PanelChange deformer_panel(StackEditor& editor, const Rig& rig, int selected_joint, std::string& error) {
  PanelChange change = stack_choice(editor) ? PanelChange::Stack : PanelChange::None;
  for (const std::string& name : editor.deformers()) {
    const DeformerDescription* d = find_deformer(name);
    if (!d || d->parameters.empty()) continue;
    if (!ImGui::CollapsingHeader(name.c_str(), ImGuiTreeNodeFlags_DefaultOpen)) continue;
    ImGui::PushID(name.c_str());
    DeformerSettings& settings = editor.settings().section(name);
    bool changed = false;
    for (const ParameterDescription& p : d->parameters) {
      if (p.type != ParameterType::JointTable) {
        changed = parameter_row(p, settings, error) || changed;
        continue;
      }
      const bool valid = selected_joint >= 0 && selected_joint < static_cast<int>(rig.joint_count());
      if (ImGui::TreeNode(p.key.c_str(), "%s: %s", p.key.c_str(),
                          valid ? rig.names[selected_joint].c_str() : "(click a joint)")) {
        if (valid) changed = joint_entry_editor(p, settings, rig.names[selected_joint], error) || changed;
        ImGui::TreePop();
      }
    }
    if (changed && change == PanelChange::None) change = PanelChange::Settings;
    ImGui::PopID();
  }
  return change;
}

}  // namespace wobble::viewer
