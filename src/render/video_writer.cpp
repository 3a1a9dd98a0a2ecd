// DESKTOP ONLY: MP4 / GIF through ffmpeg (a child process reading raw RGBA frames on stdin).
// Not compiled for the web.
#include <wobble/render/video_writer.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <wobble/io/atomic_file.hpp>
#include <wobble/error.hpp>

#include "core/fail.hpp"

extern char** environ;

namespace wobble::render {

namespace fs = std::filesystem;

fs::path find_ffmpeg() {
  const char* path = std::getenv("PATH");
  std::stringstream folders(path ? path : "");
  std::string folder;
  while (std::getline(folders, folder, ':')) {
    if (folder.empty()) continue;
    const fs::path candidate = fs::path(folder) / "ffmpeg";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

struct VideoWriter::State {
  std::unique_ptr<AtomicOutput> output;
  int log = -1;  // ffmpeg's messages, in memory: never on the output's (maybe full) disk
  pid_t child = -1;
  int pipe = -1;
  int width = 0, height = 0;
  bool failed = false;

  ~State() {
    if (log >= 0) ::close(log);
  }
  // Waits for ffmpeg; true if it exited with 0 and said nothing (it runs at -loglevel error, and
  // ffmpeg 5 exits with 0 when it cannot write the trailer: "No space left on device").
  bool wait() {
    if (pipe >= 0) ::close(pipe), pipe = -1;
    if (child < 0) return false;
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    child = -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 && last_log_line().empty();
  }
  std::string log_text() const {
    std::string text(static_cast<std::size_t>(std::max<off_t>(0, ::lseek(log, 0, SEEK_END))), '\0');
    const ssize_t read = ::pread(log, text.data(), text.size(), 0);
    text.resize(static_cast<std::size_t>(std::max<ssize_t>(0, read)));
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    return text;
  }
  std::string last_log_line() const {
    const std::string text = log_text();
    return text.substr(text.find_last_of('\n') + 1);
  }
  // ffmpeg's error as ours: "cannot write: REASON" where it could not write the temporary (its
  // line ends with the temporary's name, a colon and errno's text), else its last line.
  [[noreturn]] void fail_with_log(const char* what) const {
    const std::string text = log_text(), file = output->temporary().string() + ": ";
    const std::size_t at = text.rfind(file);
    if (at != std::string::npos) {
      const std::size_t begin = at + file.size(), end = text.find('\n', begin);
      fail(output->target(), "cannot write: {}", text.substr(begin, end == std::string::npos ? end : end - begin));
    }
    const std::string line = last_log_line();
    fail(output->target(), "{}: {}", what, line.empty() ? "no message" : line);
  }
};

VideoWriter::VideoWriter(const fs::path& target, int width, int height, double fps)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  std::string extension = target.extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension != ".mp4" && extension != ".gif") fail(target, "unknown video type '{}' (use .mp4 or .gif)", extension);
  const fs::path ffmpeg = find_ffmpeg();
  if (ffmpeg.empty()) fail(target, "writing {} needs ffmpeg, which is not on PATH (Debian package ffmpeg)", extension);
  s.output = std::make_unique<AtomicOutput>(target);
  s.log = ::memfd_create("wobble-ffmpeg-log", MFD_CLOEXEC);
  if (s.log < 0) fail(target, "cannot make a log for ffmpeg: {}", std::strerror(errno));
  s.width = width;
  s.height = height;

  const std::string size = std::to_string(width) + "x" + std::to_string(height);
  std::vector<std::string> arguments = {ffmpeg.string(),     "-nostdin", "-y",    "-loglevel", "error", "-f",
                                        "rawvideo",          "-pix_fmt", "rgba",  "-s",        size,    "-r",
                                        std::to_string(fps), "-i",       "pipe:0"};
  if (extension == ".mp4") {
    // H.264 in yuv420p needs even sizes: pad by one pixel where needed.
    for (const char* a : {"-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-preset", "veryfast", "-crf",
                          "20", "-pix_fmt", "yuv420p", "-movflags", "+faststart", "-f", "mp4"}) {
      arguments.emplace_back(a);
    }
  } else {
    for (const char* a : {"-vf", "split[a][b];[a]palettegen[p];[b][p]paletteuse", "-f", "gif"})
      arguments.emplace_back(a);
  }
  arguments.push_back(s.output->temporary().string());

  int fds[2];
  if (::pipe(fds) != 0) fail(target, "cannot create a pipe to ffmpeg");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, s.log, STDERR_FILENO);
  std::vector<char*> argv;
  for (std::string& a : arguments) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int spawned = posix_spawn(&s.child, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[0]);
  if (spawned != 0) {
    ::close(fds[1]);
    s.child = -1;
    fail(target, "cannot start ffmpeg ({})", std::strerror(spawned));
  }
  s.pipe = fds[1];
  // A dying ffmpeg must not kill us with SIGPIPE: writes then fail with EPIPE instead.
  std::signal(SIGPIPE, SIG_IGN);
}

VideoWriter::~VideoWriter() {
  if (state_) state_->wait();
}

void VideoWriter::add_frame(const RgbaImage& frame) {
  State& s = *state_;
  if (frame.width != s.width || frame.height != s.height) {
    fail(s.output->target(), "frame of {}x{} in a {}x{} video", frame.width, frame.height, s.width, s.height);
  }
  const auto* data = reinterpret_cast<const char*>(frame.pixels.data());
  std::size_t left = frame.pixels.size();
  while (left > 0 && !s.failed) {
    const ssize_t written = ::write(s.pipe, data, left);
    if (written < 0) {
      if (errno == EINTR) continue;
      s.failed = true;
      break;
    }
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  if (s.failed) {
    s.wait();
    s.fail_with_log("ffmpeg stopped");
  }
}

void VideoWriter::finish() {
  State& s = *state_;
  if (!s.wait()) s.fail_with_log("ffmpeg failed");
  s.output->commit();
}

}  // namespace wobble::render
