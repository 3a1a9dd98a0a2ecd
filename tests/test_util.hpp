#pragma once
// Helpers shared by the tests: asset paths, scratch folders, running the CLI and the validator.
#include <filesystem>
#include <string>
#include <vector>

#include <wobble/error.hpp>
#include <wobble/math.hpp>

#include "runtime/error_of.hpp"  // error_of

namespace wobble::test {

// ../shared/assets/<relative> (the workplace's shared test assets).
std::filesystem::path shared_asset(const std::string& relative);
// <build>/assets/<relative>: assets bundled with wobble, unpacked by the build from assets/*.xz.
std::filesystem::path bundled_asset(const std::string& relative);
// Debian's assimp-testmodels: /usr/share/assimp/models/<relative>.
std::filesystem::path assimp_model(const std::string& relative);

// A fresh empty folder under the system temp folder, removed at destruction.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};
// Runs a shell command line, capturing its output.
CommandResult run_command(const std::string& command_line);
// Runs the wobble CLI with the given arguments (shell-quoted by the caller where needed).
CommandResult run_wobble(const std::string& arguments);
// A path in single quotes, for a command line (the tests' paths hold no quote).
std::string shell_quoted(const std::filesystem::path& p);
// The number of '\n' in a command's output.
std::size_t count_lines(const std::string& text);
// Runs the Khronos glTF validator on a file; exit_code 0 means no errors.
CommandResult validate_gltf(const std::filesystem::path& file);

// A GoogleTest parameter name made of any text: what is not a letter or a digit becomes '_'.
std::string parameter_name(std::string text);

std::vector<char> read_bytes(const std::filesystem::path& file);
void write_bytes(const std::filesystem::path& file, const std::string& bytes);

}  // namespace wobble::test
