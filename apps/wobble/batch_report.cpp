#include "batch_report.hpp"

#include <wobble/io/output_file.hpp>
#include <wobble/error.hpp>

#include "batch_record.hpp"
#include "core/fail.hpp"

namespace wobble::cli {

namespace fs = std::filesystem;
using nlohmann::json;

json report_entry(const BatchJob& job, const JobResult& result) {
  return {{"index", job.index},
          {"name", job.name},
          {"input", job.input.string()},
          {"output", job.output.string()},
          {"log", job_log_path(job).string()},
          {"status", status_name(result.status)},
          {"seconds", result.seconds},
          {"error", result.error.empty() ? json(nullptr) : json(result.error)}};
}

void write_report(const fs::path& file, const Manifest& manifest, const std::vector<JobResult>& results,
                  double seconds) {
  json counts = {{"done", 0}, {"skipped", 0}, {"failed", 0}};
  json jobs = json::array();
  for (const BatchJob& job : manifest.jobs) {
    const JobResult& result = results[job.index];
    if (result.status != JobResult::Status::Pending)
      counts[status_name(result.status)] = counts[status_name(result.status)].get<int>() + 1;
    jobs.push_back(report_entry(job, result));
  }
  std::error_code error;
  if (!file.parent_path().empty()) fs::create_directories(file.parent_path(), error);
  write_output(file, json{{"manifest", fs::absolute(manifest.path).string()},
                          {"wobble", WOBBLE_VERSION_TEXT},
                          {"seconds", seconds},
                          {"counts", counts},
                          {"jobs", jobs}}
                             .dump(2) +
                         "\n");
}

}  // namespace wobble::cli
