#pragma once
// One batch job run as a child process `wobble bake ...`: exactly the command a person would
// type for it, so its output is the same bytes. The job's settings (the manifest's layers merged)
// go to bake through a temporary settings file; bake's messages go to the job's log.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include <nlohmann/json.hpp>

#include "batch_manifest.hpp"

namespace wobble::cli {

struct JobResult {
  enum class Status { Pending, Done, Skipped, Failed };
  Status status = Status::Pending;
  double seconds = 0;  // wall time of the bake
  std::string error;   // the one-line error, for a failed job
};
const char* status_name(JobResult::Status status);  // "pending", "done", "skipped", "failed"

// What a job will do, decided before it runs.
struct JobPlan {
  nlohmann::json settings = nlohmann::json::object();  // the settings bake gets
  std::optional<nlohmann::json> dependencies;          // nullopt: an input cannot be read (bake will say why)
  std::string error;                                   // a settings file that cannot be used: the job fails
  bool up_to_date = false;                             // its sidecar matches: skipped unless forced
};
JobPlan plan_job(const BatchJob& job);

// A running `wobble bake` for one job. The child dies with its parent (PR_SET_PDEATHSIG).
class BakeProcess {
 public:
  // Removes the job's old sidecar and stale temporaries, makes the output's folder, writes the
  // settings file and starts the bake with --threads `threads` (unless the job sets threads).
  // Throws Error when it cannot start.
  BakeProcess(const BatchJob& job, JobPlan plan, const std::filesystem::path& wobble, std::size_t threads);
  ~BakeProcess();  // kills the child if still running; removes the settings file
  BakeProcess(const BakeProcess&) = delete;
  BakeProcess& operator=(const BakeProcess&) = delete;

  pid_t pid() const { return pid_; }
  const BatchJob& job() const { return job_; }
  // After waitpid() reported `wait_status`: records the sidecar when the bake succeeded, else
  // takes the error line from the log.
  JobResult finish(int wait_status);

 private:
  const BatchJob& job_;
  JobPlan plan_;
  std::filesystem::path settings_file_;
  std::string command_;  // for the log and the sidecar
  pid_t pid_ = -1;
  double start_seconds_ = 0;
};

// Runs one job to the end (skipped when up to date and not forced). Never throws for a problem
// of the job itself: that is a failed result.
JobResult run_job(const BatchJob& job, const std::filesystem::path& wobble, std::size_t threads, bool force);

// The path of the running wobble executable (/proc/self/exe).
std::filesystem::path this_executable();
double monotonic_seconds();

}  // namespace wobble::cli
