// wobble: the command-line tool. Every failure ends with exit code 1 and one line naming the
// file and the problem.
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <wobble/error.hpp>
#include <wobble/log.hpp>

#include "commands.hpp"
#include "value_options.hpp"

namespace {

// The input the parsed subcommand was given (its first positional argument), for messages.
std::string input_of(const std::vector<std::pair<CLI::App*, wobble::cli::Runner>>& commands) {
  for (const auto& [command, runner] : commands) {
    if (!command->parsed()) continue;
    for (const CLI::Option* option : command->get_options()) {
      if (option->get_positional() && option->count() > 0) return option->results().front();
    }
    return "wobble " + command->get_name();
  }
  return "wobble";
}

}  // namespace

int main(int argc, char** argv) {
  // Messages go to stderr so that stdout carries only results (--json, paths).
  spdlog::set_default_logger(spdlog::stderr_color_mt("wobble"));
  spdlog::set_pattern("wobble: %l: %v");
  wobble::set_warning_sink([](std::string_view message) { spdlog::warn("{}", message); });  // --quiet silences them too
  CLI::App app{"wobble: secondary motion and better deformation for skinned characters"};
  app.require_subcommand(1);
  app.set_version_flag("--version", WOBBLE_VERSION_TEXT);
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "more messages");

  std::vector<std::pair<CLI::App*, wobble::cli::Runner>> commands;
  auto add = [&](const char* name, const char* description, auto adder) {
    CLI::App* command = app.add_subcommand(name, description);
    commands.emplace_back(command, adder(*command));
  };
  add("info", "describe a file: meshes, joints, clips, skin, repairs", wobble::cli::add_info_command);
  add("bake", "run a deformer stack over a clip and write the result", wobble::cli::add_bake_command);
  add("measure", "quality figures of a deformer stack over a clip (volume, detail, stretch, flips)",
      wobble::cli::add_measure_command);
  add("deformers", "every deformer with its stage and parameters (docs/parameters.md)",
      wobble::cli::add_deformers_command);
  add("batch", "many bakes from a manifest (JSON or CSV), on this machine or on a Dask cluster; resumable",
      wobble::cli::add_batch_command);
  add("decompose", "a mesh animation as bones and skin weights that any engine plays (skinning decomposition)",
      wobble::cli::add_decompose_command);
  add("simulate", "reduced-order physics on skinning subspaces (PhysSkin++ runtime)",
      wobble::cli::add_simulate_command);
#ifdef WOBBLE_HAVE_RENDER
  add("render", "render a deformer stack over a clip to PNG, a contact sheet, a PNG sequence, MP4 or GIF",
      wobble::cli::add_render_command);
#endif
#ifdef WOBBLE_HAVE_NEURAL
  add("fields", "neural skinning fields: train, infer, metrics, render (PhysSkin++)", wobble::cli::add_fields_command);
#endif

  wobble::cli::make_switches_strict(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return app.exit(error);  // --help, --version
    std::fprintf(stderr, "wobble: error: %s (see wobble --help)\n", error.what());
    return 1;
  }
  if (verbose) spdlog::set_level(spdlog::level::debug);
  try {
    for (auto& [command, runner] : commands) {
      if (command->parsed()) return runner();
    }
  } catch (const wobble::Error& error) {
    std::fprintf(stderr, "wobble: error: %s\n", error.what());
    return 1;
  } catch (const std::bad_alloc&) {
    // The readers refuse what a file cannot back (include/wobble/io/read_limits.hpp); this is the
    // last line, naming what the command was working on.
    std::fprintf(stderr, "wobble: error: %s: ran out of memory\n", input_of(commands).c_str());
    return 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "wobble: error: %s\n", error.what());
    return 1;
  }
  return 1;
}
