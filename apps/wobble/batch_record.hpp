#pragma once
// What a finished batch job records next to its output, so that a re-run can skip it: a small
// sidecar OUT.wobble-job.json with the job's fingerprint, a 64-bit FNV-1a hash of everything
// the output depends on: the input file's contents (and a .gltf file's external buffers and
// images), the settings, the bake options (less --threads: results are the same bytes for any
// thread count) and wobble's version. The job's log is OUT.wobble-job.log. For an OBJ-sequence
// folder "out/frames/" they are out/frames.wobble-job.json and out/frames.wobble-job.log.
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "batch_manifest.hpp"

namespace wobble::cli {

std::filesystem::path job_sidecar_path(const BatchJob& job);
std::filesystem::path job_log_path(const BatchJob& job);

// What the output depends on, as JSON (written into the sidecar for people to read), or nullopt
// when an input file cannot be read (the bake then names the problem).
std::optional<nlohmann::json> job_dependencies(const BatchJob& job, const nlohmann::json& settings);
std::string fingerprint_of(const nlohmann::json& dependencies);  // 16 hex digits

// True when the sidecar holds this fingerprint and the output exists.
bool job_is_up_to_date(const BatchJob& job, const std::string& fingerprint);
// Writes the sidecar atomically (after the output is in place).
void record_finished_job(const BatchJob& job, const nlohmann::json& dependencies, const std::string& command);

}  // namespace wobble::cli
