#pragma once
// Numeric and boolean command-line options read strictly (include/wobble/parse.hpp): the whole
// text or an error naming the flag, and a range. CLI11's own conversions take "0x10" as 16,
// "-1" as a huge unsigned count and "nan" as a number; these never do.
#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace wobble::cli {

// parse_integer for a flag, with the error as CLI11's (so that the command line's error path
// reports it). Used by add_integer_option.
std::int64_t parse_integer_flag(const std::string& text, const std::string& name, std::int64_t low, std::int64_t high);

// A real-valued option in [low, high] (fractions such as 1/240 allowed).
CLI::Option* add_real_option(CLI::App& app, const std::string& name, double& value, const std::string& help,
                             double low, double high);
// As add_real_option; unset unless given.
CLI::Option* add_real_option(CLI::App& app, const std::string& name, std::optional<double>& value,
                             const std::string& help, double low, double high);
// An integer option in [low, high].
CLI::Option* add_integer_option(CLI::App& app, const std::string& name, std::int64_t& value, const std::string& help,
                                std::int64_t low, std::int64_t high);
template <typename Integer>
CLI::Option* add_integer_option(CLI::App& app, const std::string& name, Integer& value, const std::string& help,
                                std::int64_t low, std::int64_t high) {
  auto* option = app.add_option_function<std::string>(
      name, [&value, name, low, high](const std::string& text) { value = static_cast<Integer>(parse_integer_flag(text, name, low, high)); },
      help);
  return option->type_name("INT")->default_str(std::to_string(value));
}
template <typename Integer>
CLI::Option* add_integer_option(CLI::App& app, const std::string& name, std::optional<Integer>& value,
                                const std::string& help, std::int64_t low, std::int64_t high) {
  auto* option = app.add_option_function<std::string>(
      name, [&value, name, low, high](const std::string& text) { value = static_cast<Integer>(parse_integer_flag(text, name, low, high)); },
      help);
  return option->type_name("INT");
}
// Makes every switch (CLI11 flag) of `app` and its subcommands strict: --flag alone is true,
// --flag=VALUE takes only what parse_boolean reads (true/false, yes/no, on/off, 1/0); CLI11 alone
// would take "--json=2" as true.
void make_switches_strict(CLI::App& app);


}  // namespace wobble::cli
