#include "test_util.hpp"

#include <algorithm>
#include <cctype>
#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>
#include <sys/wait.h>

namespace wobble::test {

std::filesystem::path shared_asset(const std::string& relative) {
  return std::filesystem::path(WOBBLE_SHARED_ASSETS) / relative;
}
std::filesystem::path bundled_asset(const std::string& relative) {
  return std::filesystem::path(WOBBLE_BUNDLED_ASSETS) / relative;
}
std::filesystem::path assimp_model(const std::string& relative) {
  return std::filesystem::path("/usr/share/assimp/models") / relative;
}

ScratchDir::ScratchDir() {
  std::random_device device;
  path_ = std::filesystem::temp_directory_path() / ("wobble-test-" + std::to_string(device()));
  std::filesystem::create_directories(path_);
}
ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

CommandResult run_command(const std::string& command_line) {
  CommandResult result;
  FILE* pipe = popen(("( " + command_line + " ) 2>&1").c_str(), "r");
  if (!pipe) return result;
  std::array<char, 4096> buffer;
  while (std::fgets(buffer.data(), buffer.size(), pipe)) result.output += buffer.data();
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

CommandResult run_wobble(const std::string& arguments) {
  return run_command(std::string(WOBBLE_CLI) + " " + arguments);
}

CommandResult validate_gltf(const std::filesystem::path& file) {
  const auto script = std::filesystem::path(WOBBLE_SOURCE_DIR) / "tools/gltf-validator/validate.mjs";
  return run_command("node '" + script.string() + "' '" + file.string() + "'");
}

std::vector<char> read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::filesystem::path& file, const std::string& bytes) {
  std::ofstream out(file, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string shell_quoted(const std::filesystem::path& p) {
  std::string text = "'";  // appended, not "'" + p.string(): GCC 12's -Wrestrict misfires on that
  text += p.string();
  text += "'";
  return text;
}

std::string parameter_name(std::string text) {
  for (char& c : text)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return text;
}

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace wobble::test
