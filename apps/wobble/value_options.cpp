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

// The problem `check(text)` finds (it throws Error "FLAG: problem"), without "FLAG: ": CLI11 puts
// the flag in front of a validator's message itself.
std::string problem_of(const std::function<void(const std::string&)>& check, const std::string& text,
                       const std::string& flag) {
  try {
    check(text);
  } catch (const Error& error) {
    const std::string message = error.what();
    return message.rfind(flag + ": ", 0) == 0 ? message.substr(flag.size() + 2) : message;
  }
  return {};
}

}  // namespace

CLI::Option* add_strict_option(CLI::App& app, const std::string& name, const std::string& help, const char* type,
                               std::function<void(const std::string&)> check,
                               std::function<void(const std::string&)> read) {
  const std::string flag = flag_of(name);
  CLI::Option* option = app.add_option_function<std::string>(name, std::move(read), help);
  option->check(
      CLI::Validator([check, flag](std::string& text) { return problem_of(check, text, flag); }, "", kStrictValue));
  return option->type_name(type);
}

CLI::Option* add_real_option(CLI::App& app, const std::string& name, double& value, const std::string& help, double low,
                             double high) {
  const std::string flag = flag_of(name);
  auto check = [flag, low, high](const std::string& text) { parse_real(text, flag, low, high); };
  return add_strict_option(app, name, help, kRealType, check,
                           [&value, flag](const std::string& text) { value = parse_real(text, flag); })
      ->default_str(format_real(value));
}

CLI::Option* add_real_option(CLI::App& app, const std::string& name, std::optional<double>& value,
                             const std::string& help, double low, double high) {
  const std::string flag = flag_of(name);
  auto check = [flag, low, high](const std::string& text) { parse_real(text, flag, low, high); };
  return add_strict_option(app, name, help, kRealType, check,
                           [&value, flag](const std::string& text) { value = parse_real(text, flag); });
}

CLI::Option* add_integer_option(CLI::App& app, const std::string& name, const std::string& help, std::int64_t low,
                                std::int64_t high, std::function<void(std::int64_t)> store) {
  const std::string flag = flag_of(name);
  auto check = [flag, low, high](const std::string& text) { parse_integer(text, flag, low, high); };
  return add_strict_option(app, name, help, kIntegerType, check,
                           [store, flag](const std::string& text) { store(parse_integer(text, flag)); });
}

std::function<std::string(const std::string&)> strict_value_check(CLI::Option& option) {
  CLI::Validator* validator = nullptr;
  try {
    validator = option.get_validator(kStrictValue);
  } catch (const CLI::OptionNotFound&) {
    return nullptr;
  }
  return [check = *validator](const std::string& text) {
    std::string copy = text;
    return check(copy);
  };
}

void make_switches_strict(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_expected_min() != 0 || option->get_positional() || option->get_name() == "--help" ||
        option->get_name() == "--version")
      continue;
    const std::string flag = flag_of(option->get_name());
    auto check = [flag](const std::string& text) {
      if (!text.empty()) parse_boolean(text, flag);
    };
    option->check(CLI::Validator(
        [check, flag](std::string& text) {
          const std::string problem = problem_of(check, text, flag);
          if (problem.empty() && !text.empty()) text = parse_boolean(text, flag) ? "true" : "false";
          return problem;
        },
        "", "strict switch"));
  }
  for (CLI::App* command : app.get_subcommands({})) make_switches_strict(*command);
}

}  // namespace wobble::cli
