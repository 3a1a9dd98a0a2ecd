#include "json_file.hpp"

#include <fstream>

#include <wobble/error.hpp>

namespace wobble::cli {

nlohmann::json read_json_file(const std::filesystem::path& file, std::string_view what) {
  std::ifstream in(file);
  if (!in) fail(file, "cannot open the {}", what);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& error) {
    fail(file, "not valid JSON: {}", error.what());
  }
}

}  // namespace wobble::cli
