// wobble's Blender-compatible Delta Mush against Blender's Corrective Smooth modifier itself.
// Blender (Debian's package, installed by scripts/install-deps.sh test) gets the rest mesh as raw
// arrays and wobble's baked LBS frames as a PC2 file read by its Mesh Cache modifier; both sides
// apply the same settings and the positions must agree to 1e-5 of the character size.
#include <cmath>
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <wobble/bake.hpp>
#include <wobble/delta_mush.hpp>
#include <wobble/io/files.hpp>

#include "test_util.hpp"

using namespace wobble;

namespace {

struct ParityCase {
  const char* smooth_type;  // Blender's name
  MushSmoothing smoothing;
  int iterations;
  float factor, scale;
  bool pin, use_mask, invert_mask, only_smooth;
};

}  // namespace

TEST(BlenderParity, CorrectiveSmoothMatchesBlenderToFloatPrecision) {
  const test::CommandResult which = test::run_command("command -v blender");
  ASSERT_EQ(which.exit_code, 0) << "blender is not installed: run scripts/install-deps.sh test (it installs Debian's "
                                   "blender package); this test does not skip";

  const Character character = load_character(test::shared_asset("characters/wipf.glb"));
  const Mesh& mesh = character.mesh;
  ASSERT_FALSE(character.clips.empty());
  const Clip& clip = character.clips[0];
  BakeOptions options;
  options.clip = 0;
  options.start = clip.start();
  options.end = clip.end();
  options.fps = 3.0 / std::max(1e-3f, clip.duration());  // four frames over the clip
  options.stack = StackDescription::parse("lbs");
  BakedFrames baked = bake(character, options);
  baked.times.resize(std::min<std::size_t>(baked.times.size(), 4));
  baked.positions.resize(baked.times.size());
  baked.skinning.resize(baked.times.size());
  // Frames numbered from 0 for the Mesh Cache modifier (scene frame k reads sample k).
  for (std::size_t k = 0; k < baked.times.size(); ++k) baked.times[k] = static_cast<float>(k);
  const std::size_t frames = baked.times.size();
  const std::size_t n = mesh.vertex_count();

  // A smooth mask in [0, 1] over the height.
  const Eigen::AlignedBox3f box = mesh.bounds();
  std::vector<float> mask(n);
  for (std::size_t v = 0; v < n; ++v) {
    const float h = (mesh.positions[v].y() - box.min().y()) / std::max(1e-6f, box.sizes().y());
    mask[v] = std::clamp(0.5f + 0.5f * std::sin(6.0f * h), 0.0f, 1.0f);
  }

  const std::vector<ParityCase> cases = {
      {"SIMPLE", MushSmoothing::Uniform, 5, 0.5f, 1.0f, false, false, false, false},
      {"LENGTH_WEIGHTED", MushSmoothing::Length, 10, 0.5f, 1.0f, false, false, false, false},
      {"SIMPLE", MushSmoothing::Uniform, 8, 0.7f, 1.5f, true, true, false, false},
      {"LENGTH_WEIGHTED", MushSmoothing::Length, 6, 0.4f, 0.6f, true, true, true, false},
      {"SIMPLE", MushSmoothing::Uniform, 5, 0.5f, 1.0f, false, false, false, true},
  };

  test::ScratchDir scratch;
  write_pc2(scratch / "frames.pc2", baked, 1.0f);
  nlohmann::json job;
  std::vector<float> flat_positions;
  for (const Vec3f& p : mesh.positions) flat_positions.insert(flat_positions.end(), {p.x(), p.y(), p.z()});
  std::vector<std::uint32_t> flat_triangles;
  for (const Triangle& t : mesh.triangles) flat_triangles.insert(flat_triangles.end(), t.begin(), t.end());
  job["positions"] = flat_positions;
  job["triangles"] = flat_triangles;
  job["mask"] = mask;
  job["pc2"] = (scratch / "frames.pc2").string();
  job["frames"] = frames;
  job["cases"] = nlohmann::json::array();
  for (const ParityCase& c : cases) {
    job["cases"].push_back({{"smooth_type", c.smooth_type},
                            {"iterations", c.iterations},
                            {"factor", c.factor},
                            {"scale", c.scale},
                            {"pin_boundary", c.pin},
                            {"use_mask", c.use_mask},
                            {"invert_mask", c.invert_mask},
                            {"only_smooth", c.only_smooth}});
  }
  std::ofstream(scratch / "job.json") << job.dump();

  const auto script = std::filesystem::path(WOBBLE_SOURCE_DIR) / "tests/blender/corrective_smooth.py";
  const test::CommandResult blender = test::run_command(
      "blender -b -noaudio --factory-startup --python '" + script.string() + "' -- '" + (scratch / "job.json").string() +
      "' '" + (scratch / "out.bin").string() + "'");
  ASSERT_EQ(blender.exit_code, 0) << blender.output;
  ASSERT_NE(blender.output.find("corrective_smooth.py: wrote"), std::string::npos) << blender.output;
  const std::vector<char> bytes = test::read_bytes(scratch / "out.bin");
  ASSERT_EQ(bytes.size(), (cases.size() + 1) * frames * n * 3 * sizeof(float)) << blender.output;
  auto blender_position = [&](std::size_t evaluation, std::size_t v) {
    float xyz[3];
    std::memcpy(xyz, bytes.data() + ((evaluation * n + v) * 3) * sizeof(float), sizeof xyz);
    return Vec3f(xyz[0], xyz[1], xyz[2]);
  };

  const float size = mesh.size();
  // The Mesh Cache modifier reproduces wobble's LBS frames exactly.
  for (std::size_t k = 0; k < frames; ++k) {
    for (std::size_t v = 0; v < n; ++v) ASSERT_EQ(blender_position(k, v), baked.positions[k][v]) << "frame " << k;
  }
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const ParityCase& pc = cases[c];
    DeltaMushSettings settings;
    settings.mode = MushMode::Blender;
    settings.smoothing = pc.smoothing;
    settings.iterations = pc.iterations;
    settings.step = pc.factor;
    settings.scale = pc.scale;
    settings.pin_boundary = pc.pin;
    if (pc.use_mask) settings.mask = mask;
    settings.invert_mask = pc.invert_mask;
    settings.smooth_only = pc.only_smooth;
    DeltaMush mush;
    mush.bind(mesh.positions, mesh.triangles, settings);
    double worst = 0, moved = 0;
    for (std::size_t k = 0; k < frames; ++k) {
      std::vector<Vec3f> positions = baked.positions[k];
      mush.evaluate(positions);
      for (std::size_t v = 0; v < n; ++v) {
        worst = std::max<double>(worst, (positions[v] - blender_position((c + 1) * frames + k, v)).norm());
        moved = std::max<double>(moved, (positions[v] - baked.positions[k][v]).norm());
      }
    }
    std::printf("Corrective Smooth %-15s iterations %2d factor %.1f scale %.1f pin %d mask %d%s%s: max |wobble - "
                "Blender| = %.2e of the size (the smoothing moved vertices up to %.2e)\n",
                pc.smooth_type, pc.iterations, pc.factor, pc.scale, pc.pin, pc.use_mask, pc.invert_mask ? " inverted" : "",
                pc.only_smooth ? " only smooth" : "", worst / size, moved / size);
    EXPECT_LE(worst, 1e-5 * size) << "case " << c;
    EXPECT_GT(moved, 1e-4 * size) << "case " << c << " did not change anything: a vacuous comparison";
  }
}
