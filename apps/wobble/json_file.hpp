#pragma once
// Reading a JSON file people wrote: an Error naming the file when it cannot be opened ("cannot
// open the WHAT") or is not JSON ("not valid JSON: ...").
#include <filesystem>
#include <string_view>

#include <nlohmann/json.hpp>

namespace wobble::cli {

nlohmann::json read_json_file(const std::filesystem::path& file, std::string_view what);

}  // namespace wobble::cli
