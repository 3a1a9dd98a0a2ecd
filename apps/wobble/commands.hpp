#pragma once
// The wobble command's subcommands. Each registers its options on the CLI11 app and returns the
// function that runs it.
#include <functional>

#include <CLI/CLI.hpp>

namespace wobble::cli {

using Runner = std::function<int()>;

Runner add_info_command(CLI::App& app);
Runner add_bake_command(CLI::App& app);
Runner add_measure_command(CLI::App& app);
Runner add_simulate_command(CLI::App& app);
Runner add_deformers_command(CLI::App& app);
Runner add_batch_command(CLI::App& app);  // command_batch.cpp, batch_*.cpp
Runner add_decompose_command(CLI::App& app);
#ifdef WOBBLE_HAVE_RENDER
Runner add_render_command(CLI::App& app);  // apps/wobble/render/ (cmake/render.cmake)
#endif
#ifdef WOBBLE_HAVE_NEURAL
Runner add_fields_command(CLI::App& app);  // apps/wobble/fields/ (cmake/neural.cmake)
#endif

}  // namespace wobble::cli
