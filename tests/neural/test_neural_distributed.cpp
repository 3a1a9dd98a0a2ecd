// Data-parallel training (c10d, Gloo on 127.0.0.1) through the wobble command, as torchrun would
// start it: 2 ranks with B shapes per step train the same parameters as 1 rank with 2B, only rank
// 0 writes, and a rank that dies or hangs makes the other exit with a clear error.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <wobble/error.hpp>
#include <wobble/neural/loss_plot.hpp>
#include <wobble/neural/torchrun.hpp>

#include "neural/network.hpp"
#include "tiny_training.hpp"

extern char** environ;

using namespace wobble;
using namespace wobble::neural;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// A tiny configuration in `folder` (output "out" beside it).
fs::path write_config(const fs::path& folder, int shapes_per_step, int steps, double timeout = 60) {
  fs::create_directories(folder);
  const nlohmann::json j = {{"seed", 3},
                            {"steps", steps},
                            {"batch_points", 48},
                            {"z_samples", 4},
                            {"learning_rate", 3e-3},
                            {"min_learning_rate", 1e-3},
                            {"shapes_per_step", shapes_per_step},
                            {"distributed_timeout", timeout},
                            {"network", wobble::test::tiny_network()},
                            {"data", wobble::test::tiny_data(50, 0, 96, 150, 8)},
                            {"output", "out"},
                            {"checkpoint_every", 2},
                            {"log_every", 2},
                            {"validate_every", 0}};
  const fs::path file = folder / "config.json";
  std::ofstream(file) << j.dump(2);
  return file;
}

struct Child {
  pid_t pid = 0;
  fs::path log;  // stdout and stderr
};

// `wobble ARGS...` with the torchrun variables of `rank` (none when world is 0).
Child start(const std::vector<std::string>& args, int world, int rank, int port, const fs::path& log) {
  std::vector<std::string> argv{WOBBLE_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  if (world > 0)
    env.insert(env.end(),
               {"WORLD_SIZE=" + std::to_string(world), "RANK=" + std::to_string(rank),
                "LOCAL_RANK=" + std::to_string(rank), "MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + std::to_string(port)});
  std::vector<char*> a, e;
  for (auto& s : argv) a.push_back(s.data());
  for (auto& s : env) e.push_back(s.data());
  a.push_back(nullptr);
  e.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  Child c;
  c.log = log;
  EXPECT_EQ(posix_spawn(&c.pid, a[0], &actions, nullptr, a.data(), e.data()), 0);
  posix_spawn_file_actions_destroy(&actions);
  return c;
}

// The exit status, or -1 if the child is still running after `seconds` (then it is killed).
int finish(const Child& c, double seconds) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < deadline) {
    int status = 0;
    if (waitpid(c.pid, &status, WNOHANG) == c.pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(c.pid, SIGKILL);
  waitpid(c.pid, nullptr, 0);
  return -1;
}

std::string text_of(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A port for the rendezvous: distinct per test so that a lingering socket cannot interfere.
int test_port(int offset) { return 29600 + static_cast<int>(getpid() % 200) * 5 + offset; }

// The largest parameter difference relative to the largest parameter, over the whole model.
double relative_difference(const fs::path& a, const fs::path& b) {
  SkinningNetwork x = load_network(a.string()), y = load_network(b.string());
  const auto px = x->parameters(), py = y->parameters();
  EXPECT_EQ(px.size(), py.size());
  double difference = 0, scale = 0;
  for (std::size_t i = 0; i < px.size(); ++i) {
    difference = std::max(difference, (px[i] - py[i]).abs().max().item<double>());
    scale = std::max(scale, py[i].abs().max().item<double>());
  }
  return difference / scale;
}

// The processes whose command line mentions `text` (the ranks of a job, by its configuration).
int processes_mentioning(const std::string& text) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos || std::stoi(name) == getpid()) continue;
    std::string command = text_of(entry.path() / "cmdline");
    std::replace(command.begin(), command.end(), '\0', ' ');
    if (command.find(text) != std::string::npos) ++count;
  }
  return count;
}

}  // namespace

TEST(NeuralDistributed, TorchrunEnvironmentIsReadStrictly) {
  unsetenv("WORLD_SIZE");
  EXPECT_FALSE(TorchrunEnvironment::from_environment().distributed());
  setenv("WORLD_SIZE", "2", 1);
  unsetenv("RANK");
  EXPECT_THROW(TorchrunEnvironment::from_environment(), Error);  // RANK missing
  setenv("RANK", "2", 1);
  EXPECT_THROW(TorchrunEnvironment::from_environment(), Error);  // out of range
  setenv("RANK", "1", 1);
  setenv("MASTER_PORT", "29x", 1);
  try {
    TorchrunEnvironment::from_environment();
    ADD_FAILURE() << "a malformed MASTER_PORT was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("MASTER_PORT"), std::string::npos) << e.what();
  }
  setenv("MASTER_PORT", "29555", 1);
  const TorchrunEnvironment e = TorchrunEnvironment::from_environment();
  EXPECT_EQ(e.world_size, 2);
  EXPECT_EQ(e.rank, 1);
  EXPECT_EQ(e.local_rank, 1);  // defaults to RANK
  EXPECT_EQ(e.master_port, 29555);
  for (const char* v : {"WORLD_SIZE", "RANK", "MASTER_PORT"}) unsetenv(v);
}

TEST(NeuralDistributed, TwoRanksWithBatchBTrainWhatOneRankWithBatch2BTrains) {
  const fs::path dir = fs::temp_directory_path() / "wobble_distributed_same";
  fs::remove_all(dir);
  const int steps = 6;
  // Each rank reads the same configuration from its own folder, so rank 1's writes would land
  // apart from rank 0's.
  const fs::path rank0 = write_config(dir / "rank0", 2, steps), rank1 = write_config(dir / "rank1", 2, steps);
  const fs::path single = write_config(dir / "single", 4, steps);
  const int port = test_port(0);
  const Child a = start({"fields", "train", rank0.string()}, 2, 0, port, dir / "rank0.log");
  const Child b = start({"fields", "train", rank1.string()}, 2, 1, port, dir / "rank1.log");
  const Child one = start({"fields", "train", single.string(), "--quiet"}, 0, 0, 0, dir / "single.log");
  ASSERT_EQ(finish(a, 240), 0) << text_of(a.log);
  ASSERT_EQ(finish(b, 60), 0) << text_of(b.log);
  ASSERT_EQ(finish(one, 240), 0) << text_of(one.log);

  for (const char* f : {"model.pt", "checkpoint.pt", "checkpoint.optim.pt", "losses.csv", "losses.png"})
    EXPECT_TRUE(fs::exists(dir / "rank0/out" / f)) << f;
  EXPECT_FALSE(fs::exists(dir / "rank1/out")) << "rank 1 wrote outputs";
  EXPECT_EQ(text_of(b.log).find("model "), std::string::npos) << "rank 1 reported: " << text_of(b.log);

  // The same items, the same averaged gradients up to the order of the additions.
  const double difference = relative_difference(dir / "rank0/out/model.pt", dir / "single/out/model.pt");
  EXPECT_LT(difference, 1e-5);
  std::printf("largest parameter difference, 2 ranks x 2 against 1 rank x 4, %d steps: %.3g of the largest parameter\n",
              steps, difference);
  // Not trivially equal: training moved the parameters well beyond that tolerance.
  const fs::path untrained = write_config(dir / "untrained", 4, 1);
  const Child u = start({"fields", "train", untrained.string(), "--quiet"}, 0, 0, 0, dir / "untrained.log");
  ASSERT_EQ(finish(u, 120), 0) << text_of(u.log);
  EXPECT_GT(relative_difference(dir / "untrained/out/model.pt", dir / "single/out/model.pt"), 1e-3);
  // The logged losses are the means over all ranks' items: the same as the single rank's.
  const std::vector<double> both = read_loss_csv(dir / "rank0/out/losses.csv", steps).series("smooth"),
                            alone = read_loss_csv(dir / "single/out/losses.csv", steps).series("smooth");
  ASSERT_EQ(both.size(), static_cast<std::size_t>(steps));
  ASSERT_EQ(alone.size(), both.size());
  for (int s = 0; s < steps; ++s) EXPECT_NEAR(both[s], alone[s], 1e-5 * alone[s]) << "step " << s + 1;
  fs::remove_all(dir);
}

TEST(NeuralDistributed, ProcessesStartsLocalRanksThatTrainLikeOneRank) {
  const fs::path dir = fs::temp_directory_path() / "wobble_distributed_processes";
  fs::remove_all(dir);
  // One shape per rank: each rank's sum is a single gradient and Gloo adds the two, so the result
  // equals the single process's (g0 + g1) / 2 bit for bit.
  const fs::path two = write_config(dir / "two", 1, 4), single = write_config(dir / "single", 2, 4);
  const Child a = start({"fields", "train", "--processes", "2", two.string()}, 0, 0, 0, dir / "two.log");
  const Child one = start({"fields", "train", single.string(), "--quiet"}, 0, 0, 0, dir / "single.log");
  ASSERT_EQ(finish(a, 240), 0) << text_of(a.log);
  ASSERT_EQ(finish(one, 240), 0) << text_of(one.log);
  EXPECT_NE(text_of(a.log).find("ranks 2"), std::string::npos) << text_of(a.log);
  EXPECT_EQ(relative_difference(dir / "two/out/model.pt", dir / "single/out/model.pt"), 0.0);
  fs::remove_all(dir);
}

TEST(NeuralDistributed, ProcessesPassesATerminationOnToTheRanks) {
  const fs::path dir = fs::temp_directory_path() / "wobble_distributed_signal";
  fs::remove_all(dir);
  const fs::path config = write_config(dir, 1, 100000);
  const Child launcher = start({"fields", "train", "--processes", "2", config.string()}, 0, 0, 0, dir / "launcher.log");
  const auto deadline = Clock::now() + std::chrono::seconds(120);
  while (!fs::exists(dir / "out/losses.csv") && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(fs::exists(dir / "out/losses.csv")) << text_of(launcher.log);
  ASSERT_EQ(processes_mentioning(config.string()), 3);  // the launcher and its 2 ranks
  kill(launcher.pid, SIGTERM);
  EXPECT_EQ(finish(launcher, 30), 128 + SIGTERM) << text_of(launcher.log);
  int left = processes_mentioning(config.string());
  for (int wait = 0; wait < 100 && left > 0; ++wait) {  // the ranks exit as the signal reaches them
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    left = processes_mentioning(config.string());
  }
  EXPECT_EQ(left, 0) << "ranks kept training after their launcher was terminated";
  fs::remove_all(dir);
}

TEST(NeuralDistributed, ARankThatDiesOrHangsMakesTheOtherExitWithAClearError) {
  const fs::path dir = fs::temp_directory_path() / "wobble_distributed_lost";
  fs::remove_all(dir);
  for (const int signal : {SIGKILL, SIGSTOP}) {
    const double timeout = 5;
    const fs::path config = write_config(dir / std::to_string(signal), 1, 100000, timeout);
    const int port = test_port(signal == SIGKILL ? 1 : 2);
    const Child a = start({"fields", "train", config.string()}, 2, 0, port, dir / "rank0.log");
    const Child b = start({"fields", "train", config.string()}, 2, 1, port, dir / "rank1.log");
    // Kill (or freeze) rank 1 once training runs: rank 0 has written its first checkpoint.
    const auto deadline = Clock::now() + std::chrono::seconds(120);
    while (!fs::exists(config.parent_path() / "out/losses.csv") && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(fs::exists(config.parent_path() / "out/losses.csv")) << text_of(a.log);
    kill(b.pid, signal);
    const auto killed = Clock::now();
    const int status = finish(a, 60);
    const double seconds = std::chrono::duration<double>(Clock::now() - killed).count();
    kill(b.pid, SIGKILL);
    waitpid(b.pid, nullptr, 0);
    EXPECT_NE(status, 0);
    EXPECT_NE(status, -1) << "rank 0 hung after rank 1 " << (signal == SIGKILL ? "died" : "froze");
    const std::string log = text_of(a.log);
    EXPECT_NE(log.find("rank 0 of 2: lost contact with the other ranks"), std::string::npos) << log;
    if (signal == SIGSTOP) {
      EXPECT_GT(seconds, 0.5 * timeout) << "gave up before the timeout";
    }
    EXPECT_LT(seconds, timeout + 30);
  }
  fs::remove_all(dir);
}
