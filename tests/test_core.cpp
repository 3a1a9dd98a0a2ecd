// Frame times and a bake too large for memory (bake.hpp), atomic outputs (io); the runtime's skin,
// rig, stack and pool checks are in tests/runtime/test_core.cpp.
#include <fstream>

#include <gtest/gtest.h>

#include <wobble/io/atomic_file.hpp>
#include <wobble/offline/bake.hpp>
#include <wobble/error.hpp>

#include "synthetic_rigs.hpp"
#include "test_util.hpp"

using namespace wobble;

TEST(FrameTimes, IncludeTheEndAndDoNotDrift) {
  const auto times = frame_times(0.0, 1.0, 60.0);
  ASSERT_EQ(times.size(), 61u);
  EXPECT_DOUBLE_EQ(times[30], 0.5);
  EXPECT_DOUBLE_EQ(times.back(), 1.0);
  EXPECT_EQ(frame_times(0.5, 0.5, 30).size(), 1u);
  EXPECT_EQ(frame_times(0.0, 0.99, 10).size(), 10u);  // 0.0 .. 0.9
  EXPECT_THROW(frame_times(1.0, 0.0, 60), Error);
  EXPECT_THROW(frame_times(0.0, 1.0, 0), Error);
}

// A bake holds all its frames: one that cannot fit in memory is refused before the first frame
// (10^7 frames of 10^5 vertices: 12 TB), naming the character, instead of failing hours later.
TEST(Bake, RefusesFramesThatCannotFitInMemory) {
  Character big = test::chain_character(2, 1.0f, 12500);
  test::add_rotation(big, 1, Vec3f(0, 0, 1), 1.0f, [](double t) { return t; });
  ASSERT_EQ(big.mesh.vertex_count(), 100000u);
  BakeOptions options;
  options.fps = 1e4;
  options.start = 0;
  options.end = 1000;
  const std::string message = test::error_of([&] { bake(big, options); });
  EXPECT_EQ(message.rfind("synthetic-chain: 10000001 frames of 100000 vertices need ", 0), 0u) << message;
  EXPECT_NE(message.find("GiB, more than this machine's memory"), std::string::npos) << message;
}

TEST(AtomicOutput, LeavesNothingBehindWithoutCommit) {
  test::ScratchDir dir;
  {
    AtomicOutput out(dir / "result.bin");
    std::ofstream(out.temporary()) << "partial";
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  {
    AtomicOutput out(dir / "result.bin");
    std::ofstream(out.temporary()) << "complete";
    out.commit();
  }
  EXPECT_TRUE(std::filesystem::exists(dir / "result.bin"));
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), std::filesystem::directory_iterator()), 1);
  EXPECT_THROW(AtomicOutput(dir / "missing-folder/out.pc2"), Error);
}
