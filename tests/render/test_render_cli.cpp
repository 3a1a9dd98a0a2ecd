// `wobble render`: outputs of each kind have the asked size and frame count; failures leave
// nothing behind and say what went wrong in one line.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include <stb_image.h>

#include "test_util.hpp"

namespace wobble::test {
namespace {

namespace fs = std::filesystem;

// Appended, not "'" + string: GCC 12 warns falsely (-Wrestrict) on that form.
std::string clonk_path() {
  std::string text = "'";
  text += bundled_asset("clonk.glb").string();
  text += '\'';
  return text;
}

struct Decoded {
  int width = 0, height = 0;
  std::size_t distinct_colours = 0;
};

Decoded decode_png(const fs::path& file) {
  Decoded d;
  int channels = 0;
  unsigned char* data = stbi_load(file.c_str(), &d.width, &d.height, &channels, 4);
  if (!data) return d;
  std::set<std::uint32_t> colours;
  for (int i = 0; i < d.width * d.height && colours.size() < 1000; ++i) {
    colours.insert(std::uint32_t(data[4 * i]) << 16 | std::uint32_t(data[4 * i + 1]) << 8 | data[4 * i + 2]);
  }
  d.distinct_colours = colours.size();
  stbi_image_free(data);
  return d;
}

std::size_t line_count(const std::string& text) {
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

TEST(RenderCli, SingleFramePngHasTheAskedSize) {
  ScratchDir dir;
  const fs::path out = dir / "frame.png";
  const auto result = run_wobble("render " + clonk_path() + " --clip Walk --start 0.5 --end 0.5 --size 200x120 -o '" +
                                 out.string() + "'");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const Decoded png = decode_png(out);
  EXPECT_EQ(png.width, 200);
  EXPECT_EQ(png.height, 120);
  EXPECT_GT(png.distinct_colours, 50u) << "a lit, textured character has many colours";
}

TEST(RenderCli, CompareSheetLaysOutPanelsAndFrames) {
  ScratchDir dir;
  const fs::path out = dir / "sheet.png";
  // 4 frames (0, 0.1, 0.2, 0.3 s) of 3 panels of 96x64: a 2 x 2 sheet of 288x64 cells.
  const auto result = run_wobble("render " + clonk_path() +
                                 " --clip Walk --start 0 --end 0.3 --fps 10 --size 96x64 --sheet --compare lbs "
                                 "lbs,dynamic:amplitude=0 lbs,dynamic --frequency 3 -o '" +
                                 out.string() + "'");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const Decoded png = decode_png(out);
  EXPECT_EQ(png.width, 2 * 3 * 96);
  EXPECT_EQ(png.height, 2 * 64);
}

TEST(RenderCli, SequenceHasOneFilePerFrame) {
  ScratchDir dir;
  const fs::path out = dir / "frames";
  const auto result = run_wobble("render " + clonk_path() +
                                 " --clip Walk --start 0 --end 0.4 --fps 10 --size 64x48 -o '" + out.string() + "/'");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(out)) files += entry.path().extension() == ".png";
  EXPECT_EQ(files, 5u);
  EXPECT_EQ(decode_png(out / "frame_0004.png").width, 64);
}

std::vector<unsigned char> pixels_of(const fs::path& file) {
  int width = 0, height = 0, channels = 0;
  unsigned char* data = stbi_load(file.c_str(), &width, &height, &channels, 4);
  if (!data) return {};
  std::vector<unsigned char> pixels(data, data + 4 * width * height);
  stbi_image_free(data);
  return pixels;
}

// Share of pixels that differ by more than 8 levels in some channel.
double changed_share(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b) {
  if (a.size() != b.size() || a.empty()) return 1;
  std::size_t changed = 0;
  for (std::size_t i = 0; i < a.size(); i += 4) {
    for (int c = 0; c < 3; ++c) {
      if (std::abs(int(a[i + c]) - int(b[i + c])) > 8) {
        ++changed;
        break;
      }
    }
  }
  return double(changed) / double(a.size() / 4);
}

// --loop starts the frame in the cycle's periodic steady state: the Walk at 1.0 s looks as after
// 120 s (50 cycles) of pre-roll, and unlike the default hold (no history: no effect), on the CPU
// and on the GPU path.
TEST(RenderCli, LoopFrameEqualsFiftyCyclesOfPreRoll) {
  ScratchDir dir;
  for (const std::string skinning : {"cpu", "gpu"}) {
    auto render = [&](const std::string& flags, const std::string& name) {
      const fs::path out = dir / (skinning + "_" + name + ".png");
      const auto result = run_wobble("render " + clonk_path() +
                                     " --clip Walk --start 1 --end 1 --size 160x120 --no-labels "
                                     "--deformer lbs,dynamic --amplitude 1 --skinning " +
                                     skinning + " " + flags + " -o '" + out.string() + "'");
      EXPECT_EQ(result.exit_code, 0) << result.output;
      return std::make_pair(pixels_of(out), result.output);
    };
    const auto [looped, summary] = render("--loop", "loop");
    EXPECT_NE(summary.find("loop: a cycle of 2.4 s"), std::string::npos) << summary;
    const auto brute = render("--pre-roll 120", "brute").first;
    const auto held = render("", "hold").first;
    std::printf("%s: --loop against 120 s of pre-roll: %.4f of the pixels differ; against hold: %.4f\n",
                skinning.c_str(), changed_share(looped, brute), changed_share(looped, held));
    EXPECT_LT(changed_share(looped, brute), 0.001) << skinning;
    EXPECT_GT(changed_share(looped, held), 0.005) << skinning << ": the steady state has an effect at 1 s, hold none";
  }
}

TEST(RenderCli, Mp4HasTheFrameCountGpuPath) {
  ScratchDir dir;
  const fs::path out = dir / "walk.mp4";
  const auto result = run_wobble("render " + clonk_path() +
                                 " --clip Walk --start 0 --end 0.5 --fps 10 --size 160x90 --skinning gpu "
                                 "--deformer lbs,dynamic -o '" +
                                 out.string() + "'");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const auto probe = run_command(
      "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
      "stream=nb_read_frames,width,height -of csv=p=0 '" +
      out.string() + "'");
  ASSERT_EQ(probe.exit_code, 0) << probe.output;
  EXPECT_EQ(probe.output, "160,90,6\n");
}

TEST(RenderCli, BrokenEglIsOneClearLineAndNoOutput) {
  ScratchDir dir;
  const fs::path out = dir / "frame.png";
  // glvnd finds no EGL vendor library: no display at all.
  const auto result =
      run_command("env __EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent.json " + std::string(WOBBLE_CLI) + " render " +
                  clonk_path() + " --clip Walk --start 0 --end 0 -o '" + out.string() + "'");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_EQ(line_count(result.output), 1u) << result.output;
  EXPECT_NE(result.output.find("OpenGL"), std::string::npos) << result.output;
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(RenderCli, FailingFfmpegLeavesNoVideo) {
  ScratchDir dir;
  const fs::path bin = dir / "bin";
  fs::create_directory(bin);
  write_bytes(bin / "ffmpeg", "#!/bin/sh\n/bin/cat > /dev/null\necho 'simulated encoder failure' >&2\nexit 1\n");
  fs::permissions(bin / "ffmpeg", fs::perms::owner_all);
  const fs::path out = dir / "walk.mp4";
  const auto result =
      run_command("env PATH='" + bin.string() + "' " + std::string(WOBBLE_CLI) + " render " + clonk_path() +
                  " --clip Walk --start 0 --end 0.2 --fps 10 --size 64x48 -o '" + out.string() + "'");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("simulated encoder failure"), std::string::npos) << result.output;
  EXPECT_FALSE(fs::exists(out));
  for (const auto& entry : fs::directory_iterator(dir.path())) EXPECT_EQ(entry.path(), bin) << "left behind";
}

TEST(RenderCli, MissingFfmpegIsAClearError) {
  ScratchDir dir;
  const fs::path out = dir / "walk.gif";
  const auto result = run_command("env PATH=/nonexistent " + std::string(WOBBLE_CLI) + " render " + clonk_path() +
                                  " --clip Walk --start 0 --end 0.2 -o '" + out.string() + "'");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("ffmpeg"), std::string::npos) << result.output;
  EXPECT_FALSE(fs::exists(out));
}

TEST(RenderCli, BadRequestsAreRefusedBeforeRendering) {
  ScratchDir dir;
  const std::string base = "render " + clonk_path() + " --clip Walk ";
  const auto many = run_wobble(base + "--start 0 --end 1 -o '" + (dir / "x.png").string() + "'");
  EXPECT_EQ(many.exit_code, 1);
  EXPECT_NE(many.output.find("--sheet"), std::string::npos) << many.output;
  const auto type = run_wobble(base + "-o '" + (dir / "x.avi").string() + "'");
  EXPECT_EQ(type.exit_code, 1);
  EXPECT_NE(type.output.find("unknown output type"), std::string::npos) << type.output;
  const auto gpu =
      run_wobble(base + "--skinning gpu --deformer dqs --start 0 --end 0 -o '" + (dir / "x.png").string() + "'");
  EXPECT_EQ(gpu.exit_code, 1);
  EXPECT_NE(gpu.output.find("--skinning cpu"), std::string::npos) << gpu.output;
  const auto spec =
      run_wobble(base + "--compare lbs,dynamic:nonsense=1 --start 0 --end 0 -o '" + (dir / "x.png").string() + "'");
  EXPECT_EQ(spec.exit_code, 1);
  EXPECT_NE(spec.output.find("nonsense"), std::string::npos) << spec.output;
  const auto both = run_wobble(base + "--deformer dqs --compare lbs lbs,dynamic --start 0 --end 0 -o '" +
                               (dir / "x.png").string() + "'");
  EXPECT_EQ(both.exit_code, 1);
  EXPECT_NE(both.output.find("--compare"), std::string::npos) << both.output;
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

}  // namespace
}  // namespace wobble::test
