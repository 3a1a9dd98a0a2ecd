// The list of deformers wobble knows. A new deformer adds one entry here.
#include <algorithm>
#include <cstdlib>
#include <limits>

#include <wobble/deformer.hpp>

#include "deform/deformers.hpp"

namespace wobble {

std::span<const DeformerType> deformer_types() {
  static const std::vector<DeformerType> types = {
      {"lbs", DeformerStage::Base, "linear blend skinning", {}, make_lbs_deformer},
      {"dqs", DeformerStage::Base, "dual-quaternion skinning", {}, make_dqs_deformer},
      {"deltamush", DeformerStage::Post, "Delta Mush: smooth, then restore the rest detail in local frames",
       {{"mush-iterations", "iterations", ParameterSpec::Type::Integer, "smoothing sweeps", "10"},
        {"mush-step", "step", ParameterSpec::Type::Number, "smoothing step lambda, 0..1", "0.5"},
        {"mush-smoothing", "smoothing", ParameterSpec::Type::Text, "smoothing weights", "uniform", {"uniform", "length", "cotangent"}},
        {"mush-pin-boundary", "pin_boundary", ParameterSpec::Type::Boolean, "do not smooth open-boundary vertices"},
        {"mush-scale", "scale", ParameterSpec::Type::Number, "scale of the restored detail", "1"},
        {"mush-smooth-only", "smooth_only", ParameterSpec::Type::Boolean, "output the smoothed mesh only"},
        {"mush-mode", "mode", ParameterSpec::Type::Text, "blender reproduces Blender's Corrective Smooth, no welding", "wobble",
         {"wobble", "blender"}},
        {"mush-mask", "mask", ParameterSpec::Type::Text, "per-vertex weight attribute (_MUSH_WEIGHT if present; none: no mask)"},
        {"mush-invert-mask", "invert_mask", ParameterSpec::Type::Boolean, "use 1 - mask"}},
       make_delta_mush_deformer},
      {"ddm", DeformerStage::Post, "Direct Delta Mush (replaces linear blending; keeps earlier effects)",
       {{"ddm-variant", "variant", ParameterSpec::Type::Text, "v0 is the full model; v1, v2, v3 are cheaper", "v0",
         {"v0", "v1", "v2", "v3"}},
        {"ddm-iterations", "iterations", ParameterSpec::Type::Integer, "implicit smoothing steps p", "5"},
        {"ddm-step", "step", ParameterSpec::Type::Number, "smoothing lambda", "1"},
        {"ddm-smoothing", "smoothing", ParameterSpec::Type::Text, "smoothing weights", "uniform", {"uniform", "length", "cotangent"}},
        {"ddm-max-influences", "max_influences", ParameterSpec::Type::Integer, "smoothed joints kept per vertex", "8"},
        {"ddm-min-weight", "min_weight", ParameterSpec::Type::Number, "smoothed weights below this are dropped", "1e-4"}},
       make_direct_delta_mush_deformer},
      {"dlbs", DeformerStage::Base, "delayed linear blend skinning: joint rotations reach vertices as a wave (replaces lbs)",
       {{"wave-speed", "wave_speed", ParameterSpec::Type::Number, "wave speed c, character sizes per second", "4"},
        {"wave-speed-units", "wave_speed_units", ParameterSpec::Type::Number,
         "wave speed c in scene units per second (overrides --wave-speed)"},
        {"delay-step", "delay_step", ParameterSpec::Type::Number, "sampling step of the delays, s", "1/240"}},
       make_dlbs_deformer},
      {"dynamic", DeformerStage::Effect, "Dynamic Skinning: drag and damped oscillations from the joints' motion",
       {{"frequency", "frequency", ParameterSpec::Type::Number, "oscillation frequency f, Hz, 0 to 30", "2.5"},
        {"damping", "damping", ParameterSpec::Type::Number, "oscillation decay time tau, s", "0.3"},
        {"amplitude", "amplitude", ParameterSpec::Type::Number, "oscillation amplitude A, s", "0.25"},
        {"drag", "drag", ParameterSpec::Type::Number, "drag D, s", "0.08"},
        {"max-angle", "max_angle", ParameterSpec::Type::Number, "soft limit on the bend angle, degrees", "60"},
        {"linear-drag", "linear_drag", ParameterSpec::Type::Number,
         "drag against the joints' linear velocity, s; 0: off", "0"},
        {"bend-weight-attribute", "bend_weight_attribute", ParameterSpec::Type::Text,
         "vertex attribute with the bend weights gamma; empty: none", "_BEND_WEIGHT"},
        {"bend-weights", "bend_weights", ParameterSpec::Type::Text, "JSON array of per-vertex bend weights gamma"},
        {"dynamic-joints", "joints", ParameterSpec::Type::Text,
         "JSON object of per-joint overrides: {\"Head\": {\"amplitude_scale\": 2, \"enabled\": false, ...}}"},
        {"max-time-step", "max_time_step", ParameterSpec::Type::Number,
         "larger forward time steps (and any backward step) reset the history, s", "0.25"}},
       make_dynamic_deformer},
  };
  return types;
}

std::string describe(const ParameterSpec& spec) {
  std::string text = spec.help, extra;
  for (std::size_t i = 0; i < spec.choices.size(); ++i) extra += (i == 0 ? "one of " : ", ") + spec.choices[i];
  if (!spec.default_value.empty()) extra += (extra.empty() ? "default " : "; default ") + spec.default_value;
  return extra.empty() ? text : text + " (" + extra + ")";
}

double default_number(const ParameterSpec& spec) {
  const char* text = spec.default_value.c_str();
  char* end = nullptr;
  const double number = std::strtod(text, &end);
  if (end == text) return std::numeric_limits<double>::quiet_NaN();
  if (*end != '/') return number;
  const double denominator = std::strtod(end + 1, nullptr);
  return denominator != 0 ? number / denominator : std::numeric_limits<double>::quiet_NaN();
}

const DeformerType* find_deformer_type(std::string_view name) {
  auto types = deformer_types();
  auto found = std::find_if(types.begin(), types.end(), [&](const DeformerType& t) { return t.name == name; });
  return found == types.end() ? nullptr : &*found;
}

}  // namespace wobble
