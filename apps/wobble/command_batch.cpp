// wobble batch MANIFEST [--jobs N] [--force] [--report FILE] [--quiet] [--scheduler tcp://HOST:PORT]
// Many bakes from one manifest (batch_manifest.hpp), on this machine or on a Dask cluster
// (through the Python package's wobble.batch); docs/batch.md.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>

#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>

#include <wobble/error.hpp>
#include <wobble/io/atomic_file.hpp>

#include "batch_local.hpp"
#include "batch_report.hpp"
#include "commands.hpp"
#include "core/fail.hpp"

namespace wobble::cli {

namespace fs = std::filesystem;

namespace {

struct BatchCommandOptions {
  std::string manifest, report, scheduler;
  std::size_t jobs = 0;  // 0: one per core
  std::optional<std::size_t> job;
  bool force = false, quiet = false, plan = false;
};

std::size_t cores() { return std::max(1u, std::thread::hardware_concurrency()); }

// The cores shared among `jobs` bakes at a time (0: one bake per core, so one thread each).
std::size_t threads_per_bake(std::size_t jobs) { return std::max<std::size_t>(1, cores() / (jobs ? jobs : cores())); }

// --plan: every job with its status before running ("skipped" when up to date, else "pending").
int print_plan(const Manifest& manifest, bool force) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const BatchJob& job : manifest.jobs) {
    const JobPlan plan = plan_job(job);
    JobResult result;
    if (plan.up_to_date && !force) result.status = JobResult::Status::Skipped;
    jobs.push_back(report_entry(job, result));
  }
  std::cout << nlohmann::json{{"manifest", fs::absolute(manifest.path).string()},
                              {"wobble", WOBBLE_VERSION_TEXT},
                              {"jobs", jobs}}
                   .dump()
            << std::endl;
  return 0;
}

// --job K: one job, its report entry on stdout. Run by a Dask worker: dies with it.
int run_one_job(const Manifest& manifest, const BatchCommandOptions& options) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (*options.job >= manifest.jobs.size()) {
    fail(manifest.path, "--job {}: the manifest has {} jobs (0 to {})", *options.job, manifest.jobs.size(),
         manifest.jobs.size() - 1);
  }
  const BatchJob& job = manifest.jobs[*options.job];
  const JobResult result = run_job(job, this_executable(), threads_per_bake(options.jobs), options.force);
  std::cout << report_entry(job, result).dump() << std::endl;
  if (result.status == JobResult::Status::Failed && !options.quiet) {
    std::fprintf(stderr, "wobble: error: %s\n", result.error.c_str());
  }
  return result.status == JobResult::Status::Failed ? 1 : 0;
}

// The report's folder, made and checked before any job runs rather than found unwritable after.
void prepare_report(const fs::path& report) {
  std::error_code ignored;
  if (!report.parent_path().empty()) fs::create_directories(report.parent_path(), ignored);
  AtomicOutput::check(report);
}

int run_here(const Manifest& manifest, const BatchCommandOptions& options) {
  if (!options.report.empty()) prepare_report(options.report);
  LocalBatchOptions local;
  local.jobs = options.jobs ? options.jobs : cores();
  local.threads_per_bake = threads_per_bake(local.jobs);
  local.force = options.force;
  local.wobble = this_executable();
  BatchProgress progress(manifest.jobs.size(), options.quiet);
  const double start = monotonic_seconds();
  const std::vector<JobResult> results = run_locally(manifest, local, progress);
  progress.finish();
  if (!options.report.empty()) write_report(options.report, manifest, results, monotonic_seconds() - start);
  for (const JobResult& result : results) {
    if (result.status == JobResult::Status::Failed) return 1;
  }
  return 0;
}

// --scheduler: the Python package's wobble.batch submits the jobs to the Dask cluster.
[[noreturn]] void run_on_dask(const BatchCommandOptions& options) {
#ifdef WOBBLE_PYTHON_EXECUTABLE
  const char* python = std::getenv("WOBBLE_PYTHON") ? std::getenv("WOBBLE_PYTHON") : WOBBLE_PYTHON_EXECUTABLE;
  const fs::path package = WOBBLE_PYTHON_PACKAGE_DIR;
  std::error_code error;
  if (fs::exists(package / "wobble" / "batch.py", error)) {  // this build's package first
    const char* path = std::getenv("PYTHONPATH");
    setenv("PYTHONPATH", (package.string() + (path && *path ? ":" + std::string(path) : "")).c_str(), 1);
  }
  std::vector<std::string> words = {python,         "-m",
                                    "wobble.batch", options.manifest,
                                    "--scheduler",  options.scheduler,
                                    "--wobble",     this_executable().string()};
  if (options.force) words.push_back("--force");
  if (options.quiet) words.push_back("--quiet");
  if (!options.report.empty()) words.insert(words.end(), {"--report", options.report});
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  std::fflush(nullptr);
  execv(python, argv.data());
  fail_plain("--scheduler: cannot run {} for the Dask client: {}", python, std::strerror(errno));
#else
  fail_plain(
      "--scheduler: this wobble was built without the Python package (WOBBLE_BUILD_PYTHON=OFF), which talks to Dask");
#endif
}

}  // namespace

Runner add_batch_command(CLI::App& app) {
  auto options = std::make_shared<BatchCommandOptions>();
  app.add_option("MANIFEST", options->manifest,
                 "jobs: JSON {\"defaults\": {...}, \"jobs\": [...]} or CSV (docs/batch.md)")
      ->required();
  auto* jobs = app.add_option("-j,--jobs", options->jobs, "bakes at a time on this machine (0: one per core)")
                   ->capture_default_str();
  app.add_flag("--force", options->force, "redo every job, also those whose sidecar says they are up to date");
  app.add_option("--report", options->report, "write a JSON report: per job status, seconds, error");
  app.add_flag("-q,--quiet", options->quiet, "no progress or summary; failed jobs only");
  auto* scheduler =
      app.add_option("--scheduler", options->scheduler,
                     "run on a Dask cluster: its scheduler's address, tcp://HOST:8786 (needs python3-distributed)");
  scheduler->excludes(jobs);
  auto* job = app.add_option("--job", options->job,
                             "run only job K (0-based) and print its report entry as JSON (what Dask workers run)");
  auto* plan = app.add_flag("--plan", options->plan,
                            "print every job's report entry as JSON (status skipped or pending) and run nothing");
  plan->excludes(job)->excludes(scheduler);
  job->excludes(scheduler);

  return [options] {
    if (!options->scheduler.empty()) run_on_dask(*options);
    const Manifest manifest = read_manifest(options->manifest);
    if (options->plan) return print_plan(manifest, options->force);
    if (options->job) return run_one_job(manifest, *options);
    return run_here(manifest, *options);
  };
}

}  // namespace wobble::cli
