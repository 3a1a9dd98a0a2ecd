#include "batch_job.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <random>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/core.h>

#include <wobble/error.hpp>
#include <wobble/io/output_file.hpp>

#include "core/json_values.hpp"

#include "batch_record.hpp"
#include "core/fail.hpp"
#include "io/wait_status.hpp"

namespace wobble::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kErrorPrefix = "wobble: error: ";  // main.cpp's one-line errors

// As `wobble bake --settings FILE` reads it (deformer_options.cpp), with the same messages.
json read_settings_file(const fs::path& file) {
  const json settings = read_json_file(file, "settings file");
  if (!settings.is_object()) fail(file, "settings must be a JSON object with one section per deformer");
  return settings;
}

// The layers in order; a later layer's section replaces the earlier one's parameters one by one.
// Values are passed on whole: deformer parameters are bake's to read.
json merged_settings(const BatchJob& job) {
  json merged = json::object();
  for (const SettingsSource& layer : job.settings) {
    const json object = layer.file.empty() ? layer.object : read_settings_file(layer.file);
    for (const auto& [section, parameters] : object.items()) {
      if (merged.contains(section) && merged[section].is_object() && parameters.is_object()) {
        for (const auto& [key, value] : parameters.items()) merged[section][key] = value;
      } else {
        merged[section] = parameters;
      }
    }
  }
  return merged;
}

bool needs_quotes(const std::string& word) {
  if (word.empty()) return true;
  for (char c : word) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_./:=,+-@%", c))) return true;
  }
  return false;
}

std::string shell_words(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& word : words) {
    if (!line.empty()) line += ' ';
    if (!needs_quotes(word)) {
      line += word;
      continue;
    }
    line += '\'';
    for (char c : word) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

fs::path output_target(const BatchJob& job) {
  const fs::path output = job.output;
  return output.filename().empty() ? output.parent_path() : output;  // "out/frames/" is the folder out/frames
}

// Removes what an interrupted bake of this output left behind (AtomicOutput's temporary
// siblings, ".NAME.tmp-HOST-PID-NUMBER"), and the old sidecar: from now on the output is not known good.
void clear_old_records(const BatchJob& job) {
  std::error_code ignored;
  fs::remove(job_sidecar_path(job), ignored);
  const fs::path target = output_target(job);
  const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  const std::string prefix = "." + target.filename().string() + ".tmp-";
  for (fs::directory_iterator it(folder, ignored), end; !ignored && it != end; it.increment(ignored)) {
    if (it->path().filename().string().rfind(prefix, 0) == 0) fs::remove_all(it->path(), ignored);
  }
}

fs::path write_settings_file(const BatchJob& job, const json& settings) {
  std::random_device random;
  const fs::path file =
      fs::temp_directory_path() / fmt::format("wobble-batch-{}-{}-{}.json", getpid(), job.index, random() % 1000000);
  OutputFile out(file, file);
  out.write(settings.dump() + "\n");
  out.close();
  return file;
}

std::vector<std::string> bake_command(const BatchJob& job, const fs::path& wobble, const fs::path& settings,
                                      std::size_t threads) {
  std::string input = job.input.string();
  if (!input.empty() && input.front() == '-') input = "./" + input;  // not an option
  std::vector<std::string> words = {wobble.string(), "bake", input};
  for (const auto& [flag, text] : job.options) words.push_back(text.empty() ? "--" + flag : "--" + flag + "=" + text);
  if (!job.options.count("threads")) words.push_back("--threads=" + std::to_string(threads));
  words.push_back("--settings=" + settings.string());
  words.push_back("--output=" + job.output.string());
  return words;
}

// The last "wobble: error: ..." line of the log, without its prefix.
std::string error_from_log(const fs::path& log) {
  std::ifstream in(log);
  std::string line, error;
  while (std::getline(in, line)) {
    if (line.rfind(kErrorPrefix, 0) == 0) error = line.substr(std::strlen(kErrorPrefix));
  }
  return error;
}

[[noreturn]] void exec_child(int log, const std::vector<char*>& argv, pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // the parent died before prctl
  const int null_input = open("/dev/null", O_RDONLY);
  if (null_input >= 0) dup2(null_input, STDIN_FILENO);
  dup2(log, STDOUT_FILENO);
  dup2(log, STDERR_FILENO);
  execv(argv[0], argv.data());
  const char message[] = "wobble: error: batch: cannot run wobble bake\n";
  [[maybe_unused]] const ssize_t written = write(STDERR_FILENO, message, sizeof message - 1);
  _exit(127);
}

}  // namespace

const char* status_name(JobResult::Status status) {
  switch (status) {
    case JobResult::Status::Pending: return "pending";
    case JobResult::Status::Done: return "done";
    case JobResult::Status::Skipped: return "skipped";
    case JobResult::Status::Failed: return "failed";
  }
  return "pending";
}

double monotonic_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

fs::path this_executable() {
  std::error_code error;
  fs::path path = fs::read_symlink("/proc/self/exe", error);
  if (error) fail_plain("batch: cannot find the wobble executable (/proc/self/exe): {}", error.message());
  return path;
}

JobPlan plan_job(const BatchJob& job) {
  JobPlan plan;
  try {
    plan.settings = merged_settings(job);
  } catch (const Error& error) {
    plan.error = error.what();
    return plan;
  }
  plan.dependencies = job_dependencies(job, plan.settings);
  plan.up_to_date = plan.dependencies && job_is_up_to_date(job, fingerprint_of(*plan.dependencies));
  return plan;
}

BakeProcess::BakeProcess(const BatchJob& job, JobPlan plan, const fs::path& wobble, std::size_t threads)
    : job_(job), plan_(std::move(plan)) {
  clear_old_records(job);
  std::error_code error;
  const fs::path folder = output_target(job).parent_path();
  if (!folder.empty()) fs::create_directories(folder, error);
  if (error) fail(folder, "cannot create the output folder: {}", error.message());
  settings_file_ = write_settings_file(job, plan_.settings);
  const std::vector<std::string> words = bake_command(job, wobble, settings_file_, threads);
  command_ = shell_words(words);
  const fs::path log = job_log_path(job);
  const int log_fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) fail(log, "cannot write the job's log: {}", std::strerror(errno));
  const std::string header = command_ + "\nsettings: " + plan_.settings.dump() + "\n";
  [[maybe_unused]] const ssize_t written = write(log_fd, header.data(), header.size());
  std::vector<char*> argv;
  for (const std::string& word : words) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  start_seconds_ = monotonic_seconds();
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ == 0) exec_child(log_fd, argv, parent);
  const int fork_error = errno;
  close(log_fd);
  if (pid_ < 0) fail(log, "cannot start wobble bake: {}", std::strerror(fork_error));
}

BakeProcess::~BakeProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  std::error_code ignored;
  if (!settings_file_.empty()) fs::remove(settings_file_, ignored);
}

JobResult BakeProcess::finish(int wait_status) {
  pid_ = -1;  // reaped
  JobResult result;
  result.seconds = monotonic_seconds() - start_seconds_;
  if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) {
    result.status = JobResult::Status::Done;
    try {
      if (plan_.dependencies) record_finished_job(job_, *plan_.dependencies, command_);
    } catch (const Error& error) {
      result.status = JobResult::Status::Failed;
      result.error = error.what();
    }
    return result;
  }
  result.status = JobResult::Status::Failed;
  result.error = error_from_log(job_log_path(job_));
  if (result.error.empty()) {
    result.error =
        fmt::format("wobble bake {} (see {})", describe_wait_status(wait_status), job_log_path(job_).string());
  }
  return result;
}

JobResult run_job(const BatchJob& job, const fs::path& wobble, std::size_t threads, bool force) {
  JobPlan plan = plan_job(job);
  if (!plan.error.empty()) return {JobResult::Status::Failed, 0, plan.error};
  if (plan.up_to_date && !force) return {JobResult::Status::Skipped, 0, {}};
  try {
    BakeProcess process(job, std::move(plan), wobble, threads);
    int status = 0;
    while (waitpid(process.pid(), &status, 0) < 0) {
      if (errno != EINTR) fail_plain("batch: lost the bake of {}: {}", job.name, std::strerror(errno));
    }
    return process.finish(status);
  } catch (const Error& error) {
    return {JobResult::Status::Failed, 0, error.what()};
  }
}

}  // namespace wobble::cli
