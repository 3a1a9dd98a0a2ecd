// Starting and watching the local ranks of a data-parallel training job.
#include "local_ranks.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <wobble/error.hpp>
#include "core/fail.hpp"
#include "io/wait_status.hpp"

extern char** environ;

namespace wobble::cli {

namespace {

// A port the loopback interface has free now (the rendezvous binds it a moment later).
int free_loopback_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) fail_plain("--processes: cannot open a socket to find a free port");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  close(fd);
  if (!ok) fail_plain("--processes: cannot find a free port on 127.0.0.1");
  return ntohs(address.sin_port);
}

// The environment of this process without torchrun's variables, plus those of `rank`.
std::vector<std::string> rank_environment(int rank, int processes, int port) {
  std::vector<std::string> out;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    bool ours = false;
    for (const char* name : {"WORLD_SIZE=", "RANK=", "LOCAL_RANK=", "MASTER_ADDR=", "MASTER_PORT="})
      ours = ours || entry.rfind(name, 0) == 0;
    if (!ours) out.push_back(entry);
  }
  out.push_back(fmt::format("WORLD_SIZE={}", processes));
  out.push_back(fmt::format("RANK={}", rank));
  out.push_back(fmt::format("LOCAL_RANK={}", rank));
  out.push_back("MASTER_ADDR=127.0.0.1");
  out.push_back(fmt::format("MASTER_PORT={}", port));
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// A SIGINT, SIGTERM or SIGHUP sent to the launcher, to be passed on to the ranks (as torchrun
// does): they are separate processes and would otherwise train on unattended.
volatile std::sig_atomic_t received_signal = 0;

extern "C" void note_signal(int signal) { received_signal = signal; }

void forward_signals_to_ranks() {
  struct sigaction action {};
  action.sa_handler = note_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal, &action, nullptr);
}

}  // namespace

int run_local_ranks(int processes, const std::vector<std::string>& arguments) {
  if (processes < 1 || processes > 256) fail_plain("--processes: {} is out of range [1, 256]", processes);
  const int port = free_loopback_port();
  forward_signals_to_ranks();
  std::vector<pid_t> children;
  for (int rank = 0; rank < processes; ++rank) {
    std::vector<std::string> argv{"/proc/self/exe"};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    std::vector<std::string> env = rank_environment(rank, processes, port);
    std::vector<char*> argp = pointers(argv), envp = pointers(env);
    pid_t pid = 0;
    if (posix_spawn(&pid, argp[0], nullptr, nullptr, argp.data(), envp.data()) != 0) {
      for (pid_t c : children) kill(c, SIGTERM);
      fail_plain("--processes: cannot start rank {}", rank);
    }
    children.push_back(pid);
  }
  spdlog::info("started {} local ranks (rendezvous at 127.0.0.1:{})", processes, port);
  int result = 0, running = processes;
  auto failed_at = std::chrono::steady_clock::time_point::max();
  while (running > 0) {
    if (const int signal = received_signal) {
      received_signal = 0;
      spdlog::warn("signal {}: passed on to the {} running ranks", signal, running);
      for (pid_t c : children)
        if (c > 0) kill(c, signal);
      if (result == 0) result = 128 + signal;
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);  // polled, so that a signal is passed on within 0.1 s
    if (pid > 0) {
      --running;
      const int rank = static_cast<int>(std::find(children.begin(), children.end(), pid) - children.begin());
      children[static_cast<std::size_t>(rank)] = 0;
      const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (!ok && result == 0) {
        spdlog::error("rank {} of {} {}", rank, processes, describe_wait_status(status));
        result = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
        failed_at = std::chrono::steady_clock::now();
      }
      continue;
    }
    // After a failure the others stop by themselves once they notice; a few seconds, then a nudge.
    if (std::chrono::steady_clock::now() - failed_at > std::chrono::seconds(10)) {
      for (pid_t c : children)
        if (c > 0) kill(c, SIGTERM);
      failed_at = std::chrono::steady_clock::time_point::max();
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  return result;
}

}  // namespace wobble::cli
