#pragma once
// How a child process ended, in the words wobble's messages use (an isolated import, a batch's
// bake, a training rank).
#include <string>

namespace wobble {

// "signal 11, Segmentation fault" (the system's name where it has one).
std::string signal_text(int signal);

// For a waitpid() status: "exited with status 3", "was killed by signal 11, Segmentation fault",
// or "stopped".
std::string describe_wait_status(int status);

}  // namespace wobble
