#pragma once
// A batch manifest: the jobs of `wobble batch`, each one `wobble bake` command (docs/batch.md).
//   JSON  {"defaults": {KEY: VALUE, ...}, "jobs": [{KEY: VALUE, ...}, ...]}
//   CSV   a header row of KEYs, then one job per row (an empty cell: bake's default)
// KEYs: "input" and "output" (required), "name" (for logs and the report; default: the output as
// written), "settings" (an object with one section per deformer, or the path of a settings file)
// and every option of `wobble bake` (batch_bake_options.hpp: clip, fps, start, end, deformer,
// threads, ...). A job's keys replace the defaults' keys, except "settings": the job's sections
// are laid over the defaults' ones, parameter by parameter. Relative paths are relative to the
// manifest's folder. Validation is strict: an unknown key (named with the closest valid one), a
// value of the wrong type (named by its JSON path), a job without input or output, or two jobs
// writing the same output is an Error naming the manifest.
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace wobble::cli {

// Settings given inline or as a settings file (read when the job runs: a bad file fails its job).
struct SettingsSource {
  nlohmann::json object;       // inline settings, when file is empty
  std::filesystem::path file;  // resolved against the manifest's folder
};

struct BatchJob {
  std::size_t index = 0;  // position in the manifest (0-based)
  std::string name;
  std::filesystem::path input, output;         // resolved; an OBJ-sequence output keeps its trailing '/'
  std::map<std::string, std::string> options;  // bake flag -> text ("" for a switch that is on)
  std::vector<SettingsSource> settings;        // in order: the defaults', then the job's
};

struct Manifest {
  std::filesystem::path path;
  std::vector<BatchJob> jobs;
};

// Reads a .json or .csv manifest. Throws Error naming the manifest and the offending element.
Manifest read_manifest(const std::filesystem::path& path);

}  // namespace wobble::cli
