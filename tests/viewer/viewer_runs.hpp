#pragma once
// Running wobble-viewer under a virtual X display (xvfb-run, Mesa llvmpipe) from the tests:
// a scratch folder per test process (removed after the last test), the viewer's exit code and
// output, its screenshots decoded, and the share of pixels two pictures differ in.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <wobble/io/image.hpp>

namespace wobble::test {

inline std::filesystem::path viewer_scratch(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("wobble_viewer_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

// A path in single quotes for a command line, appended: GCC 12 warns falsely (-Wrestrict) on "'" + string.
inline std::string quoted(const std::filesystem::path& path) {
  std::string text = "'";
  text += path.string();
  text += '\'';
  return text;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Runs the viewer under xvfb-run; returns its exit code, output in `log`.
inline int run_viewer(const std::string& arguments, std::string& log) {
  const std::filesystem::path out = viewer_scratch("log.txt");
  const std::string command =
      "xvfb-run -a -s '-screen 0 1280x720x24' '" WOBBLE_VIEWER "' " + arguments + " > '" + out.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  log = read_text(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A 480 x 320 picture without the interface; the viewer's output in `log_out` when given.
inline RgbaImage screenshot(const std::string& name, const std::string& arguments, std::string* log_out = nullptr) {
  const std::filesystem::path png = viewer_scratch(name + ".png");
  std::filesystem::remove(png);
  std::string log;
  const int code = run_viewer(arguments + " --no-ui --size 480x320 --screenshot '" + png.string() + "'", log);
  EXPECT_EQ(code, 0) << log;
  if (log_out) *log_out = log;
  if (code != 0 || !std::filesystem::exists(png)) return {};
  const std::string bytes = read_text(png);
  return decode_image(std::vector<std::uint8_t>(bytes.begin(), bytes.end()), png.string());
}

// Share of pixels that differ between two pictures of the same size by more than `tolerance`.
inline double changed_share(const RgbaImage& a, const RgbaImage& b, int tolerance = 24) {
  if (a.width != b.width || a.height != b.height) return 1;
  std::size_t count = 0;
  for (std::size_t i = 0; i < a.pixels.size(); i += 4)
    for (int c = 0; c < 3; ++c)
      if (std::abs(a.pixels[i + c] - b.pixels[i + c]) > tolerance) {
        ++count;
        break;
      }
  return static_cast<double>(count) / (static_cast<double>(a.width) * a.height);
}

// Removes the scratch folder after the last test (one per test binary).
class ViewerScratchCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(viewer_scratch("x").parent_path(), ec);
  }
};
inline const auto* const kViewerScratchCleanup = ::testing::AddGlobalTestEnvironment(new ViewerScratchCleanup);

}  // namespace wobble::test
