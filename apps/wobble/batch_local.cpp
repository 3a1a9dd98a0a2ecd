#include "batch_local.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include <sys/wait.h>

#include <wobble/error.hpp>

#include "core/fail.hpp"

namespace wobble::cli {

namespace {

// Starts the job's bake, or settles it at once (skipped, or failed before it could start).
std::unique_ptr<BakeProcess> start_job(const BatchJob& job, const LocalBatchOptions& options, JobResult& result) {
  JobPlan plan = plan_job(job);
  if (!plan.error.empty()) {
    result = {JobResult::Status::Failed, 0, plan.error};
  } else if (plan.up_to_date && !options.force) {
    result = {JobResult::Status::Skipped, 0, {}};
  } else {
    try {
      return std::make_unique<BakeProcess>(job, std::move(plan), options.wobble, options.threads_per_bake);
    } catch (const Error& error) {
      result = {JobResult::Status::Failed, 0, error.what()};
    }
  }
  return nullptr;
}

}  // namespace

std::vector<JobResult> run_locally(const Manifest& manifest, const LocalBatchOptions& options,
                                   BatchProgress& progress) {
  std::vector<JobResult> results(manifest.jobs.size());
  std::vector<std::unique_ptr<BakeProcess>> running;
  std::size_t next = 0;
  while (next < manifest.jobs.size() || !running.empty()) {
    while (running.size() < std::max<std::size_t>(options.jobs, 1) && next < manifest.jobs.size()) {
      const BatchJob& job = manifest.jobs[next++];
      if (auto process = start_job(job, options, results[job.index])) {
        running.push_back(std::move(process));
      } else {
        progress.job_finished(job, results[job.index]);
      }
    }
    progress.set_running(running.size());
    progress.draw();
    if (running.empty()) continue;
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid == 0 || (pid < 0 && errno == EINTR)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the bar's clock ticks meanwhile
      continue;
    }
    if (pid < 0) fail_plain("batch: lost track of the running bakes: {}", std::strerror(errno));
    for (auto it = running.begin(); it != running.end(); ++it) {
      if ((*it)->pid() != pid) continue;
      const BatchJob& job = (*it)->job();
      results[job.index] = (*it)->finish(status);
      running.erase(it);
      progress.set_running(running.size());
      progress.job_finished(job, results[job.index]);
      break;
    }
  }
  return results;
}

}  // namespace wobble::cli
