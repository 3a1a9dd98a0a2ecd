#pragma once
// Numeric and boolean command-line options read strictly (include/wobble/parse.hpp): the whole
// text or an error naming the flag, and a range. CLI11's own conversions take "0x10" as 16,
// "-1" as a huge unsigned count and "nan" as a number; these never do.
//
// The check runs as a CLI11 validator named kStrictValue, so that what builds commands from
// another source (batch manifests: batch_bake_options.cpp) checks values exactly as the flag does.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace wobble::cli {

inline constexpr const char* kStrictValue = "strict value";  // the validator's name
inline constexpr const char* kRealType = "REAL";             // the options' CLI11 type names
inline constexpr const char* kIntegerType = "INT";

// An option whose text `check` checks strictly (it throws Error "FLAG: problem") and `read` then
// takes; `type` is its CLI11 type name (kRealType, kIntegerType: what a batch manifest expects).
CLI::Option* add_strict_option(CLI::App& app, const std::string& name, const std::string& help, const char* type,
                               std::function<void(const std::string&)> check,
                               std::function<void(const std::string&)> read);

// A real-valued option in [low, high] (fractions such as 1/240 allowed).
CLI::Option* add_real_option(CLI::App& app, const std::string& name, double& value, const std::string& help, double low,
                             double high);
// As add_real_option; unset unless given.
CLI::Option* add_real_option(CLI::App& app, const std::string& name, std::optional<double>& value,
                             const std::string& help, double low, double high);

// An integer option in [low, high]; `store` receives the value read.
CLI::Option* add_integer_option(CLI::App& app, const std::string& name, const std::string& help, std::int64_t low,
                                std::int64_t high, std::function<void(std::int64_t)> store);
template <typename Integer>
CLI::Option* add_integer_option(CLI::App& app, const std::string& name, Integer& value, const std::string& help,
                                std::int64_t low, std::int64_t high) {
  return add_integer_option(app, name, help, low, high, [&value](std::int64_t v) { value = static_cast<Integer>(v); })
      ->default_str(std::to_string(value));
}
template <typename Integer>
CLI::Option* add_integer_option(CLI::App& app, const std::string& name, std::optional<Integer>& value,
                                const std::string& help, std::int64_t low, std::int64_t high) {
  return add_integer_option(app, name, help, low, high, [&value](std::int64_t v) { value = static_cast<Integer>(v); });
}

// The strict check of an option made here, as a function of a value's text: the problem without
// the flag's name ("-1 is out of range [1, 1024]"), or "" when the text is fine. Null for an
// option that has no such check.
std::function<std::string(const std::string&)> strict_value_check(CLI::Option& option);

// Makes every switch (CLI11 flag) of `app` and its subcommands strict: --flag alone is true,
// --flag=VALUE takes only what parse_boolean reads (true/false, yes/no, on/off, 1/0); CLI11 alone
// would take "--json=2" as true.
void make_switches_strict(CLI::App& app);

}  // namespace wobble::cli
