// Python's physics keyword arguments: the keys of physics_description() (settings.hpp), or the
// CLI's flag spellings (youngs, poisson), checked by the description as `wobble simulate` checks
// its flags.
#include <wobble/physics/settings.hpp>

#include "bindings.hpp"
#include "core/fail.hpp"

namespace wobble::python {

namespace {

// The setting a keyword names: its key, or its flag with '_' for '-'.
const ParameterDescription* setting_named(const std::string& name) {
  for (const ParameterDescription& p : physics::physics_description().parameters) {
    std::string flag = p.flag;
    for (char& c : flag) c = c == '-' ? '_' : c;
    if (p.key == name || flag == name) return &p;
  }
  return nullptr;
}

// gravity: a number along -y (m/s^2), a 3-vector, or None for none.
nlohmann::json gravity_json(py::handle g, const std::string& where) {
  if (g.is_none()) return nlohmann::json::array({0.0, 0.0, 0.0});
  const nlohmann::json j = to_json(g, where);
  if (j.is_number()) return nlohmann::json::array({0.0, -j.get<double>(), 0.0});
  return j;
}

}  // namespace

physics::Settings physics_settings(const py::kwargs& kwargs, const std::string& where,
                                   const std::function<bool(std::string_view key)>& allowed) {
  DeformerSettings settings(physics::physics_description());  // the defaults
  for (auto [name_object, value] : kwargs) {
    const std::string name = py::str(name_object).cast<std::string>(), at = where + ": " + name;
    const ParameterDescription* p = setting_named(name);
    if (!p || !allowed(p->key)) fail_plain("{}: unknown keyword (see docs/physics-parameters.md)", at);
    const nlohmann::json j = p->key == "gravity" ? gravity_json(value, at) : to_json(value, at);
    settings.set(p->key, parameter_from_json(*p, j.dump(), at), at);
  }
  return settings.as<physics::Settings>();
}

std::string physics_settings_doc(const std::function<bool(std::string_view key)>& allowed) {
  std::string text;
  for (const ParameterDescription& p : physics::physics_description().parameters)
    if (allowed(p.key)) text += "\n  " + p.key + (p.flag != p.key ? " (or " + p.flag + ")" : "") + ": " + p.describe();
  return text;
}

}  // namespace wobble::python
