#include "value_options.hpp"

#include <wobble/error.hpp>
#include <wobble/parse.hpp>

namespace wobble::cli {

namespace {

// The first long name of an option ("-o,--output" -> "--output"), for messages.
std::string flag_of(const std::string& names) {
  std::string flag = names.substr(0, names.find(','));
  const std::size_t comma = names.find(",--");
  if (comma != std::string::npos) flag = names.substr(comma + 1);
  return flag;
}

// Runs a strict parse; its Error becomes a CLI11 validation error (one line, exit 1).
template <typename Parse>
auto as_cli_error(Parse parse) {
  try {
    return parse();
  } catch (const Error& error) {
    throw CLI::ValidationError(error.what());
  }
}

}  // namespace

std::int64_t parse_integer_flag(const std::string& text, const std::string& name, std::int64_t low, std::int64_t high) {
  return as_cli_error([&] { return parse_integer(text, flag_of(name), low, high); });
}

CLI::Option* add_real_option(CLI::App& app, const std::string& name, double& value, const std::string& help,
                             double low, double high) {
  const std::string flag = flag_of(name);
  auto* option = app.add_option_function<std::string>(
      name, [&value, flag, low, high](const std::string& text) {
        value = as_cli_error([&] { return parse_real(text, flag, low, high); });
      },
      help);
  return option->type_name("REAL")->default_str(format_real(value));
}

CLI::Option* add_real_option(CLI::App& app, const std::string& name, std::optional<double>& value,
                             const std::string& help, double low, double high) {
  const std::string flag = flag_of(name);
  auto* option = app.add_option_function<std::string>(
      name, [&value, flag, low, high](const std::string& text) {
        value = as_cli_error([&] { return parse_real(text, flag, low, high); });
      },
      help);
  return option->type_name("REAL");
}

CLI::Option* add_integer_option(CLI::App& app, const std::string& name, std::int64_t& value, const std::string& help,
                                std::int64_t low, std::int64_t high) {
  return add_integer_option<std::int64_t>(app, name, value, help, low, high);
}

void make_switches_strict(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_expected_min() != 0 || option->get_positional() || option->get_name() == "--help" || option->get_name() == "--version") continue;
    const std::string flag = flag_of(option->get_name());
    option->check(CLI::Validator(
        [flag](std::string& text) -> std::string {
          try {
            if (!text.empty()) text = parse_boolean(text, flag) ? "true" : "false";
          } catch (const Error& error) {
            // CLI11 puts the flag in front of a validator's message itself.
            const std::string message = error.what();
            return message.rfind(flag + ": ", 0) == 0 ? message.substr(flag.size() + 2) : message;
          }
          return {};
        },
        "", "strict switch"));
  }
  for (CLI::App* command : app.get_subcommands({})) make_switches_strict(*command);
}

}  // namespace wobble::cli
