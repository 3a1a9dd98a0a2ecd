#pragma once
// The options of `wobble bake` that a batch manifest may set, read from the bake command itself
// (its CLI11 definition), so that every bake option is a manifest key without being declared
// twice. The key is the long flag with '-' written as '_' (--max-time-step: max_time_step).
// Left out: IN and -o (the manifest's "input" and "output"), --settings (the manifest's
// "settings"), --quiet, --help, and the deformer parameters' flags: deformer parameters go in
// "settings", one section per deformer, as in a settings file.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace wobble::cli {

struct BakeOption {
  enum class Kind { Number, Integer, Count, Text, Switch };  // Count: a non-negative integer
  std::string key;                                           // manifest key: "fps", "end", "threads"
  std::string flag;                                          // bake's long flag without dashes: "fps"
  Kind kind = Kind::Text;
  // The flag's own strict check of a value's text (value_options.hpp): the problem, or "".
  std::function<std::string(const std::string&)> check;
};

const std::vector<BakeOption>& bake_options_for_manifests();
const BakeOption* find_bake_option(std::string_view key);
// Flags that belong to deformer parameters (they are not manifest keys; named in messages).
bool is_deformer_parameter_flag(std::string_view key);

// The text passed as --FLAG=TEXT for a JSON value, or nullopt for a switch set to false. Throws
// Error("WHAT: expected a number, got \"30fps\"") for a value of the wrong type, and the flag's
// own message for one it refuses ("WHAT: -1 is out of range [1, 1024]").
std::optional<std::string> bake_option_text(const BakeOption& option, const nlohmann::json& value,
                                            const std::string& what);
// The same for a cell of a CSV manifest, read with include/wobble/parse.hpp.
std::optional<std::string> bake_option_text(const BakeOption& option, const std::string& cell, const std::string& what);

}  // namespace wobble::cli
