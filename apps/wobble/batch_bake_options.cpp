#include "batch_bake_options.hpp"

#include <algorithm>

#include <CLI/CLI.hpp>

#include <wobble/error.hpp>
#include <wobble/parse.hpp>

#include "core/json_values.hpp"

#include "commands.hpp"
#include "core/fail.hpp"
#include "value_options.hpp"

namespace wobble::cli {

namespace {

constexpr const char* kDeformerParameterGroup = "Deformer parameters";  // deformer_options.cpp

BakeOption::Kind kind_of(const CLI::Option& option) {
  if (option.get_type_size() == 0) return BakeOption::Kind::Switch;
  const std::string type = option.get_type_name().substr(0, option.get_type_name().find(':'));
  if (type == "FLOAT" || type == "NUMBER" || type == kRealType) return BakeOption::Kind::Number;
  if (type == kIntegerType) return BakeOption::Kind::Integer;
  if (type == "UINT") return BakeOption::Kind::Count;
  return BakeOption::Kind::Text;
}

std::string key_of(std::string flag) {
  std::replace(flag.begin(), flag.end(), '-', '_');
  return flag;
}

struct BakeFlags {
  std::vector<BakeOption> options;
  std::vector<std::string> deformer_parameters;  // manifest-style keys of the parameter flags
};

const BakeFlags& bake_flags() {
  static const BakeFlags flags = [] {
    BakeFlags out;
    CLI::App bake;
    add_bake_command(bake);  // only its option definitions are read; the runner is dropped
    for (CLI::Option* option : bake.get_options()) {
      if (option->get_lnames().empty()) continue;  // IN
      const std::string& flag = option->get_lnames().front();
      if (option->get_group() == kDeformerParameterGroup) {
        out.deformer_parameters.push_back(key_of(flag));
        continue;
      }
      if (flag == "help" || flag == "output" || flag == "settings" || flag == "quiet") continue;
      out.options.push_back({key_of(flag), flag, kind_of(*option), strict_value_check(*option)});
    }
    return out;
  }();
  return flags;
}

// `text` once the flag's own check has passed it.
std::string checked(const BakeOption& option, std::string text, const std::string& what) {
  if (option.check) {
    if (const std::string problem = option.check(text); !problem.empty()) fail_plain("{}: {}", what, problem);
  }
  return text;
}

}  // namespace

const std::vector<BakeOption>& bake_options_for_manifests() { return bake_flags().options; }

const BakeOption* find_bake_option(std::string_view key) {
  for (const BakeOption& option : bake_flags().options) {
    if (option.key == key) return &option;
  }
  return nullptr;
}

bool is_deformer_parameter_flag(std::string_view key) {
  const auto& names = bake_flags().deformer_parameters;
  return std::find(names.begin(), names.end(), key) != names.end();
}

std::optional<std::string> bake_option_text(const BakeOption& option, const nlohmann::json& value,
                                            const std::string& what) {
  switch (option.kind) {
    case BakeOption::Kind::Number:
      if (value.is_number()) return checked(option, format_real(value.get<double>()), what);
      fail_plain("{}: expected a number, got {}", what, describe_json(value));
    case BakeOption::Kind::Integer:
      if (value.is_number_integer()) return checked(option, value.dump(), what);
      fail_plain("{}: expected an integer, got {}", what, describe_json(value));
    case BakeOption::Kind::Count:
      if (value.is_number_unsigned()) return checked(option, value.dump(), what);
      fail_plain("{}: expected a non-negative integer, got {}", what, describe_json(value));
    case BakeOption::Kind::Text:
      if (value.is_string()) return value.get<std::string>();
      if (value.is_number_unsigned()) return value.dump();  // "clip": 2 is the clip at index 2
      fail_plain("{}: expected a string, got {}", what, describe_json(value));
    case BakeOption::Kind::Switch:
      if (!value.is_boolean()) fail_plain("{}: expected true or false, got {}", what, describe_json(value));
      return value.get<bool>() ? std::optional<std::string>("") : std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> bake_option_text(const BakeOption& option, const std::string& cell,
                                            const std::string& what) {
  switch (option.kind) {
    case BakeOption::Kind::Number: return format_real(parse_real(checked(option, cell, what), what));
    case BakeOption::Kind::Integer: return std::to_string(parse_integer(checked(option, cell, what), what));
    case BakeOption::Kind::Count: return std::to_string(parse_integer(checked(option, cell, what), what, 0));
    case BakeOption::Kind::Text: return cell;
    case BakeOption::Kind::Switch: return parse_boolean(cell, what) ? std::optional<std::string>("") : std::nullopt;
  }
  return std::nullopt;
}

}  // namespace wobble::cli
