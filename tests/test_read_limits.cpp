// Bounded reading outside glTF (test_gltf.cpp has glTF's): header counts checked against the file
// before anything is allocated, only regular files read, and the read budget's own arithmetic.
#include <cstdint>
#include <cstring>
#include <functional>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <wobble/error.hpp>
#include <wobble/io/files.hpp>
#include <wobble/physics/gaussians.hpp>
#include <wobble/io/read_limits.hpp>

#include "test_util.hpp"

using namespace wobble;
using wobble::test::error_of;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string pc2_header(std::int32_t points, std::int32_t samples) {
  std::string header("POINTCACHE2\0", 12);
  const std::int32_t version = 1;
  const float start = 0, rate = 1;
  header.append(reinterpret_cast<const char*>(&version), 4);
  header.append(reinterpret_cast<const char*>(&points), 4);
  header.append(reinterpret_cast<const char*>(&start), 4);
  header.append(reinterpret_cast<const char*>(&rate), 4);
  header.append(reinterpret_cast<const char*>(&samples), 4);
  return header;
}

}  // namespace

TEST(ReadBudget, ChargesUpToSixtyFourMiBPlusThirtyTwoTimesTheFile) {
  const std::uint64_t mib = std::uint64_t(1) << 20;
  EXPECT_EQ(read_allocation_ceiling(0), 64 * mib);
  EXPECT_EQ(read_allocation_ceiling(mib), 96 * mib);
  ReadBudget budget("a.glb", mib);
  budget.charge(90 * mib, "accessor 1");
  EXPECT_EQ(budget.used(), 90 * mib);
  const std::string over = error_of([&] { budget.charge(7 * mib, "accessor 2"); });
  EXPECT_TRUE(
      contains(over, "a.glb: accessor 2 needs 7.0 MiB, more than reading this 1.0 MiB file may allocate (96.0 MiB"))
      << over;
  budget.add_source_bytes(mib);  // an external buffer makes the file larger
  budget.charge(7 * mib, "accessor 2");
  EXPECT_TRUE(contains(error_of([&] { budget.charge(std::uint64_t(1) << 62, 16, "accessor 3"); }), "overflow")) << "";
}

TEST(ReadLimits, Pc2HeadersThatPromiseMoreThanTheFileAreRefused) {
  test::ScratchDir dir;
  // Once, 2^31 x 2^31 x 12 bytes wrapped around 64 bits and could pass the size check.
  test::write_bytes(dir / "huge.pc2", pc2_header(0x7FFFFFFF, 0x7FFFFFFF));
  EXPECT_TRUE(contains(error_of([&] { read_pc2(dir / "huge.pc2"); }), "huge.pc2: truncated: the header promises"));
  // No points but two billion frames: 32 bytes that would make 48 GiB of empty frames.
  test::write_bytes(dir / "empty_frames.pc2", pc2_header(0, 0x7FFFFFFF));
  EXPECT_TRUE(contains(error_of([&] { read_pc2(dir / "empty_frames.pc2"); }),
                       "empty_frames.pc2: 2147483647 samples of no points"));
  test::write_bytes(dir / "none.pc2", pc2_header(0, 3));
  EXPECT_EQ(read_pc2(dir / "none.pc2").size(), 3u);
}

TEST(ReadLimits, GaussianPlyCountsAreReadWholeAndCheckedAgainstTheData) {
  test::ScratchDir dir;
  const std::string header =
      "ply\nformat binary_little_endian 1.0\nelement vertex COUNT\nproperty float x\n"
      "property float y\nproperty float z\nend_header\n";
  auto with_count = [&](const std::string& count) {
    std::string text = header;
    text.replace(text.find("COUNT"), 5, count);
    const float data[6] = {1, 2, 3, 4, 5, 6};
    text.append(reinterpret_cast<const char*>(data), sizeof data);
    test::write_bytes(dir / "s.ply", text);
    return error_of([&] { physics::read_gaussian_ply(dir / "s.ply"); });
  };
  EXPECT_TRUE(contains(with_count("-1"), "s.ply: PLY element 'vertex' count: -1 is out of range")) << with_count("-1");
  EXPECT_TRUE(contains(with_count("2x"), "'2x' is not an integer")) << with_count("2x");
  EXPECT_TRUE(contains(with_count("1000000000000"), "s.ply: PLY data is truncated: 1000000000000 Gaussians"))
      << with_count("1000000000000");
  EXPECT_TRUE(
      contains(with_count("2"), "lacks the vertex property 'scale_0'"));  // the count fits: the next check speaks
}

// Devices, FIFOs and folders under any name are refused before a read that would never end.
TEST(ReadLimits, EveryReaderReadsOnlyRegularFiles) {
  test::ScratchDir dir;
  ASSERT_EQ(::mkfifo((dir / "pipe.off").c_str(), 0600), 0);
  std::filesystem::create_symlink("/dev/zero", dir / "zero.obj");
  std::filesystem::create_symlink("/dev/zero", dir / "zero.pc2");
  std::filesystem::create_symlink("/dev/zero", dir / "zero.ply");
  std::filesystem::create_symlink("/dev/zero", dir / "zero.x");
  std::filesystem::create_directories(dir / "folder.off");
  EXPECT_TRUE(
      contains(error_of([&] { load_character(dir / "pipe.off"); }), "pipe.off: is a device or other special file"));
  EXPECT_TRUE(
      contains(error_of([&] { load_character(dir / "zero.obj"); }), "zero.obj: is a device or other special file"));
  EXPECT_TRUE(contains(error_of([&] { load_character(dir / "zero.x"); }), "zero.x: is a device or other special file"));
  EXPECT_TRUE(contains(error_of([&] { read_pc2(dir / "zero.pc2"); }), "zero.pc2: is a device or other special file"));
  EXPECT_TRUE(contains(error_of([&] { physics::read_gaussian_ply(dir / "zero.ply"); }), "zero.ply: is a device"));
  EXPECT_TRUE(contains(error_of([&] { load_character(dir / "folder.off"); }), "folder.off: is a folder"));
}
