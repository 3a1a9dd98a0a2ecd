#pragma once
// Runs a manifest's jobs on this machine, up to `jobs` bakes at a time, each a child process.
#include <cstddef>
#include <filesystem>
#include <vector>

#include "batch_job.hpp"
#include "batch_progress.hpp"

namespace wobble::cli {

struct LocalBatchOptions {
  std::size_t jobs = 1;              // bakes at a time
  std::size_t threads_per_bake = 1;  // --threads of each bake (unless its job sets threads)
  bool force = false;                // redo jobs that are up to date
  std::filesystem::path wobble;      // the executable to run `bake` with
};

// One result per job, in manifest order; a job's problem is its failed result, never a throw.
std::vector<JobResult> run_locally(const Manifest& manifest, const LocalBatchOptions& options, BatchProgress& progress);

}  // namespace wobble::cli
