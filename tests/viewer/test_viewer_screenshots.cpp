// wobble-viewer end to end under a virtual X display (xvfb-run, Mesa llvmpipe): screenshots are
// non-blank, repeatable, differ when the effect is on, agree between the CPU and GPU paths; a
// missing display is one clear line and exit code 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <wobble/io/image.hpp>

#include "viewer_runs.hpp"

namespace fs = std::filesystem;
using wobble::RgbaImage;
using namespace wobble::test;

namespace {

// Share of pixels that differ from the top-left pixel (the background) by more than `tolerance`
// in some channel.
double non_background_share(const RgbaImage& image, int tolerance = 12) {
  const std::uint8_t* corner = image.at(0, 0);
  std::size_t count = 0;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) {
      const std::uint8_t* p = image.at(x, y);
      for (int c = 0; c < 3; ++c)
        if (std::abs(p[c] - corner[c]) > tolerance) {
          ++count;
          break;
        }
    }
  return static_cast<double>(count) / (static_cast<double>(image.width) * image.height);
}

}  // namespace

TEST(ViewerScreenshots, CylinderShowsTheEffectAndRepeats) {
  // Frame 66 = 1.1 s into "Sway": the chain has just stopped straight; with the effect it still swings.
  const std::string common = "--cylinder 6000 --frame 66";
  const RgbaImage lbs = screenshot("lbs", common + " --deformer lbs");
  const RgbaImage again = screenshot("lbs_again", common + " --deformer lbs");
  const RgbaImage dynamic = screenshot("dynamic", common + " --deformer lbs,dynamic");
  ASSERT_EQ(lbs.width, 480);
  ASSERT_EQ(lbs.height, 320);
  EXPECT_GT(non_background_share(lbs), 0.02);     // the cylinder (and grid) are there
  EXPECT_EQ(changed_share(lbs, again, 0), 0.0);   // fixed time steps: the same picture
  EXPECT_GT(changed_share(lbs, dynamic), 0.003);  // the effect moves the cylinder visibly
}

TEST(ViewerScreenshots, GpuPathMatchesCpuPathAndShowsTheEffect) {
  const std::string common = "--cylinder 6000 --frame 66";
  const RgbaImage cpu = screenshot("cpu_dynamic", common + " --deformer lbs,dynamic");
  const RgbaImage gpu = screenshot("gpu_dynamic", common + " --deformer lbs,dynamic --gpu");
  const RgbaImage gpu_lbs = screenshot("gpu_lbs", common + " --deformer lbs --gpu");
  EXPECT_GT(non_background_share(gpu), 0.02);
  // The shader and the CPU stack place the surface the same: only edge pixels may differ.
  EXPECT_LT(changed_share(cpu, gpu), 0.002);
  EXPECT_GT(changed_share(gpu_lbs, gpu), 0.003);
}

TEST(ViewerScreenshots, BundledCharacterWithInterface) {
  const fs::path png = viewer_scratch("clonk_ui.png");
  fs::remove(png);
  std::string log;
  ASSERT_EQ(
      run_viewer("'" WOBBLE_BUNDLED_ASSETS "/clonk.glb' --size 800x600 --frame 20 --screenshot '" + png.string() + "'",
                 log),
      0)
      << log;
  const std::string bytes = read_text(png);
  const RgbaImage image = wobble::decode_image(std::vector<std::uint8_t>(bytes.begin(), bytes.end()), png.string());
  EXPECT_EQ(image.width, 800);
  EXPECT_GT(non_background_share(image), 0.05);
}

TEST(ViewerErrors, MissingDisplayIsOneClearLine) {
  const fs::path out = viewer_scratch("no_display.txt");
  const std::string command =
      "env -u DISPLAY -u WAYLAND_DISPLAY '" WOBBLE_VIEWER "' --cylinder 500 > '" + out.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  const std::string text = read_text(out);
  EXPECT_NE(text.find("no display"), std::string::npos) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
}

TEST(ViewerErrors, BadFileIsOneClearLine) {
  std::string log;
  const fs::path missing = viewer_scratch("missing.glb");
  EXPECT_EQ(run_viewer(quoted(missing) + " --frame 1 --screenshot /dev/null", log), 1);
  EXPECT_NE(log.find("missing.glb"), std::string::npos) << log;
  EXPECT_NE(log.find("no such file"), std::string::npos) << log;
}
