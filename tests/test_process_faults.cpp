// Processes that die (issue 36): `wobble bake` and `wobble batch` killed with SIGKILL part-way,
// then run again: no partial output ever stands under an output's name, the rerun finishes with
// the bytes of an uninterrupted run, and no temporary file is left.
#include <csignal>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "child_process.hpp"
#include "test_util.hpp"

namespace wobble {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::ScratchDir;
using Clock = std::chrono::steady_clock;
using test::exit_code;
using test::start_wobble;
using test::still_running;

// Runs wobble to its end; its exit code.
int run_to_end(const std::vector<std::string>& arguments, const fs::path& log) {
  return exit_code(start_wobble(arguments, log));
}

// Starts wobble and kills it with SIGKILL after `delay`; true when it was still running then.
bool kill_after(const std::vector<std::string>& arguments, const fs::path& log, std::chrono::duration<double> delay) {
  const pid_t pid = start_wobble(arguments, log);
  std::this_thread::sleep_for(delay);
  const bool running = still_running(pid);
  kill(pid, SIGKILL);
  exit_code(pid);
  return running;
}

// Starts wobble and stops it (SIGSTOP) as soon as inotify reports a temporary sibling
// (".NAME.tmp-...") created in `folder`, then kills it with SIGKILL. True when the temporary still
// stood once it had stopped: killed in the middle of writing the output, before its rename.
bool kill_once_while_writing(const std::vector<std::string>& arguments, const fs::path& log, const fs::path& folder) {
  const int events = inotify_init1(IN_CLOEXEC);
  inotify_add_watch(events, folder.c_str(), IN_CREATE);
  const pid_t pid = start_wobble(arguments, log);
  bool caught = false;
  alignas(inotify_event) char buffer[4096];
  while (!caught && still_running(pid)) {
    pollfd ready{events, POLLIN, 0};
    if (poll(&ready, 1, 20) <= 0) continue;
    const ssize_t length = read(events, buffer, sizeof buffer);
    for (const char* at = buffer; length > 0 && at < buffer + length && !caught;) {
      const auto* event = reinterpret_cast<const inotify_event*>(at);
      if (event->len > 0 && std::string(event->name).find(".tmp-") != std::string::npos) {
        kill(pid, SIGSTOP);
        caught = fs::exists(folder / event->name);
        if (!caught) kill(pid, SIGCONT);
      }
      at += sizeof(inotify_event) + event->len;
    }
  }
  kill(pid, SIGKILL);
  exit_code(pid);
  close(events);
  return caught;
}

// As kill_once_while_writing, up to 5 times: a small output can be written and renamed before
// the stop arrives. An output finished meanwhile is removed before the next try.
bool kill_while_writing(const std::vector<std::string>& arguments, const fs::path& log, const fs::path& folder) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (kill_once_while_writing(arguments, log, folder)) return true;
    for (const auto& entry : fs::directory_iterator(folder)) fs::remove_all(entry.path());
  }
  return false;
}

std::string bytes_of(const fs::path& output) {  // a file's bytes, or a folder's files' names and bytes
  std::string all;
  if (fs::is_directory(output)) {
    std::set<fs::path> files;
    for (const auto& entry : fs::directory_iterator(output)) files.insert(entry.path());
    for (const fs::path& file : files) {
      const std::vector<char> bytes = test::read_bytes(file);
      all += file.filename().string() + ":" + std::string(bytes.begin(), bytes.end());
    }
  } else {
    const std::vector<char> bytes = test::read_bytes(output);
    all.assign(bytes.begin(), bytes.end());
  }
  return all;
}

std::set<std::string> names_in(const fs::path& folder) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.insert(entry.path().filename().string());
  return names;
}

class KilledBake : public ::testing::TestWithParam<const char*> {};

// Killed at a quarter and at half of an uninterrupted bake's time, and in the middle of writing the
// output (a temporary sibling stands): whatever stands under the output's name afterwards is the
// whole output, and the rerun finishes with the uninterrupted bytes and no temporary left (the
// killed writer's is removed).
TEST_P(KilledBake, LeavesNoPartialOutputAndTheRerunFinishes) {
  ScratchDir scratch;
  const std::string output = GetParam();
  const bool folder = output.back() == '/';
  const std::string name = output.substr(0, output.size() - (folder ? 1 : 0));
  auto arguments = [&](const fs::path& dir) {
    return std::vector<std::string>{"bake",
                                    test::bundled_asset("clonk.glb").string(),
                                    "--clip",
                                    "Walk",
                                    "--fps",
                                    "120",
                                    "--deformer",
                                    "lbs,dynamic",
                                    "--threads",
                                    "1",
                                    "-q",
                                    "-o",
                                    (dir / output).string()};
  };
  fs::create_directories(scratch / "whole");
  const auto start = Clock::now();
  ASSERT_EQ(run_to_end(arguments(scratch / "whole"), scratch / "whole.log"), 0);
  const std::chrono::duration<double> whole = Clock::now() - start;
  const std::string expected = bytes_of(scratch / "whole" / name);

  int killed_running = 0;
  for (const double fraction : {0.25, 0.5, 1.0}) {
    const fs::path dir = scratch / ("killed-" + std::to_string(static_cast<int>(fraction * 100)));
    fs::create_directories(dir);
    if (fraction < 1.0) {
      killed_running += kill_after(arguments(dir), scratch / "killed.log", whole * fraction);
    } else {
      const bool writing = kill_while_writing(arguments(dir), scratch / "killed.log", dir);
      EXPECT_TRUE(writing) << "the bake was not caught writing " << output;
      killed_running += writing;
    }
    if (fs::exists(dir / name)) {
      EXPECT_EQ(bytes_of(dir / name), expected) << "a partial output at " << dir / name;
    }
    ASSERT_EQ(run_to_end(arguments(dir), scratch / "rerun.log"), 0);
    EXPECT_EQ(bytes_of(dir / name), expected) << dir / name;
    EXPECT_EQ(names_in(dir), std::set<std::string>{name}) << "a temporary left in " << dir;
  }
  EXPECT_GE(killed_running, 2) << "the bakes ended before they were killed: nothing was tested";
}

INSTANTIATE_TEST_SUITE_P(EveryOutput, KilledBake, ::testing::Values("walk.glb", "walk.pc2", "walk.usda", "frames/"),
                         [](const auto& info) { return wobble::test::parameter_name(info.param); });

// A batch killed once some jobs are done (its bakes die with it: PR_SET_PDEATHSIG), then run
// again: the done jobs are skipped, the others done, every output equals its single bake, and no
// partial output or temporary is left.
TEST(KilledBatch, RerunSkipsWhatWasDoneAndFinishesTheRest) {
  ScratchDir scratch;
  const fs::path dir = scratch.path();
  const std::vector<std::string> clips = {"Walk", "Run", "Swim", "Dig", "JumpDive", "Walk", "Run", "Swim"};
  const std::vector<std::string> extensions = {".pc2", ".glb", ".usda", "/"};
  json jobs = json::array();
  for (std::size_t i = 0; i < clips.size(); ++i)
    jobs.push_back({{"input", test::bundled_asset("clonk.glb").string()},
                    {"clip", clips[i]},
                    {"output", "out/job" + std::to_string(i) + extensions[i % extensions.size()]}});
  test::write_bytes(dir / "batch.json",
                    json{{"defaults", {{"fps", 60}, {"deformer", "lbs,dynamic"}}}, {"jobs", jobs}}.dump());
  const std::vector<std::string> batch = {"batch",    (dir / "batch.json").string(), "--jobs", "2", "-q",
                                          "--report", (dir / "report.json").string()};

  // Kill it once two jobs have their sidecars.
  const pid_t pid = start_wobble(batch, dir / "first.log");
  const auto deadline = Clock::now() + std::chrono::minutes(5);
  auto done_jobs = [&] {
    std::set<std::size_t> done;
    for (std::size_t i = 0; i < clips.size(); ++i) {
      const std::string stem = jobs[i]["output"].get<std::string>();
      if (fs::exists(dir / (fs::path(stem.back() == '/' ? stem.substr(0, stem.size() - 1) : stem).string() +
                            ".wobble-job.json")))
        done.insert(i);
    }
    return done;
  };
  while (done_jobs().size() < 2 && Clock::now() < deadline && still_running(pid))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  kill(pid, SIGKILL);
  exit_code(pid);
  const std::set<std::size_t> done_before = done_jobs();
  ASSERT_GE(done_before.size(), 2u);
  ASSERT_LT(done_before.size(), clips.size()) << "the batch finished before it was killed";

  ASSERT_EQ(run_to_end(batch, dir / "second.log"), 0);
  std::ifstream report_file(dir / "report.json");
  const json report = json::parse(report_file);
  for (std::size_t i = 0; i < clips.size(); ++i) {
    const json& entry = report["jobs"][i];
    // A job done before the kill is skipped; one whose sidecar was not written yet is done again.
    EXPECT_EQ(entry["status"], done_before.count(i) ? "skipped" : "done") << entry.dump();
    const std::string output = jobs[i]["output"];
    const fs::path alone = dir / "alone" / output;
    fs::create_directories(alone.parent_path());
    ASSERT_EQ(run_to_end({"bake", test::bundled_asset("clonk.glb").string(), "--clip", clips[i], "--fps", "60",
                          "--deformer", "lbs,dynamic", "-q", "-o", alone.string()},
                         dir / "alone.log"),
              0);
    EXPECT_EQ(bytes_of(dir / output), bytes_of(alone)) << output;
  }
  for (const std::string& name : names_in(dir / "out")) EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
}

}  // namespace
}  // namespace wobble
