#include <wobble/io/atomic_file.hpp>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble {

namespace fs = std::filesystem;

namespace {

fs::path named_target(fs::path target) {
  return target.filename().empty() ? target.parent_path() : target;  // "out/" names the folder "out"
}

fs::path parent_folder(const fs::path& target) {
  const fs::path parent = target.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || !name[0]) return "host";
  return name;
}

// ".NAME.tmp-HOST-": the start of the temporaries this machine's writers make for `target`; a
// pid and a random number follow.
std::string temporary_prefix(const fs::path& target) {
  std::string prefix = ".";
  prefix += target.filename().string() + ".tmp-" + host_name() + "-";
  return prefix;
}

// Removes the temporaries of `target` that writers on this machine left when they died (SIGKILL,
// a power cut): those named with a pid that no longer runs. A live writer's are left alone.
void remove_abandoned_temporaries(const fs::path& target) {
  const std::string prefix = temporary_prefix(target);
  std::error_code error;
  for (fs::directory_iterator it(parent_folder(target), error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string rest = name.substr(prefix.size());
    const std::size_t dash = rest.find('-');
    if (dash == 0 || dash > 9 || rest.find_first_not_of("0123456789") != dash) continue;
    const long pid = std::stol(rest.substr(0, dash));
    if (pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      fs::remove_all(it->path(), ignored);
    }
  }
}

}  // namespace

void AtomicOutput::check(const fs::path& output, bool is_directory) {
  const fs::path target = named_target(output);
  const fs::path parent = parent_folder(target);
  std::error_code error;
  if (!fs::is_directory(parent, error)) fail(target, "cannot write: folder {} does not exist", parent.string());
  if (access(parent.c_str(), W_OK) != 0)
    fail(target, "cannot write: folder {} is not writable ({})", parent.string(), std::strerror(errno));
  if (fs::is_directory(target, error) && !is_directory) fail(target, "cannot write: it is a folder");
}

AtomicOutput::AtomicOutput(fs::path target, bool is_directory)
    : target_(named_target(std::move(target))), is_directory_(is_directory) {
  check(target_, is_directory_);
  remove_abandoned_temporaries(target_);
  std::random_device device;
  temporary_ = parent_folder(target_) /
               (temporary_prefix(target_) + std::to_string(getpid()) + "-" + std::to_string(device() % 1000000));
  if (is_directory_) {
    std::error_code error;
    fs::create_directory(temporary_, error);
    if (error) fail(target_, "cannot create a temporary folder: {}", error.message());
  }
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) {
    std::error_code ignored;
    fs::remove_all(temporary_, ignored);
  }
}

void AtomicOutput::commit() {
  std::error_code error;
  if (is_directory_ && fs::is_directory(target_, error) && !fs::is_symlink(target_, error)) {
    // Swap the finished folder with the previous one in one step, then remove the previous one: a
    // kill in between leaves a whole folder in place and the old one under a temporary's name
    // (removed by the next writer), never no folder at all.
#ifdef RENAME_EXCHANGE  // Linux's; Emscripten's libc has no exchange and takes the path below
    if (renameat2(AT_FDCWD, temporary_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0) {
      committed_ = true;
      fs::remove_all(temporary_, error);
      return;
    }
#endif
  }
  if (is_directory_ && fs::exists(fs::symlink_status(target_, error)))
    fs::remove_all(target_, error);  // no exchange here
  fs::rename(temporary_, target_, error);
  if (error) fail(target_, "cannot move the finished output into place: {}", error.message());
  committed_ = true;
}

}  // namespace wobble
