#include "wait_status.hpp"

#include <cstring>

#include <sys/wait.h>

namespace wobble {

std::string signal_text(int signal) {
  const char* name = strsignal(signal);
  return "signal " + std::to_string(signal) + (name ? std::string(", ") + name : std::string());
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "was killed by " + signal_text(WTERMSIG(status));
  return "stopped";
}

}  // namespace wobble
