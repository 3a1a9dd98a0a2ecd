// Full disks and read-only folders (issue 36): every writer stops with the system's reason from
// errno, naming the output, leaves the previous file of that name intact and nothing else; a
// command refuses a folder it cannot write to before its work. Each test mounts a small tmpfs of
// its own (tests/private_tmpfs.hpp) and skips, saying why, where it cannot.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <random>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <wobble/offline/bake.hpp>
#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/io/image.hpp>
#include <wobble/io/usd_write.hpp>

#include "private_tmpfs.hpp"
#include "test_util.hpp"

namespace wobble {
namespace {

namespace fs = std::filesystem;
using test::PrivateTmpfs;
using test::ScratchDir;
using test::shell_quoted;

constexpr const char* kNoSpace = "No space left on device";
constexpr const char* kReadOnly = "Read-only file system";

const Character& clonk() {
  static const Character character = load_character(test::bundled_asset("clonk.glb"));
  return character;
}

// 11 frames of clonk walking: 240 KB of PC2, more of everything else.
const BakedFrames& baked_walk() {
  static const BakedFrames baked = [] {
    BakeOptions options;
    options.clip = clonk().find_clip("Walk").value();
    options.fps = 10;
    options.end = 1.0;
    return bake(clonk(), options);
  }();
  return baked;
}

RgbaImage noise_image() {  // incompressible: a PNG of about 256 KB
  RgbaImage image(256, 256);
  std::mt19937 random(7);
  for (auto& byte : image.pixels) byte = static_cast<std::uint8_t>(random());
  return image;
}

std::set<std::string> names_in(const fs::path& folder) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.insert(entry.path().filename().string());
  return names;
}

struct Writer {
  const char* output;  // a name on the full disk; a folder ends in '/'
  std::function<void(const fs::path&)> write;
};
void PrintTo(const Writer& writer, std::ostream* os) { *os << writer.output; }

class FullDisk : public ::testing::TestWithParam<Writer> {};

// The writer's output does not fit in the 16 KiB left: Error("OUT: cannot write: No space left on
// device"); the previous file (or folder) of that name keeps its bytes; no temporary is left.
TEST_P(FullDisk, WriterSaysTheSystemsReasonAndKeepsThePreviousFile) {
  ScratchDir scratch;
  PrivateTmpfs disk(scratch / "disk", 1 << 20);
  if (!disk.mounted()) GTEST_SKIP() << disk.why_not();
  const std::string output = GetParam().output;
  const bool folder = output.back() == '/';
  const fs::path target = disk / output.substr(0, output.size() - (folder ? 1 : 0));
  const fs::path previous_file = folder ? target / "frame_0000.obj" : target;
  if (folder) fs::create_directories(target);
  test::write_bytes(previous_file, "the previous output");
  disk.fill_leaving(16 << 10);
  ASSERT_LT(disk.free_bytes(), 64u << 10);

  const std::string message = test::error_of([&] { GetParam().write(disk / output); });
  EXPECT_NE(message.find(target.filename().string() + (folder ? "/" : "") + ": cannot write: " + kNoSpace),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  const std::vector<char> kept = test::read_bytes(previous_file);
  EXPECT_EQ(std::string(kept.begin(), kept.end()), "the previous output");
  EXPECT_EQ(names_in(disk.path()), (std::set<std::string>{"filler", target.filename().string()}));
  if (folder) {
    EXPECT_EQ(names_in(target), std::set<std::string>{"frame_0000.obj"});
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryWriter, FullDisk,
    ::testing::Values(
        Writer{"walk.pc2", [](const fs::path& p) { write_pc2(p, baked_walk(), 10); }},
        Writer{"walk.glb",
               [](const fs::path& p) { write_gltf(p, clonk(), &baked_walk(), *clonk().find_clip("Walk")); }},
        Writer{"walk.gltf",
               [](const fs::path& p) { write_gltf(p, clonk(), &baked_walk(), *clonk().find_clip("Walk")); }},
        Writer{"walk.usda", [](const fs::path& p) { write_usda(p, clonk(), baked_walk(), 10, "test"); }},
        Writer{"frames/", [](const fs::path& p) { write_obj_sequence(p, clonk().mesh, baked_walk()); }},
        Writer{"rest.obj", [](const fs::path& p) { write_obj(p, clonk().mesh, clonk().mesh.positions); }},
        Writer{"noise.png", [](const fs::path& p) { write_png(p, noise_image()); }}),
    [](const auto& info) { return wobble::test::parameter_name(info.param.output); });

// The command line: exit 1 and the one line, the previous bake intact.
TEST(DiskFaults, BakeOntoAFullDiskExitsWithTheReason) {
  ScratchDir scratch;
  PrivateTmpfs disk(scratch / "disk", 1 << 20);
  if (!disk.mounted()) GTEST_SKIP() << disk.why_not();
  test::write_bytes(disk / "walk.usda", "the previous bake");
  disk.fill_leaving(16 << 10);
  const auto result = test::run_wobble("bake " + shell_quoted(test::bundled_asset("clonk.glb")) +
                                       " --clip Walk --fps 10 --end 1 -q -o " + shell_quoted(disk / "walk.usda"));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_EQ(result.output, "wobble: error: " + (disk / "walk.usda").string() + ": cannot write: " + kNoSpace + "\n");
  const std::vector<char> kept = test::read_bytes(disk / "walk.usda");
  EXPECT_EQ(std::string(kept.begin(), kept.end()), "the previous bake");
  EXPECT_EQ(names_in(disk.path()), (std::set<std::string>{"filler", "walk.usda"}));
}

// A batch's report on a full disk: the batch says so (exit 1); the jobs' outputs are elsewhere and done.
TEST(DiskFaults, BatchReportOntoAFullDiskExitsWithTheReason) {
  ScratchDir scratch;
  PrivateTmpfs disk(scratch / "disk", 256 << 10);
  if (!disk.mounted()) GTEST_SKIP() << disk.why_not();
  const nlohmann::json job = {{"input", test::bundled_asset("clonk.glb").string()},
                              {"clip", "Walk"},
                              {"fps", 10},
                              {"end", 0.3},
                              {"output", "out/walk.pc2"}};
  test::write_bytes(scratch / "batch.json", nlohmann::json{{"jobs", {job}}}.dump());
  disk.fill_leaving(0);
  const auto result = test::run_wobble("batch " + shell_quoted(scratch / "batch.json") + " -q --report " +
                                       shell_quoted(disk / "report.json"));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find((disk / "report.json").string() + ": cannot write: " + kNoSpace), std::string::npos)
      << result.output;
  EXPECT_TRUE(fs::exists(scratch / "out/walk.pc2"));
  EXPECT_EQ(names_in(disk.path()), std::set<std::string>{"filler"});
}

// A read-only folder is refused before the work: bake names the output (not its missing input,
// which it would read first), batch names its report before running a job.
TEST(DiskFaults, ReadOnlyFolderIsRefusedBeforeAnyWork) {
  ScratchDir scratch;
  PrivateTmpfs read_only(scratch / "read-only", 64 << 10, /*read_only=*/true);
  if (!read_only.mounted()) GTEST_SKIP() << read_only.why_not();
  for (const char* output : {"out.glb", "out.pc2", "out.usda", "frames/"}) {
    const auto result = test::run_wobble("bake " + shell_quoted(scratch / "missing.glb") + " --clip Walk -o " +
                                         shell_quoted(read_only / output));
    EXPECT_EQ(result.exit_code, 1) << result.output;
    EXPECT_NE(result.output.find(std::string("cannot write: folder ") + read_only.path().string() +
                                 " is not writable (" + kReadOnly + ")"),
              std::string::npos)
        << output << ": " << result.output;
    EXPECT_EQ(result.output.find("missing.glb"), std::string::npos) << result.output;
  }
  const nlohmann::json job = {{"input", test::bundled_asset("clonk.glb").string()}, {"output", "out/walk.pc2"}};
  test::write_bytes(scratch / "batch.json", nlohmann::json{{"jobs", {job}}}.dump());
  const auto batch = test::run_wobble("batch " + shell_quoted(scratch / "batch.json") + " -q --report " +
                                      shell_quoted(read_only / "report.json"));
  EXPECT_EQ(batch.exit_code, 1) << batch.output;
  EXPECT_NE(batch.output.find(std::string("report.json: cannot write: folder ") + read_only.path().string() +
                              " is not writable (" + kReadOnly + ")"),
            std::string::npos)
      << batch.output;
  EXPECT_FALSE(fs::exists(scratch / "out"));  // no job ran
}

}  // namespace
}  // namespace wobble
