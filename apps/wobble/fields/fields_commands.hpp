#pragma once
// The `wobble fields` subcommands kept in files of their own.
#include "../commands.hpp"

namespace wobble::cli {

Runner add_fields_export(CLI::App& app);  // command_fields_export.cpp

}  // namespace wobble::cli
