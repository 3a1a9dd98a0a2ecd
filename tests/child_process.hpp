#pragma once
// `wobble` as a child process the test can kill part-way (SIGKILL tests), for the test binaries
// that define WOBBLE_CLI.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

namespace wobble::test {

// Starts `wobble ARGUMENTS...`, its stdout and stderr into `log`; returns its pid.
inline pid_t start_wobble(const std::vector<std::string>& arguments, const std::filesystem::path& log) {
  std::vector<std::string> words = {WOBBLE_CLI};
  words.insert(words.end(), arguments.begin(), arguments.end());
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

// Waits for the child; its exit code, or -1 when a signal ended it.
inline int exit_code(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// True while the child runs (it has not ended yet).
inline bool still_running(pid_t pid) { return waitpid(pid, nullptr, WNOHANG) == 0; }

}  // namespace wobble::test
