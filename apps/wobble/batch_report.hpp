#pragma once
// The batch report (--report FILE, docs/batch.md): per job its status, seconds and error.
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "batch_job.hpp"

namespace wobble::cli {

// {"index", "name", "input", "output", "log", "status", "seconds", "error" (null when none)}:
// one job's line of the report; also what `wobble batch --job K` and `--plan` print.
nlohmann::json report_entry(const BatchJob& job, const JobResult& result);
// {"manifest", "wobble", "seconds", "counts": {"done", "skipped", "failed"}, "jobs": [entry...]},
// written atomically (the folder is made when missing).
void write_report(const std::filesystem::path& file, const Manifest& manifest, const std::vector<JobResult>& results,
                  double seconds);

}  // namespace wobble::cli
