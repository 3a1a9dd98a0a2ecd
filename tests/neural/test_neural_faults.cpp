// Training that dies, disks that fill, folders it cannot write (issue 36): `wobble fields train`
// killed with SIGKILL resumes from its last checkpoint and leaves no temporary; a checkpoint pair
// written only halfway, or a resume on another configuration, is refused with "cannot resume"; a
// full disk names the checkpoint and the system's reason and keeps the previous one; a read-only
// output folder stops before any step.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <wobble/error.hpp>
#include <wobble/neural/loss_plot.hpp>
#include <wobble/neural/training.hpp>

#include "../child_process.hpp"
#include "../private_tmpfs.hpp"
#include "neural/network.hpp"
#include "tiny_training.hpp"

namespace {

namespace fs = std::filesystem;
using namespace wobble::neural;
using Clock = std::chrono::steady_clock;
using wobble::test::exit_code;
using wobble::test::start_wobble;
using wobble::test::still_running;

struct Scratch {
  Scratch() : path(fs::temp_directory_path() / ("wobble-neural-faults-" + std::to_string(getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Scratch() { fs::remove_all(path); }
  fs::path path;
};

// A tiny configuration (as test_neural_training's), `steps` long, a checkpoint every 5 steps.
fs::path write_config(const fs::path& folder, const fs::path& output, int steps) {
  const nlohmann::json j = {{"seed", 2},
                            {"steps", steps},
                            {"batch_points", 64},
                            {"z_samples", 4},
                            {"network", wobble::test::tiny_network()},
                            {"data", wobble::test::tiny_data(1, 1)},
                            {"output", output.string()},
                            {"checkpoint_every", 5},
                            {"log_every", 5},
                            {"validate_every", 1000}};
  const fs::path file = folder / "tiny.json";
  std::ofstream(file) << j.dump();
  return file;
}

std::string text_of(const fs::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

int checkpoint_step(const fs::path& checkpoint) {
  nlohmann::json metadata;
  load_network(checkpoint.string(), &metadata);
  return metadata.value("step", -1);
}

std::set<std::string> names_in(const fs::path& folder) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.insert(entry.path().filename().string());
  return names;
}

// Killed once its first checkpoint stands, then run again with --resume: it goes on from that
// checkpoint's step (the loss CSV has every step once), and no temporary is left.
TEST(NeuralFaults, KilledTrainingResumesFromItsLastCheckpoint) {
  Scratch scratch;
  const fs::path output = scratch.path / "run";
  const fs::path config = write_config(scratch.path, output, 60);
  const pid_t pid = start_wobble({"fields", "train", config.string(), "--quiet"}, scratch.path / "first.log");
  const auto deadline = Clock::now() + std::chrono::minutes(5);
  while (!fs::exists(output / "checkpoint.pt") && Clock::now() < deadline && still_running(pid))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  kill(pid, SIGKILL);
  exit_code(pid);
  ASSERT_TRUE(fs::exists(output / "checkpoint.pt")) << text_of(scratch.path / "first.log");
  const int killed_at = checkpoint_step(output / "checkpoint.pt");
  ASSERT_GE(killed_at, 5);
  ASSERT_LT(killed_at, 60) << "the training finished before it was killed";

  const pid_t again =
      start_wobble({"fields", "train", config.string(), "--resume", "--quiet"}, scratch.path / "resume.log");
  ASSERT_EQ(exit_code(again), 0) << text_of(scratch.path / "resume.log");
  EXPECT_EQ(checkpoint_step(output / "checkpoint.pt"), 60);
  const std::vector<int> steps = read_loss_csv(output / "losses.csv", 1'000'000).steps();
  ASSERT_EQ(steps.size(), 60u);
  for (std::size_t k = 0; k < steps.size(); ++k) EXPECT_EQ(steps[k], static_cast<int>(k) + 1);
  EXPECT_EQ(names_in(output),
            (std::set<std::string>{"checkpoint.pt", "checkpoint.optim.pt", "losses.csv", "losses.png", "model.pt"}));
}

// A run killed between the optimizer state and the network checkpoint leaves a pair of two steps:
// resuming says it cannot, rather than going on with another step's optimizer state.
TEST(NeuralFaults, AHalfWrittenCheckpointPairCannotResume) {
  Scratch scratch;
  const fs::path output = scratch.path / "run";
  const fs::path config = write_config(scratch.path, output, 10);
  ASSERT_EQ(exit_code(start_wobble({"fields", "train", config.string(), "--quiet"}, scratch.path / "first.log")), 0);
  fs::copy_file(output / "checkpoint.optim.pt", scratch.path / "optim-of-step-10.pt");
  ASSERT_EQ(exit_code(start_wobble({"fields", "train", config.string(), "--resume", "--steps", "15", "--quiet"},
                                   scratch.path / "second.log")),
            0);
  ASSERT_EQ(checkpoint_step(output / "checkpoint.pt"), 15);
  fs::copy_file(scratch.path / "optim-of-step-10.pt", output / "checkpoint.optim.pt",
                fs::copy_options::overwrite_existing);
  const pid_t resumed =
      start_wobble({"fields", "train", config.string(), "--resume", "--steps", "20"}, scratch.path / "third.log");
  EXPECT_EQ(exit_code(resumed), 1);
  EXPECT_NE(
      text_of(scratch.path / "third.log")
          .find("checkpoint.optim.pt: cannot resume: the optimizer state is of step 10, checkpoint.pt of step 15"),
      std::string::npos)
      << text_of(scratch.path / "third.log");
  fs::remove(output / "checkpoint.optim.pt");
  EXPECT_EQ(exit_code(start_wobble({"fields", "train", config.string(), "--resume"}, scratch.path / "fourth.log")), 1);
  EXPECT_NE(text_of(scratch.path / "fourth.log").find("cannot resume: the optimizer state is missing"),
            std::string::npos)
      << text_of(scratch.path / "fourth.log");
}

// A loss CSV that lacks the checkpoint's rows (lost, or from an older run) is refused on resume
// rather than leaving a hole in the curves; rows past the checkpoint (a run killed after writing
// the curves, before its checkpoint) are dropped.
TEST(NeuralFaults, ResumeNeedsTheLossRowsUpToTheCheckpoint) {
  Scratch scratch;
  const fs::path output = scratch.path / "run";
  const fs::path config = write_config(scratch.path, output, 5);
  ASSERT_EQ(exit_code(start_wobble({"fields", "train", config.string(), "--quiet"}, scratch.path / "first.log")), 0);
  const std::string rows = text_of(output / "losses.csv");
  const std::string first_rows = rows.substr(0, rows.find("\n4,"));  // the header and steps 1 to 3
  std::ofstream(output / "losses.csv") << first_rows << "\n";
  EXPECT_EQ(exit_code(start_wobble({"fields", "train", config.string(), "--resume", "--steps", "10"},
                                   scratch.path / "lost.log")),
            1);
  EXPECT_NE(text_of(scratch.path / "lost.log")
                .find("losses.csv: cannot resume: the loss rows end at step 3, checkpoint.pt is of step 5"),
            std::string::npos)
      << text_of(scratch.path / "lost.log");
  std::ofstream(output / "losses.csv") << rows << "6" << rows.substr(rows.find("\n5,") + 2);  // a row of step 6 ahead
  ASSERT_EQ(exit_code(start_wobble({"fields", "train", config.string(), "--resume", "--steps", "10", "--quiet"},
                                   scratch.path / "ahead.log")),
            0)
      << text_of(scratch.path / "ahead.log");
  const std::vector<int> steps = read_loss_csv(output / "losses.csv", 1'000'000).steps();
  ASSERT_EQ(steps.size(), 10u);
  for (std::size_t k = 0; k < steps.size(); ++k) EXPECT_EQ(steps[k], static_cast<int>(k) + 1);
}

// Resuming on a configuration whose run settings differ would continue a run that never was:
// refused, naming the setting and both values; the same configuration, named through another
// path and with more steps, resumes.
TEST(NeuralFaults, ResumeOnAnotherConfigurationNamesTheSettingThatDiffers) {
  Scratch scratch;
  const fs::path output = scratch.path / "run";
  const fs::path config = write_config(scratch.path, output, 5);
  ASSERT_EQ(exit_code(start_wobble({"fields", "train", config.string(), "--quiet"}, scratch.path / "first.log")), 0);
  auto changed = [&](const char* name, auto edit) {
    nlohmann::json j = nlohmann::json::parse(text_of(config));
    edit(j);
    const fs::path file = scratch.path / name;
    std::ofstream(file) << j.dump();
    return file;
  };
  const fs::path batch = changed("batch.json", [](nlohmann::json& j) { j["batch_points"] = 32; });
  const fs::path data = changed("data.json", [](nlohmann::json& j) { j["data"]["cubature_points"] = 150; });
  const fs::path losses = changed("losses.json", [](nlohmann::json& j) { j["losses"] = {{"weight_smooth", 2}}; });
  const std::vector<std::pair<fs::path, std::string>> refusals{
      {batch, "cannot resume: batch_points is 32 in the configuration, 64 in the run that wrote this checkpoint"},
      {data, "cannot resume: data.cubature_points is 150 in the configuration, 200 in the run"},
      {losses, "cannot resume: losses.weight_smooth is 2.0 in the configuration, 1.0 in the run"}};
  for (const auto& [file, message] : refusals) {
    const fs::path log = scratch.path / (file.stem().string() + ".log");
    EXPECT_EQ(exit_code(start_wobble({"fields", "train", file.string(), "--resume", "--steps", "10"}, log)), 1);
    EXPECT_NE(text_of(log).find(message), std::string::npos) << text_of(log);
  }
  const fs::path same = config.parent_path() / "." / config.filename();
  ASSERT_EQ(exit_code(start_wobble({"fields", "train", same.string(), "--resume", "--steps", "10", "--quiet"},
                                   scratch.path / "same.log")),
            0)
      << text_of(scratch.path / "same.log");
  EXPECT_EQ(checkpoint_step(output / "checkpoint.pt"), 10);
}

// A checkpoint onto a full disk: Error naming it with the system's reason; the previous intact.
TEST(NeuralFaults, CheckpointOntoAFullDiskSaysTheReasonAndKeepsThePreviousOne) {
  Scratch scratch;
  wobble::test::PrivateTmpfs disk(scratch.path / "disk", 1 << 20);
  if (!disk.mounted()) GTEST_SKIP() << disk.why_not();
  NetworkConfig config;
  config.width = 32;
  SkinningNetwork network(config);
  std::ofstream(disk / "checkpoint.pt") << "the previous checkpoint";
  disk.fill_leaving(16 << 10);
  try {
    save_network(network, (disk / "checkpoint.pt").string(), {{"step", 5}});
    ADD_FAILURE() << "no error";
  } catch (const wobble::Error& error) {
    EXPECT_EQ(std::string(error.what()), (disk / "checkpoint.pt").string() + ": cannot write: No space left on device");
  }
  EXPECT_EQ(text_of(disk / "checkpoint.pt"), "the previous checkpoint");
  EXPECT_EQ(names_in(disk.path()), (std::set<std::string>{"checkpoint.pt", "filler"}));
}

// A read-only output folder: one line naming it, before any step.
TEST(NeuralFaults, ReadOnlyOutputFolderStopsBeforeAnyStep) {
  Scratch scratch;
  wobble::test::PrivateTmpfs read_only(scratch.path / "read-only", 64 << 10, /*read_only=*/true);
  if (!read_only.mounted()) GTEST_SKIP() << read_only.why_not();
  const fs::path config = write_config(scratch.path, read_only.path(), 100000);
  const auto start = Clock::now();
  EXPECT_EQ(exit_code(start_wobble({"fields", "train", config.string()}, scratch.path / "log")), 1);
  EXPECT_NE(text_of(scratch.path / "log")
                .find("model.pt: cannot write: folder " + read_only.path().string() +
                      " is not writable (Read-only file system)"),
            std::string::npos)
      << text_of(scratch.path / "log");
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(60));  // not after 100,000 steps
}

}  // namespace
