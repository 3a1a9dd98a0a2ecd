// wobble-viewer's physics mode end to end under a virtual X display (xvfb-run, Mesa llvmpipe):
// a pinned bar sags under gravity while its pinned end's pixels stay; a scripted drag pulls the
// picked point toward the cursor (its screen position, reported by the viewer) and the bar
// returns after the release; a dropped bar comes to rest on the floor, nothing below it; the
// rig-complementary mode visibly differs from LBS alone on clonk's walk; 3DGS splats draw and sag; the
// recorded preview equals `wobble simulate` for a mesh and for splats.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include <wobble/io/files.hpp>
#include <wobble/io/image.hpp>
#include <wobble/physics/gaussians.hpp>

#include "viewer_runs.hpp"

namespace fs = std::filesystem;
using wobble::RgbaImage;
using namespace wobble::test;

namespace {

// A 2 x 0.25 x 0.25 bar along x: 41 rings of 4 vertices, closed at both ends (OBJ).
fs::path bar_file() {
  const fs::path file = viewer_scratch("bar.obj");
  if (fs::exists(file)) return file;
  std::ofstream out(file);
  const int rings = 41;
  const double corner[4][2] = {{-0.125, -0.125}, {0.125, -0.125}, {0.125, 0.125}, {-0.125, 0.125}};
  for (int r = 0; r < rings; ++r)
    for (const auto& c : corner) out << "v " << -1.0 + 2.0 * r / (rings - 1) << " " << c[0] << " " << c[1] << "\n";
  for (int r = 0; r + 1 < rings; ++r)
    for (int k = 0; k < 4; ++k) {
      const int a = 4 * r + k + 1, b = 4 * r + (k + 1) % 4 + 1, c = a + 4, d = b + 4;
      out << "f " << a << " " << b << " " << d << "\nf " << a << " " << d << " " << c << "\n";
    }
  const int last = 4 * (rings - 1);
  out << "f 1 3 2\nf 1 4 3\nf " << last + 1 << " " << last + 2 << " " << last + 3 << "\nf " << last + 1 << " "
      << last + 3 << " " << last + 4 << "\n";
  return file;
}

// A 3DGS PLY (binary, as 3DGS writes it): a 2 x 0.25 x 0.25 slab along x of n x m x m red Gaussians.
fs::path splat_slab(const std::string& name, int n, int m) {
  const fs::path ply = viewer_scratch(name);
  std::ofstream out(ply, std::ios::binary);
  const char* names[] = {"x",       "y",       "z",       "f_dc_0", "f_dc_1", "f_dc_2", "opacity",
                         "scale_0", "scale_1", "scale_2", "rot_0",  "rot_1",  "rot_2",  "rot_3"};
  out << "ply\nformat binary_little_endian 1.0\nelement vertex " << n * m * m << "\n";
  for (const char* property : names) out << "property float " << property << "\n";
  out << "end_header\n";
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j)
      for (int k = 0; k < m; ++k) {
        const float v[14] = {-1.0f + 2.0f * i / (n - 1),
                             -0.125f + 0.25f * j / (m - 1),
                             -0.125f + 0.25f * k / (m - 1),
                             1.5f,
                             -1.0f,
                             -1.0f,
                             4.0f,
                             std::log(0.08f),
                             std::log(0.05f),
                             std::log(0.05f),
                             1,
                             0,
                             0,
                             0};
        out.write(reinterpret_cast<const char*>(v), sizeof v);
      }
  return ply;
}

// The viewer's "wobble-viewer: report {...}" lines, in order.
std::vector<nlohmann::json> reports(const std::string& log) {
  std::vector<nlohmann::json> out;
  std::istringstream lines(log);
  const std::string marker = "wobble-viewer: report ";
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(marker, 0) == 0) out.push_back(nlohmann::json::parse(line.substr(marker.size())));
  return out;
}

// Pixels in the pins' colour (the heat map's red: red well above green and blue).
std::vector<bool> pinned_pixels(const RgbaImage& image) {
  std::vector<bool> out(static_cast<std::size_t>(image.width) * image.height);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::uint8_t* p = image.pixels.data() + 4 * i;
    out[i] = p[0] > p[1] + 30 && p[0] > p[2] + 30;
  }
  return out;
}

double distance(const nlohmann::json& a, const nlohmann::json& b) {
  return std::hypot(a[0].get<double>() - b[0].get<double>(), a[1].get<double>() - b[1].get<double>());
}

const std::string kBar = " --physics --no-floor --youngs 1e7 --pin 'x<-0.8' --points 400 --handles 12 ";

}  // namespace

TEST(ViewerPhysics, PinnedBarSagsWhileThePinnedEndStays) {
  const RgbaImage start = screenshot("sag_start", quoted(bar_file()) + kBar + "--frame 2");
  const RgbaImage later = screenshot("sag_later", quoted(bar_file()) + kBar + "--frame 90");
  ASSERT_EQ(start.width, 480);
  EXPECT_GT(changed_share(start, later), 0.01);  // the free end moved
  const std::vector<bool> a = pinned_pixels(start), b = pinned_pixels(later);
  std::size_t pinned = 0, kept = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    pinned += a[i];
    kept += a[i] && b[i];
  }
  EXPECT_GT(pinned, 200u);  // the pinned end shows in the pins' colour
  EXPECT_GT(static_cast<double>(kept), 0.95 * static_cast<double>(pinned)) << kept << " of " << pinned;
}

TEST(ViewerPhysics, ScriptedDragPullsThePickedPointAndTheBarReturns) {
  // Where the free end is on the screen: press at its tip point and report.
  std::string log;
  screenshot("find_tip",
             quoted(bar_file()) + kBar + "--no-gravity --frame 3 --script " +
                 "'[{\"at\": 0.01, \"do\": \"press\", \"point\": [1, 0.125, 0]}, {\"at\": 0.02, \"do\": \"report\"}]'",
             &log);
  const auto found = reports(log);
  ASSERT_EQ(found.size(), 1u) << log;
  const nlohmann::json tip = found[0]["picked_rest_pixel"];
  // Press there by pixel, drag 70 pixels up for 1.5 s, release, wait 2.5 s.
  const double x = tip[0].get<double>(), y = tip[1].get<double>();
  const std::string script =
      "'[{\"at\": 0.02, \"do\": \"press\", \"pixel\": [" + std::to_string(x) + ", " + std::to_string(y) +
      "]}, {\"at\": 0.05, \"do\": \"drag\", \"pixel\": [" + std::to_string(x) + ", " + std::to_string(y - 70) +
      "]}, {\"at\": 1.5, \"do\": \"report\"}, {\"at\": 1.5, \"do\": \"release\"}, {\"at\": 4.0, \"do\": \"report\"}]'";
  screenshot("drag", quoted(bar_file()) + kBar + "--no-gravity --frame 242 --script " + script, &log);
  const auto r = reports(log);
  ASSERT_EQ(r.size(), 2u) << log;
  const nlohmann::json start = r[0]["picked_rest_pixel"], held = r[0]["picked_pixel"], target = r[0]["target_pixel"];
  EXPECT_LT(distance(start, tip), 3.0);  // the pixel press grabbed the tip
  const double toward = distance(start, target), moved = ((held[0].get<double>() - start[0].get<double>()) *
                                                              (target[0].get<double>() - start[0].get<double>()) +
                                                          (held[1].get<double>() - start[1].get<double>()) *
                                                              (target[1].get<double>() - start[1].get<double>())) /
                                                         toward;
  EXPECT_GT(toward, 50.0);
  EXPECT_GT(moved, toward / 3) << r[0].dump();
  EXPECT_LT(distance(r[1]["picked_pixel"], start), toward / 3) << r[1].dump();  // back after the release
}

TEST(ViewerPhysics, DroppedBarRestsOnTheFloorWithNothingBelowIt) {
  // The floor moved 0.3 m below the bar at the start: it falls, lands and stays above.
  std::string log;
  screenshot("floor",
             quoted(bar_file()) + " --physics --youngs 1e6 --points 400 --handles 8 --frame 150 --script " +
                 "'[{\"at\": 0, \"do\": \"plane\", \"offset\": 0.3}, {\"at\": 0.05, \"do\": \"report\"}, " +
                 "{\"at\": 2.4, \"do\": \"report\"}]'",
             &log);
  const auto r = reports(log);
  ASSERT_EQ(r.size(), 2u) << log;
  const double size = r[1]["size"].get<double>();
  EXPECT_GT(r[0]["lowest"].get<double>() - r[1]["lowest"].get<double>(), 0.25);  // it fell about 0.3 m
  EXPECT_LT(r[1]["deepest_below_floor"].get<double>(), 0.01 * size) << r[1].dump();
  EXPECT_GT(r[1]["lowest"].get<double>(), r[1]["floor"]["origin"][1].get<double>() - 0.01 * size);
}

TEST(ViewerPhysics, RigModeShowsAComplementaryResponseOnTheWalk) {
  const std::string clonk = "'" WOBBLE_BUNDLED_ASSETS "/clonk.glb' --clip Walk --frame 45";
  const RgbaImage lbs = screenshot("rig_lbs", clonk + " --deformer lbs");
  const RgbaImage rig = screenshot("rig_physics", clonk + " --deformer lbs --physics --rig --youngs 2e4");
  ASSERT_EQ(lbs.width, 480);
  EXPECT_GT(changed_share(lbs, rig), 0.003);
}

TEST(ViewerPhysics, GaussianSplatsDrawAndSag) {
  const fs::path ply = splat_slab("splats.ply", 10, 3);  // pinned at one end
  const std::string common = quoted(ply) + " --physics --no-floor --youngs 3e5 --pin 'x<-0.7' --points 200 --handles 8";
  const RgbaImage start = screenshot("splats_start", common + " --frame 2");
  const RgbaImage later = screenshot("splats_later", common + " --frame 60");
  std::size_t reddish = 0;  // f_dc_0 = 1.5: the splats are red
  for (std::size_t i = 0; i < start.pixels.size(); i += 4) reddish += start.pixels[i] > 150 && start.pixels[i + 1] < 90;
  EXPECT_GT(reddish, 500u);
  EXPECT_GT(changed_share(start, later), 0.005);
}

// Preview equals simulation: the physics mode, recorded at its fixed 1/60 s frames with the time
// step 1/60 s, gives the positions `wobble simulate` writes for the same shape and settings
// (one step a frame: the viewer's frame k is after k + 1 steps, simulate's frame 0 the rest).
// Returns the largest distance between the two and the largest sag, over 30 frames.
// `wobble simulate` writes splats as a folder of PLY frames: their centres are compared.
std::vector<std::vector<wobble::Vec3f>> simulated_frames(const fs::path& output) {
  if (output.extension() == ".pc2") return wobble::read_pc2(output);
  std::vector<std::vector<wobble::Vec3f>> frames;
  for (int f = 0;; ++f) {
    char name[32];
    std::snprintf(name, sizeof name, "frame_%04d.ply", f);
    if (!fs::exists(output / name)) return frames;
    const wobble::physics::GaussianCloud cloud = wobble::physics::read_gaussian_ply(output / name);
    auto& centres = frames.emplace_back();
    for (std::size_t g = 0; g < cloud.count(); ++g) centres.push_back(cloud.center(g).cast<float>());
  }
}

std::pair<double, double> preview_against_simulate(const fs::path& shape, const std::string& name) {
  const std::string settings = " --youngs 1e7 --pin 'x<-0.8' --points 400 --handles 12 --fps 60 --substeps 1 ";
  const bool splats = shape.extension() == ".ply";
  const fs::path preview = viewer_scratch(name + "_preview.pc2"),
                 simulated = viewer_scratch(name + (splats ? "_simulated" : "_simulated.pc2"));
  std::string log;
  EXPECT_EQ(run_viewer(quoted(shape) + " --physics --no-floor" + settings + "--no-ui --size 320x240 --record '" +
                           preview.string() + "' --frame 30",
                       log),
            0)
      << log;
  const std::string simulate = "'" WOBBLE_CLI "' simulate '" + shape.string() + "'" + settings + "--frames 31 -q -o '" +
                               simulated.string() + (splats ? "/'" : "'");
  EXPECT_EQ(std::system(simulate.c_str()), 0) << simulate;
  const auto shown = wobble::read_pc2(preview), computed = simulated_frames(simulated);
  EXPECT_EQ(shown.size(), 30u);
  EXPECT_EQ(computed.size(), 31u);
  if (shown.size() != 30u || computed.size() != 31u) return {1e9, 0};
  double worst = 0, sag = 0;
  for (std::size_t f = 0; f < shown.size(); ++f)
    for (std::size_t v = 0; v < shown[f].size(); ++v) {
      worst = std::max(worst, static_cast<double>((shown[f][v] - computed[f + 1][v]).norm()));
      sag = std::max(sag, static_cast<double>(computed[0][v].y() - computed[f + 1][v].y()));
    }
  return {worst, sag};
}

TEST(ViewerPhysics, RecordedPreviewEqualsWobbleSimulate) {
  const auto [worst, sag] = preview_against_simulate(bar_file(), "bar");
  EXPECT_GT(sag, 1e-3);          // it moved: the comparison is not of two rest shapes
  EXPECT_LT(worst, 1e-5 * 2.0);  // the bar's size is 2
}

// The same for 3D Gaussian splats (no surface): the viewer samples the Gaussians' centres as a
// scene does, and records the centres that `wobble simulate` writes as PLY frames.
TEST(ViewerPhysics, RecordedPreviewOfSplatsEqualsWobbleSimulate) {
  const fs::path ply = splat_slab("bar_splats.ply", 41, 5);
  const auto [worst, sag] = preview_against_simulate(ply, "splats");
  EXPECT_GT(sag, 1e-3);
  EXPECT_LT(worst, 1e-5 * 2.0);
}
