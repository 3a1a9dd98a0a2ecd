// Videos onto a full disk (issue 36): ffmpeg cannot write the file (and ffmpeg 5 still exits with
// 0 when that happens at its trailer), so the writer must read what it said: the error names the
// video and errno's reason, the previous file of that name keeps its bytes, nothing else is left.
#include <filesystem>
#include <random>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include <wobble/error.hpp>
#include <wobble/render/video_writer.hpp>

#include "private_tmpfs.hpp"
#include "test_util.hpp"

namespace wobble::test {
namespace {

namespace fs = std::filesystem;

std::set<std::string> names_in(const fs::path& folder) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.insert(entry.path().filename().string());
  return names;
}

// 30 frames of noise, 160x120: far more than the 16 KiB left, whatever the codec does.
void write_noise_video(const fs::path& target) {
  render::VideoWriter writer(target, 160, 120, 30);
  std::mt19937 random(3);
  RgbaImage frame(160, 120);
  for (int k = 0; k < 30; ++k) {
    for (auto& byte : frame.pixels) byte = static_cast<std::uint8_t>(random());
    writer.add_frame(frame);
  }
  writer.finish();
}

class VideoOntoAFullDisk : public ::testing::TestWithParam<const char*> {};

TEST_P(VideoOntoAFullDisk, SaysTheSystemsReasonAndKeepsThePreviousFile) {
  if (render::find_ffmpeg().empty()) GTEST_SKIP() << "no ffmpeg on PATH";
  ScratchDir scratch;
  PrivateTmpfs disk(scratch / "disk", 1 << 20);
  if (!disk.mounted()) GTEST_SKIP() << disk.why_not();
  const fs::path target = disk / GetParam();
  write_bytes(target, "the previous video");
  disk.fill_leaving(16 << 10);

  const std::string message = error_of([&] { write_noise_video(target); });
  EXPECT_EQ(message, target.string() + ": cannot write: No space left on device");
  const std::vector<char> kept = read_bytes(target);
  EXPECT_EQ(std::string(kept.begin(), kept.end()), "the previous video");
  EXPECT_EQ(names_in(disk.path()), (std::set<std::string>{"filler", GetParam()}));
}

INSTANTIATE_TEST_SUITE_P(Mp4AndGif, VideoOntoAFullDisk, ::testing::Values("walk.mp4", "walk.gif"),
                         [](const auto& info) { return std::string(info.param).substr(5); });

// With room, the same frames make a whole video (so the test above fails for the disk, not the
// frames).
TEST(VideoWriter, NoiseFramesMakeAVideoWhereThereIsRoom) {
  if (render::find_ffmpeg().empty()) GTEST_SKIP() << "no ffmpeg on PATH";
  ScratchDir scratch;
  write_noise_video(scratch / "walk.mp4");
  EXPECT_GT(fs::file_size(scratch / "walk.mp4"), 64u << 10);
}

}  // namespace
}  // namespace wobble::test
