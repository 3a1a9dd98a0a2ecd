// wobble deformers [--json | --markdown]: every deformer with its stage and parameters, from the
// deformers' own descriptions (docs/parameters.md is the --markdown output).
#include <fmt/core.h>

#include <wobble/parameters.hpp>

#include "commands.hpp"

namespace wobble::cli {

namespace {

void print_text() {
  for (const DeformerDescription* d : deformer_descriptions()) {
    fmt::print("{} ({}): {}\n", d->name, to_string(d->stage), d->summary);
    for (const ParameterDescription& p : d->parameters) {
      fmt::print("  {:<22} {:<24} {}\n", p.key, p.flag.empty() ? "" : "--" + p.flag, p.describe());
      for (const ParameterDescription& f : p.fields) fmt::print("    .JOINT.{:<16} {}\n", f.key, f.describe());
    }
  }
}

}  // namespace

Runner add_deformers_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto markdown = std::make_shared<bool>(false);
  app.add_flag("--json", *json, "print the descriptions as JSON");
  app.add_flag("--markdown", *markdown, "print docs/parameters.md");
  return [json, markdown] {
    if (*json)
      fmt::print("{}\n", deformer_descriptions_json());
    else if (*markdown)
      fmt::print("{}", deformer_descriptions_markdown());
    else
      print_text();
    return 0;
  };
}

}  // namespace wobble::cli
