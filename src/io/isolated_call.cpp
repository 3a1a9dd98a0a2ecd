#include "isolated_call.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <wobble/error.hpp>
#include <wobble/parse.hpp>
#include <wobble/io/read_limits.hpp>
#include "core/fail.hpp"
#include "io/wait_status.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define WOBBLE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define WOBBLE_SANITIZED 1
#endif
#endif

namespace wobble {

namespace {

// The child's reply: one byte saying what follows, then the payload.
constexpr char kValue = 'V', kError = 'E', kOutOfMemory = 'M';
constexpr rlim_t kMostCapturedBytes = 1 << 20;  // of the child's stderr
constexpr std::size_t kMostShownBytes = 200;    // of its last line, in a message

// A memory file for the child's stderr (-1 when there is none: the child keeps ours).
int open_stderr_capture() {
#ifdef __EMSCRIPTEN__
  return -1;
#else
  return ::memfd_create("wobble-isolated-stderr", MFD_CLOEXEC);
#endif
}

// The last non-empty line the child wrote to stderr ("free(): invalid next size (fast)"), cut short.
std::string last_stderr_line(int fd) {
  if (fd < 0) return {};
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size <= 0) return {};
  const off_t from = std::max<off_t>(0, size - 4096);
  std::string tail(static_cast<std::size_t>(size - from), '\0');
  const ssize_t n = ::pread(fd, tail.data(), tail.size(), from);
  tail.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r' || tail.back() == ' ')) tail.pop_back();
  std::string line = tail.substr(tail.find_last_of('\n') == std::string::npos ? 0 : tail.find_last_of('\n') + 1);
  if (line.size() > kMostShownBytes) line = line.substr(0, kMostShownBytes) + "...";
  return line;
}

// Address space in use now (bytes), from /proc/self/statm; 0 if unknown.
std::uint64_t address_space_in_use() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t pages = 0;
  statm >> pages;
  return pages * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

void write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone or gave up: nothing left to do
    done += static_cast<std::size_t>(n);
  }
}

[[noreturn]] void run_child(const std::function<std::string()>& work, const IsolationLimits& limits, int fd,
                            int stderr_fd, const std::string& what, const std::filesystem::path& file) {
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  // What the library (or the C library, on heap corruption) prints goes to the parent's capture,
  // not to wobble's stderr: the parent names it in its one-line error.
  if (stderr_fd >= 0) {
    ::dup2(stderr_fd, STDERR_FILENO);
    ::signal(SIGXFSZ, SIG_IGN);  // past the size limit writes fail instead of killing the child
    const rlimit capture{kMostCapturedBytes, kMostCapturedBytes};
    setrlimit(RLIMIT_FSIZE, &capture);
  }
#ifndef WOBBLE_SANITIZED  // sanitizers reserve terabytes of address space up front
  if (limits.memory_bytes > 0) {
    const rlim_t cap = static_cast<rlim_t>(address_space_in_use() + limits.memory_bytes);
    const rlimit memory{cap, cap};
    setrlimit(RLIMIT_AS, &memory);
  }
#endif
  std::string reply;
  try {
    reply = kValue + work();
  } catch (const std::bad_alloc&) {
    reply = std::string(1, kOutOfMemory);
  } catch (const Error& error) {
    reply = kError + std::string(error.what());
  } catch (const std::exception& error) {
    reply = kError + file.string() + ": " + what + " failed: " + error.what();
  } catch (...) {
    reply = kError + file.string() + ": " + what + " failed";
  }
  write_all(fd, reply);
  ::close(fd);
  _exit(0);  // no destructors or atexit handlers: they belong to the parent
}

// Reads the child's reply until it closes the pipe, the deadline passes or it sends too much.
// Returns false on a time-out.
bool read_reply(int fd, double seconds, std::uint64_t max_bytes, std::string& reply, bool& too_long) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::duration<double>(seconds);
  char chunk[1 << 16];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
    if (left <= 0) return false;
    pollfd ready{fd, POLLIN, 0};
    const int polled = ::poll(&ready, 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
    if (polled < 0 && errno == EINTR) continue;
    if (polled == 0) return false;
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    if (reply.size() + static_cast<std::size_t>(n) > max_bytes) {
      too_long = true;
      return true;
    }
    reply.append(chunk, static_cast<std::size_t>(n));
  }
}

}  // namespace

IsolationLimits import_limits(std::uint64_t file_bytes) {
  IsolationLimits limits;
  if (const char* text = std::getenv("WOBBLE_IMPORT_SECONDS"))
    limits.seconds = parse_real(text, "WOBBLE_IMPORT_SECONDS (the import time limit)", 0.1, 1e6);
  limits.memory_bytes = (std::uint64_t(256) << 20) + 2 * read_allocation_ceiling(file_bytes);
  return limits;
}

std::string run_isolated(const std::function<std::string()>& work, const IsolationLimits& limits,
                         const std::string& what, const std::filesystem::path& file) {
#ifdef __EMSCRIPTEN__
  return work();  // no processes in the browser
#else
  int fds[2];
  if (::pipe(fds) != 0) fail(file, "cannot start {} (pipe: {})", what, std::strerror(errno));
  for (int fd : fds) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  const int stderr_fd = open_stderr_capture();
  const pid_t child = ::fork();
  if (child < 0) {
    const int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    if (stderr_fd >= 0) ::close(stderr_fd);
    fail(file, "cannot start {} (fork: {})", what, std::strerror(error));
  }
  if (child == 0) {
    ::close(fds[0]);
    run_child(work, limits, fds[1], stderr_fd, what, file);
  }
  ::close(fds[1]);
  std::string reply;
  bool too_long = false;
  const std::uint64_t max_reply = limits.memory_bytes ? limits.memory_bytes : (std::uint64_t(1) << 40);
  const bool finished = read_reply(fds[0], limits.seconds, max_reply, reply, too_long);
  ::close(fds[0]);
  if (!finished || too_long) ::kill(child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string said = last_stderr_line(stderr_fd);
  if (stderr_fd >= 0) ::close(stderr_fd);
  if (!finished)
    fail(file, "{} did not finish within {} s (WOBBLE_IMPORT_SECONDS sets the limit)", what,
         format_real(limits.seconds));
  if (too_long) fail(file, "{} sent back more than importing this file may allocate", what);
  if (WIFSIGNALED(status))
    fail(file, "{} failed ({}{})", what, signal_text(WTERMSIG(status)), said.empty() ? "" : ": " + said);
  if (reply.empty() || (reply[0] != kValue && reply[0] != kError && reply[0] != kOutOfMemory)) {
    if (WIFEXITED(status)) fail(file, "{} failed (exit status {})", what, WEXITSTATUS(status));
    fail(file, "{} failed without a reply", what);
  }
  if (reply[0] == kError) throw Error(reply.substr(1));
  if (reply[0] == kOutOfMemory)
    fail(file, "{} needed more memory than importing this file may use ({} MiB)", what, limits.memory_bytes >> 20);
  reply.erase(0, 1);
  return reply;
#endif
}

}  // namespace wobble
