#include "physics_script.hpp"

#include <map>
#include <set>

#include <wobble/error.hpp>
#include <wobble/regular_file.hpp>

#include "core/fail.hpp"

namespace wobble::viewer {

namespace {

constexpr std::uint64_t kMostScriptBytes = std::uint64_t(16) << 20;

using nlohmann::json;

// The keys each action may have besides "at" and "do".
const std::map<std::string, std::set<std::string>>& allowed_keys() {
  static const std::map<std::string, std::set<std::string>> keys = {{"press", {"pixel", "point"}},
                                                                    {"drag", {"pixel", "point"}},
                                                                    {"release", {}},
                                                                    {"plane", {"offset", "tilt_x", "tilt_z"}},
                                                                    {"joint", {"joint", "axis", "degrees"}},
                                                                    {"gravity", {"on"}},
                                                                    {"ball", {}},
                                                                    {"report", {}}};
  return keys;
}

bool numbers(const json& j, std::size_t count) {
  if (!j.is_array() || j.size() != count) return false;
  for (const json& v : j)
    if (!v.is_number()) return false;
  return true;
}

void check_action(const json& a, const std::string& where) {
  if (!a.is_object() || !a.contains("at") || !a["at"].is_number() || a["at"].get<double>() < 0 || !a.contains("do") ||
      !a["do"].is_string())
    fail_plain("{}: needs \"at\" (seconds, >= 0) and \"do\" (an action name)", where);
  const std::string kind = a["do"].get<std::string>();
  const auto found = allowed_keys().find(kind);
  if (found == allowed_keys().end())
    fail_plain("{}: unknown action '{}' (press, drag, release, plane, joint, gravity, ball, report)", where, kind);
  for (const auto& [key, value] : a.items()) {
    if (key == "at" || key == "do") continue;
    if (!found->second.count(key)) fail_plain("{}: '{}' takes no key '{}'", where, kind, key);
    const bool ok = key == "pixel"                    ? numbers(value, 2)
                    : key == "point" || key == "axis" ? numbers(value, 3)
                    : key == "joint"                  ? value.is_string()
                    : key == "on"                     ? value.is_boolean()
                                                      : value.is_number();
    if (!ok) fail_plain("{}: '{}' has the wrong type", where, key);
  }
  if ((kind == "press" || kind == "drag") && a.contains("pixel") == a.contains("point"))
    fail_plain("{}: '{}' needs either \"pixel\" or \"point\"", where, kind);
  if (kind == "joint" && (!a.contains("joint") || !a.contains("axis") || !a.contains("degrees")))
    fail_plain("{}: 'joint' needs \"joint\", \"axis\" and \"degrees\"", where);
}

}  // namespace

ScriptPlayer ScriptPlayer::parse(const std::string& source) {
  const bool inline_text = !source.empty() && source.find_first_not_of(" \t\r\n") != std::string::npos &&
                           source[source.find_first_not_of(" \t\r\n")] == '[';
  std::string text = source, name = "--script";
  if (!inline_text) {
    const std::vector<std::uint8_t> bytes = read_regular_file(source, "a script", kMostScriptBytes);
    text.assign(bytes.begin(), bytes.end());
    name = source;
  }
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_array()) fail_plain("{}: a script is a JSON array of actions", name);
  ScriptPlayer player;
  double last = 0;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const std::string where = name + ": action " + std::to_string(i);
    check_action(j[i], where);
    const double at = j[i]["at"].get<double>();
    if (at < last) fail_plain("{}: actions must be in order of time ({} s after {} s)", where, at, last);
    last = at;
    player.actions_.push_back({at, j[i]["do"].get<std::string>(), j[i]});
  }
  return player;
}

std::vector<ScriptAction> ScriptPlayer::take_due(double time) {
  std::vector<ScriptAction> due;
  while (next_ < actions_.size() && actions_[next_].at <= time + 1e-9) due.push_back(actions_[next_++]);
  return due;
}

}  // namespace wobble::viewer
